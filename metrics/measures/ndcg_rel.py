"""nDCG averaged over the relevant documents (trec_eval ndcg_rel, experimental)."""

from __future__ import annotations

import numpy as np

from metrics.measures.base import Measure, Trec, register
from metrics.measures.ndcg import dcg_at, hit_dcg, ideal_prefix, lookup


@register
class nDCGRel(Measure):
    """nDCG at the rank of each relevant document, averaged over the relevant documents.

    Notes
    -----
    trec_eval: ``ndcg_rel`` (experimental). For the relevant document at rank i the value is
    ``DCG@i / IDCG@min(i, m)`` (m: the number of documents with positive gain); each relevant document
    not retrieved adds the DCG of the whole ranking over the whole ideal DCG; the sum is divided by m.
    Gains are the grades (linear), the discount ``log2(i + 1)``. A query with no relevant documents scores 0.

    .. math:: nDCG_{rel} = \\frac{1}{m}\\Big(\\sum_{i : g_i > 0} \\frac{DCG@i}{IDCG@\\min(i,m)}
              + (m - m_{ret})\\frac{DCG@n}{IDCG@m}\\Big)
    """

    name = "nDCG_rel"
    perfect = 1.0
    pretty_name = "nDCG over relevant documents"
    description = "nDCG measured at each relevant document's rank, averaged over the relevant documents."
    latex = (r"nDCG_{rel} = \frac{1}{m}\Big(\sum_{i : g_i > 0} \frac{DCG@i}{IDCG@\min(i,m)}"
             r" + (m - m_{ret})\,\frac{DCG@n}{IDCG@m}\Big)")
    trec = (Trec("ndcg_rel", order=21),)

    def compute(self, r) -> np.ndarray:
        hits, dcg = hit_dcg(r)  # DCG down to each relevant document
        _, ioffsets, _, _, idcg = ideal_prefix(r)
        m = np.diff(ioffsets)
        seg = hits.seg
        k = np.minimum(hits.pos, m[seg])
        terms = dcg / lookup(idcg, ioffsets, seg, k)
        total = np.bincount(seg, weights=terms, minlength=r.n_queries).astype(np.float64)
        missed = m - np.bincount(seg, minlength=r.n_queries)
        full = m > 0
        whole = dcg_at(r, np.arange(r.n_queries), r.num_ret)
        total[full] += missed[full] * whole[full] / lookup(idcg, ioffsets, np.flatnonzero(full), m[full])
        return np.divide(total, m, out=np.zeros(r.n_queries), where=total > 0)
