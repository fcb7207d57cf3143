"""Judged documents in the top k."""

from __future__ import annotations

import numpy as np

from metrics.measures.base import Measure, Param, register


@register
class Judged(Measure):
    """Fraction of the top k documents that have a judgment: how well the qrels cover this run.

    Notes
    -----
    Not in trec_eval (ir_measures has a ``Judged@k`` of the same idea). Judged means in the qrels with a grade >= 0, relevant or
    not; a document absent from the qrels or carrying a negative grade is unjudged. As for P@k the
    denominator is k even when fewer than k documents were retrieved, so a short ranking counts the
    missing positions as unjudged (Judged@k + Unjudged@k < 1 then: Unjudged@k counts them as judged).
    Without a cutoff, the fraction of the whole ranking (0 for an empty ranking). Low values mean the
    run's scores rest on the assumption that unjudged documents are non-relevant.

    .. math:: Judged@k = \\frac{|\\{i \\le k : d_i \\in J\\}|}{k}
    """

    name = "Judged"
    exact_under_ties = True
    ir_measures = ("Judged@10",)
    ir_measures_differs = {"Judged@10": "ir_measures divides by the documents retrieved when fewer than k, counts a "
                                        "negative grade as judged and breaks score ties by docid ascending "
                                        "(trec_eval: descending)"}
    perfect = 1.0
    pretty_name = "Judged@k"
    description = "Fraction of the top k documents that have a relevance judgment."
    latex = r"Judged@k = \frac{1}{k}\left|\{i \le k : d_i \in J\}\right|"
    params = (Param("cutoff", int, default=None, min=1, help="rank cutoff k"),)

    def compute(self, r) -> np.ndarray:
        keep = (r.rel >= 0) & r.within(self.cutoff)
        count = np.bincount(r.seg[keep], minlength=r.n_queries).astype(np.float64)
        if self.cutoff is None:
            return np.divide(count, r.num_ret, out=np.zeros(r.n_queries), where=r.num_ret > 0)
        return count / self.cutoff
