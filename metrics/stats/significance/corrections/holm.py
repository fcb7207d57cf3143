"""Holm's step-down correction (1979): the family-wise error rate, under any dependence."""

from __future__ import annotations

import numpy as np

from metrics.stats.significance.corrections.base import Correction, register, stepwise


@register
class Holm(Correction):
    """Holm's step-down: ``p~_(i) = max_{j <= i} (m - j + 1) p_(j)``, capped at 1."""

    name = "holm"
    label = "Holm"
    adjusted = "Holm-corrected"
    controls = "family-wise error rate"
    help = "the family-wise error rate, under any dependence between the tests; never weaker than Bonferroni"
    order = 10

    def adjust(self, p):
        return stepwise(p, lambda ranked, rank, m: np.maximum.accumulate((m - rank + 1) * ranked))
