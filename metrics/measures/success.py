"""Success at a cutoff (trec_eval success)."""

from __future__ import annotations

import numpy as np

from metrics.measures.base import Measure, Param, Trec, register

SUCCESS_CUTOFFS = (1, 5, 10)


@register
class Success(Measure):
    """Success at rank k: 1 if any of the top k documents is relevant, else 0.

    Notes
    -----
    trec_eval: ``success_k`` (Tomlinson); its mean over queries is the fraction of queries answered in the
    top k. Without a cutoff, whether any retrieved document is relevant. A query with no relevant documents
    scores 0. Success@1 equals P@1.

    .. math:: S@k = \\mathbb{1}\\big[\\exists\\, i \\le k : d_i \\in \\mathrm{Rel}\\big]
    """

    name = "Success"
    exact_under_ties = True
    ir_measures = ("Success@10",)
    perfect = 1.0
    pretty_name = "Success@k"
    description = "1 if a relevant document is in the top k, else 0; its mean is the fraction of queries answered."
    latex = r"S@k = \mathbb{1}\left[\exists\, i \le k : d_i \in \mathrm{Rel}\right]"
    params = (Param("cutoff", int, default=None, min=1, help="rank cutoff k"),
              Param("rel", int, default=None, help="minimum grade counted as relevant"))
    trec = (Trec("success", "cutoff", SUCCESS_CUTOFFS, order=26),)

    def compute(self, r) -> np.ndarray:
        return (r.hits(self.rel).count(r.n_queries, self.cutoff) > 0).astype(np.float64)
