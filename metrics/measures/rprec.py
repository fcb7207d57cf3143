"""R-precision (trec_eval Rprec) and precision at multiples of R (Rprec_mult)."""

from __future__ import annotations

import numpy as np

from metrics.measures.base import Measure, Param, Trec, register

RPREC_MULTIPLES = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)


@register
class Rprec(Measure):
    """R-precision: precision after R documents, R being the number of relevant documents of the query.

    Notes
    -----
    trec_eval: ``Rprec``; with ``multiple=m``, ``Rprec_mult_m``: precision after
    ``k = (long)(m * R + 0.9)`` documents (trec_eval 9 and 10 alike). At rank R precision equals recall.
    A ranking shorter than k is padded with non-relevant documents (the denominator stays k), as in ``P_k``.
    A query with no relevant documents, or whose k is 0, scores 0.

    .. math:: R\\text{-}Prec = \\frac{|\\{i \\le R : d_i \\in \\mathrm{Rel}\\}|}{R}
    """

    name = "Rprec"
    exact_under_ties = True
    ir_measures = ("Rprec",)
    perfect = 1.0
    pretty_name = "R-precision"
    description = "Precision after R documents, R = number of relevant documents (there P = recall)."
    latex = r"R\text{-}Prec = \frac{1}{R}\sum_{i=1}^{R} \mathrm{rel}(d_i),\quad R = |\mathrm{Rel}|"
    params = (Param("multiple", float, default=None, min=0.0,
                    help="precision after (long)(multiple * R + 0.9) documents (trec_eval Rprec_mult)"),
              Param("rel", int, default=None, help="minimum grade counted as relevant"))
    trec = (Trec("Rprec", order=7), Trec("Rprec_mult", "multiple", RPREC_MULTIPLES, order=15, fmt="{:.2f}"))

    def compute(self, r) -> np.ndarray:
        num_rel = r.num_rel(self.rel)
        if self.multiple is None:
            k = num_rel
        else:
            with np.errstate(over="ignore"):  # k as a whole float: m * R past int64 (or infinite) pads to 0
                k = np.floor(self.multiple * num_rel.astype(np.float64) + 0.9)
        hits = r.hits(self.rel)
        found = np.bincount(hits.seg[hits.pos <= k[hits.seg]], minlength=r.n_queries).astype(np.float64)
        return np.divide(found, k, out=np.zeros(r.n_queries), where=k > 0)
