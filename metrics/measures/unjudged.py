"""Unjudged documents in the top k (trec_eval 10 unj)."""

from __future__ import annotations

import numpy as np

from metrics.measures.base import Measure, Param, Trec, register

UNJ_CUTOFFS = (5, 10, 20)


@register
class Unjudged(Measure):
    """Fraction of the top k documents that are unjudged: a warning sign for an incomplete pool.

    Notes
    -----
    trec_eval 10: ``unj_k``. Unjudged means absent from the qrels or judged with a negative grade. As for
    P@k, a ranking shorter than k is padded with judged documents (the denominator stays k). Without a
    cutoff, the fraction of the whole ranking. High values at small k mean the collection does not cover
    this run: its scores are lower bounds.

    .. math:: Unj@k = \\frac{|\\{i \\le k : d_i \\notin J\\}|}{k}
    """

    name = "Unjudged"
    exact_under_ties = True
    perfect = 0.0
    aliases = ("Unj",)
    pretty_name = "Unjudged@k"
    description = "Fraction of the top k documents without a judgment (high: scores are lower bounds)."
    latex = r"Unj@k = \frac{1}{k}\left|\{i \le k : d_i \notin J\}\right|"
    higher_is_better = False
    params = (Param("cutoff", int, default=None, min=1, help="rank cutoff k"),)
    trec = (Trec("unj", "cutoff", UNJ_CUTOFFS, order=35, version=10),)

    def compute(self, r) -> np.ndarray:
        keep = (r.rel < 0) & r.within(self.cutoff)
        count = np.bincount(r.seg[keep], minlength=r.n_queries).astype(np.float64)
        if self.cutoff is None:
            return np.divide(count, r.num_ret, out=np.zeros(r.n_queries), where=r.num_ret > 0)
        return count / self.cutoff
