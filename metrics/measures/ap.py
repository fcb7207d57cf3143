"""Average precision (trec_eval map and map_cut) and its geometric mean (gm_map)."""

from __future__ import annotations

import numpy as np

from metrics.measures.base import Measure, Param, Trec, register
from metrics.measures.precision import TREC_CUTOFFS


def average_precision(r, rel, cutoff, denominator: str = "relevant") -> np.ndarray:
    """Sum of precision at each relevant rank <= cutoff, divided by the number of relevant documents
    (``"relevant"``), by those retrieved within the cutoff (``"retrieved"``) or by min(cutoff, R)
    (``"capped"``)."""
    hits = r.hits(rel)
    total = hits.sum(hits.order / hits.pos, r.n_queries, cutoff)
    if denominator == "retrieved":
        norm = hits.count(r.n_queries, cutoff)
    else:
        norm = r.num_rel(rel).astype(np.float64)
        if denominator == "capped" and cutoff is not None:
            norm = np.minimum(norm, float(cutoff))
    return np.divide(total, norm, out=np.zeros_like(total), where=norm > 0)


@register
class AP(Measure):
    """Average precision: the mean of the precision at the rank of each relevant document.

    Notes
    -----
    trec_eval: ``map`` (no cutoff) and ``map_cut_k``. Relevant documents not retrieved (or below the
    cutoff) contribute a precision of 0: the sum is divided by the number of relevant documents in the
    judgments, not by those retrieved. A query with no relevant documents scores 0.

    ``denominator`` names the other conventions found in the literature: ``"retrieved"`` divides by the
    relevant documents retrieved within the cutoff (the running "AP@k" of many lecture tables: it ignores
    every relevant document the ranking missed, so a ranking that finds one relevant document at rank 1
    scores 1), ``"capped"`` by min(k, R) (common in recommender-system code, so that AP@k can reach 1 when
    R > k). Only ``"relevant"`` is trec_eval's.

    .. math:: AP = \\frac{1}{|\\mathrm{Rel}|} \\sum_{i : d_i \\in \\mathrm{Rel}} P@i
    """

    name = "AP"
    exact_under_ties = True
    ir_measures = ("AP", "AP(rel=2)", "AP@100")
    perfect = 1.0
    aliases = ("MAP",)
    pretty_name = "Average precision"
    description = "Mean of the precision at each relevant document's rank (unretrieved ones count 0)."
    latex = r"AP = \frac{1}{|\mathrm{Rel}|}\sum_{i=1}^{n} \mathrm{rel}(d_i)\, P@i"
    params = (Param("cutoff", int, default=None, min=1, help="rank cutoff k"),
              Param("rel", int, default=None, help="minimum grade counted as relevant"),
              Param("denominator", str, default="relevant", choices=("relevant", "retrieved", "capped"),
                    help="divide by R, the relevant documents (relevant, trec_eval), by the relevant ones "
                         "retrieved within k (retrieved), or by min(k, R) (capped)"))
    trec = (Trec("map", order=5), Trec("map_cut", "cutoff", TREC_CUTOFFS, order=24))

    def exact_ties(self) -> bool:
        # divided by the relevant documents retrieved within the cutoff, the value is not monotone in the order
        # of the ties: moving a relevant document past the cutoff changes the denominator
        return self.denominator != "retrieved"

    def compute(self, r) -> np.ndarray:
        return average_precision(r, self.rel, self.cutoff, self.denominator)


@register
class GMAP(Measure):
    """Geometric mean average precision: AP per query, combined by a geometric mean.

    Notes
    -----
    trec_eval: ``gm_map``. Per-query values are AP; the summary is ``exp(mean(log(max(AP, 1e-5))))``,
    so one query with AP 0 pulls the mean down but not to 0.
    """

    name = "GMAP"
    exact_under_ties = True
    perfect = 1.0
    pretty_name = "Geometric mean AP"
    description = "Average precision averaged with a geometric mean (rewards consistency over topics)."
    latex = r"GMAP = \exp\Big(\frac{1}{|Q|}\sum_{q} \ln \max(AP_q, 10^{-5})\Big)"
    aggregation = "gmean"
    trec = (Trec("gm_map", order=6, per_query=False),)

    def compute(self, r) -> np.ndarray:
        return average_precision(r, None, None)
