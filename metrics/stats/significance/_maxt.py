"""Westfall-Young step-down max-T adjustment on the randomisation test's sign flips.

Every test of a family is a pair of systems on one measure, with its per-query differences ``d`` (one row
of ``D``). Its statistic is the standardised sum ``T = |sum_i d_i| / sqrt(sum_i d_i**2)``: under random
sign flips ``sum_i s_i d_i`` has mean 0 and standard deviation ``sqrt(sum_i d_i**2)``, so the statistics
of different pairs and measures are on one scale, and for one pair ``T`` orders the flips exactly as the
randomisation test's ``|sum|`` does. All rows are flipped by the same signs (the joint null of the family
keeps the dependence between the tests), drawn as :func:`~metrics.stats.significance.sign_flip_matrix` draws
them for the randomisation test; so a family of one test has the randomisation test's p-value.

Step-down (Westfall & Young 1993, algorithm 2.8): sort the observed statistics ``t_(1) >= ... >= t_(m)``;
for each resample ``r`` take the successive maxima ``u_r,(i) = max_{j >= i} T*_r,(j)``; the adjusted
p-value of the ``i``-th is ``(#{r : u_r,(i) >= t_(i)} + 1) / (B + 1)`` (exactly ``count / 2**n`` over all
sign patterns up to :data:`~metrics.stats.significance.EXACT_MAX` queries), then made monotone,
``p~_(i) = max_{j <= i} p~_(j)``. It controls the family-wise error rate under any dependence between
the tests (subset pivotality holds for sign flips of paired differences).

Reference: P. H. Westfall and S. S. Young, *Resampling-Based Multiple Testing*, Wiley, 1993.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from metrics.errors import ValidationError
from metrics.stats.significance._inputs import EXACT_MAX, check_options
from metrics.stats.significance._resampling import TOLERANCE, flip_bits

EXACT_BLOCK = 4096
"""Sign patterns per block when every pattern is enumerated."""


def _all_bits(n: int) -> Iterator[np.ndarray]:
    """Every one of the ``2**n`` sign patterns as 0/1 bits, pattern ``r``'s bit ``j`` being ``(r >> j) & 1``."""
    for start in range(0, 2 ** n, EXACT_BLOCK):
        r = np.arange(start, min(2 ** n, start + EXACT_BLOCK), dtype=np.int64)
        yield ((r[:, None] >> np.arange(n)) & 1).astype(np.uint8)


def maxt_adjust(D: np.ndarray, n_resamples: int = 10000, seed: int = 0) -> tuple[np.ndarray, bool]:
    """Westfall-Young step-down max-T adjusted p-values of a family of paired randomisation tests.

    Parameters
    ----------
    D : numpy.ndarray of shape (tests, queries)
        Each test's per-query differences ``b - a``; every test on the same queries, in the same order.
    n_resamples : int, default=10000
        Random sign patterns (beyond :data:`~metrics.stats.significance.EXACT_MAX` queries).
    seed : int, default=0
        The seed of the sign flips (the randomisation test's).

    Returns
    -------
    adjusted : numpy.ndarray
        One adjusted p-value per test, in the input order.
    exact : bool
        Whether every sign pattern was enumerated.

    Notes
    -----
    A test whose differences are all 0 has ``T = 0`` in every resample and the adjusted p-value 1. A
    resampled statistic reaches an observed one within the randomisation test's tolerance
    (``TOLERANCE`` times ``sum |d|``, on the same scale).
    """
    D = np.asarray(D, dtype=np.float64)
    if D.ndim != 2 or D.shape[0] < 1 or D.shape[1] < 1:
        raise ValidationError(f"expected a tests x queries table of differences, got shape {D.shape}")
    if not np.all(np.isfinite(D)):
        raise ValidationError("differences: expected finite numbers, found NaN or infinity")
    opts = check_options(n_resamples=n_resamples, seed=seed)
    m, n = D.shape
    norm = np.sqrt((D ** 2).sum(axis=1))
    scale = np.where(norm > 0, norm, 1.0)
    total = D.sum(axis=1)
    observed = np.abs(total) / scale
    reach = (np.abs(total) - TOLERANCE * np.abs(D).sum(axis=1)) / scale
    order = np.argsort(-observed, kind="stable")
    DT = np.ascontiguousarray(D[order].T)
    tot, sc, rea = total[order], scale[order], reach[order]
    exact = n <= EXACT_MAX
    blocks = _all_bits(n) if exact else flip_bits(n, opts["n_resamples"], opts["seed"])
    count = np.zeros(m, dtype=np.int64)
    for bits in blocks:
        sums = np.abs(tot - 2.0 * (bits.astype(np.float64) @ DT)) / sc
        successive = np.maximum.accumulate(sums[:, ::-1], axis=1)[:, ::-1]
        count += np.count_nonzero(successive >= rea, axis=0)
    p = count / 2.0 ** n if exact else (count + 1.0) / (opts["n_resamples"] + 1.0)
    p = np.minimum(np.maximum.accumulate(p), 1.0)
    out = np.empty(m)
    out[order] = p
    return out, exact


MAXT = "maxt"
"""The name of the max-T correction in :func:`~metrics.stats.significance.compare_systems` (``--correction maxt``)."""

MAXT_ALIASES = ("maxt", "max-t", "westfall-young")
"""The names :func:`~metrics.stats.significance.compare_systems` accepts for it (any case)."""


def is_maxt(correction: object) -> bool:
    """Whether a correction's name asks for the max-T adjustment."""
    return isinstance(correction, str) and correction.lower() in MAXT_ALIASES


def maxt_corrected(out, tables: dict, ia: np.ndarray, ib: np.ndarray, family: str, alpha: float,
                   opts: dict):
    """A comparison's frame (randomisation tests) with ``p_adjusted`` and ``significant`` by max-T per family.

    ``tables`` maps each measure to its systems x queries scores and query ids. With ``family="all"``
    every measure must be on the same queries (the family's tests are flipped together).
    """
    import pandas as pd

    measures = list(pd.unique(out["measure"]))
    groups = [measures] if family == "all" else [[m] for m in measures]
    adjusted = np.full(len(out), np.nan)
    for group in groups:
        queries = {tuple(tables[m][1].tolist()) for m in group}
        if len(queries) > 1:
            raise ValidationError("max-T over all measures needs every measure on the same queries; "
                                  "use family='per_measure'")
        D = np.concatenate([tables[m][0][ib] - tables[m][0][ia] for m in group], axis=0)
        rows = np.flatnonzero(out["measure"].isin(group).to_numpy())
        adjusted[rows], _ = maxt_adjust(D, opts["n_resamples"], opts["seed"])
    return out.assign(p_adjusted=adjusted, significant=adjusted < alpha)
