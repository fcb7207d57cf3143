"""The paired bootstrap test: topics drawn with replacement, the resampled means shifted to the null."""

from __future__ import annotations

from metrics.stats.significance._resampling import bootstrap_kernel
from metrics.stats.significance.tests.base import Test, register


@register
class Bootstrap(Test):
    """Paired bootstrap test of the mean difference, with a percentile or BCa interval of its own.

    Notes
    -----
    ``p = (b + 1) / (B + 1)``, ``b`` the resampled means at least as far from the observed one as it is from
    0 (Efron & Tibshirani, 1993, §16.4); the resamples are those ``scipy.stats.bootstrap`` draws from the
    seed. The statistic is the mean difference.
    """

    name = "bootstrap"
    label = "bootstrap"
    phrase = "paired bootstrap test"
    help = "how far the mean difference moves when the topics are drawn again with replacement"
    order = 50
    resampled = True

    def pairwise(self, D, K, info, options):
        stat, p, low, high = bootstrap_kernel(D, info["constant"], options["n_resamples"], options["seed"],
                                              options["ci"], options["confidence"])
        return {"statistic": stat, "p_value": p, "ci_low": low, "ci_high": high}
