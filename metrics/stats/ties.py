"""How much each value depends on the order of tied scores: the worst and best orderings of every tie group.

trec_eval breaks ties between equal scores by document id (descending), an order that says nothing about
the documents: a scorer that gives every document the same score still gets a value, and may get a high
one. This module evaluates each ranking as reported and, on the topics where a tie group holds documents
that differ in relevance, twice more, with the same vectorised kernels as :func:`metrics.evaluate`:

* reported: trec_eval's order (score descending, document id descending), the value everyone prints;
* worst: within each group of equal scores of a topic, the least relevant documents first (grade
  ascending; a document without a judgment ranks before a judged non-relevant one), then document id;
* best: the most relevant documents first (grade descending, documents without a judgment last).

``low`` and ``high`` are the smaller and larger of the worst and best values. They are the exact minimum
and maximum over every ordering of the tie groups for the measures of :func:`is_exact`: those whose value
never falls when a document moves up past a tied one of lower grade (or never rises: lower-is-better
measures such as Fallout, MR and Unjudged), whatever the threshold, gain or discount. Each topic's ties
are ordered independently, so the mean of the per-topic ``low`` (``high``) values is the exact minimum
(maximum) of the mean too. Only the documents ranked under the conventions are re-ordered: with a depth
cut (``-M``) a tied document just below the depth stays out, as in trec_eval.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from metrics.checks import Options, checked
from metrics.conventions import Conventions
from metrics.errors import ValidationError
from metrics.evaluate import (
    MeasureSpec,
    Runs,
    per_query_values,
    rank_runs,
    resolve_measures,
)
from metrics.io import Qrels, Source
from metrics.measures import Measure, list_measures
from metrics.measures.per_query import best_first, higher_is_better
from metrics.rankings import Rankings, tie_groups

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["EXACT_MEASURES", "TIE_COLUMNS", "is_exact", "reorder_ties", "tie_flips", "tie_ranges",
           "tie_straddles", "tie_summary"]

TIE_COLUMNS = ("system", "query", "measure", "low", "reported", "high")

EXACT_MEASURES = frozenset(cls.name for cls in list_measures() if cls.exact_under_ties)
"""The measures whose declaration says the grade-sorted orders of their tied scores are their exact bounds
(``Measure.exact_under_ties``; checked by brute force in the tests, over every ordering of every tie group)."""


def is_exact(measure: Measure) -> bool:
    """Whether the grade-sorted orderings give the exact minimum and maximum of ``measure`` over tie orders.

    Parameters
    ----------
    measure : Measure

    Returns
    -------
    bool
        What the measure's declaration says (:meth:`~metrics.measures.Measure.exact_ties`): True for the
        measures of :data:`EXACT_MEASURES`, except ``AP(denominator="retrieved")`` (moving a relevant
        document past the cutoff changes its denominator, so the value is not monotone). False for the
        residuals (``Precision_resid`` ...), which count unjudged documents as relevant, against the grade
        order; for AUC, Fallout, MR and infAP, which treat a judged non-relevant document differently from
        an unjudged one, so that the extreme orderings are not the grade-sorted ones; and for any measure
        not shown to be monotone.
    """
    return bool(measure.exact_ties())


@checked(order=Options("worst", "best", label="tie order"))
def reorder_ties(rankings: Rankings, order: str) -> Rankings:
    """The same rankings with each group of equal scores re-ordered by grade.

    Parameters
    ----------
    rankings : Rankings
    order : {"worst", "best"}
        ``"worst"``: grade ascending within each tie group (documents without a judgment first);
        ``"best"``: grade descending (documents without a judgment last). Equal grades keep their
        reported order (document id, descending).

    Returns
    -------
    Rankings
        A new object sharing the run, judgments and conventions; one sort of the ranked positions.
    """
    n = len(rankings.rel)
    if n < 2:
        return rankings
    seg, score = rankings.seg, rankings.scores()
    tied = (seg[1:] == seg[:-1]) & (score[1:] == score[:-1])  # a row and the next share a score
    if not tied.any():
        return dataclasses.replace(rankings)
    idx, opens = tie_groups(tied)  # the rows of the groups of two or more: the only ones that move
    group = np.cumsum(opens)
    key = rankings.rel[idx] if order == "worst" else -rankings.rel[idx]
    moved = np.arange(n)
    moved[idx] = idx[np.lexsort((idx, key, group))]
    return dataclasses.replace(rankings, rel=rankings.rel[moved], rows=rankings.rows[moved])


def _mixed_ties(rankings: Rankings) -> np.ndarray:
    """The positions of the queries with a group of tied scores whose documents differ in relevance code: the
    only ones a re-ordering of ties changes (every measure reads the codes in rank order, nothing else)."""
    if len(rankings.rel) < 2:
        return np.zeros(0, dtype=np.int64)
    seg, score, rel = rankings.seg, rankings.scores(), rankings.rel
    differ = (seg[1:] == seg[:-1]) & (score[1:] == score[:-1]) & (rel[1:] != rel[:-1])
    return np.unique(seg[1:][differ])


def _as_rankings(qrels: Qrels | Source | None, runs: Runs | Sequence[Rankings],
                 conventions: Conventions | None, options: dict[str, Any]) -> list[Rankings]:
    if isinstance(runs, Rankings):
        return [runs]
    if isinstance(runs, Sequence) and runs and all(isinstance(r, Rankings) for r in runs):
        return list(runs)
    if qrels is None:
        raise ValidationError("qrels are needed to rank runs; pass them, or pass ranked runs (metrics.rank_runs)")
    return rank_runs(qrels, runs, conventions, **options)


@checked(inexact=Options("raise", "nan"))
def tie_ranges(qrels: Qrels | Source | None, runs: Runs | Sequence[Rankings],
               measures: MeasureSpec | Iterable[MeasureSpec] = ("AP", "nDCG@10", "P@10", "RR"), *,
               conventions: Conventions | None = None, inexact: str = "raise", **options: Any) -> pd.DataFrame:
    """Per topic, each measure at the worst and best ordering of tied scores, beside the reported value.

    Parameters
    ----------
    qrels : Qrels, path, bytes, text, or None
        Needed unless ``runs`` are already ranked.
    runs : runs as for :func:`metrics.evaluate`, or a sequence of Rankings (``metrics.rank_runs``)
    measures : str, Measure, or a sequence of them
    conventions : Conventions, optional
    inexact : {"raise", "nan"}, default="raise"
        For a measure where the grade-sorted orderings are not proven bounds (see :func:`is_exact`):
        raise a ValidationError, or report NaN as its ``low`` and ``high``.
    **options
        Fields of :class:`~metrics.conventions.Conventions`.

    Returns
    -------
    pandas.DataFrame
        Columns ``system``, ``query``, ``measure``, ``low``, ``reported``, ``high``, in the order of
        :func:`metrics.evaluate`; ``reported`` equals its ``value``.

    Examples
    --------
    >>> qrels = "1 0 a 0\\n1 0 b 1\\n"
    >>> run = "1 Q0 a 1 1.0 x\\n1 Q0 b 2 1.0 x\\n"
    >>> tie_ranges(qrels, {"x": run}, ["RR"])
      system query measure  low  reported  high
    0      x     1      RR  0.5       1.0   1.0
    """
    import pandas as pd

    pairs = resolve_measures(measures)
    loose = [label for label, m in pairs if not is_exact(m)]
    if loose and inexact == "raise":
        raise ValidationError(f"no exact tie range for {', '.join(loose)}: the grade-sorted orderings are not "
                              f"its minimum and maximum (use inexact='nan')")
    exact = np.array([is_exact(m) for _, m in pairs])
    bounded = [pair for pair, e in zip(pairs, exact) if e]
    frames = []
    for r in _as_rankings(qrels, runs, conventions, options):
        reported = per_query_values(r, pairs)
        low = np.where(exact[:, None], reported, np.nan)
        high = low.copy()
        moved = _mixed_ties(r)  # elsewhere both orderings are the reported one
        if bounded and len(moved):
            part = r.take(moved)
            worst = per_query_values(reorder_ties(part, "worst"), bounded)
            best = per_query_values(reorder_ties(part, "best"), bounded)
            shown = reported[np.ix_(exact, moved)]  # inside its range, also where sums round differently
            low[np.ix_(exact, moved)] = np.fmin(np.fmin(worst, best), shown)
            high[np.ix_(exact, moved)] = np.fmax(np.fmax(worst, best), shown)
        nq = r.n_queries
        frames.append(pd.DataFrame({
            "system": np.repeat(r.system, nq * len(pairs)),
            "query": np.repeat(r.queries.astype(str), len(pairs)),
            "measure": np.tile(np.asarray([label for label, _ in pairs], dtype=object), nq),
            "low": low.T.ravel(), "reported": reported.T.ravel(), "high": high.T.ravel(),
        }))
    return pd.concat(frames, ignore_index=True)[list(TIE_COLUMNS)]


def tie_summary(ranges: pd.DataFrame) -> pd.DataFrame:
    """Each system's summary of ``low``, ``reported`` and ``high`` per measure, by the measure's own rule.

    Parameters
    ----------
    ranges : pandas.DataFrame
        As returned by :func:`tie_ranges`.

    Returns
    -------
    pandas.DataFrame
        Columns ``system``, ``measure``, ``low``, ``reported``, ``high``, ``n_queries``: the mean (or
        trec_eval's sum, geometric mean or median) over topics. Every rule is monotone, so the summaries
        of ``low`` and ``high`` are the exact bounds of the summary over tie orders.
    """
    import pandas as pd

    from metrics.measures import parse_measure

    rows = []
    for (system, label), part in ranges.groupby(["system", "measure"], sort=False):
        measure = parse_measure(label)
        rows.append({"system": system, "measure": label,
                     **{c: measure.aggregate(part[c].to_numpy()) for c in ("low", "reported", "high")},
                     "n_queries": len(part)})
    return pd.DataFrame(rows, columns=["system", "measure", "low", "reported", "high", "n_queries"])


def tie_flips(summary: pd.DataFrame) -> pd.DataFrame:
    """Pairs of systems whose reported order could be reversed by ordering their ties differently.

    Parameters
    ----------
    summary : pandas.DataFrame
        As returned by :func:`tie_summary`.

    Returns
    -------
    pandas.DataFrame
        One row per measure and pair where ``first`` reports a value at least as good as ``second``'s and
        yet some order of the ties could put ``second`` ahead (or, for equal reported values, either):
        columns ``measure``, ``first``, ``second``, ``first_reported``, ``second_reported``, ``first_low``,
        ``second_high``. "Ahead" follows the measure's declaration: where higher is better, ``second``'s
        ``high`` exceeds ``first``'s ``low``, and ``first_low`` and ``second_high`` are those bounds; where
        lower is better (MR, Fallout, ...), ``second``'s ``low`` is below ``first``'s ``high``, and
        ``first_low`` and ``second_high`` hold ``first``'s worst and ``second``'s best value, those two.
    """
    import pandas as pd

    columns = ["measure", "first", "second", "first_reported", "second_reported", "first_low", "second_high"]
    frames = []
    for label, part in summary.groupby("measure", sort=False):
        part = part.iloc[best_first(part["reported"].to_numpy(dtype=float), label)]
        names = part["system"].to_numpy()
        rep, low, high = (part[c].to_numpy(dtype=float) for c in ("reported", "low", "high"))
        if not higher_is_better(label):  # the same test on values turned round: the worst bound is the high one
            rep, low, high = -rep, -high, -low
        i, j = np.triu_indices(len(part), k=1)  # i reports a value at least as good as j's
        flip = (high[j] > low[i]) | ((rep[i] == rep[j]) & (high[i] > low[j]))
        i, j = i[flip], j[flip]
        sign = 1.0 if higher_is_better(label) else -1.0
        frames.append(pd.DataFrame({"measure": label, "first": names[i], "second": names[j],
                                    "first_reported": sign * rep[i], "second_reported": sign * rep[j],
                                    "first_low": sign * low[i], "second_high": sign * high[j]}, columns=columns))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)


def tie_straddles(ranges: pd.DataFrame, rankings: Sequence[Rankings]) -> pd.DataFrame:
    """Topics where a group of tied scores straddles the cutoff of a measure, and how far the value moves.

    Parameters
    ----------
    ranges : pandas.DataFrame
        As returned by :func:`tie_ranges` for ``rankings``.
    rankings : sequence of Rankings

    Returns
    -------
    pandas.DataFrame
        Columns ``system``, ``query``, ``measure``, ``cutoff``, ``low``, ``reported``, ``high``: one row per
        measure with a cutoff k and topic whose documents at ranks k and k + 1 share a score.
    """
    import pandas as pd

    from metrics.measures import parse_measure

    columns = ["system", "query", "measure", "cutoff", "low", "reported", "high"]
    cutoffs = {label: parse_measure(label).values.get("cutoff") for label in ranges["measure"].unique()}
    cutoffs = {label: k for label, k in cutoffs.items() if k is not None}
    frames = []
    for r in rankings:
        score = r.scores()
        for label, k in cutoffs.items():
            at = r.offsets[:-1] + k - 1
            inside = r.num_ret > k
            split = np.zeros(r.n_queries, dtype=bool)
            split[inside] = score[at[inside]] == score[at[inside] + 1]
            if not split.any():
                continue
            part = ranges[(ranges["system"] == r.system) & (ranges["measure"] == label)
                          & ranges["query"].isin(r.queries[split].astype(str))]
            frames.append(part.assign(cutoff=k)[columns])
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)
