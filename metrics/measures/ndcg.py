"""Normalised discounted cumulative gain (trec_eval ndcg and ndcg_cut)."""

from __future__ import annotations

import numpy as np

from metrics.measures.base import Measure, Param, Trec, register
from metrics.measures.precision import TREC_CUTOFFS


def gains(grades: np.ndarray, kind: str) -> np.ndarray:
    """Gain of each grade: the grade itself ("linear", trec_eval) or 2**grade - 1 ("exp"); 0 if unjudged."""
    g = np.maximum(grades, 0).astype(np.float64)
    return g if kind == "linear" else np.exp2(g) - 1.0


def dcg(r, kind: str, cutoff: int | None) -> tuple[np.ndarray, np.ndarray]:
    """DCG of the ranking and of the ideal ranking (all judged documents by grade), per query, cut at k."""
    hits = r.hits(1)  # only positive grades have a gain
    actual = hits.sum(gains(r.rel[hits.index], kind) / np.log2(hits.pos + 1.0), r.n_queries, cutoff)
    ideal_grades, ideal_offsets = r.ideal_grades()
    counts = np.diff(ideal_offsets)
    seg = np.repeat(np.arange(r.n_queries), counts)
    pos = np.arange(len(ideal_grades)) - ideal_offsets[:-1][seg] + 1
    contrib = gains(ideal_grades, kind) / np.log2(pos + 1.0)
    if cutoff is not None:
        contrib = np.where(pos <= cutoff, contrib, 0.0)
    ideal = np.bincount(seg, weights=contrib, minlength=r.n_queries)
    return actual, ideal


@register
class nDCG(Measure):
    """Normalised discounted cumulative gain: DCG of the ranking over DCG of the ideal ranking.

    Notes
    -----
    trec_eval: ``ndcg`` (no cutoff) and ``ndcg_cut_k``. Gains are the judged grades (linear, trec_eval's
    default; ``gain="exp"`` uses 2^g - 1 as Burges et al.), the discount is 1/log2(i+1), and the ideal
    ranking sorts *all* judged documents of the query by grade, retrieved or not. The relevance level
    (``-l``) is ignored, as in trec_eval. A query whose ideal DCG is 0 scores 0.

    .. math:: nDCG@k = \\frac{\\sum_{i=1}^{k} g(d_i)/\\log_2(i+1)}{\\sum_{i=1}^{k} g(d^*_i)/\\log_2(i+1)}
    """

    name = "nDCG"
    aliases = ("NDCG",)
    pretty_name = "nDCG@k"
    description = "Discounted cumulative gain of the ranking divided by that of the ideal ranking."
    latex = r"nDCG@k = \frac{DCG@k}{IDCG@k},\quad DCG@k = \sum_{i=1}^{k} \frac{g(d_i)}{\log_2(i+1)}"
    params = (Param("cutoff", int, default=None, min=1, help="rank cutoff k"),
              Param("gain", str, default="linear", choices=("linear", "exp"),
                    help="gain of grade g: g (linear, trec_eval) or 2^g - 1 (exp)"))
    trec = (Trec("ndcg", order=20), Trec("ndcg_cut", "cutoff", TREC_CUTOFFS, order=23))

    def compute(self, r) -> np.ndarray:
        actual, ideal = dcg(r, self.gain, self.cutoff)
        return np.divide(actual, ideal, out=np.zeros_like(actual), where=ideal > 0)
