"""Normalised discounted cumulative gain (trec_eval ndcg and ndcg_cut) and its gain and discount functions.

The joint-judgments restriction of the qrels, for an ideal ranking shared by the compared systems, is
:func:`metrics.judgments.joint.joint_ideal_qrels`."""

from __future__ import annotations

import numpy as np

from metrics.checks import refuse
from metrics.errors import UnknownMeasureError, ValidationError
from metrics.gains import BASE, DISCOUNTS, GAINS, IDEALS, TREC_EVAL, describe
from metrics.measures.base import Measure, Param, Trec, register
from metrics.measures.precision import TREC_CUTOFFS

__all__ = ["nDCG", "gains", "discount", "discounted_gain", "dcg", "ideal_grades", "ideal_prefix", "ranked_gains",
           "lookup", "hit_dcg", "dcg_at", "mapped_dcg", "GAIN_PARAM", "DISCOUNT_PARAM", "BASE_PARAM",
           "GAIN_MAP_PARAM", "GainMapped", "check_base", "check_gain_map"]

GAIN_PARAM = Param("gain", str, default=TREC_EVAL["gain"], choices=tuple(GAINS),
                   help=f"gain of grade g: {describe(GAINS)}")
DISCOUNT_PARAM = Param("discount", str, default=TREC_EVAL["discount"], choices=tuple(DISCOUNTS),
                       help=f"divisor at rank i: {describe(DISCOUNTS)}, whose divisor is max(1, log_b(i)) "
                            "with ranks i < b undiscounted")
BASE_PARAM = Param("base", float, default=BASE, min=1.0, closed="neither",
                   help="logarithm base b of the jk discount (> 1; ranks below b are not discounted)")


def gains(grades: np.ndarray, kind: str) -> np.ndarray:
    """Gain of each grade: the grade itself ("linear", trec_eval) or 2**grade - 1 ("exp"); 0 if unjudged."""
    g = np.maximum(grades, 0).astype(np.float64)
    if kind == "linear":
        return g
    with np.errstate(over="ignore"):  # past grade 1023, 2**grade is infinite (and nDCG NaN)
        return np.exp2(g) - 1.0


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
    raise ValueError(f"unknown discount {kind!r}; expected {' or '.join(map(repr, DISCOUNTS))}")


def check_base(measure: Measure) -> None:
    """Cross-parameter check shared by the DCG family: ``base`` > 1, and set only with ``discount="jk"``."""
    if measure.discount != "jk" and measure.base != BASE_PARAM.default:
        raise ValidationError(f"{measure.name}: parameter 'base' applies to discount=\"jk\" only")


def discounted_gain(r, kind: str = "linear", cutoff: int | None = None, discount_kind: str = "log2",
                    base: float = 2.0) -> np.ndarray:
    """DCG of each query's ranking, cut at ``cutoff``: the sum of ``gain(grade) / discount(rank)``."""
    hits = r.hits(1)  # only positive grades have a gain
    return hits.sum(gains(r.rel[hits.index], kind) / discount(hits.pos, discount_kind, base), r.n_queries, cutoff)


def ideal_grades(r, ideal: str = "judged") -> tuple[np.ndarray, np.ndarray]:
    """Positive grades of the ideal ranking of each query, sorted descending, and their per-query offsets.

    ``ideal="judged"``: every judged document of the query, retrieved or not (trec_eval). ``"retrieved"``:
    only the documents of the run's own ranking (after the depth and judged-only cuts), re-sorted by grade.
    """
    if ideal == "judged":
        return r.ideal_grades()
    if ideal != "retrieved":
        raise ValueError(f"unknown ideal {ideal!r}; expected {' or '.join(map(repr, IDEALS))}")
    keep = r.rel > 0
    grades, seg = r.rel[keep], r.seg[keep]
    order = np.lexsort((-grades, seg))
    counts = np.bincount(seg, minlength=r.n_queries)
    return grades[order], np.concatenate(([0], np.cumsum(counts))).astype(np.int64)


