"""Set-based average precision (trec_eval set_map)."""

from __future__ import annotations

import numpy as np

from metrics.measures.base import Measure, Param, Trec, register


@register
class SetAP(Measure):
    """Set average precision: precision times recall of the whole retrieved set.

    Notes
    -----
    trec_eval: ``set_map``. The retrieved documents are treated as an unranked set; the value is
    ``set_P * set_recall``, which is what AP would be if every relevant retrieved document sat at the top
    of the set. A query with nothing retrieved or no relevant documents scores 0.

    .. math:: SetAP = \\frac{|Ret \\cap Rel|}{|Ret|} \\cdot \\frac{|Ret \\cap Rel|}{|Rel|}
    """

    name = "SetAP"
    exact_under_ties = True
    ir_measures = ("SetAP",)
    pretty_name = "Set average precision"
    description = "Precision times recall of the retrieved set, ignoring order."
    latex = r"SetAP = \frac{|Ret \cap Rel|^2}{|Ret|\,|Rel|}"
    params = (Param("rel", int, default=None, help="minimum grade counted as relevant"),)
    trec = (Trec("set_map", order=30),)

    def compute(self, r) -> np.ndarray:
        found = r.hits(self.rel).count(r.n_queries)
        denominator = r.num_ret.astype(np.float64) * r.num_rel(self.rel)
        return np.divide(found * found, denominator, out=np.zeros(r.n_queries), where=denominator > 0)
