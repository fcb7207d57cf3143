"""Buckley's G and binary G (trec_eval G and binG, experimental measures of trec_eval 9)."""

from __future__ import annotations

import numpy as np

from metrics.measures.base import Measure, Trec, register
from metrics.measures.ndcg import gains, ideal_prefix, lookup


@register
class G(Measure):
    """Normalised gain G: each document's gain discounted by how far the ranking lags the ideal so far.

    Notes
    -----
    trec_eval: ``G`` (experimental). The document at rank i earns its gain g_i divided by
    ``log2(2 + C_i - S_i)``, where S_i is the gain retrieved up to rank i and C_i the cost so far, the sum
    over ranks <= i of ``max(ideal gain at that rank, 1)``; the total is divided by the sum of all ideal
    gains. Gains are the grades (linear). A query with no relevant documents scores 0.

    .. math:: G = \\frac{1}{\\sum_j g^*_j} \\sum_i \\frac{g_i}{\\log_2(2 + C_i - S_i)}
    """

    name = "G"
    perfect = 1.0
    pretty_name = "Normalised gain G"
    description = "Gain of each document, discounted by how far the ranking trails the ideal one so far."
    latex = r"G = \frac{1}{\sum_j g^*_j}\sum_{i} \frac{g_i}{\log_2\left(2 + C_i - S_i\right)}"
    trec = (Trec("G", order=19),)

    def compute(self, r) -> np.ndarray:
        # only ranks holding a positive grade add to the sum: work on those (the hits) alone
        hits = r.hits(1)
        gain = gains(r.rel[hits.index], "linear")
        grades, offsets, _, _, _ = ideal_prefix(r)
        m = np.diff(offsets)
        ideal_sum = np.cumsum(grades.astype(np.float64))
        ideal_sum -= np.concatenate(([0.0], ideal_sum))[offsets[:-1]][np.repeat(np.arange(r.n_queries), m)]
        # cost so far: the ideal gains down to min(i, m), then 1 per rank past the ideal ranking's end
        k = np.minimum(hits.pos, m[hits.seg])
        cost = lookup(ideal_sum, offsets, hits.seg, k) + np.maximum(hits.pos - m[hits.seg], 0)
        got = np.cumsum(gain)
        got -= np.concatenate(([0.0], got))[np.searchsorted(hits.seg, np.arange(r.n_queries))][hits.seg]
        total = np.bincount(hits.seg, weights=gain / np.log2(2.0 + cost - got), minlength=r.n_queries)
        ideal_total = np.bincount(np.repeat(np.arange(r.n_queries), m), weights=grades,
                                  minlength=r.n_queries).astype(np.float64)
        return np.divide(total, ideal_total, out=np.zeros(r.n_queries), where=ideal_total > 0)


@register
class BinG(Measure):
    """Binary G: the mean over relevant documents of ``1 / log2(2 + non-relevant documents above it)``.

    Notes
    -----
    trec_eval: ``binG`` (experimental). G with gains 0 or 1 at the relevance level; relevant documents
    not retrieved contribute 0. A query with no relevant documents scores 0.

    .. math:: binG = \\frac{1}{|\\mathrm{Rel}|} \\sum_{i : d_i \\in \\mathrm{Rel}} \\frac{1}{\\log_2(2 + n_i)}
    """

    name = "binG"
    perfect = 1.0
    pretty_name = "Binary G"
    description = "Mean over relevant documents of 1/log2(2 + non-relevant documents ranked above it)."
    latex = r"binG = \frac{1}{|\mathrm{Rel}|}\sum_{i : d_i \in \mathrm{Rel}} \frac{1}{\log_2(2 + n_i)}"
    trec = (Trec("binG", order=18),)

    def compute(self, r) -> np.ndarray:
        hits = r.hits(None)
        total = hits.sum(1.0 / np.log2(2.0 + hits.pos - hits.order), r.n_queries)
        num_rel = r.num_rel().astype(np.float64)
        return np.divide(total, num_rel, out=np.zeros(r.n_queries), where=num_rel > 0)
