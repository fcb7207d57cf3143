"""Normalised discounted cumulative gain (trec_eval ndcg and ndcg_cut)."""

from __future__ import annotations

import numpy as np

from metrics.measures.base import Measure, Param, Trec, register
from metrics.measures.precision import TREC_CUTOFFS


def gains(grades: np.ndarray, kind: str) -> np.ndarray:
    """Gain of each grade: the grade itself ("linear", trec_eval) or 2**grade - 1 ("exp"); 0 if unjudged."""
    g = np.maximum(grades, 0).astype(np.float64)
    return g if kind == "linear" else np.exp2(g) - 1.0


def discount(pos: np.ndarray, kind: str = "log2", base: float = 2.0) -> np.ndarray:
    """Discount factor (the divisor) at 1-based rank ``pos``.

    ``"log2"``: ``log2(i + 1)`` (trec_eval, Burges et al.). ``"jk"``: Järvelin and Kekäläinen's original:
    ranks ``i < base`` undiscounted (divisor 1), rank ``i >= base`` divided by ``log_base(i)``; with base 2
    only rank 1 is undiscounted.
    """
    pos = np.asarray(pos, dtype=np.float64)
    if kind == "log2":
        return np.log2(pos + 1.0)
    if kind == "jk":
        return np.where(pos < base, 1.0, np.log(np.maximum(pos, 1.0)) / np.log(base))
    raise ValueError(f"unknown discount {kind!r}; expected 'log2' or 'jk'")


def dcg(r, kind: str, cutoff: int | None) -> tuple[np.ndarray, np.ndarray]:
    """DCG of the ranking and of the ideal ranking (all judged documents by grade), per query, cut at k."""
    hits = r.hits(1)  # only positive grades have a gain
    actual = hits.sum(gains(r.rel[hits.index], kind) / np.log2(hits.pos + 1.0), r.n_queries, cutoff)
    ideal_grades, ideal_offsets = r.ideal_grades()
    counts = np.diff(ideal_offsets)
    seg = np.repeat(np.arange(r.n_queries), counts)
    pos = np.arange(len(ideal_grades)) - ideal_offsets[:-1][seg] + 1
    contrib = gains(ideal_grades, kind) / np.log2(pos + 1.0)
    if cutoff is not None:
        contrib = np.where(pos <= cutoff, contrib, 0.0)
    ideal = np.bincount(seg, weights=contrib, minlength=r.n_queries)
    return actual, ideal


@register
class nDCG(Measure):
    """Normalised discounted cumulative gain: DCG of the ranking over DCG of the ideal ranking.

    Notes
    -----
    trec_eval: ``ndcg`` (no cutoff) and ``ndcg_cut_k``. Gains are the judged grades (linear, trec_eval's
    default; ``gain="exp"`` uses 2^g - 1 as Burges et al.), the discount is 1/log2(i+1), and the ideal
    ranking sorts *all* judged documents of the query by grade, retrieved or not. The relevance level
    (``-l``) is ignored, as in trec_eval. A query whose ideal DCG is 0 scores 0.

    .. math:: nDCG@k = \\frac{\\sum_{i=1}^{k} g(d_i)/\\log_2(i+1)}{\\sum_{i=1}^{k} g(d^*_i)/\\log_2(i+1)}
    """

    name = "nDCG"
    aliases = ("NDCG",)
    pretty_name = "nDCG@k"
    description = "Discounted cumulative gain of the ranking divided by that of the ideal ranking."
    latex = r"nDCG@k = \frac{DCG@k}{IDCG@k},\quad DCG@k = \sum_{i=1}^{k} \frac{g(d_i)}{\log_2(i+1)}"
    params = (Param("cutoff", int, default=None, min=1, help="rank cutoff k"),
              Param("gain", str, default="linear", choices=("linear", "exp"),
                    help="gain of grade g: g (linear, trec_eval) or 2^g - 1 (exp)"))
    trec = (Trec("ndcg", order=20), Trec("ndcg_cut", "cutoff", TREC_CUTOFFS, order=23))

    def compute(self, r) -> np.ndarray:
        actual, ideal = dcg(r, self.gain, self.cutoff)
        return np.divide(actual, ideal, out=np.zeros_like(actual), where=ideal > 0)


def ranked_gains(r, kind: str = "linear") -> np.ndarray:
    """Gain at each ranked position (0 for unjudged and non-relevant documents)."""
    return gains(r.rel, kind)


def ideal_prefix(r, kind: str = "linear", discount_kind: str = "log2", base: float = 2.0):
    """The ideal ranking of each query as flat arrays.

    Returns ``(grades, offsets, seg, pos, cum_idcg)``: the positive grades sorted descending per query,
    their per-query offsets, query index and 1-based rank of each, and the ideal DCG up to each rank.
    """
    grades, offsets = r.ideal_grades()
    seg = np.repeat(np.arange(r.n_queries), np.diff(offsets))
    pos = np.arange(len(grades)) - offsets[:-1][seg] + 1
    contrib = gains(grades, kind) / discount(pos, discount_kind, base)
    total = np.cumsum(contrib)
    before = np.concatenate(([0.0], total))[offsets[:-1]]
    return grades, offsets, seg, pos, total - before[seg]


def lookup(values: np.ndarray, offsets: np.ndarray, seg: np.ndarray, k: np.ndarray) -> np.ndarray:
    """``values`` at 1-based rank ``k`` of query ``seg`` (0 where ``k`` is 0), element-wise."""
    idx = offsets[:-1][seg] + k - 1
    return np.where(k >= 1, values[np.maximum(idx, 0)] if len(values) else 0.0, 0.0)
