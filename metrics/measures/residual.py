"""Residuals: what P@k, nDCG@k, AP and RR would be if every unjudged retrieved document were relevant.

Each residual evaluates the same kernel as its measure on the rankings with the unjudged retrieved
documents (absent from the qrels or with a negative grade) given the grade ``unjudged_grade``, and added to
the judgments: those ranked within the cutoff (all of them without one) count in the number of relevant
documents (AP) and join the ideal ranking (nDCG). The
gap between a measure and its residual bounds what completing the judgments could add. RBP's counterpart
is trec_eval 10's ``rbp_resid`` (:mod:`metrics.measures.rbp`), which reports that gap itself.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from types import MappingProxyType

import numpy as np

from metrics.measures.ap import AP, average_precision
from metrics.measures.base import Measure, Param, register
from metrics.measures.ndcg import GAIN_PARAM, dcg, nDCG
from metrics.measures.precision import P
from metrics.measures.rr import RR

UNJUDGED_GRADE = Param("unjudged_grade", int, default=None, min=1,
                       help="grade given to unjudged retrieved documents (default: the qrels' highest grade, "
                            "at least 1)")


def unjudged_as_relevant(r, grade: int | None, cutoff: int | None = None):
    """The rankings with every unjudged retrieved document judged ``grade`` (None: the qrels' highest, >= 1).

    Parameters
    ----------
    r : Rankings
    grade : int or None
    cutoff : int or None
        Only the unjudged documents ranked within it join the judgment counts (none past the cutoff
        changes a value at that cutoff).

    Returns
    -------
    Rankings
        Unjudged positions carry ``grade``; each query's judgment counts gain its unjudged retrieved
        documents at that grade (so num_rel and the ideal ranking include them).
    """
    grade = max(r.max_grade, 1) if grade is None else grade
    unjudged = r.rel < 0
    counted = unjudged & r.within(cutoff)
    values = np.union1d(r.grade_values, [grade]).astype(np.int64)
    levels = np.zeros((r.n_queries, len(values)), dtype=np.int64)
    levels[:, np.searchsorted(values, r.grade_values)] = r.rel_levels
    levels[:, np.searchsorted(values, grade)] += np.bincount(r.seg[counted], minlength=r.n_queries)
    return dataclasses.replace(r, rel=np.where(unjudged, grade, r.rel), rel_levels=levels, grade_values=values)


@register
class PResidual(Measure):
    """Precision at k counting every unjudged retrieved document as relevant.

    Notes
    -----
    Not in trec_eval. P@k <= Precision_resid@k; the gap is Unjudged@k (at any threshold up to ``unjudged_grade``).

    .. math:: P_{resid}@k = \\frac{|\\{i \\le k : d_i \\in \\mathrm{Rel} \\cup \\bar J\\}|}{k}
    """

    name = "Precision_resid"
    pretty_name = "Precision@k residual"
    description = "Precision at k if every unjudged retrieved document were relevant."
    latex = r"P_{resid}@k = \frac{1}{k}\left|\{i \le k : d_i \in \mathrm{Rel} \cup \bar J\}\right|"
    params = (Param("cutoff", int, default=None, min=1, help="rank cutoff k"),
              Param("rel", int, default=None, help="minimum grade counted as relevant"), UNJUDGED_GRADE)

    def compute(self, r) -> np.ndarray:
        return P(cutoff=self.cutoff, rel=self.rel).compute(unjudged_as_relevant(r, self.unjudged_grade))


@register
class APResidual(Measure):
    """Average precision counting every unjudged retrieved document as relevant.

    Notes
    -----
    Not in trec_eval. The unjudged retrieved documents within the cutoff join the relevant ones, so R
    grows with them. Not always above AP: a query with many unjudged documents deep
    in the ranking can lose more through the larger R than it gains from them.

    .. math:: AP_{resid} = \\frac{1}{|\\mathrm{Rel} \\cup \\bar J_{ret}|} \\sum_{i : d_i \\in \\mathrm{Rel} \\cup \\bar J} P_{resid}@i
    """

    name = "AP_resid"
    perfect = 1.0
    pretty_name = "Average precision residual"
    description = "Average precision if every unjudged retrieved document were relevant."
    latex = r"AP_{resid} = \frac{1}{|\mathrm{Rel} \cup \bar J_{ret}|}\sum_{i : d_i \in \mathrm{Rel} \cup \bar J} P_{resid}@i"
    params = (Param("cutoff", int, default=None, min=1, help="rank cutoff k"),
              Param("rel", int, default=None, help="minimum grade counted as relevant"), UNJUDGED_GRADE)

    def compute(self, r) -> np.ndarray:
        return average_precision(unjudged_as_relevant(r, self.unjudged_grade, self.cutoff), self.rel, self.cutoff)


@register
class RRResidual(Measure):
    """Reciprocal rank of the first document that is relevant or unjudged.

    Notes
    -----
    Not in trec_eval. RR <= RR_resid; equal when the first relevant document has no unjudged one above it.

    .. math:: RR_{resid} = \\frac{1}{\\min\\{i : d_i \\in \\mathrm{Rel} \\cup \\bar J\\}}
    """

    name = "RR_resid"
    perfect = 1.0
    pretty_name = "Reciprocal rank residual"
    description = "Reciprocal rank if every unjudged retrieved document were relevant."
    latex = r"RR_{resid} = \frac{1}{\min\{i : d_i \in \mathrm{Rel} \cup \bar J\}}"
    params = (Param("cutoff", int, default=None, min=1, help="rank cutoff k"),
              Param("rel", int, default=None, help="minimum grade counted as relevant"), UNJUDGED_GRADE)

    def compute(self, r) -> np.ndarray:
        return RR(cutoff=self.cutoff, rel=self.rel).compute(unjudged_as_relevant(r, self.unjudged_grade))


@register
class nDCGResidual(Measure):
    """nDCG with every unjudged retrieved document judged ``unjudged_grade`` (default the highest grade).

    Notes
    -----
    Not in trec_eval. The unjudged retrieved documents within the cutoff also join the ideal ranking,
    which is what judging them that way would do; like AP_resid it can fall below nDCG.

    .. math:: nDCG_{resid}@k = \\frac{DCG@k}{IDCG@k} \\text{ with } g(d) = g_u \\text{ for } d \\notin J
    """

    name = "nDCG_resid"
    perfect = 1.0
    pretty_name = "nDCG@k residual"
    description = "nDCG at k if every unjudged retrieved document were judged with the highest grade."
    latex = r"nDCG_{resid}@k = \frac{DCG@k}{IDCG@k},\ g(d) = g_u \text{ for unjudged } d"
    params = (Param("cutoff", int, default=None, min=1, help="rank cutoff k"), GAIN_PARAM, UNJUDGED_GRADE)

    def compute(self, r) -> np.ndarray:
        actual, ideal = dcg(unjudged_as_relevant(r, self.unjudged_grade, self.cutoff), self.gain, self.cutoff, "log2", 2.0,
                            "judged")
        return np.divide(actual, ideal, out=np.zeros_like(actual), where=ideal > 0)


RESIDUAL_OF: Mapping[str, str] = MappingProxyType({P.name: PResidual.name, nDCG.name: nDCGResidual.name,
                                                    AP.name: APResidual.name, RR.name: RRResidual.name})
"""Each measure that has a residual here, by registered name: the residual's registered name.

The residual is the measure with every unjudged retrieved document relevant, so the gap between the two is
what judging them could add. RBP is not here: trec_eval 10's ``RBP_resid`` (:mod:`metrics.measures.rbp`)
is that gap itself, not the measure's value with the unjudged documents relevant.
"""
