"""Relative precision at a cutoff (trec_eval relative_P) and of the whole ranking (set_relative_P)."""

from __future__ import annotations

import numpy as np

from metrics.measures.base import Measure, Param, Trec, register
from metrics.measures.precision import TREC_CUTOFFS


@register
class RelP(Measure):
    """Relative precision at rank k: precision at k divided by the best precision possible at k.

    Notes
    -----
    trec_eval: ``relative_P_k``; without a cutoff, ``set_relative_P`` (k = the number retrieved). The best
    possible precision at k is ``min(k, R) / k``, so relative precision is precision while k <= R and
    recall after. A ranking shorter than k is padded with non-relevant documents (``relative_P_k``), and
    an empty ranking or a query with no relevant documents scores 0.

    .. math:: RelP@k = \\frac{|\\{i \\le k : d_i \\in \\mathrm{Rel}\\}|}{\\min(k, R)}
    """

    name = "RelP"
    exact_under_ties = True
    ir_measures = ("SetRelP",)
    perfect = 1.0
    aliases = ("RelativeP", "SetRelP")
    pretty_name = "Relative precision@k"
    description = "Relevant documents in the top k divided by the most there could be, min(k, R)."
    latex = r"RelP@k = \frac{1}{\min(k, R)}\sum_{i=1}^{k} \mathrm{rel}(d_i)"
    params = (Param("cutoff", int, default=None, min=1, help="rank cutoff k"),
              Param("rel", int, default=None, help="minimum grade counted as relevant"))
    trec = (Trec("relative_P", "cutoff", TREC_CUTOFFS, order=25), Trec("set_relative_P", order=28))

    def compute(self, r) -> np.ndarray:
        found = r.hits(self.rel).count(r.n_queries, self.cutoff)
        num_rel = r.num_rel(self.rel)
        # min(k, R) is at most R: a cutoff past every R is capped there (a Python int may exceed int64)
        k = r.num_ret if self.cutoff is None else np.full(r.n_queries, min(self.cutoff, int(num_rel.max(initial=0))))
        best = np.minimum(k, num_rel)
        return np.divide(found, best, out=np.zeros_like(found), where=best > 0)
