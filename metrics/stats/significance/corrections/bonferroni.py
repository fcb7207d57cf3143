"""Bonferroni's correction: every p-value times the size of the family."""

from __future__ import annotations

import numpy as np

from metrics.stats.significance.corrections.base import Correction, register


@register
class Bonferroni(Correction):
    """Bonferroni: ``p~_i = m p_i``, capped at 1."""

    name = "bonferroni"
    label = "Bonferroni"
    adjusted = "Bonferroni-corrected"
    controls = "family-wise error rate"
    help = "the family-wise error rate, under any dependence: each p-value times the number of tests"
    order = 20

    def adjust(self, p):
        return np.minimum(1.0, p * p.size)
