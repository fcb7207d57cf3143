"""Westfall-Young max-T: a slow reference on the same sign flips, the randomisation test for one pair, FWER."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from metrics.errors import ValidationError
from metrics.stats.significance import compare_systems, permutation_test, sign_flip_matrix
from metrics.stats.significance.corrections.maxt import maxt_adjust
from tests.metrics.stats.maxt_reference import slow_maxt


@pytest.mark.parametrize("seed", range(6))
def test_random_flips_match_the_slow_reference(seed):
    rng = np.random.default_rng(seed)
    m, n, B = int(rng.integers(1, 6)), int(rng.integers(21, 40)), 300
    D = np.round(rng.normal(0.02 * rng.integers(0, 3), 0.1, (m, n)), 3)
    if seed == 0:
        D[0] = 0.0  # identical systems
    got, exact = maxt_adjust(D, n_resamples=B, seed=seed)
    assert not exact
    want = slow_maxt(D, sign_flip_matrix(n, B, seed).astype(float), exact=False)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-15)


def test_enumeration_matches_the_slow_reference():
    rng = np.random.default_rng(11)
    D = np.round(rng.normal(0.05, 0.1, (3, 8)), 2)
    signs = np.array([[1 - 2 * ((r >> j) & 1) for j in range(8)] for r in range(2 ** 8)], dtype=float)
    got, exact = maxt_adjust(D)
    assert exact
    np.testing.assert_allclose(got, slow_maxt(D, signs, exact=True), rtol=0, atol=1e-15)


@pytest.mark.parametrize("n", [12, 45])
def test_one_test_has_the_randomisation_p_value(n):
    rng = np.random.default_rng(n)
    a, b = rng.random(n), rng.random(n)
    got, _ = maxt_adjust((b - a)[None, :], n_resamples=999, seed=4)
    assert got[0] == permutation_test(a, b, n_resamples=999, seed=4).p_value


def test_maxt_is_no_smaller_than_the_raw_p_value():
    rng = np.random.default_rng(2)
    D = rng.normal(0.03, 0.1, (6, 50))
    adjusted, _ = maxt_adjust(D, n_resamples=2000, seed=1)
    raw = np.array([permutation_test(np.zeros(50), d, n_resamples=2000, seed=1).p_value for d in D])
    assert np.all(adjusted >= raw - 1e-12)


def test_fwer_on_null_data_is_at_most_alpha():
    """200 datasets of 5 identical systems plus noise: the share with any rejection stays within alpha's bound."""
    rng = np.random.default_rng(2024)
    alpha, datasets, k, n = 0.05, 200, 5, 30
    i, j = np.triu_indices(k, 1)
    rejected = 0
    for r in range(datasets):
        topics = rng.random(n)
        X = topics[None, :] + rng.normal(0, 0.05, (k, n))
        adjusted, _ = maxt_adjust(X[j] - X[i], n_resamples=499, seed=r)
        rejected += bool((adjusted < alpha).any())
    bound = stats.binom.ppf(0.995, datasets, alpha)  # 99% two-sided binomial bound at the nominal rate
    assert rejected <= bound, (rejected, bound)


def test_bad_input():
    with pytest.raises(ValidationError, match="finite"):
        maxt_adjust(np.array([[np.nan, 1.0]]))
    with pytest.raises(ValidationError, match="shape"):
        maxt_adjust(np.zeros(3))


def _frame(X: np.ndarray, measures=("AP",)) -> pd.DataFrame:
    rows = []
    for measure, (s, q) in itertools.product(measures, itertools.product(range(X.shape[0]), range(X.shape[1]))):
        rows.append({"system": f"s{s}", "query": f"{q:03d}", "measure": measure,
                     "value": X[s, q] + (0.01 if measure != "AP" else 0.0) * s})
    return pd.DataFrame(rows)


def test_compare_systems_maxt_uses_the_family():
    rng = np.random.default_rng(9)
    X = rng.random((4, 30)) * 0.2 + rng.random(30)[None, :] + np.array([[0.0], [0.0], [0.05], [0.1]])
    frame = _frame(X, ("AP", "P@10"))
    for family in ("per_measure", "all"):
        c = compare_systems(frame, test="permutation", correction="maxt", family=family, n_resamples=999, seed=3)
        assert c.correction == "maxt" and c.family == family
        for measure in ("AP", "P@10"):
            rows = c.frame["measure"] == measure
            if family == "all":
                rows = np.ones(len(c.frame), dtype=bool)
            sub = c.frame[rows]
            D = np.array([_scores(frame, a, b, m) for a, b, m in zip(sub["system_a"], sub["system_b"], sub["measure"])])
            want, _ = maxt_adjust(D, n_resamples=999, seed=3)
            np.testing.assert_array_equal(sub["p_adjusted"].to_numpy(), want)
    with pytest.raises(ValidationError, match="permutation"):
        compare_systems(frame, test="t", correction="maxt")


def _scores(frame: pd.DataFrame, a: str, b: str, measure: str) -> np.ndarray:
    rows = frame[frame["measure"] == measure].set_index(["system", "query"])["value"]
    return (rows[b].sort_index() - rows[a].sort_index()).to_numpy()
