"""Area under the ROC curve of a ranking, over the judged documents."""

from __future__ import annotations

import numpy as np

from metrics.measures.base import Measure, Param, register
from metrics.measures.mean_rank import aggregate_defined


@register
class AUC(Measure):
    """Area under the ROC curve: the fraction of (relevant, judged non-relevant) pairs ranked in order.

    Notes
    -----
    Not in trec_eval. Every judged document of the query takes part, retrieved or not: relevant means a
    grade >= the relevance level, non-relevant a grade >= 0 below it. A pair counts 1 when the relevant
    document is ranked above the non-relevant one, 0 when below. Judged documents that were not retrieved
    (or fall below the cutoff k) share one place after the last rank: a retrieved document beats every one
    of them, and a pair of two unretrieved documents is a tie that counts 1/2. Retrieved documents without
    a judgment (absent from the qrels or with a negative grade) are ignored: they neither help nor hurt.
    This is the Mann-Whitney statistic of the ranking, which equals the area under its ROC curve
    (true-positive rate, i.e. recall, against false-positive rate, i.e. fallout over the judged documents).
    0.5 is what a random order scores, 1 a ranking of every relevant document above every non-relevant one.

    A query without a relevant or without a judged non-relevant document has no pairs: it scores 0 with
    ``empty="zero"`` (the default, as trec_eval scores queries without relevant documents), or NaN with
    ``empty="nan"``, which leaves it out of the mean (NaN if no query has pairs).

    .. math:: AUC = \\frac{1}{|\\mathrm{Rel}|\\,|\\mathrm{NonRel}|} \\sum_{r \\in \\mathrm{Rel}}
              \\sum_{n \\in \\mathrm{NonRel}} \\Big(\\mathbb{1}[\\rho(r) < \\rho(n)]
              + \\tfrac{1}{2}\\,\\mathbb{1}[\\rho(r) = \\rho(n)]\\Big)
    """

    name = "AUC"
    aliases = ("ROC_AUC",)
    pretty_name = "ROC AUC"
    description = "Fraction of (relevant, judged non-relevant) pairs ranked in the right order."
    latex = (r"AUC = \frac{1}{|\mathrm{Rel}||\mathrm{NonRel}|}\sum_{r,n}"
             r"\left(\mathbb{1}[\rho_r < \rho_n] + \tfrac{1}{2}\mathbb{1}[\rho_r = \rho_n]\right)")
    params = (Param("cutoff", int, default=None, min=1,
                    help="rank cutoff k (documents below it count as not retrieved)"),
              Param("rel", int, default=None, help="minimum grade counted as relevant"),
              Param("empty", str, default="zero", choices=("zero", "nan"),
                    help="value when there is no relevant or no judged non-relevant document: 0 or NaN "
                         "(left out of the mean)"))

    def compute(self, r) -> np.ndarray:
        level = max(r.level(self.rel), 0)
        shown = r.within(self.cutoff)
        relevant = (r.rel >= level) & shown
        nonrel = (r.rel >= 0) & (r.rel < level) & shown
        n_rel = r.num_rel(self.rel).astype(np.float64)
        n_non = r.num_judged().astype(np.float64) - n_rel
        nonrel_above = r.segment_cumsum(nonrel.astype(np.int64))
        below = n_non[r.seg[relevant]] - nonrel_above[relevant]  # judged non-relevant ranked lower
        correct = np.bincount(r.seg[relevant], weights=below, minlength=r.n_queries).astype(np.float64)
        rel_ret = np.bincount(r.seg[relevant], minlength=r.n_queries)
        non_ret = np.bincount(r.seg[nonrel], minlength=r.n_queries)
        correct += 0.5 * (n_rel - rel_ret) * (n_non - non_ret)
        pairs = n_rel * n_non
        fill = 0.0 if self.empty == "zero" else np.nan
        out = np.full(r.n_queries, fill)
        np.divide(correct, pairs, out=out, where=pairs > 0)
        return out

    def aggregate(self, values: np.ndarray) -> float:
        """Mean over the queries with a value: with ``empty="nan"`` queries without pairs are left out."""
        return aggregate_defined(self, values)
