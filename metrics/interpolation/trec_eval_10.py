"""trec_eval 10's interpolation rule: ``lround(x * R)`` relevant documents."""

from __future__ import annotations

import numpy as np

from metrics.interpolation.base import Rule, register


@register
class TrecEval10(Rule):
    """Recall x needs ``lround(x * R)`` relevant documents (halves away from zero), as trec_eval 10.0 rounds."""

    name = "trec_eval-10"
    label = "trec_eval 10"
    help = "x·R rounded to the nearest whole number of relevant documents, as trec_eval 10 counts them"
    order = 10
    shift = 0.5
    emptied_undefined = True

    def required(self, level: float, num_rel: np.ndarray) -> np.ndarray:
        exact = level * num_rel.astype(np.float64)
        whole = np.floor(exact)  # lround, halves away from zero; exact - whole is exact in floating point
        return (whole + (exact - whole >= 0.5)).astype(np.int64)
