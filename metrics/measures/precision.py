"""Precision at a cutoff."""

from __future__ import annotations

import numpy as np

from metrics.measures.base import Measure, Param, Trec, register

TREC_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)


@register
class P(Measure):
    """Precision at rank k: the fraction of the top k that is relevant.

    Notes
    -----
    trec_eval: ``P_k``. The denominator is k even when fewer than k documents were retrieved (a short
    ranking is penalised), as in trec_eval. Without a cutoff, precision of the whole ranking (``set_P``).

    .. math:: P@k = \\frac{|\\{i \\le k : d_i \\in \\mathrm{Rel}\\}|}{k}
    """

    name = "P"
    exact_under_ties = True
    ir_measures = ("P@5", "P(rel=2)@5", "SetP")
    aliases = ("Precision", "SetP")
    pretty_name = "Precision@k"
    description = "Fraction of the top k documents that are relevant."
    latex = r"P@k = \frac{1}{k}\sum_{i=1}^{k} \mathrm{rel}(d_i)"
    params = (Param("cutoff", int, default=None, min=1, help="rank cutoff k"),
              Param("rel", int, default=None, help="minimum grade counted as relevant"))
    trec = (Trec("P", "cutoff", TREC_CUTOFFS, order=11), Trec("set_P", order=27))

    def compute(self, r) -> np.ndarray:
        hits = r.hits(self.rel).count(r.n_queries, self.cutoff)
        if self.cutoff is None:
            return np.divide(hits, r.num_ret, out=np.zeros_like(hits), where=r.num_ret > 0)
        return hits / self.cutoff
