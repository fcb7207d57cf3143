"""Benjamini and Yekutieli's correction (2001): the false discovery rate, under any dependence."""

from __future__ import annotations

import numpy as np

from metrics.stats.significance.corrections.base import Correction, register, stepwise
from metrics.stats.significance.corrections.bh import step_up


@register
class BenjaminiYekutieli(Correction):
    """Benjamini-Yekutieli: ``p~_(i) = min_{j >= i} c(m) m p_(j) / j``, ``c(m) = sum_{k=1}^m 1/k``, capped at 1."""

    name = "by"
    aliases = ("fdr_by",)
    label = "Benjamini-Yekutieli"
    adjusted = "Benjamini-Yekutieli-adjusted"
    controls = "false discovery rate"
    help = "the false discovery rate under any dependence between the tests (stricter than Benjamini-Hochberg)"
    order = 40

    def adjust(self, p):
        return stepwise(p, lambda ranked, rank, m: step_up(ranked, rank, m) * np.sum(1.0 / rank))
