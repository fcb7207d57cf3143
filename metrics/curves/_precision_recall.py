"""The precision-recall curves: the raw saw-tooth, interpolated precision with its envelope, and the eleven
interpolated points under each interpolation rule."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Sequence

import numpy as np
import pandas as pd

from metrics.conventions import INTERPOLATIONS
from metrics.curves._frames import _as_list, _concat, _frame, _grid_frame, _repeat, _rule
from metrics.checks import refuse
from metrics.measures.interpolated import RECALL_LEVELS, interpolated_precision
from metrics.rankings import Rankings, grades_or_nan

# rule -> a, where recall x asks for k relevant documents when x lies between (k - a)/R and (k + 1 - a)/R
_RULE_SHIFT = {"textbook": 1.0, "trec_eval-9": 0.9, "trec_eval-10": 0.5}


@dataclass(frozen=True, eq=False)
class InterpolatedPR:
    """Interpolated precision as two tables, one shape each (see :func:`interpolated_pr`).

    Attributes
    ----------
    points : pandas.DataFrame
        One row per ranked position: ``system``, ``query``, ``x`` (= ``recall``), ``y`` (= ``iprec``),
        ``recall``, ``iprec``, ``needed``, ``precision``, ``rank``, ``docid``, ``grade``, ``relevant``.
    envelope : pandas.DataFrame
        The vertices of the step function x -> interpolated precision at recall x: ``system``, ``query``,
        ``x`` (= ``recall``), ``y`` (= ``iprec``), ``recall``, ``iprec``, ``needed``.
    """

    points: pd.DataFrame
    envelope: pd.DataFrame


# ---- curves --------------------------------------------------------------------------------------------
def pr_curve(rankings: Rankings | Sequence[Rankings], rel: int | None = None,
             queries: Sequence[str] | None = None) -> pd.DataFrame:
    """Precision and recall at every rank of every query: the raw, saw-toothed precision-recall curve.

    Parameters
    ----------
    rankings : Rankings or sequence of Rankings
        One per system, as returned by :func:`metrics.rank_runs`.
    rel : int, optional
        Minimum grade counted as relevant (default: the conventions' relevance level).
    queries : sequence of str, optional
        Only these queries (default: all evaluated ones).

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
    for r in _as_list(rankings, queries):
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
            "grade": grades_or_nan(r.rel[keep]), "relevant": r.relevant(rel)[keep]}))
    return _concat(frames)


def interpolated_pr(rankings: Rankings | Sequence[Rankings], rel: int | None = None,
                    rule: str | None = None, queries: Sequence[str] | None = None) -> InterpolatedPR:
    """Interpolated precision: at every rank's recall point, and the whole envelope over recall 0 to 1.

    Parameters
    ----------
    rankings : Rankings or sequence of Rankings
    rel : int, optional
        Minimum grade counted as relevant (default: the conventions' relevance level).
    rule : {"trec_eval-9", "trec_eval-10", "textbook"}, optional
        How a recall level x becomes a number of relevant documents (default: the conventions'
        ``interpolation``); see :class:`~metrics.measures.interpolated.IPrec`.
    queries : sequence of str, optional
        Only these queries (default: all evaluated ones).

    Returns
    -------
    InterpolatedPR
        Two tables, each with the columns ``system``, ``query``, ``x`` (= ``recall``), ``y`` (= ``iprec``),
        ``recall``, ``iprec`` and ``needed`` (the number of relevant documents the rule asks for at that
        recall), systems in the order given and queries in trec_eval's order. ``points`` has one row per
        ranked position: the recall at that rank, the interpolated precision there, and beside them the raw
        ``precision`` at the rank, its ``rank``, ``docid``, ``grade`` (NaN when not judged) and
        ``relevant``. ``envelope`` has the vertices of the step function x -> interpolated precision at
        recall x under ``rule``, two per step (its left and right end), from x = 0 to x = 1, to be joined
        by straight lines.

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
    >>> curve = interpolated_pr(rank_runs(qrels, {"x": run}), rule="textbook")
    >>> curve.points[["rank", "recall", "precision", "iprec"]]
       rank  recall  precision     iprec
    0     1     0.0   0.000000  0.666667
    1     2     0.5   0.500000  0.666667
    2     3     1.0   0.666667  0.666667
    >>> curve.envelope["x"].tolist(), curve.envelope["needed"].tolist(), curve.envelope["y"].round(4).unique()
    ([0.0, 0.0, 0.0, 0.5, 0.5, 1.0], [0, 0, 1, 1, 2, 2], array([0.6667]))
    """
    points, envelopes = [], []
    for r in _as_list(rankings, queries):
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
        points.append(_frame({
            "system": _repeat(r.system, len(seg)), "query": r.queries[seg].astype(object),
            "x": recall, "y": iprec, "recall": recall, "iprec": iprec,
            "needed": count, "precision": count / pos, "rank": pos.astype(np.int64),
            "docid": r.docids()[keep].astype(object) if keep.any() else np.empty(0, dtype=object),
            "grade": grades_or_nan(r.rel[keep]), "relevant": r.relevant(rel)[keep].astype(bool)}))

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
        envelopes.append(_frame({
            "system": _repeat(r.system, n), "query": np.repeat(r.queries[eseg], 2).astype(object),
            "x": ex, "y": ey, "recall": ex, "iprec": ey, "needed": np.repeat(k, 2)}))
    return InterpolatedPR(points=_concat(points), envelope=_concat(envelopes))


