"""The paired t-test: the mean difference over its standard error, Student's t on n - 1 degrees of freedom."""

from __future__ import annotations

import numpy as np

from metrics.stats.significance.tests.base import Test, register


@register
class T(Test):
    """Paired t-test of the per-topic differences ``d = b - a``.

    Notes
    -----
    With n topics, ``t = mean(d) / (sd(d) / sqrt(n))`` and ``p = 2 P(T_{n-1} >= |t|)``: the statistic and
    p-value of ``scipy.stats.ttest_rel(b, a)``. NaN for both when every difference is the same (``sd = 0``).
    """

    name = "t"
    label = "t-test"
    phrase = "paired t-test"
    help = "the mean of the per-topic differences against its standard error (Student's t)"
    order = 10
    parametric = True
    needs_spread = True

    def pairwise(self, D, K, info, options):
        from scipy import stats

        n = D.shape[1]
        sd = info["sd"]
        ok = sd > 0
        t = np.where(ok, info["mean"] / np.where(ok, sd, 1.0) * np.sqrt(n), np.nan)
        p = np.where(ok, np.minimum(2.0 * stats.t.sf(np.abs(np.where(ok, t, 0.0)), n - 1), 1.0), np.nan)
        return {"statistic": t, "p_value": p}
