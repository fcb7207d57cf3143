"""Rank of the first relevant document (its mean over queries is the mean rank, MR)."""

from __future__ import annotations

import numpy as np

from metrics.measures.base import Measure, Param, register

MISSING = ("depth+1", "num_ret+1", "exclude")


def aggregate_defined(measure: Measure, values: np.ndarray) -> float:
    """``measure``'s own aggregate over the queries where it is defined (NaN per-query values left out).

    NaN when no query has a value; 0.0 for no queries at all, as for every measure.
    """
    values = np.asarray(values, dtype=np.float64)
    kept = values[~np.isnan(values)]
    if len(values) and not len(kept):
        return float("nan")
    return Measure.aggregate(measure, kept)


@register
class MR(Measure):
    """Rank of the first relevant document; its mean over queries is the mean rank (lower is better).

    Notes
    -----
    Not in trec_eval. The per-query value is the 1-based rank of the first relevant document within the
    top k (the whole ranking without a cutoff). Unlike reciprocal rank it is on an interval scale of
    ranks, so the mean is meaningful — but one query whose first relevant document sits at rank 500 moves
    the mean as much as 499 queries moving by one rank, so it is dominated by the worst queries.

    A query with no relevant document in the top k (including a query with no relevant documents at all)
    has no first rank; ``missing`` decides its value:

    ``"depth+1"`` (default)
        One past the evaluation depth D, the same for every query: the smaller of the cutoff k and the
        conventions' depth (trec_eval ``-M``) where either is set, else the longest ranking of the run.
        With a cutoff this is the usual k + 1 penalty.
    ``"num_ret+1"``
        One past the end of the query's own ranking: min(k, number retrieved) + 1. Cheaper for a run that
        retrieves few documents (an empty ranking scores 1, the best value), so it rewards short rankings.
    ``"exclude"``
        NaN: the query is left out of the mean (the number of queries averaged then differs between
        runs, and a run that finds nothing for hard queries is not penalised for them). If every query is
        left out, the mean is NaN.

    .. math:: MR = \\frac{1}{|Q|}\\sum_{q \\in Q} \\min\\{i \\le k : d_i \\in \\mathrm{Rel}_q\\}
    """

    name = "MR"
    aliases = ("MeanRank",)
    pretty_name = "Mean rank of the first relevant document"
    description = "Rank of the first relevant document (lower is better); its mean over queries is MR."
    latex = r"MR = \frac{1}{|Q|}\sum_{q} \mathrm{rank}_q\left(\text{first relevant}\right)"
    higher_is_better = False
    bounds = (1.0, None)
    params = (Param("cutoff", int, default=None, min=1, help="rank cutoff k"),
              Param("rel", int, default=None, help="minimum grade counted as relevant"),
              Param("missing", str, default="depth+1", choices=MISSING,
                    help="value when no relevant document is found: depth+1, num_ret+1, or exclude (NaN, "
                         "left out of the mean)"))

    def compute(self, r) -> np.ndarray:
        hits = r.hits(self.rel)
        first = hits.order == 1
        if self.cutoff is not None:
            first &= hits.pos <= self.cutoff
        found = np.zeros(r.n_queries, dtype=bool)
        found[hits.seg[first]] = True
        out = np.empty(r.n_queries)
        out[hits.seg[first]] = hits.pos[first]
        if self.missing == "exclude":
            fill = np.full(r.n_queries, np.nan)
        elif self.missing == "num_ret+1":
            shown = r.num_ret if self.cutoff is None else np.minimum(r.num_ret, self.cutoff)
            fill = shown + 1.0
        else:
            fill = np.full(r.n_queries, self._depth(r) + 1.0)
        out[~found] = fill[~found]
        return out

    def aggregate(self, values: np.ndarray) -> float:
        """Mean over the queries with a value: with ``missing="exclude"`` the NaN queries are left out."""
        return aggregate_defined(self, values)

    def _depth(self, r) -> int:
        limits = [d for d in (self.cutoff, r.conventions.depth) if d is not None]
        if limits:
            return min(limits)
        return int(r.num_ret.max()) if r.n_queries else 0
