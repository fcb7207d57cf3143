"""Condensed-list measures (Sakai, 2007): P'@k, AP' and nDCG' on the ranking with unjudged documents removed.

Removing the documents without a judgment (absent from the qrels or with a negative grade) before
measuring makes a run that was not pooled comparable with one that was, instead of penalising it for its
unjudged documents. trec_eval's ``-J`` does the same to every measure at once; these measures condense the
list for themselves, so they can stand beside the plain measures under the same conventions. ir_measures
reaches them through pytrec_eval with ``judged_docs_only_flag=True``; its own names are ``P@k``, ``AP`` and
``nDCG`` with that flag, not separate measures.

Their depth is ``k``, counted in judged documents, rather than a ``cutoff`` (``@k``): the top k of the
condensed list may hold documents ranked below k in the run, so unlike a cutoff it reads past rank k.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from metrics.measures.ap import average_precision
from metrics.measures.base import Measure, Param, register
from metrics.measures.ndcg import GAIN_PARAM, dcg
from metrics.measures.precision import P

K_PARAM = Param("k", int, default=None, min=1, help="depth in judged documents: the top k of the condensed list")


def condensed(r):
    """The rankings without their unjudged documents (judgment counts unchanged), as trec_eval's ``-J``.

    Parameters
    ----------
    r : Rankings

    Returns
    -------
    Rankings
        The judged positions only, in their order, with new per-query offsets.
    """
    keep = r.rel >= 0
    if keep.all():
        return r
    counts = np.bincount(r.seg[keep], minlength=r.n_queries)
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    return dataclasses.replace(r, rel=r.rel[keep], rows=r.rows[keep], offsets=offsets)


@register
class PCondensed(Measure):
    """Precision at k of the condensed list (P'@k): the top k judged documents.

    Notes
    -----
    Sakai (2007). Equals P@k under trec_eval's ``-J``. The denominator is k, as for P@k.

    .. math:: P'@k = \\frac{|\\{i \\le k : d'_i \\in \\mathrm{Rel}\\}|}{k},\\ d' \\text{ the judged documents in order}
    """

    name = "Precision_condensed"
    exact_under_ties = True
    pretty_name = "Condensed precision@k (P')"
    description = "Precision at k after removing unjudged documents from the ranking."
    latex = r"P'@k = \frac{1}{k}\sum_{i=1}^{k} \mathrm{rel}(d'_i)"
    params = (K_PARAM,
              Param("rel", int, default=None, help="minimum grade counted as relevant"))

    def compute(self, r) -> np.ndarray:
        return P(cutoff=self.k, rel=self.rel).compute(condensed(r))


@register
class APCondensed(Measure):
    """Average precision of the condensed list (AP').

    Notes
    -----
    Sakai (2007). Equals AP under trec_eval's ``-J``; the denominator is the number of relevant documents.

    .. math:: AP' = \\frac{1}{|\\mathrm{Rel}|} \\sum_{i : d'_i \\in \\mathrm{Rel}} P'@i
    """

    name = "AP_condensed"
    exact_under_ties = True
    perfect = 1.0
    pretty_name = "Condensed average precision (AP')"
    description = "Average precision after removing unjudged documents from the ranking."
    latex = r"AP' = \frac{1}{|\mathrm{Rel}|}\sum_{i : d'_i \in \mathrm{Rel}} P'@i"
    params = (K_PARAM,
              Param("rel", int, default=None, help="minimum grade counted as relevant"))

    def compute(self, r) -> np.ndarray:
        return average_precision(condensed(r), self.rel, self.k)


@register
class nDCGCondensed(Measure):
    """nDCG of the condensed list (nDCG'), the ideal ranking made of all judged documents.

    Notes
    -----
    Sakai (2007). Equals nDCG under trec_eval's ``-J``; log2(i + 1) discount.

    .. math:: nDCG'@k = \\frac{\\sum_{i=1}^{k} g(d'_i)/\\log_2(i+1)}{IDCG@k}
    """

    name = "nDCG_condensed"
    exact_under_ties = True
    perfect = 1.0
    pretty_name = "Condensed nDCG@k (nDCG')"
    description = "nDCG at k after removing unjudged documents from the ranking."
    latex = r"nDCG'@k = \frac{1}{IDCG@k}\sum_{i=1}^{k} \frac{g(d'_i)}{\log_2(i+1)}"
    params = (K_PARAM, GAIN_PARAM)

    def compute(self, r) -> np.ndarray:
        actual, ideal = dcg(condensed(r), self.gain, self.k)
        return np.divide(actual, ideal, out=np.zeros_like(actual), where=ideal > 0)