def dcg(r, kind: str, cutoff: int | None, discount_kind: str = "log2", base: float = 2.0,
        ideal: str = "judged") -> tuple[np.ndarray, np.ndarray]:
    """DCG of the ranking and of the ideal ranking, per query, cut at k.

    The ideal ranking sorts all judged documents by grade (``ideal="judged"``, trec_eval) or only the
    retrieved ones (``ideal="retrieved"``).
    """
    actual = discounted_gain(r, kind, cutoff, discount_kind, base)
    grades, offsets = ideal_grades(r, ideal)
    counts = np.diff(offsets)
    seg = np.repeat(np.arange(r.n_queries), counts)
    pos = np.arange(len(grades)) - offsets[:-1][seg] + 1
    contrib = gains(grades, kind) / discount(pos, discount_kind, base)
    if cutoff is not None:
        contrib = np.where(pos <= cutoff, contrib, 0.0)
    best = np.bincount(seg, weights=contrib, minlength=r.n_queries)
    return actual, best


GAIN_MAP_PARAM = Param("gain_map", tuple, default=(),
                       help="gains of chosen grades, ((grade, gain), ...); other grades gain their grade "
                            "(trec_eval -m ndcg.1=3,2=9)")


def check_gain_map(measure: Measure) -> None:
    """A gain map holds distinct grades >= 0 with numeric gains, and goes with the default gain and discount."""
    if not measure.gain_map:
        return
    where = f"{measure.name} parameter 'gain_map'"
    try:
        pairs = [(int(level), float(value)) for level, value in measure.gain_map]
    except (TypeError, ValueError):
        raise refuse(where, "(grade, gain) pairs of numbers", measure.gain_map) from None
    if not all(np.isfinite(gain) for _, gain in pairs):
        raise refuse(where, "(grade, gain) pairs with finite gains", measure.gain_map)
    if any(level < 0 for level, _ in pairs) or len({lv for lv, _ in pairs}) != len(pairs):
        raise refuse(where, "(grade, gain) pairs of distinct grades of at least 0", measure.gain_map)
    chosen = {"gain": measure.gain, "discount": measure.discount,
              "ideal": measure.values.get("ideal", TREC_EVAL["ideal"])}
    if chosen != TREC_EVAL:
        raise ValidationError(f"{measure.name}: gain_map combines only with the default gain, discount and ideal")


class GainMapped:
    """trec_eval's ``-m name.1=3,2=9`` spelling for the DCG family (mixed into nDCG, DCG and IDCG)."""

    @classmethod
    def from_trec_params(cls, text: str):
        """``-m ndcg.1=3,2=9,4=4.5``: grade 1 gains 3, grade 2 gains 9, grade 4 gains 4.5, others their grade."""
        pairs = []
        for item in text.split(","):
            level, eq, value = item.partition("=")
            try:
                pairs.append((int(level), float(value)))
            except ValueError:
                raise UnknownMeasureError(f"{cls.trec[0].name}: expected grade=gain pairs like 1=3,2=9, "
                                          f"got {text!r}") from None
            if not eq:
                raise UnknownMeasureError(f"{cls.trec[0].name}: expected grade=gain pairs like 1=3,2=9, "
                                          f"got {text!r}")
        return cls(gain_map=tuple(pairs))

    def trec_spelling(self) -> Trec | None:
        changed = {k for k, _ in self._key()[1]}
        if changed == {"gain_map"}:
            return self.trec[0]
        return super().trec_spelling()

    def trec_label(self) -> str | None:
        if self.gain_map and self.trec_spelling() is not None:
            text = ",".join(f"{level}={_number(float(value))}" for level, value in self.gain_map)
            return f"{self.trec[0].name}_{text}"
        return super().trec_label()


