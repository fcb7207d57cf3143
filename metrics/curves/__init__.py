"""Curves over ranks and recall levels, as tidy tables a plotting function draws as they are.

Every function takes one :class:`~metrics.rankings.Rankings` or a sequence of them (one per system) and
returns a :class:`pandas.DataFrame` with the columns ``system``, ``query``, ``x`` and ``y`` (what to draw)
followed by named copies of ``x`` and ``y`` and further columns meant for tooltips. All queries of all
systems are computed at once from the flat ranked arrays; nothing loops over queries.

=====================================  ==================  ==============================================
function                               x                   y
=====================================  ==================  ==============================================
:func:`pr_curve`                       recall at rank i    precision at rank i (the saw-tooth)
:func:`interpolated_pr`                recall              interpolated precision: rank points and envelope,
                                                           two tables (:class:`InterpolatedPR`)
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

Tables read off the curves
--------------------------
:func:`mean_over_queries` averages per-query curves point by point (the rows whose query is :data:`ALL`),
:func:`eleven_point_table` lays the eleven interpolated points side by side in the columns
:data:`LEVEL_NAMES` with their average (trec_eval's ``11pt_avg``),
:func:`at_x` reads each curve at one x (the row of rank k: DCG@k, IDCG@k, nDCG@k, P@k, R@k), and
:func:`identical_series` finds the systems whose curves coincide (drawn, one hides the other). The choices
:func:`gain_curves` takes are those of :mod:`metrics.gains` (:data:`GAINS`, :data:`DISCOUNTS`,
:data:`IDEALS`); a curve of one topic costs the length of that topic's ranking
(:meth:`metrics.Rankings.select_queries`).
"""

from __future__ import annotations

from metrics.curves._frames import ALL, LEVEL_NAMES, MAX_DEPTH
from metrics.curves._precision_recall import InterpolatedPR, eleven_point, eleven_point_rules, interpolated_pr, pr_curve
from metrics.curves._ranks import gain_curves, precision_recall_at_k
from metrics.curves._tables import at_x, eleven_point_table, identical_series, mean_over_queries
from metrics.gains import DISCOUNTS, GAINS, IDEALS

__all__ = [
    "ALL",
    "DISCOUNTS",
    "GAINS",
    "IDEALS",
    "InterpolatedPR",
    "LEVEL_NAMES",
    "MAX_DEPTH",
    "at_x",
    "eleven_point",
    "eleven_point_rules",
    "eleven_point_table",
    "gain_curves",
    "identical_series",
    "interpolated_pr",
    "mean_over_queries",
    "pr_curve",
    "precision_recall_at_k",
]
