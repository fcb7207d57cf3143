"""Curves over ranks and recall levels, as tidy tables a plotting function draws as they are.

Every function takes one :class:`~metrics.rankings.Rankings` or a sequence of them (one per system) and
returns a :class:`pandas.DataFrame` with the columns ``system``, ``query``, ``x`` and ``y`` (what to draw)
followed by named copies of ``x`` and ``y`` and further columns meant for tooltips. All queries of all
systems are computed at once from the flat ranked arrays; nothing loops over queries.

=====================================  ==================  ==============================================
function                               x                   y
=====================================  ==================  ==============================================
:func:`pr_curve`                       recall at rank i    precision at rank i (the saw-tooth)
:func:`interpolated_pr`                recall              interpolated precision (rank points, envelope)
:func:`eleven_point`                   recall level        interpolated precision at 0.0, 0.1, ..., 1.0
:func:`precision_recall_at_k`          k                   P@k (R@k in the ``recall`` column)
:func:`gain_curves`                    k                   nDCG@k (DCG@k and IDCG@k beside it)
=====================================  ==================  ==============================================

Averages over queries
---------------------
The curves with a common x for every query (:func:`eleven_point`, :func:`precision_recall_at_k`,
:func:`gain_curves`) also carry, per system, rows with ``query == "all"``: at each x the arithmetic mean
of the per-query values, computed as :meth:`metrics.measures.Measure.aggregate` computes a measure's mean,
so that an "all" point is the mean of the corresponding measure (see :func:`mean_over_queries`).

* The mean runs over the queries the system was evaluated on, as in trec_eval: a query the run does not
  answer is left out, so two systems may be averaged over different queries; with the
  ``complete`` convention (trec_eval ``-c``) every judged query counts, with an empty ranking where the run
  has none (all its points are then 0). Queries without relevant documents are kept (their precision,
  recall and nDCG are 0), as the measures keep them.
* Past the end of a ranking the curves are padded as the measures define them: P@k keeps dividing by k
  (a short ranking is penalised), R@k and DCG@k stay constant, IDCG@k keeps growing until the ideal ranking
  ends, so nDCG@k can fall after the last retrieved document.
* The raw precision-recall curve has different recall points for each query and is never averaged point
  by point; :func:`eleven_point` is the standard way to average it.

A query named ``all`` would be confused with the average rows, as in trec_eval's output.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

import numpy as np
import pandas as pd

from metrics.conventions import INTERPOLATIONS
from metrics.errors import ValidationError
from metrics.measures.interpolated import RECALL_LEVELS, interpolated_precision
from metrics.measures.ndcg import discount as discount_divisor
from metrics.measures.ndcg import gains, ideal_grades
from metrics.rankings import Rankings

__all__ = ["pr_curve", "interpolated_pr", "eleven_point", "precision_recall_at_k", "gain_curves",
           "mean_over_queries", "ALL"]

ALL = "all"
GAINS = ("linear", "exp")
DISCOUNTS = ("log2", "jk")
IDEALS = ("judged", "retrieved")
# rule -> a, where recall x asks for k relevant documents when x lies between (k - a)/R and (k + 1 - a)/R
_RULE_SHIFT = {"textbook": 1.0, "trec_eval-9": 0.9, "trec_eval-10": 0.5}


# ---- public curves --------------------------------------------------------------------------------------
def pr_curve(rankings: Rankings | Sequence[Rankings], rel: int | None = None) -> pd.DataFrame:
    """Precision and recall at every rank of every query: the raw, saw-toothed precision-recall curve.

    Parameters
    ----------
    rankings : Rankings or sequence of Rankings
        One per system, as returned by :func:`metrics.rank_runs`.
    rel : int, optional
        Minimum grade counted as relevant (default: the conventions' relevance level).

    Returns
    -------
    pandas.DataFrame
        One row per ranked position, ordered by system, query, rank. Columns ``system``, ``query``,
        ``x`` (= ``recall``), ``y`` (= ``precision``), ``rank``, ``recall``, ``precision``, ``docid``,
        ``grade`` (float, NaN for a document without a grade >= 0) and ``relevant`` (bool).

    Notes
    -----
    .. math:: P@i = \\frac{|\\{j \\le i : d_j \\in \\mathrm{Rel}\\}|}{i}, \\qquad
              R@i = \\frac{|\\{j \\le i : d_j \\in \\mathrm{Rel}\\}|}{|\\mathrm{Rel}|}

    The point of rank i is (R@i, P@i): a relevant document moves the curve up and right, a non-relevant one
    straight down. A query without relevant documents has no recall and is omitted (so is a query whose
    ranking is empty: it has no points). The values equal trec_eval's ``P_i`` and ``recall_i`` at every
    rank i of the ranking.

    Examples
    --------
    >>> from metrics import rank_runs
    >>> qrels = "1 0 a 1\\n1 0 b 0\\n1 0 c 1\\n"
    >>> run = "1 Q0 a 1 3 x\\n1 Q0 b 2 2 x\\n1 Q0 c 3 1 x\\n"
    >>> pr_curve(rank_runs(qrels, {"x": run}))[["rank", "recall", "precision", "relevant"]]
       rank  recall  precision  relevant
    0     1     0.5   1.000000      True
    1     2     0.5   0.500000     False
    2     3     1.0   0.666667      True
    """
    frames = []
    for r in _as_list(rankings):
        cum = r.cum_relevant(rel)
        num_rel = r.num_rel(rel).astype(np.float64)
        keep = num_rel[r.seg] > 0
        seg, pos = r.seg[keep], r.pos[keep]
        found = cum[keep]
        recall = found / num_rel[seg]
        precision = found / pos
        frames.append(_frame({
            "system": _repeat(r.system, len(seg)), "query": r.queries[seg].astype(object),
            "x": recall, "y": precision, "rank": pos, "recall": recall, "precision": precision,
            "docid": r.docids()[keep].astype(object) if keep.any() else np.empty(0, dtype=object),
            "grade": _grade(r.rel[keep]), "relevant": r.relevant(rel)[keep]}))
    return _concat(frames)


def interpolated_pr(rankings: Rankings | Sequence[Rankings], rel: int | None = None,
                    rule: str | None = None) -> pd.DataFrame:
    """Interpolated precision: at every rank's recall point, and the whole envelope over recall 0 to 1.

    Parameters
    ----------
    rankings : Rankings or sequence of Rankings
    rel : int, optional
        Minimum grade counted as relevant (default: the conventions' relevance level).
    rule : {"trec_eval-9", "trec_eval-10", "textbook"}, optional
        How a recall level x becomes a number of relevant documents (default: the conventions'
        ``interpolation``); see :class:`~metrics.measures.interpolated.IPrec`.

    Returns
    -------
    pandas.DataFrame
        Columns ``system``, ``query``, ``x`` (= ``recall``), ``y`` (= ``iprec``), ``kind``, ``recall``,
        ``iprec``, ``needed``, ``precision``, ``rank``, ``docid``, ``grade``, ``relevant``. Per system and
        query, first the rows of ``kind == "rank"``, one per ranked position: the recall at that rank, the
        interpolated precision there, the raw ``precision`` at the rank and the document; then the rows
        of ``kind == "envelope"``: the vertices of the step function x -> interpolated precision at recall
        x under ``rule``, two per step (its left and right end), from x = 0 to x = 1, to be joined by
        straight lines. ``needed`` is the number of relevant documents the rule asks for at that recall.
        Columns that do not apply to a row kind are missing values (``rank`` is a nullable integer).

    Notes
    -----
    .. math:: IPrec(x) = \\max\\{P@i : \\mathrm{recall}@i \\ge x\\}

    The maximum precision over the ranks that have found at least k relevant documents is reached at a
    relevant rank, so the envelope is a non-increasing step function of k. The rule decides k for a level x
    and a query with R relevant documents: ``textbook`` the least k with k / R >= x, ``trec_eval-9``
    ``(long)(x R + 0.9)`` and ``trec_eval-10`` ``lround(x R)`` (trec_eval's ``iprec_at_recall``); beyond
    the relevant documents retrieved the value is 0. At the recall of a rank (k / R for the k relevant
    documents found by then) every rule asks for the same k, so the ``rank`` rows do not depend on the
    rule; the envelope's steps do, and at x = 0.0, 0.1, ..., 1.0 the envelope gives trec_eval's
    ``iprec_at_recall`` under the rule (at a step's end point itself both adjacent values are drawn; read
    exact values from :func:`eleven_point`). Queries without relevant documents are omitted.

    Examples
    --------
    >>> from metrics import rank_runs
    >>> qrels = "1 0 a 1\\n1 0 b 0\\n1 0 c 1\\n"
    >>> run = "1 Q0 b 1 3 x\\n1 Q0 a 2 2 x\\n1 Q0 c 3 1 x\\n"
    >>> frame = interpolated_pr(rank_runs(qrels, {"x": run}), rule="textbook")
    >>> frame[frame["kind"] == "rank"][["rank", "recall", "precision", "iprec"]]
       rank  recall  precision     iprec
    0     1     0.0   0.000000  0.666667
    1     2     0.5   0.500000  0.666667
    2     3     1.0   0.666667  0.666667
    """
    frames = []
    for r in _as_list(rankings):
        rule_r = _rule(r, rule)
        nq = r.n_queries
        hits = r.hits(rel)
        found = np.bincount(hits.seg, minlength=nq)
        first = np.concatenate(([0], np.cumsum(found)))[:-1]
        best = _suffix_max(hits.order / hits.pos, hits.seg, nq)  # best precision from the k-th hit on
        num_rel = r.num_rel(rel)

        # one row per ranked position
        cum = r.cum_relevant(rel)
        keep = num_rel[r.seg] > 0
        seg, pos, count = r.seg[keep], r.pos[keep], cum[keep]
        iprec = _best_at(best, first, found, seg, np.maximum(count, 1))
        recall = count / num_rel[seg].astype(np.float64)
        points = _frame({
            "system": _repeat(r.system, len(seg)), "query": r.queries[seg].astype(object),
            "x": recall, "y": iprec, "kind": _repeat("rank", len(seg)), "recall": recall, "iprec": iprec,
            "needed": count, "precision": count / pos, "rank": pd.array(pos, dtype="Int64"),
            "docid": r.docids()[keep].astype(object) if keep.any() else np.empty(0, dtype=object),
            "grade": _grade(r.rel[keep]), "relevant": pd.array(r.relevant(rel)[keep], dtype="boolean")})

        # the envelope: for k = 0..R, the recall interval asking for k relevant documents, and its value
        with_rel = np.flatnonzero(num_rel > 0)
        steps = num_rel[with_rel] + 1
        eseg = np.repeat(with_rel, steps)
        k = np.arange(int(steps.sum())) - np.repeat(np.cumsum(steps) - steps, steps)
        big_r = num_rel[eseg].astype(np.float64)
        shift = _RULE_SHIFT[rule_r]
        lo = np.clip((k - shift) / big_r, 0.0, 1.0)
        hi = np.clip((k + 1 - shift) / big_r, 0.0, 1.0)
        value = _best_at(best, first, found, eseg, np.maximum(k, 1))
        step = (hi > lo) | (k == 0)  # the textbook rule's k = 0 is the single point x = 0
        eseg, k, lo, hi, value = eseg[step], k[step], lo[step], hi[step], value[step]
        n = 2 * len(eseg)
        ex = np.column_stack((lo, hi)).ravel()
        ey = np.repeat(value, 2)
        envelope = _frame({
            "system": _repeat(r.system, n), "query": np.repeat(r.queries[eseg], 2).astype(object),
            "x": ex, "y": ey, "kind": _repeat("envelope", n), "recall": ex, "iprec": ey,
            "needed": np.repeat(k, 2), "precision": np.full(n, np.nan), "rank": pd.array([pd.NA] * n, dtype="Int64"),
            "docid": np.full(n, None, dtype=object), "grade": np.full(n, np.nan),
            "relevant": pd.array([pd.NA] * n, dtype="boolean")})

        both = pd.concat([points, envelope], ignore_index=True)
        # per query: its rank rows, then its envelope rows (queries in trec_eval's order)
        qindex = np.concatenate((seg, np.repeat(eseg, 2)))
        order = np.lexsort((np.arange(len(qindex)), qindex))
        frames.append(both.iloc[order].reset_index(drop=True))
    return _concat(frames)


def eleven_point(rankings: Rankings | Sequence[Rankings], rel: int | None = None, rule: str | None = None,
                 average: bool = True) -> pd.DataFrame:
    """Interpolated precision at the recall levels 0.0, 0.1, ..., 1.0, per query and averaged over queries.

    Parameters
    ----------
    rankings : Rankings or sequence of Rankings
    rel : int, optional
        Minimum grade counted as relevant (default: the conventions' relevance level).
    rule : {"trec_eval-9", "trec_eval-10", "textbook"}, optional
        Interpolation rule (default: the conventions' ``interpolation``).
    average : bool, default=True
        Add, per system, the eleven rows of ``query == "all"``: the mean over queries at each level.

    Returns
    -------
    pandas.DataFrame
        Columns ``system``, ``query``, ``x`` (= ``recall``), ``y`` (= ``iprec``), ``recall`` (the level),
        ``iprec``, ``measure`` (trec_eval's name of the point, ``iprec_at_recall_0.10``) and ``n_queries``
        (1 for a query's row, the number of queries averaged for an "all" row). Eleven rows per query, in
        trec_eval's query order, then the eleven "all" rows.

    Notes
    -----
    .. math:: 11pt = \\frac{1}{11} \\sum_{x \\in \\{0, 0.1, \\dots, 1\\}} IPrec(x)

    A query's eleven points are trec_eval's ``iprec_at_recall_0.00`` ... ``iprec_at_recall_1.00`` under
    the rule (the same code computes both), and their mean, summed from 1.0 down as trec_eval sums, is its
    ``11pt_avg``. Every evaluated query has its rows, including those without relevant documents (all 0)
    and, under the trec_eval rules, a ranking the judged-only cut left empty (NaN where trec_eval divides
    0 by 0), so that an "all" point is the mean of ``iprec_at_recall_x`` over the queries and the mean of
    the eleven "all" points is the mean ``11pt_avg`` (up to the order of the additions).

    Examples
    --------
    >>> from metrics import rank_runs
    >>> qrels = "1 0 a 1\\n1 0 b 0\\n1 0 c 1\\n"
    >>> run = "1 Q0 b 1 3 x\\n1 Q0 a 2 2 x\\n1 Q0 c 3 1 x\\n"
    >>> points = eleven_point(rank_runs(qrels, {"x": run}))
    >>> points[points["query"] == "all"]["iprec"].round(4).tolist()
    [0.6667, 0.6667, 0.6667, 0.6667, 0.6667, 0.6667, 0.6667, 0.6667, 0.6667, 0.6667, 0.6667]
    """
    levels = np.asarray(RECALL_LEVELS)
    labels = np.asarray([f"iprec_at_recall_{level:.2f}" for level in levels], dtype=object)
    frames = []
    for r in _as_list(rankings):
        rule_r = _rule(r, rule)
        source = r if rule_r == r.conventions.interpolation else \
            replace(r, conventions=replace(r.conventions, interpolation=rule_r))
        values = interpolated_precision(source, RECALL_LEVELS, rel)
        frames.append(_grid_frame(r.system, r.queries, levels, {"iprec": values}, "recall", "iprec", average,
                                  extra={"measure": labels}))
    return _concat(frames)


def precision_recall_at_k(rankings: Rankings | Sequence[Rankings], depth: int | None = None,
                          rel: int | None = None, average: bool = True) -> pd.DataFrame:
    """P@k and R@k for k = 1..depth, per query and averaged over queries.

    Parameters
    ----------
    rankings : Rankings or sequence of Rankings
    depth : int, optional
        Largest k (default: the length of the longest ranking of any system, at least 1).
    rel : int, optional
        Minimum grade counted as relevant (default: the conventions' relevance level).
    average : bool, default=True
        Add, per system, the rows of ``query == "all"``: the mean over queries at each k.

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
    rankings = _as_list(rankings)
    depth = _depth(depth, rankings)
    ks = np.arange(1, depth + 1)
    frames = []
    for r in rankings:
        found = _at_ranks(r, r.cum_relevant(rel), ks)
        num_rel = r.num_rel(rel).astype(np.float64)[:, None]
        precision = found / ks[None, :]
        recall = np.divide(found.astype(np.float64), num_rel, out=np.zeros(found.shape), where=num_rel > 0)
        frames.append(_grid_frame(r.system, r.queries, ks, {"precision": precision, "recall": recall}, "k",
                                  "precision", average))
    return _concat(frames)


def gain_curves(rankings: Rankings | Sequence[Rankings], gain: str = "linear", discount: str = "log2",
                base: float = 2.0, ideal: str = "judged", depth: int | None = None,
                average: bool = True) -> pd.DataFrame:
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
        Largest k (default: the length of the longest ranking of any system, at least 1).
    average : bool, default=True
        Add, per system, the rows of ``query == "all"``: the means over queries at each k.

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
    _check_gain(gain, discount, base)
    if ideal not in IDEALS:
        raise ValidationError(f"ideal must be one of {IDEALS}, got {ideal!r}")
    rankings = _as_list(rankings)
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
                                  "ndcg", average))
    return _concat(frames)


def mean_over_queries(frame: pd.DataFrame, x: str, values: Sequence[str]) -> pd.DataFrame:
    """The "all" rows of per-query curves: per system and x, the mean of each value column over queries.

    Parameters
    ----------
    frame : pandas.DataFrame
        Per-query rows with columns ``system``, ``query``, ``x`` and the value columns, one row per
        (system, query, x) and, for each system, every query at every x of that system (rows of
        ``query == "all"`` are ignored). For example a subset of the queries of :func:`gain_curves`.
    x : str
        The column the curve runs along (``"k"``, ``"recall"``).
    values : sequence of str
        The columns to average.

    Returns
    -------
    pandas.DataFrame
        Columns ``system``, ``query`` (``"all"``), ``x``, ``y`` (the first value column), the column
        ``x`` (unless it is ``"x"``), the value columns and ``n_queries``; systems in order of first
        appearance, x ascending.

    Raises
    ------
    ValidationError
        When a column is missing, a (system, query, x) repeats, or some query lacks a point at some x
        (curves whose x differs between queries, like the raw precision-recall curve, cannot be averaged
        point by point; use :func:`eleven_point`).

    Notes
    -----
    .. math:: \\bar{v}(x) = \\frac{1}{|Q|} \\sum_{q \\in Q} v_q(x)

    The mean of a column is computed as :meth:`metrics.measures.Measure.aggregate` computes the mean of a
    measure for trec_eval's ``all`` line (NaN propagates), so averaging the per-query rows of
    :func:`precision_recall_at_k` over the queries of one system gives the mean ``P@k`` exactly. See the module notes for which queries count.

    Examples
    --------
    >>> per_query = pd.DataFrame({"system": ["s"] * 4, "query": ["1", "1", "2", "2"], "k": [1, 2, 1, 2],
    ...                           "precision": [1.0, 0.5, 0.0, 0.5]})
    >>> mean_over_queries(per_query, "k", ["precision"])[["system", "query", "k", "precision", "n_queries"]]
      system query  k  precision  n_queries
    0      s   all  1        0.5          2
    1      s   all  2        0.5          2
    """
    values = list(values)
    if not values:
        raise ValidationError("give at least one value column to average")
    missing = [c for c in ("system", "query", x, *values) if c not in frame.columns]
    if missing:
        raise ValidationError(f"expected columns system, query, {x} and {values}; missing {missing}")
    rows = frame[frame["query"] != ALL]
    frames = []
    for system, group in rows.groupby("system", sort=False):
        queries = pd.unique(group["query"])
        xs = np.sort(pd.unique(group[x]))
        qi = pd.Index(queries).get_indexer(group["query"])
        xi = np.searchsorted(xs, group[x].to_numpy())
        cells = np.zeros((len(queries), len(xs)), dtype=np.int64)
        np.add.at(cells, (qi, xi), 1)
        if (cells > 1).any():
            raise ValidationError(f"system {system!r}: a (query, {x}) pair appears more than once")
        if (cells == 0).any():
            raise ValidationError(f"system {system!r}: not every query has a point at every {x}; curves whose "
                                  f"{x} differs between queries cannot be averaged point by point")
        columns = {}
        for name in values:
            matrix = np.empty((len(queries), len(xs)))
            matrix[qi, xi] = group[name].to_numpy(dtype=np.float64)
            columns[name] = _mean(matrix)
        frames.append(_average_rows(str(system), xs, columns, x, values[0], len(queries)))
    if not frames:
        return pd.DataFrame(columns=_columns(x, values[0], values))
    return _concat(frames)


# ---- helpers ------------------------------------------------------------------------------------------
def _as_list(rankings) -> list[Rankings]:
    if isinstance(rankings, Rankings):
        return [rankings]
    if isinstance(rankings, (str, bytes)) or not isinstance(rankings, Sequence):
        raise ValidationError(f"expected Rankings or a sequence of Rankings (from metrics.rank_runs), "
                              f"got {type(rankings).__name__}")
    out = list(rankings)
    if not out:
        raise ValidationError("no rankings given")
    for item in out:
        if not isinstance(item, Rankings):
            raise ValidationError(f"expected Rankings (from metrics.rank_runs), got {type(item).__name__}")
    names = [r.system for r in out]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ValidationError(f"two rankings share the system name(s) {dupes}")
    return out


def _rule(r: Rankings, rule: str | None) -> str:
    rule = r.conventions.interpolation if rule is None else rule
    if rule not in INTERPOLATIONS:
        raise ValidationError(f"rule must be one of {INTERPOLATIONS}, got {rule!r}")
    return rule


def _depth(depth: int | None, rankings: list[Rankings]) -> int:
    if depth is None:
        longest = max((int(r.num_ret.max()) if r.n_queries else 0) for r in rankings)
        return max(longest, 1)
    if not isinstance(depth, (int, np.integer)) or isinstance(depth, bool) or depth < 1:
        raise ValidationError(f"depth must be a positive integer or None, got {depth!r}")
    return int(depth)


def _check_gain(gain: str, discount: str, base: float) -> None:
    if gain not in GAINS:
        raise ValidationError(f"gain must be one of {GAINS}, got {gain!r}")
    if discount not in DISCOUNTS:
        raise ValidationError(f"discount must be one of {DISCOUNTS}, got {discount!r}")
    if isinstance(base, bool) or not isinstance(base, (int, float)) or not np.isfinite(base) or base <= 1.0:
        raise ValidationError(f"base must be a finite number > 1, got {base!r}")
    if discount != "jk" and base != 2.0:
        raise ValidationError('base applies to discount="jk" only')


def _repeat(value: str, n: int) -> np.ndarray:
    return np.full(n, value, dtype=object)


def _grade(rel: np.ndarray) -> np.ndarray:
    return np.where(rel >= 0, rel, np.nan).astype(np.float64)


def _frame(columns: dict) -> pd.DataFrame:
    return pd.DataFrame(columns)


def _concat(frames: list[pd.DataFrame]) -> pd.DataFrame:
    frames = [f for f in frames if len(f)] or frames[:1]
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0].reset_index(drop=True)


def _suffix_max(values: np.ndarray, seg: np.ndarray, n_segments: int) -> np.ndarray:
    """Maximum of ``values`` from each element to the end of its segment (``seg`` ascending), exactly.

    One running maximum over the reversed array, on integer keys ``segment * V + rank of the value`` in
    which the reversed segments come in ascending key order, so the maximum restarts at each segment.
    """
    if not len(values):
        return values.astype(np.float64)
    distinct, code = np.unique(values, return_inverse=True)
    key = (n_segments - 1 - seg[::-1]) * len(distinct) + code.ravel()[::-1]
    return distinct[np.maximum.accumulate(key) % len(distinct)][::-1]


def _best_at(best: np.ndarray, first: np.ndarray, found: np.ndarray, seg: np.ndarray, k: np.ndarray) -> np.ndarray:
    """``best`` of query ``seg`` at its k-th relevant document (1-based), 0 where it has fewer than k."""
    ok = k <= found[seg]
    out = np.zeros(len(seg))
    out[ok] = best[first[seg[ok]] + k[ok] - 1]
    return out


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


def _mean(matrix: np.ndarray) -> np.ndarray:
    """Column means of a ``(queries, x)`` matrix, each summed as ``numpy.mean`` sums a 1-d array."""
    if not matrix.shape[0]:
        return np.zeros(matrix.shape[1])
    return np.ascontiguousarray(matrix.T).mean(axis=1)


def _columns(x_name: str, y_name: str, values: Sequence[str], extra: Sequence[str] = ()) -> list[str]:
    head = ["system", "query", "x", "y"] + ([] if x_name == "x" else [x_name])
    return head + [v for v in values if v != x_name] + list(extra) + ["n_queries"]


def _average_rows(system: str, xs: np.ndarray, columns: dict, x_name: str, y_name: str, n_queries: int,
                  extra: dict | None = None) -> pd.DataFrame:
    n = len(xs)
    data = {"system": _repeat(system, n), "query": _repeat(ALL, n), "x": xs, "y": columns[y_name]}
    if x_name != "x":
        data[x_name] = xs
    data.update(columns)
    data.update(extra or {})
    data["n_queries"] = np.full(n, n_queries, dtype=np.int64)
    return pd.DataFrame(data)


def _grid_frame(system: str, queries: np.ndarray, xs: np.ndarray, columns: dict, x_name: str, y_name: str,
                average: bool, extra: dict | None = None) -> pd.DataFrame:
    """Per-query rows (queries x xs, from ``(n_queries, len(xs))`` matrices), then the "all" rows."""
    nq, n = len(queries), len(xs)
    data = {"system": _repeat(system, nq * n), "query": np.repeat(queries.astype(object), n),
            "x": np.tile(xs, nq), "y": columns[y_name].ravel()}
    if x_name != "x":
        data[x_name] = data["x"]
    data.update({name: matrix.ravel() for name, matrix in columns.items()})
    data.update({name: np.tile(value, nq) for name, value in (extra or {}).items()})
    data["n_queries"] = np.ones(nq * n, dtype=np.int64)
    per_query = pd.DataFrame(data)
    if not average:
        return per_query
    means = {name: _mean(matrix) for name, matrix in columns.items()}
    rows = _average_rows(system, xs, means, x_name, y_name, nq, extra)
    return pd.concat([per_query, rows], ignore_index=True)
