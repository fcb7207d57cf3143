"""trec_eval 9's interpolation rule (and pytrec_eval's): ``(long)(x * R + 0.9)`` relevant documents."""

from __future__ import annotations

import numpy as np

from metrics.interpolation.base import Rule, register


@register
class TrecEval9(Rule):
    """Recall x needs ``(long)(x * R + 0.9)`` relevant documents, as trec_eval 9.x truncates."""

    name = "trec_eval-9"
    label = "trec_eval 9"
    help = "x·R + 0.9 rounded down relevant documents, as trec_eval 9 and pytrec_eval count them"
    order = 9
    shift = 0.9
    emptied_undefined = True

    def required(self, level: float, num_rel: np.ndarray) -> np.ndarray:
        return np.floor(level * num_rel.astype(np.float64) + 0.9).astype(np.int64)
