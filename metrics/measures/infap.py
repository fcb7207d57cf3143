"""Inferred average precision (trec_eval infAP)."""

from __future__ import annotations

import numpy as np

from metrics.measures.base import Measure, Param, Trec, register
from metrics.measures.bpref import judged_above
from metrics.rankings import UNJUDGED

EPSILON = 1e-5  # trec_eval's INFAP_EPSILON


@register
class InfAP(Measure):
    """Inferred average precision: AP estimated from a random sample of the judgment pool.

    Notes
    -----
    Yilmaz & Aslam (CIKM 2006). trec_eval: ``infAP``. Documents are of three kinds: outside the pool (not
    in the qrels: they count as non-relevant), pooled but not judged (a negative grade in the qrels: assumed
    relevant in the same proportion as the judged ones), and judged. At the relevant document at rank k
    (1-based), with r, n and u the relevant, judged non-relevant and pooled-unjudged documents above it,
    the expected precision is

    .. math:: E[P@k] = \\frac{1}{k} + \\frac{k-1}{k}\\cdot\\frac{r + n + u}{k-1}
              \\cdot\\frac{r + \\epsilon}{r + n + 2\\epsilon},\\qquad \\epsilon = 10^{-5}

    (exactly 1 at rank 1), and infAP is their sum divided by R. Unretrieved relevant documents contribute
    0; a query with no relevant documents scores 0. With complete judgments (every retrieved document
    judged), infAP equals AP up to the epsilon smoothing.
    """

    name = "infAP"
    ir_measures = ("infAP",)
    pretty_name = "Inferred AP"
    description = "Average precision estimated from a sampled judgment pool (pooled-unjudged documents inferred)."
    latex = (r"infAP = \frac{1}{R}\sum_{k : d_k \in \mathrm{Rel}} \Big(\frac{1}{k} + \frac{k-1}{k}\cdot"
             r"\frac{r+n+u}{k-1}\cdot\frac{r+\epsilon}{r+n+2\epsilon}\Big)")
    params = (Param("rel", int, default=None, help="minimum grade counted as relevant"),)
    trec = (Trec("infAP", order=13),)

    def compute(self, r) -> np.ndarray:
        hits = r.hits(self.rel)
        # documents above each relevant one, by kind (the relevant one itself is not counted)
        rel_above = (hits.order - 1).astype(np.float64)
        nonrel_above = (judged_above(r, hits) - (hits.order - 1)).astype(np.float64)
        unjudged = np.flatnonzero(r.rel == UNJUDGED)
        unjudged_above = (np.searchsorted(unjudged, hits.index)
                          - np.searchsorted(unjudged, r.offsets[hits.seg])).astype(np.float64)
        j = (hits.pos - 1).astype(np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            # trec_eval's expression, term for term and in its order of operations
            expected = 1.0 / (j + 1.0) + (j / (j + 1.0)) * ((rel_above + nonrel_above + unjudged_above) / j) \
                * ((rel_above + EPSILON) / (rel_above + nonrel_above + 2 * EPSILON))
        expected[j == 0] = 1.0
        total = np.bincount(hits.seg, weights=expected, minlength=r.n_queries).astype(np.float64)
        num_rel = r.num_rel(self.rel)
        return np.divide(total, num_rel, out=total, where=num_rel > 0)
