"""Counts: queries, retrieved, relevant, relevant retrieved, judged non-relevant retrieved."""

from __future__ import annotations

import numpy as np

from metrics.measures.base import Measure, Param, Trec, register

_REL = Param("rel", int, default=None, help="minimum grade counted as relevant (default: the conventions' level)")


class _Count(Measure):
    aggregation = "sum"
    integer = True
    bounds = (0.0, None)


@register
class NumQ(_Count):
    """Number of evaluated queries (1 per query; summed).

    Notes
    -----
    trec_eval: ``num_q`` (printed only in the summary).
    """

    name = "NumQ"
    exact_under_ties = True
    ir_measures = ("NumQ",)
    pretty_name = "Number of queries"
    description = "Number of queries evaluated."
    latex = r"|Q|"
    trec = (Trec("num_q", order=1, per_query=False),)

    def compute(self, r) -> np.ndarray:
        return np.ones(r.n_queries)


@register
class NumRet(_Count):
    """Number of documents retrieved per query (after the depth and judged-only cuts).

    Notes
    -----
    trec_eval: ``num_ret``.
    """

    name = "NumRet"
    exact_under_ties = True
    ir_measures = ("NumRet",)
    pretty_name = "Retrieved"
    description = "Number of documents retrieved."
    latex = r"|\mathrm{Ret}|"
    trec = (Trec("num_ret", order=2),)

    def compute(self, r) -> np.ndarray:
        return r.num_ret.astype(np.float64)


@register
class NumRel(_Count):
    """Number of relevant documents in the judgments per query (retrieved or not).

    Notes
    -----
    trec_eval: ``num_rel``: judged documents with grade >= the relevance level. Its summary under complete
    topics (``-c``) counts, as trec_eval's does, every judgment with a grade above 0 in the qrels, whatever
    the relevance level.
    """

    name = "NumRel"
    exact_under_ties = True
    ir_measures = ("NumRel",)
    pretty_name = "Relevant"
    description = "Number of relevant documents in the judgments."
    latex = r"R = |\mathrm{Rel}|"
    params = (_REL,)
    trec = (Trec("num_rel", order=3),)

    def compute(self, r) -> np.ndarray:
        return r.num_rel(self.rel).astype(np.float64)

    def summary(self, r, values: np.ndarray) -> float:
        if r.conventions.complete and self.rel is None:  # trec_eval's m_num_rel.c under -c
            return float(r.rel_levels[:, r.grade_values >= 1].sum())
        return super().summary(r, values)


@register
class NumRelRet(_Count):
    """Number of relevant documents retrieved per query.

    Notes
    -----
    trec_eval: ``num_rel_ret``.
    """

    name = "NumRelRet"
    exact_under_ties = True
    ir_measures = ("NumRelRet",)
    pretty_name = "Relevant retrieved"
    description = "Number of relevant documents retrieved."
    latex = r"|\mathrm{Rel} \cap \mathrm{Ret}|"
    params = (_REL, Param("cutoff", int, default=None, min=1, help="rank cutoff k"))
    trec = (Trec("num_rel_ret", order=4),)

    def compute(self, r) -> np.ndarray:
        return r.hits(self.rel).count(r.n_queries, self.cutoff)


@register
class NumNonrelJudgedRet(_Count):
    """Number of retrieved documents judged non-relevant (grade >= 0 but below the relevance level).

    Notes
    -----
    trec_eval: ``num_nonrel_judged_ret``.
    """

    name = "NumNonrelJudgedRet"
    exact_under_ties = True
    pretty_name = "Judged non-relevant retrieved"
    description = "Number of retrieved documents judged non-relevant."
    latex = r"|\mathrm{Judged} \setminus \mathrm{Rel} \cap \mathrm{Ret}|"
    trec = (Trec("num_nonrel_judged_ret", order=32),)

    def compute(self, r) -> np.ndarray:
        nonrel = (r.rel >= 0) & ~r.relevant()
        return r.segment_sum(nonrel.astype(np.float64))
