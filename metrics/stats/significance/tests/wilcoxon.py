"""The Wilcoxon signed-rank test, computed by scipy on the differences rounded to their grid."""

from __future__ import annotations

import warnings

import numpy as np

from metrics.stats.significance.tests.base import Test, register


@register
class Wilcoxon(Test):
    """Wilcoxon signed-rank test of the per-topic differences, by :func:`scipy.stats.wilcoxon`.

    Notes
    -----
    The ranks are those of the rounded differences ``K`` (so differences equal up to floating-point rounding
    tie); the statistic is scipy's two-sided ``min(R+, R-)``. One call for all rows when scipy's choice of
    method cannot differ between rows (the normal approximation), else one call per row (its exact or
    permutation choice depends on each row's ties and zeros).
    """

    name = "wilcoxon"
    label = "Wilcoxon"
    phrase = "Wilcoxon signed-rank test"
    help = "the ranks of the per-topic differences, positive against negative"
    order = 20

    def pairwise(self, D, K, info, options):
        from scipy import stats

        zero_method, method = options["zero_method"], options["wilcoxon_method"]
        with warnings.catch_warnings():  # scipy's notes on small samples; the method is documented instead
            warnings.simplefilter("ignore", RuntimeWarning)
            warnings.simplefilter("ignore", UserWarning)
            if method == "asymptotic" or (method == "auto" and K.shape[1] > 50):
                res = stats.wilcoxon(K, zero_method=zero_method, method="asymptotic", axis=1)
                return {"statistic": np.asarray(res.statistic, dtype=np.float64),
                        "p_value": np.asarray(res.pvalue, dtype=np.float64)}
            stat, p = np.empty(K.shape[0]), np.empty(K.shape[0])
            for i, d in enumerate(K):
                res = stats.wilcoxon(d, zero_method=zero_method, method=method)
                stat[i], p[i] = float(res.statistic), float(res.pvalue)
        return {"statistic": stat, "p_value": p}
