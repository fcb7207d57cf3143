"""The tests' arithmetic, vectorised: each kernel reads a 2-D array of differences ``D`` (one row per pair of
systems, one column per query) and returns one value per row. ``K`` is ``D`` rounded by
``_inputs.snap``: it decides zeros, ties, ranks and constant rows; sums and means use ``D``."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from metrics.stats.significance._resampling import bootstrap_kernel, permutation_kernel


def describe(D: np.ndarray, K: np.ndarray, tie_tolerance: float, confidence: float) -> dict[str, np.ndarray]:
    """Mean difference, t interval, Cohen's d_z, rank-biserial and win/tie/loss counts of every row.

    ``d_z = mean / sd`` (ddof=1) is NaN when a row is constant; the interval is
    ``mean ± t(1 - (1 - confidence)/2; n - 1) sd / sqrt(n)``.
    """
    from scipy import stats

    n = D.shape[1]
    mean = D.mean(axis=1)
    constant = np.all(K == K[:, :1], axis=1)
    sd = np.where(constant, 0.0, D.std(axis=1, ddof=1))
    with np.errstate(divide="ignore", invalid="ignore"):
        dz = np.where(constant, np.nan, mean / np.where(constant, 1.0, sd))
    half = stats.t.ppf(0.5 + confidence / 2.0, n - 1) * sd / np.sqrt(n)
    wins = (K > tie_tolerance).sum(axis=1)
    losses = (K < -tie_tolerance).sum(axis=1)
    return {"mean": mean, "sd": sd, "constant": constant, "effect_size": dz, "rank_biserial": rank_biserial_rows(K),
            "ci_low": mean - half, "ci_high": mean + half, "wins": wins, "losses": losses,
            "ties": n - wins - losses}


def rank_biserial_rows(K: np.ndarray) -> np.ndarray:
    """``(R+ - R-) / (R+ + R-)`` over the non-zero (rounded) differences of each row (NaN when all are 0)."""
    from scipy import stats

    ranks = stats.rankdata(np.abs(K), method="average", axis=1)
    zeros = (K == 0).sum(axis=1, keepdims=True)
    ranks = ranks - zeros  # zeros hold the lowest ranks: subtracting their count ranks the rest among themselves
    r_plus = np.where(K > 0, ranks, 0.0).sum(axis=1)
    r_minus = np.where(K < 0, ranks, 0.0).sum(axis=1)
    total = r_plus + r_minus
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(total > 0, (r_plus - r_minus) / np.where(total > 0, total, 1.0), np.nan)


def t_kernel(info: dict[str, np.ndarray], n: int) -> tuple[np.ndarray, np.ndarray]:
    """``t = mean / (sd / sqrt(n))`` on n - 1 degrees of freedom; NaN where ``sd`` is 0."""
    from scipy import stats

    sd = info["sd"]
    ok = sd > 0
    t = np.where(ok, info["mean"] / np.where(ok, sd, 1.0) * np.sqrt(n), np.nan)
    p = np.where(ok, np.minimum(2.0 * stats.t.sf(np.abs(np.where(ok, t, 0.0)), n - 1), 1.0), np.nan)
    return t, p


def wilcoxon_kernel(D: np.ndarray, zero_method: str, method: str) -> tuple[np.ndarray, np.ndarray]:
    """scipy.stats.wilcoxon on every row: one call for all rows when its choice of method cannot differ
    between rows (the normal approximation), else one call per row (its exact or permutation choice
    depends on each row's ties and zeros)."""
    from scipy import stats

    with warnings.catch_warnings():  # scipy's notes on small samples; the method is documented instead
        warnings.simplefilter("ignore", RuntimeWarning)
        warnings.simplefilter("ignore", UserWarning)
        if method == "asymptotic" or (method == "auto" and D.shape[1] > 50):
            res = stats.wilcoxon(D, zero_method=zero_method, method="asymptotic", axis=1)
            return np.asarray(res.statistic, dtype=np.float64), np.asarray(res.pvalue, dtype=np.float64)
        stat, p = np.empty(D.shape[0]), np.empty(D.shape[0])
        for i, d in enumerate(D):
            res = stats.wilcoxon(d, zero_method=zero_method, method=method)
            stat[i], p[i] = float(res.statistic), float(res.pvalue)
    return stat, p


def sign_kernel(wins: np.ndarray, losses: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided binomial test with p = 1/2 of the wins among the m = wins + losses non-tied queries:
    ``min(1, 2 P(X <= min(wins, losses)))``, X ~ Binomial(m, 1/2); 1 when m = 0."""
    from scipy import stats

    m = wins + losses
    low = np.minimum(wins, losses)
    p = np.where(m > 0, np.minimum(1.0, 2.0 * stats.binom.cdf(low, np.maximum(m, 1), 0.5)), 1.0)
    return wins.astype(np.float64), p


def analyse(D: np.ndarray, K: np.ndarray, test: str, *, n_resamples: int, seed: int, confidence: float, ci: str,
            zero_method: str, wilcoxon_method: str, tie_tolerance: float, client: Any = None) -> dict[str, np.ndarray]:
    """Run ``test`` on every row of ``D`` (``K`` rounded): the columns of the result table, one value per row.

    The Wilcoxon test reads ``K`` (its ranks are those of the rounded differences; the statistic depends
    on the ranks and signs only), the randomisation and bootstrap tests ``D``.

    Rows whose differences are all 0 get statistic NaN and p-value 1 (the observed value is the only
    one the null distribution holds); under the t-test, rows of one constant non-zero difference get
    NaN for both (t is undefined). The tests run on the other rows. ``client`` (a Dask client) spreads
    the randomisation test's chunks of rows over a cluster (:func:`~._resampling.permutation_counts`).
    """
    info = describe(D, K, tie_tolerance, confidence)
    rows = D.shape[0]
    info["statistic"] = np.full(rows, np.nan)
    info["p_value"] = np.ones(rows)
    info["exact"] = np.zeros(rows, dtype=bool)
    identical = ~np.any(K != 0, axis=1)
    if test == "t":
        stat, p = t_kernel(info, D.shape[1])
        info["statistic"], info["p_value"] = stat, np.where(identical, 1.0, p)
        return info
    if test == "sign":
        stat, p = sign_kernel(info["wins"], info["losses"])
        info["statistic"] = np.where(identical, np.nan, stat)
        info["p_value"] = np.where(identical, 1.0, p)
        return info
    live = ~identical
    if not live.any():
        return info
    Dl = D[live]
    if test == "wilcoxon":
        stat, p = wilcoxon_kernel(K[live], zero_method, wilcoxon_method)
    elif test == "permutation":
        stat, p, exact = permutation_kernel(Dl, n_resamples, seed, client=client)
        info["exact"][live] = exact
    elif test == "bootstrap":
        stat, p, low, high = bootstrap_kernel(Dl, info["constant"][live], n_resamples, seed, ci, confidence)
        info["ci_low"][live], info["ci_high"][live] = low, high
    else:  # pragma: no cover - callers check the name
        raise AssertionError(test)
    info["statistic"][live], info["p_value"][live] = stat, p
    return info
