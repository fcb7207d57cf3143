"""Every declared test and correction, run through compare_systems (the path its declaration drives), against
an oracle that does not share its code: scipy, statsmodels, or a slow textbook loop.

:data:`TEST_ORACLES` and :data:`CORRECTION_ORACLES` are what ``test_significance_checklist.py`` reads: a declared test or
correction without an entry here fails there. The data are small, on a decimal grid (ties and zero
differences), with every pair of four systems.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from metrics.stats.significance import compare_systems
from tests.metrics.stats.maxt_reference import slow_maxt

K, SEED, RESAMPLES = 4, 3, 999
N = 14  # topics: up to EXACT_MAX (20) the randomisation test enumerates every sign pattern; beyond 13 with
        # ties scipy's Wilcoxon takes the normal approximation (below, its exact permutation takes seconds)


def systems(seed: int, n: int = N) -> np.ndarray:
    """K systems x n topics on a grid of 0.05, the last system a copy of the first on a few topics."""
    rng = np.random.default_rng(seed)
    X = np.clip(rng.random(n)[None, :] + rng.normal(0, 0.15, (K, n)) + np.linspace(0, 0.1, K)[:, None], 0, 1)
    X = np.round(X * 20) / 20
    X[-1, :4] = X[0, :4]
    return X


def frame_of(X: np.ndarray) -> pd.DataFrame:
    n = X.shape[1]
    return pd.DataFrame({"system": np.repeat([f"s{i}" for i in range(K)], n),
                         "query": np.tile([f"q{j:02d}" for j in range(n)], K), "measure": "AP", "value": X.ravel()})


def pairs() -> list[tuple[int, int]]:
    return list(itertools.combinations(range(K), 2))  # compare_systems' order: (a, b), a before b


def differences(X: np.ndarray) -> np.ndarray:
    """``b - a`` of every pair in exact decimal arithmetic (the scores are on a grid)."""
    return np.array([np.round(X[b] - X[a], 10) for a, b in pairs()])


def units(d: np.ndarray) -> np.ndarray:
    """Differences on the grid of 0.05 as whole numbers of steps: sums and means of them are exact, so that a
    resampled statistic equal to the observed one is equal in the oracle's arithmetic too."""
    return np.round(d * 20)


# ---- tests: per pair, the p-value an independent implementation gives ----------------------------------------


def _pairwise(p_of):
    return lambda X: np.array([p_of(X[a], X[b], d) for (a, b), d in zip(pairs(), differences(X))])


def _wilcoxon(a, b, d):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return stats.wilcoxon(d).pvalue


def _bootstrap(a, b, d):
    u = units(d)
    dist = stats.bootstrap((u,), np.mean, n_resamples=RESAMPLES, rng=np.random.default_rng(SEED),
                           method="percentile").bootstrap_distribution
    return (np.count_nonzero(np.abs(dist - u.mean()) >= abs(u.mean())) + 1) / (RESAMPLES + 1)


def _tukey(X):
    """statsmodels' least-squares fit of score ~ system + topic for the residual mean square, then scipy's
    studentized range."""
    import statsmodels.api as sm

    n = X.shape[1]
    design = np.hstack([np.ones((K * n, 1)), np.kron(np.eye(K), np.ones((n, 1)))[:, 1:],
                        np.kron(np.ones((K, 1)), np.eye(n))[:, 1:]])
    fit = sm.OLS(X.ravel(), design).fit()
    means = X.mean(axis=1)
    return np.array([stats.studentized_range.sf(abs(means[b] - means[a]) / np.sqrt(fit.mse_resid / X.shape[1]), K,
                                                fit.df_resid) for a, b in pairs()])


TEST_ORACLES = {
    "t": _pairwise(lambda a, b, d: stats.ttest_rel(b, a).pvalue),
    "wilcoxon": _pairwise(_wilcoxon),
    "sign": _pairwise(lambda a, b, d: stats.binomtest(int((d > 0).sum()), int((d != 0).sum())).pvalue),
    "permutation": _pairwise(lambda a, b, d: stats.permutation_test(
        (units(d),), np.mean, permutation_type="samples", n_resamples=np.inf, vectorized=True).pvalue),
    "bootstrap": _pairwise(_bootstrap),
    "tukey": _tukey,
}
"""Each declared test's p-values of every pair of a systems x topics table, from scipy or statsmodels."""


@pytest.mark.parametrize("test", sorted(TEST_ORACLES))
@pytest.mark.parametrize("seed", [1])  # its last pair has a mean difference of exactly 0
def test_every_declared_test_matches_its_oracle(test, seed):
    X = systems(seed)
    got = compare_systems(frame_of(X), test=test, correction="none", seed=SEED, n_resamples=RESAMPLES).frame
    np.testing.assert_allclose(got["p_value"].to_numpy(), TEST_ORACLES[test](X), rtol=1e-9, atol=1e-15)


# ---- corrections: the adjusted p-values of one family -----------------------------------------------------------


def _statsmodels(method: str):
    from statsmodels.stats.multitest import multipletests

    return lambda p, D: multipletests(p, method=method)[1]


def _every_flip(D: np.ndarray) -> np.ndarray:
    n = D.shape[1]
    return np.array([[1 - 2 * ((r >> j) & 1) for j in range(n)] for r in range(2 ** n)], dtype=float)


CORRECTION_ORACLES = {
    "holm": _statsmodels("holm"),
    "bonferroni": _statsmodels("bonferroni"),
    "bh": _statsmodels("fdr_bh"),
    "by": _statsmodels("fdr_by"),
    "none": lambda p, D: p,
    "maxt": lambda p, D: slow_maxt(D, _every_flip(D), exact=True),  # Westfall & Young's algorithm, in loops
}
"""Each declared correction's adjusted p-values of a family, from its raw p-values (statsmodels) or from the
differences of its tests (max-T's textbook loop over every sign pattern)."""


@pytest.mark.parametrize("correction", sorted(CORRECTION_ORACLES))
def test_every_declared_correction_matches_its_oracle(correction):
    X = systems(2, n=8)  # 256 sign patterns for max-T's loops
    got = compare_systems(frame_of(X), test="permutation", correction=correction).frame
    want = CORRECTION_ORACLES[correction](got["p_value"].to_numpy(), differences(X))
    np.testing.assert_allclose(got["p_adjusted"].to_numpy(), want, rtol=1e-12, atol=1e-15)
