"""The randomisation (sign-flip) and bootstrap kernels, vectorised over pairs of systems.

All pairs share one random matrix: the sign flips (or bootstrap draws) depend only on the seed and the
number of queries, so one matrix product per block of resamples tests every pair at once, and a pair's
p-value is the same whether it is tested alone or with others.

The randomisation test takes the pairs in chunks sized to a memory budget (:data:`MEMORY`): for each block
of ``BLOCK`` sign-flip rows ``S`` (drawn once) and each chunk of pairs with differences ``D`` (queries x
pairs), one product ``S @ D`` in float64. Chunks are independent, so a Dask client can take one each
(:func:`permutation_counts`); every pair's count is the same whatever the chunking.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from metrics.checks import COUNT, SEED, checked
from metrics.errors import ValidationError
from metrics.stats.significance._inputs import EXACT_MAX

BLOCK = 256
"""Resamples drawn per block. The draws do not depend on it (each block takes the generator's next
words, and an even number of bounded integers, so none is left half-used), only memory and speed do."""

MEMORY = 256 * 2 ** 20
"""Bytes the randomisation test's working arrays of one chunk of pairs may take at once (the flipped sums of
one block of resamples, their comparison, and the chunk's differences); a chunk holds at least one pair."""

TOLERANCE = 1e-12
"""A resampled statistic within ``TOLERANCE`` times the sum of ``|d|`` of the observed one reaches it
(rounding in the sums must not decide whether an equal value counts)."""


def flip_bits(n: int, n_resamples: int, seed: int) -> Iterator[np.ndarray]:
    """Blocks of the sign-flip matrix as 0/1 bits (1 = swap the two systems on that query).

    Each resample reads ``ceil(n / 64)`` 64-bit words of ``numpy.random.Generator(PCG64(seed))`` and uses
    their low ``n`` bits (little-endian), so the matrix depends on ``(n, seed)`` only and a shorter draw
    is a prefix of a longer one.
    """
    rng = np.random.Generator(np.random.PCG64(seed))
    words = (n + 63) // 64
    top = np.iinfo(np.uint64).max
    for start in range(0, n_resamples, BLOCK):
        rows = min(BLOCK, n_resamples - start)
        raw = rng.integers(0, top, size=(rows, words), dtype=np.uint64, endpoint=True).astype("<u8")
        yield np.unpackbits(raw.view(np.uint8), axis=1, bitorder="little")[:, :n]


@checked(n_queries=COUNT, n_resamples=COUNT, seed=SEED)
def sign_flip_matrix(n_queries: int, n_resamples: int, seed: int = 0) -> np.ndarray:
    """The ±1 sign-flip matrix the randomisation test draws (materialised; for inspection and tests).

    Parameters
    ----------
    n_queries, n_resamples : int
    seed : int, default=0

    Returns
    -------
    numpy.ndarray
        Shape ``(n_resamples, n_queries)``, dtype int8, entries +1 (keep) or -1 (swap the two systems).

    Notes
    -----
    Row r is resample r. It reads the next ``w = ceil(n_queries / 64)`` 64-bit words of
    ``numpy.random.Generator(PCG64(seed))``; bit j of those words (low bits first) is 1 when query j's two
    scores are swapped, and the sign is ``s_rj = 1 - 2 bit_j``. Every sign is an independent fair coin;
    the matrix depends on ``(n_queries, seed)`` only, and its first rows do not depend on
    ``n_resamples``. The randomisation test's flipped sums are ``sum_j s_rj d_j``.

    Examples
    --------
    >>> m = sign_flip_matrix(5, 3, seed=1)
    >>> m.shape, sorted(set(m.ravel().tolist())) == [-1, 1]
    ((3, 5), True)
    >>> bool((m == sign_flip_matrix(5, 3, seed=1)).all())
    True
    """
    bits = np.concatenate(list(flip_bits(n_queries, n_resamples, seed)), axis=0)
    return (1 - 2 * bits.astype(np.int8)).astype(np.int8)


def threshold(D: np.ndarray) -> np.ndarray:
    """|observed sum| less the tolerance, per row."""
    return np.abs(D.sum(axis=1)) - TOLERANCE * np.abs(D).sum(axis=1)


def exact_counts(D: np.ndarray) -> np.ndarray:
    """For each row, how many of the ``2**n`` sign patterns give ``|sum s_i d_i| >=`` the observed one.

    The sums are those of two halves' patterns, ``(2**h) x (2**(n-h))`` per row, so memory stays at
    ``2**n`` values for one row at a time.
    """
    n = D.shape[1]
    h = n // 2
    signs = [1.0 - 2.0 * ((np.arange(2 ** m)[:, None] >> np.arange(m)) & 1) for m in (h, n - h)]
    reach = threshold(D)
    count = np.empty(D.shape[0], dtype=np.int64)
    for i, d in enumerate(D):
        s1, s2 = signs[0] @ d[:h], signs[1] @ d[h:]
        count[i] = np.count_nonzero(np.abs(s1[:, None] + s2[None, :]) >= reach[i])
    return count


