"""Reciprocal rank."""

from __future__ import annotations

import numpy as np

from metrics.measures.base import Measure, Param, Trec, register


@register
class RR(Measure):
    """Reciprocal rank of the first relevant document; 0 when none is retrieved (within the cutoff).

    Notes
    -----
    trec_eval: ``recip_rank`` (no cutoff). Its mean over queries is MRR. RR is an ordinal quantity: the
    step from rank 1 to 2 (1 -> 0.5) is as large as from rank 2 to never (0.5 -> 0).

    .. math:: RR = \\frac{1}{\\min\\{i : d_i \\in \\mathrm{Rel}\\}}
    """

    name = "RR"
    exact_under_ties = True
    ir_measures = ("RR", "RR(rel=2)", "RR@10")
    ir_measures_differs = {"RR@10": "ir_measures computes it as MS MARCO's MRR@10 does, breaking score ties by docid "
                                    "ascending (trec_eval: descending); equal without ties"}
    perfect = 1.0
    aliases = ("MRR",)
    pretty_name = "Reciprocal rank"
    description = "1 / rank of the first relevant document (0 if none); its mean is MRR."
    latex = r"RR = \frac{1}{\mathrm{rank}_{\text{first relevant}}}"
    params = (Param("cutoff", int, default=None, min=1, help="rank cutoff k"),
              Param("rel", int, default=None, help="minimum grade counted as relevant"))
    trec = (Trec("recip_rank", order=9),)

    def compute(self, r) -> np.ndarray:
        hits = r.hits(self.rel)
        first = hits.order == 1
        out = np.zeros(r.n_queries)
        out[hits.seg[first]] = 1.0 / hits.pos[first]
        if self.cutoff is not None:
            out[out < 1.0 / self.cutoff] = 0.0
        return out