@register
class nDCG(GainMapped, Measure):
    """Normalised discounted cumulative gain: DCG of the ranking over DCG of the ideal ranking.

    Notes
    -----
    trec_eval: ``ndcg`` (no cutoff) and ``ndcg_cut_k``, with the default parameters only. Gains are the
    judged grades (linear, trec_eval's default; ``gain="exp"`` uses 2^g - 1 as Burges et al.), the discount
    is 1/log2(i+1), and the ideal ranking sorts *all* judged documents of the query by grade, retrieved or
    not. The relevance level (``-l``) is ignored, as in trec_eval. A query whose ideal DCG is 0 scores 0.

    ``discount="jk"`` is Järvelin and Kekäläinen's original discount: ranks i < b keep their full gain and
    rank i >= b is divided by log_b(i) (``base`` b, default 2, so only rank 1 is undiscounted). With b = 2
    it differs from log2(i+1) at every rank but is the same at rank 1.

    ``ideal="retrieved"`` builds the ideal ranking from the retrieved documents only (the whole ranking,
    not just its top k, so the value depends on documents below the cutoff). It can only raise the score
    (a run that misses relevant documents is not penalised for it) and makes scores of different runs
    incomparable, since each run has its own ideal; it is what many textbook examples compute. For an
    ideal formed from the joint judgments of all compared systems, restrict the qrels with
    :func:`metrics.judgments.joint.joint_ideal_qrels` before evaluating.

    ``gain_map`` is trec_eval's ``-m ndcg.1=3,2=9,4=4.5``: the listed grades gain the given values, zero and
    negative gains included; other grades gain their grade. The ideal ranking orders the judged documents
    by gain, descending, and keeps the positive gains. trec_eval sorts the gain levels with a comparator
    that returns the difference of two gains truncated to an integer, so gains less than 1 apart (1.5 and
    2.0, say) compare as equal and may be left in the wrong order, giving a wrong ideal DCG; rankscope
    sorts them exactly (the intended definition). With whole-number gains both agree.

    .. math:: nDCG@k = \\frac{\\sum_{i=1}^{k} g(d_i)/\\mathrm{disc}(i)}{\\sum_{i=1}^{k} g(d^*_i)/\\mathrm{disc}(i)}

    Examples
    --------
    The graded ranking 3, 2, 3, 0, 0, 1, 2, 2, 3, 0 with exponential gains and its own documents as the
    ideal ranking (3, 3, 3, 2, 2, 2, 1, 0, 0, 0): DCG@3 = 12.39, IDCG@3 = 14.92, nDCG@3 = 0.83.

    >>> from metrics import evaluate
    >>> grades = [3, 2, 3, 0, 0, 1, 2, 2, 3, 0]
    >>> qrels = "".join(f"1 0 d{i} {g}\\n" for i, g in enumerate(grades))
    >>> run = "".join(f"1 Q0 d{i} {i + 1} {10 - i} x\\n" for i in range(10))
    >>> m = 'nDCG(gain="exp",ideal="retrieved")@3'
    >>> round(float(evaluate(qrels, {"x": run}, [m])["value"][0]), 2)
    0.83
    """

    name = "nDCG"
    ir_measures = ("nDCG", "nDCG@10")
    perfect = 1.0
    aliases = ("NDCG",)
    pretty_name = "nDCG@k"
    description = "Discounted cumulative gain of the ranking divided by that of the ideal ranking."
    latex = r"nDCG@k = \frac{DCG@k}{IDCG@k},\quad DCG@k = \sum_{i=1}^{k} \frac{g(d_i)}{\log_2(i+1)}"
    params = (Param("cutoff", int, default=None, min=1, help="rank cutoff k"),
              GAIN_PARAM, DISCOUNT_PARAM, BASE_PARAM,
              Param("ideal", str, default=TREC_EVAL["ideal"], choices=tuple(IDEALS),
                    help=f"documents of the ideal ranking: {describe(IDEALS)}, which inflates the score"),
              GAIN_MAP_PARAM)
    trec = (Trec("ndcg", order=20), Trec("ndcg_cut", "cutoff", TREC_CUTOFFS, order=23))

    def _check(self) -> None:
        check_base(self)
        check_gain_map(self)

    def compute(self, r) -> np.ndarray:
        if self.gain_map:
            actual, ideal = mapped_dcg(r, dict(self.gain_map), self.cutoff)
        else:
            actual, ideal = dcg(r, self.gain, self.cutoff, self.discount, self.base, self.ideal)
        with np.errstate(invalid="ignore"):  # infinite gains: inf / inf is NaN
            return np.divide(actual, ideal, out=np.zeros_like(actual), where=ideal > 0)