def permutation_kernel(D: np.ndarray, n_resamples: int, seed: int, *, memory: int | None = None,
                       client: Any = None) -> tuple[np.ndarray, np.ndarray, bool]:
    """Mean difference, two-sided p-value, and whether it is exact, for every row of ``D``.

    Up to :data:`EXACT_MAX` queries: ``count / 2**n`` over all sign patterns (the observed one
    included). Beyond: ``(b + 1) / (n_resamples + 1)`` with ``b`` the random patterns reaching the
    observed ``|sum|`` (:func:`permutation_counts`).
    """
    n = D.shape[1]
    if n <= EXACT_MAX:
        return D.mean(axis=1), exact_counts(D) / 2.0 ** n, True
    count = permutation_counts(D, n_resamples, seed, memory=memory, client=client)
    return D.mean(axis=1), (count + 1.0) / (n_resamples + 1.0), False


def pair_chunks(n_pairs: int, n_queries: int, memory: int | None = None) -> list[slice]:
    """Consecutive slices of the pairs, each small enough that one chunk's working arrays fit ``memory``.

    A pair of the chunk takes ``BLOCK`` flipped sums (float64) and their comparison (bool) per block of
    resamples, and its ``n_queries`` differences; the block of flips (``BLOCK x n_queries`` float64) is
    shared by the chunks. ``memory=None`` is :data:`MEMORY`.
    """
    memory = MEMORY if memory is None else memory
    per_pair = BLOCK * 9 + n_queries * 8
    width = max(1, (int(memory) - BLOCK * n_queries * 8) // per_pair)
    return [slice(start, min(n_pairs, start + width)) for start in range(0, n_pairs, width)]


def permutation_counts(D: np.ndarray, n_resamples: int, seed: int, *, memory: int | None = None,
                       client: Any = None) -> np.ndarray:
    """For every row of ``D`` (pairs x queries), how many of the random sign patterns reach its ``|sum|``.

    Parameters
    ----------
    D : numpy.ndarray
        Differences ``b - a``, one row per pair.
    n_resamples, seed : int
        The sign-flip matrix ``S`` (:func:`sign_flip_matrix`), shared by every pair.
    memory : int, optional
        Bytes one chunk's working arrays may take (:func:`pair_chunks`); default :data:`MEMORY`.
    client : distributed.Client, optional
        Spread the chunks over this Dask cluster (at least one chunk per worker thread); each worker draws
        the same ``S`` from the seed. Default: the chunks run here, one after another.

    Returns
    -------
    numpy.ndarray
        int64 counts ``b``, one per row.

    Notes
    -----
    A pattern reaches the observed sum when ``|sum_i s_i d_i| >= |sum_i d_i| - TOLERANCE sum_i |d_i|``,
    with ``sum_i s_i d_i = sum_i d_i - 2 sum_i bit_i d_i``. The sums of a chunk are one float64 product
    per block of flips; the tolerance, far above rounding, makes the counts independent of how the pairs
    are chunked (a product's last bit may depend on the shape BLAS is given).
    """
    chunks = pair_chunks(D.shape[0], D.shape[1], memory)
    if client is None:
        return _counts_local(D, n_resamples, seed, chunks)
    if not (callable(getattr(client, "map", None)) and callable(getattr(client, "gather", None))):
        raise ValidationError(f"client: expected a dask.distributed Client, found {type(client).__name__}")
    threads = sum(client.nthreads().values()) or 1
    if len(chunks) < threads:  # one chunk per worker thread at least
        width = -(-D.shape[0] // threads)
        chunks = [slice(s, min(D.shape[0], s + width)) for s in range(0, D.shape[0], width)]
    parts = client.scatter([np.ascontiguousarray(D[c]) for c in chunks], hash=False)
    futures = client.map(_counts_chunk, parts, n_resamples=n_resamples, seed=seed, memory=memory)
    return np.concatenate(client.gather(futures)).astype(np.int64)


def _counts_chunk(D: np.ndarray, n_resamples: int, seed: int, memory: int | None) -> np.ndarray:
    """:func:`permutation_counts` of one chunk, on a worker (it draws the flips from the seed itself)."""
    return _counts_local(D, n_resamples, seed, pair_chunks(D.shape[0], D.shape[1], memory))


def _counts_local(D: np.ndarray, n_resamples: int, seed: int, chunks: list[slice]) -> np.ndarray:
    """The counts of :func:`permutation_counts`: the flips drawn once per block, every chunk reads them."""
    n = D.shape[1]
    DT = [np.ascontiguousarray(D[c].T) for c in chunks]  # queries x pairs, per chunk
    total = [D[c].sum(axis=1) for c in chunks]
    reach = [threshold(D[c]) for c in chunks]
    count = np.zeros(D.shape[0], dtype=np.int64)
    width = max((c.stop - c.start for c in chunks), default=0)
    flips = np.empty((BLOCK, n))  # reused: no fresh pages per block
    sums, hits = np.empty(BLOCK * width), np.empty(BLOCK * width, dtype=bool)  # flat: contiguous views below
    for bits in flip_bits(n, n_resamples, seed):
        rows = bits.shape[0]
        np.copyto(flips[:rows], bits)
        for c, dt, tot, rea in zip(chunks, DT, total, reach):
            w = c.stop - c.start
            s, h = sums[:rows * w].reshape(rows, w), hits[:rows * w].reshape(rows, w)
            np.matmul(flips[:rows], dt, out=s)
            s *= -2.0  # |total - 2 sums|, in place (-2 x is exact, so the same numbers)
            s += tot
            np.abs(s, out=s)
            np.greater_equal(s, rea, out=h)
            count[c] += np.count_nonzero(h, axis=0)
    return count


def resample_counts(n: int, n_resamples: int, seed: int) -> Iterator[np.ndarray]:
    """Blocks of the bootstrap matrix: how often each query is drawn in each resample (one row each).

    The draws are ``Generator(PCG64(seed)).integers(0, n, size=(rows, n))`` block after block, the same
    stream as ``scipy.stats.bootstrap(..., rng=numpy.random.default_rng(seed))`` draws.
    """
    rng = np.random.Generator(np.random.PCG64(seed))
    offsets = n * np.arange(BLOCK)[:, None]
    for start in range(0, n_resamples, BLOCK):
        rows = min(BLOCK, n_resamples - start)
        picks = rng.integers(0, n, size=(rows, n))
        picks += offsets[:rows]  # resample r counts in bins r*n ... r*n + n - 1
        yield np.bincount(picks.ravel(), minlength=rows * n).reshape(rows, n)


def bootstrap_kernel(D: np.ndarray, constant: np.ndarray, n_resamples: int, seed: int, ci: str, confidence: float):
    """Paired bootstrap of every row: mean, p-value of the null-shifted means, and the interval's ends.

    ``p = (b + 1) / (B + 1)``, ``b = #{|mean*_r - mean| >= |mean|}``; the percentile interval takes the
    ``(1 - confidence)/2`` and ``(1 + confidence)/2`` quantiles of the ``mean*_r``; BCa moves those levels
    by the bias ``z0`` and the acceleration ``a`` as :func:`scipy.stats.bootstrap` does. Rows marked
    ``constant`` get the one-point interval ``[mean, mean]``.
    """
    from scipy import special

    P, n = D.shape
    DT = np.ascontiguousarray(D.T)
    means = np.empty((n_resamples, P))
    weights = np.empty((BLOCK, n))
    for start, counts in zip(range(0, n_resamples, BLOCK), resample_counts(n, n_resamples, seed)):
        rows = counts.shape[0]
        np.copyto(weights[:rows], counts)
        np.matmul(weights[:rows], DT, out=means[start:start + rows])
    means /= n
    theta = D.mean(axis=1)
    tol = TOLERANCE * np.abs(D).mean(axis=1)
    count = np.count_nonzero(np.abs(means - theta) >= np.abs(theta) - tol, axis=0)
    p = (count + 1.0) / (n_resamples + 1.0)
    alpha = (1.0 - confidence) / 2.0
    if ci == "percentile":
        q_low, q_high = np.full(P, alpha), np.full(P, 1.0 - alpha)
    else:
        # the share of resampled means below the observed one, ties counted half (as scipy); a tie is
        # decided within the tolerance, so that rounding in the sums does not move z0
        share = (np.count_nonzero(means < theta - tol, axis=0)
                 + np.count_nonzero(means <= theta + tol, axis=0)) / (2.0 * n_resamples)
        centred = D - theta[:, None]  # jackknife of the mean: mean(.) - mean(-i) = (d_i - mean) / (n - 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            z0 = special.ndtri(share)
            accel = (centred ** 3).sum(axis=1) / (6.0 * ((centred ** 2).sum(axis=1)) ** 1.5)
            z = special.ndtri(alpha)
            q_low = special.ndtr(z0 + (z0 + z) / (1.0 - accel * (z0 + z)))
            q_high = special.ndtr(z0 + (z0 - z) / (1.0 - accel * (z0 - z)))
        q_low, q_high = np.where(constant, alpha, q_low), np.where(constant, 1.0 - alpha, q_high)
    ordered = np.sort(means, axis=0)
    low, high = quantiles(ordered, q_low), quantiles(ordered, q_high)
    return theta, p, np.where(constant, theta, low), np.where(constant, theta, high)


def quantiles(ordered: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Column-wise quantiles of sorted columns (numpy's default 'linear' rule) at one level per column;
    NaN where the level is not a number (a BCa level of a degenerate distribution)."""
    B = ordered.shape[0]
    ok = np.isfinite(q)
    h = np.where(ok, q, 0.0) * (B - 1)
    lo = np.clip(np.floor(h).astype(np.int64), 0, B - 1)
    hi = np.minimum(lo + 1, B - 1)
    cols = np.arange(ordered.shape[1])
    v_lo, v_hi = ordered[lo, cols], ordered[hi, cols]
    return np.where(ok, v_lo + (h - lo) * (v_hi - v_lo), np.nan)
