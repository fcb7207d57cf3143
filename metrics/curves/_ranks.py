"""Curves over the rank k: P@k and R@k, and DCG@k against the ideal DCG@k with nDCG@k."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from metrics.curves._frames import _as_list, _concat, _depth, _grid_frame
from metrics.gains import check_gain
from metrics.measures.ndcg import discount as discount_divisor
from metrics.measures.ndcg import gains, ideal_grades
from metrics.rankings import Rankings


def precision_recall_at_k(rankings: Rankings | Sequence[Rankings], depth: int | None = None,
                          rel: int | None = None, average: bool = True,
                          queries: Sequence[str] | None = None, per_query: bool = True) -> pd.DataFrame:
    """P@k and R@k for k = 1..depth, per query and averaged over queries.

    Parameters
    ----------
    rankings : Rankings or sequence of Rankings
    depth : int, optional
        Largest k, at most :data:`MAX_DEPTH` (default: the length of the longest ranking of any system, at
        least 1).
    rel : int, optional
        Minimum grade counted as relevant (default: the conventions' relevance level).
    average : bool, default=True
        Add, per system, the rows of ``query == "all"``: the mean over queries at each k.
    queries : sequence of str, optional
        Only these queries (default: all evaluated ones); the "all" rows then average over them.
    per_query : bool, default=True
        Keep the per-query rows; with False and ``average`` only the "all" rows are made (the means
        are the same), which is what a chart of the averages needs.

    Returns
    -------
    pandas.DataFrame
        Columns ``system``, ``query``, ``x`` (= ``k``), ``y`` (= ``precision``), ``k``, ``precision``,
        ``recall``, ``n_queries``. ``depth`` rows per query, then ``depth`` "all" rows per system.

    Notes
    -----
    .. math:: P@k = \\frac{|\\{i \\le k : d_i \\in \\mathrm{Rel}\\}|}{k}, \\qquad
              R@k = \\frac{|\\{i \\le k : d_i \\in \\mathrm{Rel}\\}|}{|\\mathrm{Rel}|}

    Each value is exactly the measure ``P@k`` / ``R@k`` (trec_eval ``P_k`` / ``recall_k``): past the end of a
    ranking P@k keeps dividing by k and R@k stays constant. A query without relevant documents has R@k = 0.
    The "all" rows are the means of those measures over the system's queries.

    Examples
    --------
    >>> from metrics import rank_runs
    >>> qrels = "1 0 a 1\\n1 0 b 0\\n1 0 c 1\\n"
    >>> run = "1 Q0 a 1 3 x\\n1 Q0 b 2 2 x\\n"
    >>> precision_recall_at_k(rank_runs(qrels, {"x": run}), depth=3, average=False)[["k", "precision", "recall"]]
       k  precision  recall
    0  1   1.000000     0.5
    1  2   0.500000     0.5
    2  3   0.333333     0.5
    """
    rankings = _as_list(rankings, queries)
    depth = _depth(depth, rankings)
    ks = np.arange(1, depth + 1)
    frames = []
    for r in rankings:
        found = _at_ranks(r, r.cum_relevant(rel), ks)
        num_rel = r.num_rel(rel).astype(np.float64)[:, None]
        precision = found / ks[None, :]
        recall = np.divide(found.astype(np.float64), num_rel, out=np.zeros(found.shape), where=num_rel > 0)
        frames.append(_grid_frame(r.system, r.queries, ks, {"precision": precision, "recall": recall}, "k",
                                  "precision", average, per_query=per_query))
    return _concat(frames)


def gain_curves(rankings: Rankings | Sequence[Rankings], gain: str = "linear", discount: str = "log2",
                base: float = 2.0, ideal: str = "judged", depth: int | None = None,
                average: bool = True, queries: Sequence[str] | None = None,
                per_query: bool = True) -> pd.DataFrame:
    """DCG@k, the ideal DCG@k and nDCG@k for k = 1..depth, per query and averaged over queries.

    Parameters
    ----------
    rankings : Rankings or sequence of Rankings
    gain : {"linear", "exp"}, default="linear"
        Gain of grade g: g (trec_eval) or 2^g - 1.
    discount : {"log2", "jk"}, default="log2"
        Divisor at rank i: log2(i + 1) (trec_eval), or Järvelin and Kekäläinen's ``max(1, log_base(i))``
        with ranks below ``base`` undiscounted.
    base : float, default=2.0
        Logarithm base of the ``jk`` discount (> 1; only with ``discount="jk"``).
    ideal : {"judged", "retrieved"}, default="judged"
        The ideal ranking: every judged document of the query sorted by grade (trec_eval), or only the
        retrieved ones re-sorted (each run its own yardstick, inflated nDCG; shown for teaching).
    depth : int, optional
        Largest k, at most :data:`MAX_DEPTH` (default: the length of the longest ranking of any system, at
        least 1).
    average : bool, default=True
        Add, per system, the rows of ``query == "all"``: the means over queries at each k.
    queries : sequence of str, optional
        Only these queries (default: all evaluated ones); the "all" rows then average over them.
    per_query : bool, default=True
        Keep the per-query rows; with False and ``average`` only the "all" rows are made (the means
        are the same), which is what a chart of the averages needs.

    Returns
    -------
    pandas.DataFrame
        Columns ``system``, ``query``, ``x`` (= ``k``), ``y`` (= ``ndcg``), ``k``, ``dcg``, ``idcg``,
        ``ndcg``, ``n_queries``. ``depth`` rows per query, then ``depth`` "all" rows per system; an "all"
        row holds the mean of each column (so its ``ndcg`` is the mean nDCG@k, not the ratio of the means).

    Notes
    -----
    .. math:: DCG@k = \\sum_{i=1}^{k} \\frac{g(d_i)}{\\mathrm{disc}(i)}, \\qquad
              nDCG@k = \\frac{DCG@k}{IDCG@k}

    The values are exactly those of the measures ``DCG@k`` and ``nDCG@k`` with the same parameters (with
    the defaults, trec_eval's ``ndcg_cut_k``); nDCG@k is 0 where IDCG@k is 0. Past the end of the ranking
    DCG@k stays constant while IDCG@k grows until the ideal ranking ends. trec_eval's ``ndcg`` (no cutoff)
    divides the DCG of the whole ranking by the DCG of the whole ideal ranking, so it equals the curve at
    any k >= max(number retrieved, number of judged documents with a positive grade), and at k = number
    retrieved only when the ranking is at least as long as the ideal one; with ``ideal="retrieved"`` that
    is always the case.

    Examples
    --------
    The graded ranking 3, 2, 3, 0, 0, 1, 2, 2, 3, 0 with exponential gains, its own documents forming the
    ideal ranking: DCG@3 = 12.39, IDCG@3 = 14.92, nDCG@3 = 0.83.

    >>> from metrics import rank_runs
    >>> grades = [3, 2, 3, 0, 0, 1, 2, 2, 3, 0]
    >>> qrels = "".join(f"1 0 d{i} {g}\\n" for i, g in enumerate(grades))
    >>> run = "".join(f"1 Q0 d{i} {i + 1} {10 - i} x\\n" for i in range(10))
    >>> curve = gain_curves(rank_runs(qrels, {"x": run}), gain="exp", depth=3, average=False)
    >>> curve[["k", "dcg", "idcg", "ndcg"]].round(2)
       k    dcg   idcg  ndcg
    0  1   7.00   7.00  1.00
    1  2   8.89  11.42  0.78
    2  3  12.39  14.92  0.83
    """
    check_gain(gain, discount, base, ideal)
    rankings = _as_list(rankings, queries)
    depth = _depth(depth, rankings)
    ks = np.arange(1, depth + 1)
    frames = []
    for r in rankings:
        nq = r.n_queries
        hits = r.hits(1)  # only positive grades have a gain
        contrib = gains(r.rel[hits.index], gain) / discount_divisor(hits.pos, discount, base)
        actual = _cumulate(nq, depth, hits.seg, hits.pos, contrib)
        grades, offsets = ideal_grades(r, ideal)
        iseg = np.repeat(np.arange(nq), np.diff(offsets))
        ipos = np.arange(len(grades)) - offsets[:-1][iseg] + 1
        icontrib = gains(grades, gain) / discount_divisor(ipos, discount, base)
        best = _cumulate(nq, depth, iseg, ipos, icontrib)
        ndcg = np.divide(actual, best, out=np.zeros_like(actual), where=best > 0)
        frames.append(_grid_frame(r.system, r.queries, ks, {"dcg": actual, "idcg": best, "ndcg": ndcg}, "k",
                                  "ndcg", average, per_query=per_query))
    return _concat(frames)


# ---- helpers ------------------------------------------------------------------------------------------
def _at_ranks(r: Rankings, values: np.ndarray, ks: np.ndarray) -> np.ndarray:
    """``(n_queries, len(ks))``: ``values`` at rank ``min(k, num_ret)`` of each query, 0 where that is rank 0."""
    upto = np.minimum(ks[None, :], r.num_ret[:, None])
    idx = r.offsets[:-1][:, None] + upto - 1
    out = np.zeros(upto.shape, dtype=values.dtype)
    ok = upto >= 1
    out[ok] = values[idx[ok]]
    return out


def _cumulate(n_queries: int, depth: int, seg: np.ndarray, pos: np.ndarray, contrib: np.ndarray) -> np.ndarray:
    """``(n_queries, depth)`` running sums of ``contrib`` over ranks 1..depth, added in rank order from 0.

    Adding in rank order from 0 is how the measures sum (``numpy.bincount``), so each running sum equals the
    measure at that cutoff to the last bit.
    """
    matrix = np.zeros((n_queries, depth))
    keep = pos <= depth
    matrix[seg[keep], pos[keep] - 1] = contrib[keep]
    return np.cumsum(matrix, axis=1)