def _number(value: float) -> str:
    return str(int(value)) if value.is_integer() else repr(value)


def mapped_dcg(r, mapping: dict, cutoff: int | None) -> tuple[np.ndarray, np.ndarray]:
    """DCG and ideal DCG with per-grade gains, as trec_eval's ``ndcg.l=g,...``.

    Every retrieved document adds its grade's gain (zero and negative gains included); the ideal ranking
    orders the judged documents by gain, descending, and keeps the positive gains.
    """
    level_gain = np.array([float(mapping.get(int(g), g)) for g in r.grade_values])  # one per grade present
    judged = r.rel >= 0
    gain = np.zeros(len(r.rel))
    gain[judged] = level_gain[np.searchsorted(r.grade_values, r.rel[judged])]
    contrib = np.where(r.within(cutoff), gain / np.log2(r.pos + 1.0), 0.0)
    actual = r.segment_sum(contrib)
    order = np.argsort(-level_gain, kind="stable")
    order = order[level_gain[order] > 0]
    counts = r.rel_levels[:, order]
    grades = np.repeat(np.tile(level_gain[order], r.n_queries), counts.ravel())
    per_query = counts.sum(axis=1)
    seg = np.repeat(np.arange(r.n_queries), per_query)
    offsets = np.concatenate(([0], np.cumsum(per_query)))
    pos = np.arange(len(grades)) - offsets[:-1][seg] + 1
    icontrib = grades / np.log2(pos + 1.0)
    if cutoff is not None:
        icontrib = np.where(pos <= cutoff, icontrib, 0.0)
    return actual, np.bincount(seg, weights=icontrib, minlength=r.n_queries).astype(np.float64)


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


def hit_dcg(r):
    """The positive-grade positions (``r.hits(1)``) and, at each, the DCG of its query's ranking down to it
    (linear gains, log2 discount): the same numbers as a cumulative sum over every position, at the cost of
    the hits only."""
    hits = r.hits(1)
    total = np.cumsum(gains(r.rel[hits.index], "linear") / np.log2(hits.pos + 1.0))
    first = np.searchsorted(hits.seg, np.arange(r.n_queries), side="left")
    before = np.concatenate(([0.0], total))[first]
    return hits, total - before[hits.seg]


def dcg_at(r, seg: np.ndarray, k: np.ndarray) -> np.ndarray:
    """DCG (linear gains, log2 discount) of query ``seg``'s ranking down to rank ``k`` (0 for k = 0)."""
    hits, cum = hit_dcg(r)
    seg, k = np.asarray(seg, dtype=np.int64), np.asarray(k, dtype=np.int64)
    if not len(cum) or not len(seg):
        return np.zeros(len(seg))
    width = int(max(k.max(), hits.pos.max())) + 1
    at = np.searchsorted(hits.seg.astype(np.int64) * width + hits.pos, seg * width + k, side="right") - 1
    found = (at >= 0) & (hits.seg[np.maximum(at, 0)] == seg)
    return np.where(found, cum[np.maximum(at, 0)], 0.0)


def lookup(values: np.ndarray, offsets: np.ndarray, seg: np.ndarray, k: np.ndarray) -> np.ndarray:
    """``values`` at 1-based rank ``k`` of query ``seg`` (0 where ``k`` is 0), element-wise."""
    idx = offsets[:-1][seg] + k - 1
    return np.where(k >= 1, values[np.maximum(idx, 0)] if len(values) else 0.0, 0.0)
