"""The F-measure: weighted harmonic mean of precision and recall (trec_eval set_F)."""

from __future__ import annotations

import numpy as np

from metrics.measures.base import Measure, Param, Trec, register


@register
class F(Measure):
    """F-beta: the weighted harmonic mean of precision and recall, of the top k or of the retrieved set.

    Notes
    -----
    trec_eval: ``set_F`` (no cutoff, ``beta`` 1). ``beta > 1`` weighs recall more, ``beta < 1``
    precision (van Rijsbergen's E = 1 - F). With a cutoff k, precision is P@k (denominator k, as ``P_k``)
    and recall R@k. A query with no relevant document retrieved scores 0.

    .. math:: F_\\beta = \\frac{(1+\\beta^2)\\,P\\,R}{\\beta^2 P + R}
    """

    name = "F"
    exact_under_ties = True
    ir_measures = ("SetF",)
    aliases = ("F1", "Fbeta", "SetF")
    pretty_name = "F-measure"
    description = "Weighted harmonic mean of precision and recall (beta > 1 favours recall)."
    latex = r"F_\beta = \frac{(1+\beta^2)\,P\,R}{\beta^2 P + R}"
    params = (Param("cutoff", int, default=None, min=1, help="rank cutoff k"),
              Param("beta", float, default=1.0, min=0.0, help="relative weight of recall"),
              Param("rel", int, default=None, help="minimum grade counted as relevant"))
    trec = (Trec("set_F", order=31),)

    def compute(self, r) -> np.ndarray:
        found = r.hits(self.rel).count(r.n_queries, self.cutoff)
        shown = r.num_ret if self.cutoff is None else np.full(r.n_queries, float(self.cutoff))  # k may pass int64
        num_rel = r.num_rel(self.rel)
        out = np.zeros(r.n_queries)
        ok = found > 0
        p = found[ok] / shown[ok]
        rec = found[ok] / num_rel[ok]
        b2 = self.beta * self.beta
        if np.isinf(b2):  # beta past 1e154: the limit of F as beta grows, recall
            out[ok] = rec
        else:
            out[ok] = (b2 + 1.0) * p * rec / (b2 * p + rec)
        return out
