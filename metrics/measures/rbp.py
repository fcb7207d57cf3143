"""Rank-biased precision and its residual (trec_eval 10 rbp and rbp_resid)."""

from __future__ import annotations

import numpy as np

from metrics.measures.base import Measure, Param, Trec, register


def _persistence(r, p: float) -> np.ndarray:
    """``p ** (i - 1)`` at each ranked position, computed as trec_eval does (repeated products)."""
    return np.power(p, (r.pos - 1).astype(np.float64))


@register
class RBP(Measure):
    """Rank-biased precision: the expected gain per document seen by a user who goes on with probability p.

    Notes
    -----
    trec_eval 10: ``rbp`` (Moffat and Zobel, 2008). Gains are the grades, scaled to [0, 1] by the query's
    largest grade when it exceeds 1 (trec_eval normalises the gain levels that way); unjudged documents
    gain 0. p = 0.9 behaves much like P@10, 0.95–0.98 more like AP. ``-m rbp.p=0.95`` sets p.

    trec_eval 10 itself is wrong here: it scales the gains with ``(g - min) / (max - min)`` over the
    query's gain levels, but never initialises ``min`` and ``max``, so the scaling (and the value) depends
    on whatever the stack held. rankscope computes the intended definition: min is the lowest gain level
    (0) and max the query's largest grade, so grades above 1 are divided by that grade. On binary
    judgments no scaling happens and both agree (as on trec_eval's own test files).

    .. math:: RBP = (1 - p) \\sum_{i} g_i\\, p^{i-1}
    """

    name = "RBP"
    pretty_name = "Rank-biased precision"
    description = "Expected gain per document for a user who moves on to the next with probability p."
    latex = r"RBP = (1-p)\sum_{i=1}^{n} g_i\, p^{i-1}"
    params = (Param("p", float, default=0.9, min=0.0, max=1.0, closed="left",
                    help="persistence: chance of looking further"),)
    trec = (Trec("rbp", order=33, version=10),)

    @classmethod
    def from_trec_params(cls, text: str) -> "RBP":
        """``-m rbp.p=0.95``: the persistence."""
        name, eq, value = text.partition("=")
        try:
            if name != "p" or not eq:
                raise ValueError
            return cls(p=float(value))
        except ValueError:
            from metrics.errors import UnknownMeasureError
            raise UnknownMeasureError(f"rbp: expected p=<persistence> like rbp.p=0.95, found {text!r}") from None

    def trec_spelling(self) -> Trec | None:
        return self.trec[0] if {k for k, _ in self._key()[1]} <= {"p"} else None

    def trec_label(self) -> str | None:
        return "rbp" if self.p == 0.9 else f"rbp_p={self.p!r}"

    def compute(self, r) -> np.ndarray:
        scale = np.maximum(r.top_grades(), 1).astype(np.float64)  # grades above 1 scale into [0, 1]
        gain = np.maximum(r.rel, 0) / scale[r.seg]
        return (1.0 - self.p) * r.segment_sum(gain * _persistence(r, self.p))


@register
class RBPResidual(Measure):
    """Residual of rank-biased precision: how much RBP could still rise if unjudged documents were relevant.

    Notes
    -----
    trec_eval 10: ``rbp_resid``. The tail beyond the ranking (``p^n``) plus ``(1 - p) p^{i-1}`` for each
    unjudged document at rank i; 0 when the ranking has no unjudged document (as trec_eval prints it).

    .. math:: RBP_{resid} = p^{n} + (1 - p) \\sum_{i : d_i \\notin J} p^{i-1}
    """

    name = "RBP_resid"
    pretty_name = "RBP residual"
    description = "Upper bound on how much RBP would rise if every unjudged document were fully relevant."
    latex = r"RBP_{resid} = p^{n} + (1-p)\sum_{i : d_i \notin J} p^{i-1}"
    higher_is_better = False
    params = (Param("p", float, default=0.9, min=0.0, max=1.0, help="persistence: chance of looking further"),)
    trec = (Trec("rbp_resid", order=34, version=10),)

    def compute(self, r) -> np.ndarray:
        unjudged = r.rel < 0
        total = r.segment_sum(np.where(unjudged, _persistence(r, self.p), 0.0))
        count = r.segment_sum(unjudged.astype(np.float64))
        value = np.power(self.p, r.num_ret.astype(np.float64)) + (1.0 - self.p) * total
        return np.where(count > 0, value, 0.0)
