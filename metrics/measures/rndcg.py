"""nDCG averaged at the R levels of the ideal ranking (trec_eval Rndcg, experimental)."""

from __future__ import annotations

import numpy as np

from metrics.measures.base import Measure, Trec, register
from metrics.measures.ndcg import dcg_at, ideal_prefix


@register
class RnDCG(Measure):
    """nDCG averaged at the ranks where the ideal ranking's gain changes (the R levels).

    Notes
    -----
    trec_eval: ``Rndcg`` (experimental). With 5 documents of grade 3, 3 of grade 2 and 10 of grade 1, the
    R levels are 5, 8 and 18 and the value is the mean of nDCG@5, nDCG@8, nDCG@18 and nDCG of the whole
    ranking (an implied level at the number retrieved). As trec_eval computes it, the last point is taken
    only when more than m + 1 documents are retrieved (m: documents with positive gain), and a level beyond
    the ranking uses the DCG of the whole ranking. A query with no relevant documents (at the relevance
    level) scores 0.

    .. math:: RnDCG = \\frac{1}{|L|}\\sum_{l \\in L} \\frac{DCG@\\min(l, n)}{IDCG@l}
    """

    name = "RnDCG"
    perfect = 1.0
    pretty_name = "nDCG at R levels"
    description = "nDCG averaged at each rank where the ideal ranking's gain changes, and at the end."
    latex = r"RnDCG = \frac{1}{|L|}\sum_{l \in L} \frac{DCG@\min(l,n)}{IDCG@l}"
    trec = (Trec("Rndcg", order=22),)

    def compute(self, r) -> np.ndarray:
        grades, ioffsets, iseg, ipos, idcg = ideal_prefix(r)
        m = np.diff(ioffsets)
        n = r.num_ret
        last = ipos == m[iseg]
        boundary = last.copy()
        boundary[:-1] |= grades[1:] != grades[:-1]
        seg, level = iseg[boundary], ipos[boundary]
        terms = dcg_at(r, seg, np.minimum(level, n[seg])) / idcg[boundary]
        total = np.bincount(seg, weights=terms, minlength=r.n_queries).astype(np.float64)
        count = np.bincount(seg, minlength=r.n_queries).astype(np.float64)
        tail = n > m + 1
        ideal_all = np.zeros(r.n_queries)
        ideal_all[m > 0] = idcg[ioffsets[1:][m > 0] - 1]
        total[tail] += np.divide(dcg_at(r, np.flatnonzero(tail), n[tail]), ideal_all[tail],
                                 out=np.zeros(int(tail.sum())), where=ideal_all[tail] > 0)
        count[tail] += ideal_all[tail] > 0
        ok = (r.num_rel() > 0) & (count > 0)
        return np.divide(total, count, out=np.zeros(r.n_queries), where=ok)
