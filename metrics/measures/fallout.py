"""Fallout: the fraction of the non-relevant documents that were retrieved."""

from __future__ import annotations

import numpy as np

from metrics.errors import ValidationError
from metrics.measures.base import Measure, Param, register


@register
class Fallout(Measure):
    """Fallout at rank k: the fraction of the collection's non-relevant documents found in the top k.

    Notes
    -----
    Not in trec_eval. Fallout is the false-positive rate b / (b + d) of the set-retrieval contingency
    table (see :mod:`metrics.teaching.contingency`); lower is better. Without a cutoff, the whole ranking is the
    retrieved set.

    With ``N``, the number of documents in the collection: every document that is not relevant counts as
    non-relevant, judged or not, so b is the number of top-k documents that are not relevant and
    b + d = N - |Rel|. Without ``N`` the collection size is unknown, and the judged non-relevant documents
    (grade >= 0, below the relevance level) stand in for the non-relevant ones: b counts only those in the
    top k, and b + d is their number in the qrels; unjudged retrieved documents are then ignored. That
    pool is far smaller than a real collection, so fallout without ``N`` is much larger than with it and
    the two are not comparable. A query with no non-relevant documents (in the pool) scores 0.

    .. math:: Fallout@k = \\frac{|\\{i \\le k : d_i \\in \\mathrm{NonRel}\\}|}{|\\mathrm{NonRel}|}
    """

    name = "Fallout"
    aliases = ("FallOut",)
    pretty_name = "Fallout@k"
    description = "Fraction of the non-relevant documents retrieved in the top k (lower is better)."
    latex = r"Fallout@k = \frac{|\{i \le k : d_i \in \mathrm{NonRel}\}|}{|\mathrm{NonRel}|}"
    higher_is_better = False
    params = (Param("cutoff", int, default=None, min=1, help="rank cutoff k"),
              Param("rel", int, default=None, help="minimum grade counted as relevant"),
              Param("N", int, default=None, min=1,
                    help="documents in the collection (default: the judged non-relevant documents are "
                         "the non-relevant pool)"))

    def compute(self, r) -> np.ndarray:
        level = max(r.level(self.rel), 0)
        shown = r.within(self.cutoff)
        num_rel = r.num_rel(self.rel).astype(np.float64)
        if self.N is None:
            nonrel = (r.rel >= 0) & (r.rel < level) & shown
            found = np.bincount(r.seg[nonrel], minlength=r.n_queries).astype(np.float64)
            pool = r.num_judged().astype(np.float64) - num_rel
        else:
            retrieved = np.bincount(r.seg[shown], minlength=r.n_queries).astype(np.float64)
            found = retrieved - r.hits(self.rel).count(r.n_queries, self.cutoff)
            pool = self.N - num_rel
            bad = found > pool
            if bad.any():
                query = r.queries[np.flatnonzero(bad)[0]]
                raise ValidationError(f"{self}: N={self.N} is too small for query {query!r}: it retrieves "
                                      f"{int(found[bad][0])} non-relevant documents but N leaves room for "
                                      f"{max(int(pool[bad][0]), 0)}")
        return np.divide(found, pool, out=np.zeros(r.n_queries), where=pool > 0)
