"""Cumulative gain and discounted cumulative gain at a cutoff (unnormalised)."""

from __future__ import annotations

import numpy as np

from metrics.measures.base import Measure, Param, register
from metrics.measures.ndcg import BASE_PARAM, DISCOUNT_PARAM, GAIN_PARAM, check_base, discounted_gain, gains


@register
class CG(Measure):
    """Cumulative gain: the sum of the gains of the top k documents, whatever their order.

    Notes
    -----
    Not in trec_eval. Gains are the judged grades (``gain="linear"``) or 2^g - 1 (``gain="exp"``);
    unjudged and non-relevant documents gain 0. Without a cutoff, the whole ranking. CG@k is blind to the
    order within the top k and unbounded above (it grows with the grades and with k), so it compares
    rankings of one query, not queries with each other.

    .. math:: CG@k = \\sum_{i=1}^{k} g(d_i)
    """

    name = "CG"
    pretty_name = "Cumulative gain@k"
    description = "Sum of the gains (grades) of the top k documents, ignoring their order."
    latex = r"CG@k = \sum_{i=1}^{k} g(d_i)"
    params = (Param("cutoff", int, default=None, min=1, help="rank cutoff k"), GAIN_PARAM)
    bounds = (0.0, None)

    def compute(self, r) -> np.ndarray:
        hits = r.hits(1)  # only positive grades have a gain
        return hits.sum(gains(r.rel[hits.index], self.gain), r.n_queries, self.cutoff)


@register
class DCG(Measure):
    """Discounted cumulative gain: the gains of the top k documents, each divided by a discount of its rank.

    Notes
    -----
    Not in trec_eval as a measure of its own (its ``ndcg`` divides this by the ideal DCG). The default
    discount is log2(i+1) (Burges et al.); ``discount="jk"`` is Järvelin and Kekäläinen's original, where
    ranks i < b are not discounted and rank i >= b is divided by log_b(i) (``base`` b, default 2). Gains are
    the grades (``gain="linear"``, as trec_eval) or 2^g - 1 (``gain="exp"``). Unbounded above; see
    :class:`~metrics.measures.ndcg.nDCG` for the normalised form.

    .. math:: DCG@k = \\sum_{i=1}^{k} \\frac{g(d_i)}{\\mathrm{disc}(i)}

    Examples
    --------
    The graded ranking 3, 2, 3, 0, 0, 1, 2, 2, 3, 0 with exponential gains: DCG@1 = 7.00, DCG@2 = 8.89,
    DCG@3 = 12.39 and DCG@10 = 16.80.

    >>> from metrics import evaluate
    >>> grades = [3, 2, 3, 0, 0, 1, 2, 2, 3, 0]
    >>> qrels = "".join(f"1 0 d{i} {g}\\n" for i, g in enumerate(grades))
    >>> run = "".join(f"1 Q0 d{i} {i + 1} {10 - i} x\\n" for i in range(10))
    >>> frame = evaluate(qrels, {"x": run}, ['DCG(gain="exp")@2', 'DCG(gain="exp")@10'])
    >>> [round(v, 2) for v in frame["value"]]
    [8.89, 16.8]
    """

    name = "DCG"
    pretty_name = "Discounted cumulative gain@k"
    description = "Sum of the gains of the top k documents, each discounted by the log of its rank."
    latex = r"DCG@k = \sum_{i=1}^{k} \frac{g(d_i)}{\log_2(i+1)}"
    params = (Param("cutoff", int, default=None, min=1, help="rank cutoff k"), GAIN_PARAM, DISCOUNT_PARAM,
              BASE_PARAM)
    bounds = (0.0, None)

    def _check(self) -> None:
        check_base(self)

    def compute(self, r) -> np.ndarray:
        return discounted_gain(r, self.gain, self.cutoff, self.discount, self.base)
