"""What every test of two systems at a time shares, vectorised: the description of each row of differences
``D`` (one row per pair of systems, one column per query), and the run of a declared test's kernel on them.
``K`` is ``D`` rounded by ``_inputs.snap``: it decides zeros, ties, ranks and constant rows; sums and means
use ``D``."""

from __future__ import annotations

from typing import Any

import numpy as np


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


def analyse(D: np.ndarray, K: np.ndarray, test: Any, *, n_resamples: int, seed: int, confidence: float, ci: str,
            zero_method: str, wilcoxon_method: str, tie_tolerance: float, client: Any = None) -> dict[str, np.ndarray]:
    """Run a declared two-at-a-time ``test`` on every row of ``D`` (``K`` rounded): the columns of the result
    table, one value per row.

    Rows whose differences are all 0 get statistic NaN and p-value 1 (the observed value is the only one
    the null distribution holds); the test's kernel (:meth:`~metrics.stats.significance.tests.Test.pairwise`)
    runs on the other rows, with their description. ``client`` (a Dask client) is handed to it: the
    randomisation test spreads its chunks of rows over a cluster.
    """
    info = describe(D, K, tie_tolerance, confidence)
    rows = D.shape[0]
    info["statistic"] = np.full(rows, np.nan)
    info["p_value"] = np.ones(rows)
    info["exact"] = np.zeros(rows, dtype=bool)
    live = np.any(K != 0, axis=1)
    if not live.any():
        return info
    options = dict(n_resamples=n_resamples, seed=seed, confidence=confidence, ci=ci, zero_method=zero_method,
                   wilcoxon_method=wilcoxon_method, tie_tolerance=tie_tolerance, client=client)
    found = test.pairwise(D[live], K[live], {key: value[live] for key, value in info.items()}, options)
    for key, value in found.items():
        info[key][live] = value
    return info
