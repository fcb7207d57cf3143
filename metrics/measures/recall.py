"""Recall at a cutoff."""

from __future__ import annotations

import numpy as np

from metrics.measures.base import Measure, Param, Trec, register
from metrics.measures.precision import TREC_CUTOFFS


@register
class R(Measure):
    """Recall at rank k: the fraction of all relevant documents found in the top k.

    Notes
    -----
    trec_eval: ``recall_k``. A query with no relevant documents scores 0. Without a cutoff, recall of the
    whole ranking (``set_recall``).

    .. math:: R@k = \\frac{|\\{i \\le k : d_i \\in \\mathrm{Rel}\\}|}{|\\mathrm{Rel}|}
    """

    name = "R"
    exact_under_ties = True
    ir_measures = ("R@100", "SetR")
    perfect = 1.0
    aliases = ("Recall", "SetR")
    pretty_name = "Recall@k"
    description = "Fraction of the relevant documents found in the top k."
    latex = r"R@k = \frac{1}{|\mathrm{Rel}|}\sum_{i=1}^{k} \mathrm{rel}(d_i)"
    params = (Param("cutoff", int, default=None, min=1, help="rank cutoff k"),
              Param("rel", int, default=None, help="minimum grade counted as relevant"))
    trec = (Trec("recall", "cutoff", TREC_CUTOFFS, order=12), Trec("set_recall", order=29))

    def compute(self, r) -> np.ndarray:
        hits = r.hits(self.rel).count(r.n_queries, self.cutoff)
        num_rel = r.num_rel(self.rel).astype(np.float64)
        return np.divide(hits, num_rel, out=np.zeros_like(hits), where=num_rel > 0)
