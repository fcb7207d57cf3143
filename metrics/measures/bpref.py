"""Binary preference (trec_eval bpref) and its geometric mean (gm_bpref)."""

from __future__ import annotations

import numpy as np

from metrics.measures.base import Measure, Param, Trec, register


def bpref(r, rel) -> np.ndarray:
    """Per query: mean over the relevant documents of the fraction of judged non-relevant ones they beat."""
    hits = r.hits(rel)
    seg = hits.seg
    above = judged_above(r, hits) - (hits.order - 1)  # judged non-relevant documents ranked above each hit
    num_rel = r.num_rel(rel)
    num_nonrel = r.num_below(rel)
    cap = np.minimum(num_nonrel, num_rel)[seg]  # > 0 wherever a hit has a non-relevant document above it
    with np.errstate(divide="ignore", invalid="ignore"):
        term = np.where(above > 0, 1.0 - np.minimum(above, num_rel[seg]) / cap, 1.0)
    total = np.bincount(seg, weights=term, minlength=r.n_queries).astype(np.float64)
    return np.divide(total, num_rel, out=total, where=num_rel > 0)


def judged_above(r, hits) -> np.ndarray:
    """Number of judged documents (grade >= 0) ranked above each hit, within its query."""
    judged = r.hits(0).index  # grade >= 0: the judged positions
    return np.searchsorted(judged, hits.index) - np.searchsorted(judged, r.offsets[hits.seg])


@register
class Bpref(Measure):
    """Binary preference: how often relevant documents are ranked above judged non-relevant ones.

    Notes
    -----
    Buckley & Voorhees (SIGIR 2004).
    trec_eval: ``bpref``. Only judged documents count: documents without a judgment (not in the pool, or
    judged with a negative grade) are skipped, so bpref does not assume unjudged means non-relevant. N is
    the number of judged non-relevant documents (grade >= 0 and below the relevance level); each relevant
    retrieved document d scores ``1 - min(n_d, R) / min(N, R)``, n_d being the judged non-relevant documents
    ranked above it (1 when n_d = 0); unretrieved relevant documents score 0. A query with no relevant
    documents scores 0.

    .. math:: bpref = \\frac{1}{R}\\sum_{d \\in \\mathrm{Rel} \\cap \\mathrm{Ret}}
              \\Big(1 - \\frac{\\min(n_d, R)}{\\min(N, R)}\\Big)
    """

    name = "Bpref"
    exact_under_ties = True
    ir_measures = ("Bpref",)
    perfect = 1.0
    pretty_name = "Binary preference"
    description = "Fraction of judged non-relevant documents ranked below each relevant one (ignores unjudged)."
    latex = (r"bpref = \frac{1}{R}\sum_{d \in \mathrm{Rel}\cap\mathrm{Ret}}"
             r" \Big(1 - \frac{\min(n_d, R)}{\min(N, R)}\Big)")
    params = (Param("rel", int, default=None, help="minimum grade counted as relevant"),)
    trec = (Trec("bpref", order=8),)

    def compute(self, r) -> np.ndarray:
        return bpref(r, self.rel)


@register
class GMBpref(Measure):
    """Geometric mean bpref: bpref per query, combined by a geometric mean.

    Notes
    -----
    trec_eval: ``gm_bpref`` (printed only in the summary). Per-query values are bpref; the summary is
    ``exp(mean(log(max(bpref, 1e-5))))``, which rewards consistency across queries.
    """

    name = "GMBpref"
    exact_under_ties = True
    perfect = 1.0
    pretty_name = "Geometric mean bpref"
    description = "bpref averaged with a geometric mean (rewards consistency over topics)."
    latex = r"GMBpref = \exp\Big(\frac{1}{|Q|}\sum_{q} \ln \max(bpref_q, 10^{-5})\Big)"
    aggregation = "gmean"
    trec = (Trec("gm_bpref", order=14, per_query=False),)

    def compute(self, r) -> np.ndarray:
        return bpref(r, None)
