"""Interpolated precision at recall levels (trec_eval iprec_at_recall) and its 11-point average (11pt_avg).

Both read :func:`interpolated_precision`, which applies the conventions' interpolation rule in one place.
"""

from __future__ import annotations

import numpy as np

from metrics.checks import Number, check
from metrics.measures.base import Measure, Param, Trec, register

RECALL_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def required_relevant(level: float, num_rel: np.ndarray, rule: str) -> np.ndarray:
    """How many relevant documents a ranking must have reached to be at recall ``level``, per query.

    ``trec_eval-9``: ``(long)(level * R + 0.9)``; ``trec_eval-10``: ``lround(level * R)``; ``textbook``: the
    least k with ``k / R >= level`` (no rounding; 0 when R is 0).
    """
    exact = level * num_rel.astype(np.float64)
    if rule == "trec_eval-9":
        return np.floor(exact + 0.9).astype(np.int64)
    if rule == "trec_eval-10":
        whole = np.floor(exact)  # lround, halves away from zero; exact - whole is exact in floating point
        return (whole + (exact - whole >= 0.5)).astype(np.int64)
    if rule != "textbook":
        raise ValueError(f"unknown interpolation rule {rule!r}")
    k = np.ceil(exact)
    with np.errstate(divide="ignore", invalid="ignore"):
        k = np.where((k >= 1) & ((k - 1) / num_rel >= level), k - 1, k)  # ceil may overshoot by one
        k = np.where(k / num_rel < level, k + 1, k)
    return np.where(num_rel > 0, k, 0).astype(np.int64)


def interpolated_precision(r, levels, rel=None) -> np.ndarray:
    """Interpolated precision at each recall level: an array of shape ``(n_queries, len(levels))``.

    The interpolated precision at recall level x is the highest precision at any rank at or below the
    rank where the ranking has retrieved ``required_relevant(x)`` relevant documents (the top of the
    ranking when that is 0), and 0 when the ranking never retrieves that many. The highest precision below
    a rank is always reached at a relevant document, so only relevant positions are looked at.
    """
    hits = r.hits(rel)
    seg, precision = hits.seg, hits.order / hits.pos
    found = np.bincount(seg, minlength=r.n_queries)  # relevant retrieved per query
    first = np.concatenate(([0], np.cumsum(found)))[:-1]
    best_below = _suffix_max(precision, seg, r.n_queries)
    num_rel = r.num_rel(rel)
    rule = r.conventions.interpolation
    # trec_eval computes 0 / 0 for a ranking that -J emptied (a query absent from the run is not computed)
    undefined = _emptied(r) if rule != "textbook" else np.zeros(r.n_queries, dtype=bool)
    out = np.zeros((r.n_queries, len(levels)))
    for column, level in enumerate(levels):
        k = required_relevant(level, num_rel, rule)
        out[undefined & (k == 0), column] = np.nan
        k = np.maximum(k, 1)
        reached = k <= found
        out[reached, column] = best_below[first[reached] + k[reached] - 1]
    return out


def _emptied(r) -> np.ndarray:
    """Per query: trec_eval ranked it and nothing was left of its ranking (only under the judged-only cut).

    trec_eval 9 does not rank a query absent from the run (under ``-c`` it scores 0); trec_eval 10 ranks it
    as one unjudged placeholder document, which the judged-only cut removes like any other.
    """
    empty = r.num_ret == 0
    if not empty.any() or not r.conventions.judged_only:
        return np.zeros_like(empty)
    if r.conventions.preset == "trec_eval-10":
        return empty
    return empty & np.isin(r.queries, np.asarray(r.run.queries, dtype=object))


def _suffix_max(values: np.ndarray, seg: np.ndarray, n_segments: int) -> np.ndarray:
    """Maximum of ``values`` from each element to the end of its segment (``seg`` ascending), exactly.

    One ``np.maximum.accumulate`` over the reversed array, on integer keys ``segment * V + rank of value``
    where reversed segments come in ascending key order, so the running maximum restarts at each segment.
    """
    if not len(values):
        return values
    distinct, code = np.unique(values, return_inverse=True)
    key = (n_segments - 1 - seg[::-1]) * len(distinct) + code.ravel()[::-1]
    return distinct[np.maximum.accumulate(key) % len(distinct)][::-1]


