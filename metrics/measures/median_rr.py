"""Reciprocal rank summarised by its median over queries."""

from __future__ import annotations

import numpy as np

from metrics.measures.base import Measure, Param, register
from metrics.measures.rr import RR


@register
class MedianRR(Measure):
    """Reciprocal rank per query, summarised by the median over queries instead of the mean.

    Notes
    -----
    Not in trec_eval (its ``recip_rank`` is averaged). Per-query values are exactly RR's: 1/rank of the
    first relevant document, 0 when none is retrieved (within the cutoff). RR is an ordinal quantity — the
    step from rank 1 to rank 2 (1 to 0.5) is as large as from rank 2 to never (0.5 to 0) — so an
    arithmetic mean of it is hard to interpret, while the median only uses the order of the values. The
    price is resolution: RR takes few distinct values, so the medians of different systems tie often. With
    an even number of queries the median is the midpoint of the two middle values (which may be no
    reciprocal rank itself, e.g. 0.75).

    .. math:: \\mathrm{median}_{q}\\, \\frac{1}{\\mathrm{rank}_q}
    """

    name = "MedianRR"
    exact_under_ties = True
    perfect = 1.0
    aliases = ("MedRR",)
    pretty_name = "Median reciprocal rank"
    description = "Reciprocal rank of the first relevant document, summarised by the median over queries."
    latex = r"\mathrm{median}_{q \in Q}\ \frac{1}{\mathrm{rank}_q}"
    aggregation = "median"
    params = (Param("cutoff", int, default=None, min=1, help="rank cutoff k"),
              Param("rel", int, default=None, help="minimum grade counted as relevant"))

    def compute(self, r) -> np.ndarray:
        return RR(cutoff=self.cutoff, rel=self.rel).compute(r)
