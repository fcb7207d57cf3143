"""No correction: the p-values as the test gives them."""

from __future__ import annotations

from metrics.stats.significance.corrections.base import Correction, register


@register
class NoCorrection(Correction):
    """No correction: each p-value as it is (a family of many tests will hold significant ones by chance)."""

    name = "none"
    label = "none"
    adjusted = "not corrected for multiple comparisons"
    help = "the p-values as they are: with many tests, some are significant by chance"
    order = 50

    def adjust(self, p):
        return p.copy()
