"""The textbook interpolation rule: the least k relevant documents with ``k / R >= x``, without rounding."""

from __future__ import annotations

import numpy as np

from metrics.interpolation.base import Rule, register


@register
class Textbook(Rule):
    """Recall x needs the least k with ``k / R >= x`` (Manning, Raghavan & Schütze, ch. 8); 0 when R is 0."""

    name = "textbook"
    label = "textbook"
    help = "the fewest relevant documents whose recall reaches x, without rounding (Manning et al.)"
    order = 20
    shift = 1.0

    def required(self, level: float, num_rel: np.ndarray) -> np.ndarray:
        exact = level * num_rel.astype(np.float64)
        k = np.ceil(exact)
        with np.errstate(divide="ignore", invalid="ignore"):
            k = np.where((k >= 1) & ((k - 1) / num_rel >= level), k - 1, k)  # ceil may overshoot by one
            k = np.where(k / num_rel < level, k + 1, k)
        return np.where(num_rel > 0, k, 0).astype(np.int64)
