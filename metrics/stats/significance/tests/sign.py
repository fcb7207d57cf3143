"""The sign test: the wins among the topics that are not ties, against a fair coin."""

from __future__ import annotations

import numpy as np

from metrics.stats.significance.tests.base import Test, register


@register
class Sign(Test):
    """Sign test: two-sided binomial test with p = 1/2 of the wins among the non-tied topics.

    Notes
    -----
    With ``w`` wins and ``l`` losses (differences beyond the tie tolerance), ``m = w + l``:
    ``p = min(1, 2 P(X <= min(w, l)))``, ``X ~ Binomial(m, 1/2)``, as ``scipy.stats.binomtest(w, m)``;
    1 when ``m = 0``. The statistic is the number of wins.
    """

    name = "sign"
    label = "sign test"
    phrase = "sign test"
    help = "how many topics each system wins, ignoring by how much"
    order = 30
    order_only = True

    def pairwise(self, D, K, info, options):
        from scipy import stats

        wins, losses = info["wins"], info["losses"]
        m = wins + losses
        low = np.minimum(wins, losses)
        p = np.where(m > 0, np.minimum(1.0, 2.0 * stats.binom.cdf(low, np.maximum(m, 1), 0.5)), 1.0)
        return {"statistic": wins.astype(np.float64), "p_value": p}
