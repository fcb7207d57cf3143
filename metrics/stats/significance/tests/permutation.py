"""The paired randomisation test: random sign flips of the differences (all of them up to 20 topics)."""

from __future__ import annotations

from metrics.stats.significance._resampling import permutation_kernel
from metrics.stats.significance.tests.base import Test, register


@register
class Permutation(Test):
    """Paired randomisation (sign-flip) test of the mean difference.

    Notes
    -----
    Up to :data:`~metrics.stats.significance.EXACT_MAX` topics every sign pattern is enumerated and the
    p-value is exact; beyond, ``(b + 1) / (B + 1)`` over ``B = n_resamples`` random patterns shared by every
    pair (:mod:`metrics.stats.significance._resampling`). The statistic is the mean difference.
    """

    name = "permutation"
    aliases = ("randomization", "randomisation")
    label = "randomisation"
    phrase = "paired randomisation test"
    help = "how often random swaps of the two systems' scores, topic by topic, give a difference as large"
    order = 40
    resampled = True
    sign_flips = True

    def pairwise(self, D, K, info, options):
        stat, p, exact = permutation_kernel(D, options["n_resamples"], options["seed"], client=options.get("client"))
        return {"statistic": stat, "p_value": p, "exact": exact}