def eleven_point(rankings: Rankings | Sequence[Rankings], rel: int | None = None, rule: str | None = None,
                 average: bool = True, queries: Sequence[str] | None = None) -> pd.DataFrame:
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
    queries : sequence of str, optional
        Only these queries (default: all evaluated ones); the "all" rows then average over them.

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
    for r in _as_list(rankings, queries):
        rule_r = _rule(r, rule)
        source = r if rule_r == r.conventions.interpolation else \
            replace(r, conventions=replace(r.conventions, interpolation=rule_r))
        values = interpolated_precision(source, RECALL_LEVELS, rel)
        frames.append(_grid_frame(r.system, r.queries, levels, {"iprec": values}, "recall", "iprec", average,
                                  extra={"measure": labels}))
    return _concat(frames)


def eleven_point_rules(rankings: Rankings | Sequence[Rankings], rules: Sequence[str] = INTERPOLATIONS,
                       rel: int | None = None, average: bool = True,
                       queries: Sequence[str] | None = None) -> pd.DataFrame:
    """The eleven interpolated points under each interpolation rule, to see what the rule changes.

    Parameters
    ----------
    rankings : Rankings or sequence of Rankings
    rules : sequence of str, default=("trec_eval-9", "trec_eval-10", "textbook")
        The rules, in the order wanted.
    rel, average, queries
        As in :func:`eleven_point`.

    Returns
    -------
    pandas.DataFrame
        The frames of :func:`eleven_point` under each rule, one after the other, with a ``rule`` column
        after ``query``. :func:`eleven_point_table` lays them out one row per system and rule.

    Notes
    -----
    The rules differ only where x·R is not a whole number (R relevant documents in all): ``trec_eval-9``
    asks for (long)(x·R + 0.9) relevant documents, ``trec_eval-10`` for x·R rounded to the nearest,
    ``textbook`` for the least k with k / R >= x. With R = 3, recall 0.4 asks for 2, 1 and 2.

    Examples
    --------
    Relevant documents at ranks 1, 5 and 6 of three: at recall 0.4 trec_eval 10 reads the precision after
    one relevant document (1.0), the other rules after two (0.5).

    >>> from metrics import rank_runs
    >>> from metrics.curves import eleven_point_table
    >>> qrels = "1 0 d0 1\\n1 0 d1 1\\n1 0 d2 1\\n"
    >>> run = "".join(f"1 Q0 {d} {i + 1} {6 - i} s\\n" for i, d in enumerate(["d0", "x1", "x2", "x3", "d1", "d2"]))
    >>> table = eleven_point_table(eleven_point_rules(rank_runs(qrels, {"s": run}), average=False), "1")
    >>> table[["rule", "0.4", "11pt_avg"]].round(4).values.tolist()
    [['trec_eval-9', 0.5, 0.6818], ['trec_eval-10', 1.0, 0.7273], ['textbook', 0.5, 0.6818]]
    """
    if isinstance(rules, str):
        rules = (rules,)
    unknown = [rule for rule in rules if rule not in INTERPOLATIONS]
    if unknown or not rules:
        raise refuse("rules", f"one or more of {', '.join(map(repr, INTERPOLATIONS))}", list(rules))
    frames = []
    for rule in dict.fromkeys(rules):
        frame = eleven_point(rankings, rel=rel, rule=rule, average=average, queries=queries)
        frame.insert(2, "rule", rule)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


# ---- helpers ------------------------------------------------------------------------------------------
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
