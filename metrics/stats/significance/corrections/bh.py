"""Benjamini and Hochberg's step-up correction (1995): the false discovery rate."""

from __future__ import annotations

import numpy as np

from metrics.stats.significance.corrections.base import Correction, register, stepwise


def step_up(ranked: np.ndarray, rank: np.ndarray, m: int) -> np.ndarray:
    """``min_{j >= i} m p_(j) / j`` of the sorted p-values."""
    return np.minimum.accumulate((m * ranked / rank)[::-1])[::-1]


@register
class BenjaminiHochberg(Correction):
    """Benjamini-Hochberg: ``p~_(i) = min_{j >= i} m p_(j) / j``, capped at 1.

    Notes
    -----
    It assumes independent or positively dependent tests (PRDS); two-sided tests of pairs of systems that
    share topics are dependent in no guaranteed direction, so BY is the safe false-discovery choice and BH
    the customary, more powerful one.
    """

    name = "bh"
    aliases = ("fdr_bh",)
    label = "Benjamini-Hochberg"
    adjusted = "Benjamini-Hochberg-adjusted"
    controls = "false discovery rate"
    help = "the false discovery rate (the expected share of false findings), for independent or positively " \
           "dependent tests"
    order = 30

    def adjust(self, p):
        return stepwise(p, step_up)