@register
class IPrec(Measure):
    """Interpolated precision at a recall level: the best precision reachable at that recall or beyond.

    Notes
    -----
    trec_eval: ``iprec_at_recall_x``. The interpolated precision at recall x is the maximum precision at any
    rank where recall is at least x; 0 if the ranking never reaches recall x. The conventions' interpolation
    rule decides what "recall at least x" means for a query with R relevant documents: at least
    ``(long)(x*R + 0.9)`` relevant retrieved (``trec_eval-9``, and pytrec_eval), ``lround(x*R)``
    (``trec_eval-10``), or ``k / R >= x`` exactly (``textbook``). At x = 0 the value is the highest
    precision anywhere in the ranking. A query with no relevant documents scores 0. Under the trec_eval
    rules a query whose ranking the judged-only cut (``-J``) leaves empty is NaN where x*R rounds to 0
    relevant documents, as trec_eval computes 0/0 there; a query absent from the run (``-c``) scores 0
    under ``trec_eval-9`` and is such an emptied ranking under ``trec_eval-10`` (which ranks it as one
    unjudged placeholder document).

    .. math:: IPrec@x = \\max\\{P@i : \\mathrm{recall}@i \\ge x\\}
    """

    name = "IPrec"
    at = "recall"
    ir_measures = ("IPrec@0.5",)
    perfect = 1.0
    pretty_name = "Interpolated precision@recall"
    description = "Highest precision at any rank whose recall is at least the given level."
    latex = r"IPrec@x = \max_{i\,:\,\mathrm{recall}@i \ge x} P@i"
    params = (Param("recall", float, default=0.0, min=0.0, max=1.0, help="recall level x in [0, 1]"),
              Param("rel", int, default=None, help="minimum grade counted as relevant"))
    trec = (Trec("iprec_at_recall", "recall", RECALL_LEVELS, order=10, fmt="{:.2f}"),)

    def trec_spelling(self) -> Trec | None:
        # every recall level, the default 0.0 included, has its trec_eval name
        return self.trec[0] if {k for k, _ in self._key()[1]} <= {"recall"} else None

    def compute(self, r) -> np.ndarray:
        return interpolated_precision(r, (self.recall,), self.rel)[:, 0]


@register
class IPrecAvg(Measure):
    """11-point interpolated average precision: interpolated precision averaged over recall 0, 0.1, ..., 1.

    Notes
    -----
    trec_eval: ``11pt_avg``. The mean of ``iprec_at_recall`` at the eleven standard levels, under the same
    interpolation rule (see :class:`IPrec`). An older estimate of the area under the precision-recall
    curve; AP is preferred today. A query with no relevant documents scores 0; one whose ranking the
    judged-only cut leaves empty is NaN under the trec_eval rules (as in trec_eval, see :class:`IPrec`).

    .. math:: 11pt = \\frac{1}{11}\\sum_{x \\in \\{0, 0.1, \\dots, 1\\}} IPrec@x
    """

    name = "IPrecAvg"
    perfect = 1.0
    aliases = ("AP11pt",)
    pretty_name = "11-point interpolated AP"
    description = "Interpolated precision averaged over the recall levels 0, 0.1, ..., 1."
    latex = r"11pt = \frac{1}{11}\sum_{x \in \{0, 0.1, \dots, 1\}} IPrec@x"
    params = (Param("rel", int, default=None, help="minimum grade counted as relevant"),
              Param("levels", tuple, default=(), help="recall levels averaged (default the eleven 0, 0.1, ..., 1)"))
    trec = (Trec("11pt_avg", order=17),)

    def _check(self) -> None:
        for level in self.levels:
            check("IPrecAvg recall level", level, Number(0, 1))

    @classmethod
    def from_trec_params(cls, text: str) -> "IPrecAvg":
        """``-m 11pt_avg..25,.5,.75``: average over the listed recall levels (printed ``11pt_avg_.25,.5,.75``)."""
        try:
            levels = tuple(float(v) for v in text.split(",") if v != "")
        except ValueError:
            from metrics.errors import UnknownMeasureError
            raise UnknownMeasureError(f"11pt_avg: expected recall levels like .25,.5,.75, found {text!r}") from None
        return cls(levels=levels)

    def trec_spelling(self) -> Trec | None:
        return self.trec[0] if {k for k, _ in self._key()[1]} <= {"levels"} else None

    def trec_label(self) -> str | None:
        if self.trec_spelling() is None:
            return None
        if not self.levels:
            return "11pt_avg"
        return "11pt_avg_" + ",".join(f"{v:g}".removeprefix("0") if v < 1 else f"{v:g}" for v in self.levels)

    def compute(self, r) -> np.ndarray:
        levels = self.levels or RECALL_LEVELS
        values = interpolated_precision(r, levels, self.rel)
        total = np.zeros(r.n_queries)
        for column in reversed(range(len(levels))):  # trec_eval's order of summation
            total += values[:, column]
        return total / len(levels)
