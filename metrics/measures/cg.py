"""Cumulative gain, discounted cumulative gain and ideal DCG at a cutoff (unnormalised)."""

from __future__ import annotations

import numpy as np

from metrics.gains import IDEALS
from metrics.measures.base import Measure, Param, Trec, register
from metrics.measures.ndcg import (BASE_PARAM, DISCOUNT_PARAM, GAIN_MAP_PARAM, GAIN_PARAM, GainMapped, check_base,
                                   check_gain_map, dcg, discounted_gain, gains, mapped_dcg)

# trec_eval 10's dcg and ideal_dcg: nameable with -m, but not part of the 10.0 release's -m all_trec
_DCG_TREC = Trec("dcg", order=19.1, version=10, all_trec=False)
_IDCG_TREC = Trec("ideal_dcg", order=19.2, version=10, all_trec=False)


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
    exact_under_ties = True
    pretty_name = "Cumulative gain@k"
    description = "Sum of the gains (grades) of the top k documents, ignoring their order."
    latex = r"CG@k = \sum_{i=1}^{k} g(d_i)"
    params = (Param("cutoff", int, default=None, min=1, help="rank cutoff k"), GAIN_PARAM)
    bounds = (0.0, None)

    def compute(self, r) -> np.ndarray:
        hits = r.hits(1)  # only positive grades have a gain
        return hits.sum(gains(r.rel[hits.index], self.gain), r.n_queries, self.cutoff)


@register
class DCG(GainMapped, Measure):
    """Discounted cumulative gain: the gains of the top k documents, each divided by a discount of its rank.

    Notes
    -----
    trec_eval 10: ``dcg`` (default parameters, or ``gain_map``: ``-m dcg.1=3,2=9``); its ``ndcg`` divides
    this by the ideal DCG. The default discount is log2(i+1) (Burges et al.); ``discount="jk"`` is Järvelin and Kekäläinen's original, where
    ranks i < b are not discounted and rank i >= b is divided by log_b(i) (``base`` b, default 2). Gains are
    the grades (``gain="linear"``, as trec_eval) or 2^g - 1 (``gain="exp"``). Unbounded above; see
    :class:`~metrics.measures.ndcg.nDCG` for the normalised form. With a ``gain_map`` every retrieved judged
    document adds its grade's mapped gain, negative gains included (then DCG can be negative).

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
    exact_under_ties = True
    pretty_name = "Discounted cumulative gain@k"
    description = "Sum of the gains of the top k documents, each discounted by the log of its rank."
    latex = r"DCG@k = \sum_{i=1}^{k} \frac{g(d_i)}{\log_2(i+1)}"
    params = (Param("cutoff", int, default=None, min=1, help="rank cutoff k"), GAIN_PARAM, DISCOUNT_PARAM,
              BASE_PARAM, GAIN_MAP_PARAM)
    bounds = (0.0, None)
    trec = (_DCG_TREC,)

    def _check(self) -> None:
        check_base(self)
        check_gain_map(self)

    def compute(self, r) -> np.ndarray:
        if self.gain_map:
            return mapped_dcg(r, dict(self.gain_map), self.cutoff)[0]
        return discounted_gain(r, self.gain, self.cutoff, self.discount, self.base)


@register
class IDCG(GainMapped, Measure):
    """Ideal discounted cumulative gain: the DCG of the best possible ranking of the query's judged documents.

    Notes
    -----
    trec_eval 10: ``ideal_dcg`` (default parameters, or ``gain_map``: ``-m ideal_dcg.1=3,2=9``). The ideal
    ranking sorts every judged document of the query by gain, descending, retrieved or not
    (``ideal="judged"``), or only the retrieved ones (``ideal="retrieved"``); documents with no positive
    gain add nothing. It is the denominator of :class:`~metrics.measures.ndcg.nDCG` and depends on the run
    only through the query set (and, with ``ideal="retrieved"``, the retrieved documents).

    .. math:: IDCG@k = \\sum_{i=1}^{k} \\frac{g(d^*_i)}{\\mathrm{disc}(i)}

    Examples
    --------
    Grades 3, 2, 3, 0, 0, 1, 2, 2, 3, 0 with exponential gains, ideal order 3, 3, 3, 2, 2, 2, 1, 0, 0, 0:
    IDCG@2 = 11.42 and IDCG@10 = 18.77.

    >>> from metrics import evaluate
    >>> grades = [3, 2, 3, 0, 0, 1, 2, 2, 3, 0]
    >>> qrels = "".join(f"1 0 d{i} {g}\\n" for i, g in enumerate(grades))
    >>> run = "1 Q0 d0 1 1.0 x\\n"
    >>> frame = evaluate(qrels, {"x": run}, ['IDCG(gain="exp")@2', 'IDCG(gain="exp")@10'])
    >>> [round(v, 2) for v in frame["value"]]
    [11.42, 18.77]
    """

    name = "IDCG"
    exact_under_ties = True
    aliases = ("IdealDCG",)
    pretty_name = "Ideal DCG@k"
    description = "DCG of the ideal ranking: every judged document sorted by gain, best first."
    latex = r"IDCG@k = \sum_{i=1}^{k} \frac{g(d^*_i)}{\log_2(i+1)}"
    params = (Param("cutoff", int, default=None, min=1, help="rank cutoff k"), GAIN_PARAM, DISCOUNT_PARAM,
              BASE_PARAM,
              Param("ideal", str, default="judged", choices=tuple(IDEALS),
                    help="ideal ranking from all judged documents (judged, trec_eval) or from the "
                         "retrieved ones only (retrieved)"),
              GAIN_MAP_PARAM)
    bounds = (0.0, None)
    trec = (_IDCG_TREC,)

    def _check(self) -> None:
        check_base(self)
        check_gain_map(self)

    def compute(self, r) -> np.ndarray:
        if self.gain_map:
            return mapped_dcg(r, dict(self.gain_map), self.cutoff)[1]
        return dcg(r, self.gain, self.cutoff, self.discount, self.base, self.ideal)[1]
