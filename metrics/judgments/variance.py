"""The parts of a pair's variance that need care: two runs' positions of one document, and AP's cross terms.

A pair's variance (:mod:`metrics.judgments.uncertainty`) sums, over the unjudged documents, products of the
two runs' weights of one document (:func:`same_document_pairs` lists every two positions of one document),
and, for AP, over the pairs of unjudged documents both runs retrieve, ``1 / (max rank in one run * max rank in
the other)``: :func:`cross_terms`, by a direct sum over every two shared documents when that is small, else by
a walk down the ranks with Fenwick trees.
"""

from __future__ import annotations

import numpy as np

__all__ = ["TENSOR_CELLS", "cross_terms", "cross_tensor", "cross_walk", "same_document_pairs"]

TENSOR_CELLS = 1 << 22
"""AP's cross terms of a topic are summed directly (pairs x shared documents^2 cells) up to this size, else by
a walk down the ranks (:func:`cross_walk`)."""


def cross_terms(ranks: np.ndarray, lists: np.ndarray, a: np.ndarray, b: np.ndarray, shared: int) -> np.ndarray:
    """``sum_{i<j} 1 / (max(ra_i, ra_j) * max(rb_i, rb_j))`` over the documents runs ``a[k]`` and ``b[k]`` both
    retrieve, for every k.

    Parameters
    ----------
    ranks : numpy.ndarray
        ``(runs, documents)``: each run's rank of each document, 0 where it does not retrieve it.
    lists : numpy.ndarray
        ``(runs, longest)``: each run's documents, best rank first, -1 past its last.
    a, b : numpy.ndarray
        The two runs of each pair.
    shared : int
        The most documents two runs of a pair share.
    """
    if len(a) * shared * shared <= TENSOR_CELLS:
        return cross_tensor(ranks, lists, a, b, shared)
    return cross_walk(ranks, lists, a, b, int(ranks.max()))


def same_document_pairs(group: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every ordered pair ``(i, j)`` of positions of one group, ``i == j`` included (``group`` sorted).

    Examples
    --------
    >>> [x.tolist() for x in same_document_pairs(np.array([4, 4, 7]))]
    [[0, 0, 1, 1, 2], [0, 1, 0, 1, 2]]
    """
    starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]]) if len(group) else np.zeros(0, dtype=np.int64)
    size = np.diff(np.r_[starts, len(group)])
    count = np.repeat(size, size)  # the size of each position's group
    i = np.repeat(np.arange(len(group)), count)
    first = np.repeat(np.repeat(starts, size), count)
    return i, first + np.arange(len(i)) - np.repeat(np.cumsum(count) - count, count)


def cross_walk(ranks: np.ndarray, lists: np.ndarray, a: np.ndarray, b: np.ndarray, deepest: int) -> np.ndarray:
    """The cross terms for many pairs: runs ``a`` walked down their ranks; at each document (rank
    ``ra`` in ``a``, ``rb`` in ``b``) the documents seen before it add ``(#{rb_i < rb} / rb + sum_{rb_i > rb}
    1 / rb_i) / ra``, read from two Fenwick trees per pair over the ranks of ``b`` (a count, and a sum of
    ``1 / rank``): work in pairs x depth x log(depth)."""
    bits = deepest.bit_length()
    width = 1 << (bits + 1)
    counts, weights = np.zeros((len(a), width)), np.zeros((len(a), width))
    seen = np.zeros(len(a))
    total = np.zeros(len(a))
    for j in range(lists.shape[1]):
        doc = lists[a, j]
        rb = np.where(doc >= 0, ranks[b, np.maximum(doc, 0)], 0)
        k = np.flatnonzero(rb > 0)
        if not len(k):
            continue
        r, ra = rb[k], ranks[a[k], doc[k]]
        below, lighter = np.zeros(len(k)), np.zeros(len(k))  # count of rb_i < r; sum of 1/rb_i, rb_i <= r
        at, upto = r - 1, r.copy()
        for _ in range(bits):
            below += counts[k, at]
            lighter += weights[k, upto]
            at &= at - 1
            upto &= upto - 1
        total[k] += (below / r + (seen[k] - lighter)) / ra
        seen[k] += 1.0 / r
        at = r.copy()
        for _ in range(bits + 1):
            inside = at < width
            counts[k[inside], at[inside]] += 1.0
            weights[k[inside], at[inside]] += 1.0 / r[inside]
            at += at & -at
    return total


def cross_tensor(ranks: np.ndarray, lists: np.ndarray, a: np.ndarray, b: np.ndarray, shared: int) -> np.ndarray:
    """The cross terms for few pairs, directly: each pair's shared documents in the order of ``a``
    (at most ``shared``), every two of them at once."""
    doc = lists[a]
    rb = np.where(doc >= 0, ranks[b[:, None], np.maximum(doc, 0)], 0)
    keep = np.argsort(rb == 0, axis=1, kind="stable")[:, :shared]  # the shared ones first, in a's order
    rb = np.take_along_axis(rb, keep, axis=1).astype(np.float64)
    ra = np.take_along_axis(ranks[a[:, None], np.maximum(doc, 0)], keep, axis=1).astype(np.float64)
    both = (rb[:, :, None] > 0) & (rb[:, None, :] > 0) & np.triu(np.ones((shared, shared), dtype=bool), 1)
    with np.errstate(divide="ignore"):
        terms = 1.0 / (ra[:, None, :] * np.maximum(rb[:, :, None], rb[:, None, :]))
    return np.where(both, terms, 0.0).sum(axis=(1, 2))
