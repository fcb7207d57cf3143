"""metrics.stats.significance: every test against scipy on seeded data, exact enumeration by brute force, the
corrections and Tukey's HSD by hand, determinism across runs and row orders, errors, and the command."""

from __future__ import annotations

import io
import itertools
import json
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import metrics.stats.significance as sig
from rankscope.cli import main
from metrics.errors import RankscopeError, ValidationError
from metrics.stats.significance import (
    EXACT_MAX,
    Comparison,
    TestResult,
    adjust_pvalues,
    align_scores,
    bootstrap_ci,
    bootstrap_test,
    cohens_dz,
    compare_systems,
    paired_test,
    permutation_test,
    rank_biserial,
    sign_flip_matrix,
    sign_test,
    t_test,
    tukey_hsd,
    wilcoxon_test,
    win_tie_loss,
)

PAIRED = ["t", "wilcoxon", "sign", "permutation", "bootstrap"]


def scores(n: int, seed: int, shift: float = 0.03, grid: int | None = None):
    """Two correlated per-query score vectors in [0, 1] (optionally on a grid k/grid, to make ties)."""
    rng = np.random.default_rng(seed)
    a = rng.random(n)
    b = np.clip(a + rng.normal(shift, 0.12, n), 0.0, 1.0)
    if grid:
        a, b = np.round(a * grid) / grid, np.round(b * grid) / grid
    return a, b


def frame_of(matrix: np.ndarray, systems=None, queries=None, measure="AP") -> pd.DataFrame:
    """A tidy per-query table (system, query, measure, value) of a systems x queries matrix."""
    k, n = matrix.shape
    systems = systems or [f"s{i}" for i in range(k)]
    queries = queries or [f"q{j:05d}" for j in range(n)]
    return pd.DataFrame({"system": np.repeat(systems, n), "query": np.tile(queries, k), "measure": measure,
                         "value": matrix.ravel()})


def systems_matrix(k=4, n=60, seed=0, grid=None):
    rng = np.random.default_rng(seed)
    X = np.clip(rng.random(n)[None, :] + rng.normal(0, 0.08, (k, n)) + np.linspace(0, 0.06, k)[:, None], 0, 1)
    return np.round(X * grid) / grid if grid else X


def exact_d(a, b, decimals=10):
    """The differences in exact decimal arithmetic (the inputs are on a decimal grid)."""
    return np.round(np.asarray(b) - np.asarray(a), decimals)


# ---- inputs, alignment, errors -------------------------------------------------------------------------------


def test_public_names_of_the_former_module_still_import():
    former = ["CI_METHODS", "CORRECTIONS", "Comparison", "EXACT_MAX", "FAMILIES", "TESTS", "TestResult",
              "TukeyResult", "ZERO_METHODS", "adjust_pvalues", "align_scores", "bootstrap_ci", "bootstrap_test",
              "cohens_dz", "compare_systems", "paired_test", "permutation_test", "rank_biserial",
              "sign_flip_matrix", "sign_test", "t_test", "tukey_hsd", "wilcoxon_test", "win_tie_loss"]
    assert set(former) <= set(sig.__all__) and sig.__all__ == sorted(sig.__all__)
    assert all(hasattr(sig, name) for name in sig.__all__)


def test_align_is_an_explicit_join_in_order_of_id():
    a = pd.Series({"3": 0.3, "1": 0.1, "2": 0.2})
    b = pd.Series({"2": 0.4, "3": 0.5, "1": 0.2})
    q, x, y = align_scores(a, b)
    assert q.tolist() == ["1", "2", "3"] and x.tolist() == [0.1, 0.2, 0.3] and y.tolist() == [0.2, 0.4, 0.5]
    q, x, _ = align_scores(pd.Series([0.5, 0.7], index=[1, 2]), pd.Series({"2": 0.1, "1": 0.2}))
    assert q.tolist() == ["1", "2"] and x.tolist() == [0.5, 0.7]  # ids compared as text


def test_mismatched_query_sets_name_the_queries_unless_filled():
    a = pd.Series({"1": 0.1, "2": 0.2, "3": 0.3})
    b = pd.Series({"1": 0.2, "2": 0.4, "4": 0.5})
    with pytest.raises(ValidationError, match=r"a has no score for \['4'\]; b has no score for \['3'\].*-c"):
        t_test(a, b)
    q, x, y = align_scores(a, b, fill="zero")
    assert q.tolist() == ["1", "2", "3", "4"]
    assert x.tolist() == [0.1, 0.2, 0.3, 0.0] and y.tolist() == [0.2, 0.4, 0.0, 0.5]
    assert t_test(a, b, fill="zero").n == 4
    with pytest.raises(ValidationError, match="finite"):  # a NaN that was given is not a missing query
        t_test(pd.Series({"1": 0.1, "2": np.nan}), pd.Series({"1": 0.2, "3": 0.3}), fill="zero")


@pytest.mark.parametrize("test", PAIRED)
def test_fewer_than_two_queries(test):
    for a, b in (([0.1], [0.2]), ([], [])):
        with pytest.raises(ValidationError, match="at least two queries"):
            paired_test(a, b, test)


@pytest.mark.parametrize("test", PAIRED)
def test_identical_systems_are_an_error(test):
    a = np.array([0.1, 0.5, 0.3])
    with pytest.raises(ValidationError, match="identical on these 3 queries.*nothing to test"):
        paired_test(a, a.copy(), test)
    with pytest.raises(ValidationError, match="identical"):  # equal up to floating-point rounding only
        paired_test([0.3, 0.6, 0.7], [0.1 + 0.2, 0.2 + 0.4, 0.7], test)


def test_constant_differences():
    a = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8])
    b = a + 0.1  # the same difference, up to rounding in b - a
    assert np.ptp(b - a) > 0  # really not equal in floating point
    for call in (lambda: t_test(a, b), lambda: cohens_dz(a, b)):
        with pytest.raises(ValidationError, match="standard deviation is 0"):
            call()
    # the other tests are defined: only the identity and the full flip reach the observed mean
    assert permutation_test(a, b).p_value == 2 / 2 ** 8
    assert sign_test(a, b).p_value == stats.binomtest(8, 8).pvalue
    assert wilcoxon_test(a, b).p_value == pytest.approx(stats.wilcoxon(np.full(8, 0.1)).pvalue, rel=1e-12)
    r = bootstrap_test(a, b, n_resamples=999)
    assert r.p_value == 1 / 1000 and (r.ci_low, r.ci_high) == (r.mean_diff, r.mean_diff)
    assert np.isnan(r.effect_size) and r.rank_biserial == 1.0


def test_errors_are_rankscope_errors_without_warnings():
    assert issubclass(ValidationError, RankscopeError)
    cases = [([0.1, 0.2], [0.1, 0.2, 0.3], "differ in length"), ([0.1, np.nan], [0.2, 0.3], "finite"),
             ([[0.1, 0.2]], [[0.2, 0.3]], "1-D"), (["x", "y"], [0.1, 0.2], "numbers")]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for a, b, message in cases:
            with pytest.raises(ValidationError, match=message):
                t_test(a, b)
        with pytest.raises(ValidationError, match="not one of each"):
            t_test(pd.Series([0.1, 0.2]), [0.2, 0.3])
        with pytest.raises(ValidationError, match="more than one value"):
            align_scores(pd.Series([0.1, 0.2], index=["1", "1"]), pd.Series([0.1], index=["1"]))
        with pytest.raises(ValidationError, match="unknown test"):
            paired_test([0.1, 0.2], [0.3, 0.5], "z")
        with pytest.raises(ValidationError, match="zero_method"):
            wilcoxon_test([0.1, 0.2], [0.3, 0.5], zero_method="drop")
        with pytest.raises(ValidationError, match="seed"):
            permutation_test([0.1, 0.2], [0.3, 0.5], seed=-1)
        with pytest.raises(ValidationError, match="n_resamples"):
            bootstrap_test([0.1, 0.2], [0.3, 0.5], n_resamples=0)
        with pytest.raises(ValidationError, match="interval"):
            bootstrap_ci([0.1, 0.2], [0.3, 0.5], method="basic")
        with pytest.raises(ValidationError, match="Tukey"):
            paired_test([0.1, 0.2], [0.3, 0.5], "tukey")
        with pytest.raises(ValidationError, match="tie_tolerance"):
            win_tie_loss([0.1], [0.2], tie_tolerance=-1)


@pytest.mark.parametrize("test", PAIRED)
def test_edge_data_raise_no_warnings(test):
    """Tiny samples, zeros, ties and constant differences: numbers or a ValidationError, never a warning."""
    cases = [([0.0, 0.0], [0.1, 0.0]), ([0.1, 0.2], [0.3, 0.5]), (np.zeros(5), np.full(5, 0.2)),
             (np.zeros(60), np.r_[np.zeros(30), np.full(30, 0.1)]), (np.zeros(14), np.r_[0.1, np.zeros(13)])]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for a, b in cases:
            try:
                r = paired_test(a, b, test, n_resamples=200)
            except ValidationError:
                continue
            assert 0.0 < r.p_value <= 1.0


# ---- t-test -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n,seed", [(2, 0), (5, 1), (30, 2), (200, 3), (1000, 4)])
def test_t_matches_scipy_ttest_rel(n, seed):
    a, b = scores(n, seed)
    r = t_test(a, b)
    ref = stats.ttest_rel(b, a)
    assert r.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert r.p_value == pytest.approx(ref.pvalue, rel=1e-10, abs=1e-300)
    assert r.mean_diff == pytest.approx(np.mean(b - a), rel=1e-12)
    for level in (0.8, 0.95, 0.99):
        ci = ref.confidence_interval(level)
        ours = t_test(a, b, confidence=level)
        assert (ours.ci_low, ours.ci_high) == pytest.approx((ci.low, ci.high), rel=1e-10)
    assert r.n == n and r.test == "t" and r.seed is None
    assert t_test(b, a).statistic == -r.statistic and t_test(b, a).p_value == r.p_value


# ---- Wilcoxon -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("zero_method", ["wilcox", "pratt", "zsplit"])
@pytest.mark.parametrize("n,grid", [(9, None), (12, 10), (40, None), (60, 20), (300, 50)])
def test_wilcoxon_matches_scipy(zero_method, n, grid):
    a, b = scores(n, n, grid=grid)
    b[0] = a[0]  # one zero difference
    r = wilcoxon_test(a, b, zero_method=zero_method)
    ref = stats.wilcoxon(exact_d(a, b), zero_method=zero_method)
    assert r.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert r.p_value == pytest.approx(ref.pvalue, rel=1e-10)


@pytest.mark.parametrize("method", ["auto", "exact", "asymptotic"])
def test_wilcoxon_method_passes_through(method):
    a, b = scores(15, 7)
    r = wilcoxon_test(a, b, method=method)
    assert r.p_value == pytest.approx(stats.wilcoxon(b - a, method=method).pvalue, rel=1e-12)


def test_wilcoxon_ties_equal_up_to_rounding_are_ties():
    # P@10-like scores: 0.3 - 0.1 and 0.2 - 0.0 are both 0.2 exactly, but not in floating point
    a, b = scores(60, 60, grid=20)
    d = b - a
    assert len(np.unique(np.abs(d))) > len(np.unique(np.abs(exact_d(a, b))))
    r = wilcoxon_test(a, b)
    assert r.p_value == pytest.approx(stats.wilcoxon(exact_d(a, b)).pvalue, rel=1e-12)
    assert r.p_value != pytest.approx(stats.wilcoxon(d).pvalue, rel=1e-3)  # the raw call ranks them apart


def test_wilcoxon_one_vectorised_call_equals_one_call_per_pair():
    X = systems_matrix(k=4, n=80, seed=3, grid=30)
    c = compare_systems(frame_of(X), test="wilcoxon", zero_method="pratt", correction="none")
    for row in c.frame.itertuples(index=False):
        d = exact_d(X[int(row.system_a[1:])], X[int(row.system_b[1:])])
        ref = stats.wilcoxon(d, zero_method="pratt")
        assert (row.statistic, row.p_value) == pytest.approx((ref.statistic, ref.pvalue), rel=1e-12)


# ---- sign test ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n,seed", [(5, 0), (11, 1), (30, 2), (101, 3), (1000, 4)])
def test_sign_matches_binomtest(n, seed):
    a, b = scores(n, seed, grid=8)
    r = sign_test(a, b)
    d = exact_d(a, b)
    wins, losses = int(np.sum(d > 0)), int(np.sum(d < 0))
    assert (r.wins, r.losses, r.ties) == (wins, losses, n - wins - losses)
    assert r.statistic == wins
    assert r.p_value == pytest.approx(stats.binomtest(wins, wins + losses, 0.5).pvalue, rel=1e-10)


def test_sign_every_split_matches_binomtest():
    for m in range(2, 41):
        for k in range(m + 1):
            b = np.r_[np.ones(k), -np.ones(m - k)]
            assert sign_test(np.zeros(m), b).p_value == pytest.approx(stats.binomtest(k, m).pvalue, rel=1e-10)


def test_sign_and_counts_follow_the_tie_tolerance():
    a = np.zeros(6)
    b = np.array([0.3, 0.2, 0.001, -0.001, 0.4, 0.0])
    r = sign_test(a, b, tie_tolerance=0.01)
    assert (r.wins, r.ties, r.losses) == (3, 3, 0)
    assert r.p_value == pytest.approx(stats.binomtest(3, 3).pvalue)
    assert sign_test(a, b).wins == 4
    assert sign_test(a, [0.001, -0.001, 0, 0, 0, 0], tie_tolerance=0.01).p_value == 1.0
    assert win_tie_loss([0.5] * 4, [0.6, 0.5, 0.4, 0.51]) == (2, 1, 1)
    assert win_tie_loss([0.5] * 4, [0.6, 0.5, 0.4, 0.51], tie_tolerance=0.05) == (1, 2, 1)
    assert win_tie_loss([0.3, 0.5], [0.1 + 0.2, 0.5]) == (0, 2, 0)  # equal up to rounding: a tie
    assert win_tie_loss([0.2], [0.7]) == (1, 0, 0)  # one query is fine for counting


# ---- randomisation test -------------------------------------------------------------------------------------


def brute_force_p(d: np.ndarray) -> float:
    """Every sign pattern, one at a time, in exact decimal arithmetic (the definition)."""
    units = np.round(np.asarray(d) * 10 ** 9).astype(np.int64)
    observed = abs(int(units.sum()))
    hits = sum(abs(int(np.dot(signs, units))) >= observed for signs in itertools.product((1, -1), repeat=d.size))
    return hits / 2 ** d.size


@pytest.mark.parametrize("n,grid", [(2, None), (3, 4), (6, None), (7, 5), (9, 3), (12, 10)])
def test_exact_enumeration_is_the_definition(n, grid):
    a, b = scores(n, 10 + n, grid=grid or 10 ** 9)
    b[0] = a[0] + 0.25
    if n > 3:
        b[1] = a[1]  # a zero difference
    r = permutation_test(a, b)
    assert r.p_value == brute_force_p(exact_d(a, b, 9))
    assert r.seed is None  # nothing random


@pytest.mark.parametrize("n,grid", [(5, None), (10, 4), (14, None), (16, 10)])
def test_exact_enumeration_matches_scipy_permutation_test(n, grid):
    a, b = scores(n, 20 + n, grid=grid)
    b[1] = a[1]
    r = permutation_test(a, b)
    ref = stats.permutation_test((a, b), lambda x, y, axis: np.mean(y - x, axis=axis), vectorized=True,
                                 permutation_type="samples", n_resamples=np.inf)
    assert r.p_value == pytest.approx(ref.pvalue, rel=1e-12)
    assert r.statistic == pytest.approx(ref.statistic, rel=1e-12)


def test_exact_up_to_twenty_queries_then_random():
    a, b = scores(EXACT_MAX, 3)
    d = b - a
    r = permutation_test(a, b)
    assert r.seed is None and float(r.p_value * 2 ** EXACT_MAX).is_integer()
    hits = 0  # all 2**20 sign patterns, 2**16 at a time, as rows of a sign matrix
    for start in range(0, 2 ** EXACT_MAX, 2 ** 16):
        codes = np.arange(start, start + 2 ** 16)[:, None]
        signs = 1.0 - 2.0 * ((codes >> np.arange(EXACT_MAX)) & 1)
        hits += np.count_nonzero(np.abs(signs @ d) >= abs(d.sum()) * (1 - 1e-12))
    assert r.p_value == hits / 2 ** EXACT_MAX
    r21 = permutation_test(*scores(EXACT_MAX + 1, 3), n_resamples=999, seed=4)
    assert r21.seed == 4 and (r21.p_value * 1000) == pytest.approx(round(r21.p_value * 1000), abs=1e-9)


def test_randomised_p_value_is_b_plus_one_over_n_plus_one_of_the_documented_flips():
    # differences on a decimal grid, so that flips equal to the observed value happen, and must count
    rng = np.random.default_rng(2)
    units = rng.choice([-3, -1, 1, 3], size=400)
    units[-1] = 3 if units[:-1].sum() < 0 else -3
    a = np.full(400, 0.5)
    b = a + units / 10
    flips = sign_flip_matrix(400, 3000, seed=9).astype(np.int64)
    exact_units = np.round((b - a) * 10).astype(np.int64)
    sums = np.abs(flips @ exact_units)
    hits = int(np.count_nonzero(sums >= abs(exact_units.sum())))
    assert np.count_nonzero(sums == abs(exact_units.sum())) > 10  # exact ties, counted despite rounding
    assert permutation_test(a, b, n_resamples=3000, seed=9).p_value == (hits + 1) / 3001


def test_randomised_agrees_with_scipy_permutation_test_within_monte_carlo_error():
    for seed, n in ((31, 80), (32, 150), (33, 400)):
        a, b = scores(n, seed, shift=0.015)
        r = permutation_test(a, b, n_resamples=20000, seed=5)
        ref = stats.permutation_test((a, b), lambda x, y, axis: np.mean(y - x, axis=axis), vectorized=True,
                                     permutation_type="samples", n_resamples=20000, rng=7)
        se = np.sqrt(ref.pvalue * (1 - ref.pvalue) / 20000)
        assert abs(r.p_value - ref.pvalue) < 5 * se + 2e-4, (n, r.p_value, ref.pvalue)


def test_sign_flip_matrix_stream():
    m = sign_flip_matrix(70, 2500, seed=3)
    assert m.shape == (2500, 70) and m.dtype == np.int8 and set(np.unique(m)) == {-1, 1}
    assert np.array_equal(sign_flip_matrix(70, 1000, seed=3), m[:1000])  # a prefix of a longer draw
    assert abs(m.mean()) < 0.01 and np.abs(np.corrcoef(m[:, :8].T) - np.eye(8)).max() < 0.1
    assert not np.array_equal(sign_flip_matrix(70, 10, seed=4), m[:10])


# ---- bootstrap ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["percentile", "bca"])
@pytest.mark.parametrize("n,n_resamples,seed", [(7, 999, 1), (60, 3000, 2), (250, 10000, 3)])
def test_bootstrap_interval_is_scipys_on_the_same_resamples(method, n, n_resamples, seed):
    a, b = scores(n, 40 + n, shift=0.04)
    low, high = bootstrap_ci(a, b, method=method, n_resamples=n_resamples, seed=seed)
    ref = stats.bootstrap((b - a,), np.mean, method="BCa" if method == "bca" else "percentile",
                          n_resamples=n_resamples, rng=np.random.default_rng(seed)).confidence_interval
    assert (low, high) == pytest.approx((ref.low, ref.high), rel=1e-12, abs=1e-14)
    paired = stats.bootstrap((a, b), lambda x, y, axis: np.mean(y - x, axis=axis), paired=True, vectorized=True,
                             method="BCa" if method == "bca" else "percentile", n_resamples=n_resamples,
                             rng=np.random.default_rng(seed)).confidence_interval
    assert (low, high) == pytest.approx((paired.low, paired.high), rel=1e-12, abs=1e-14)


@pytest.mark.parametrize("n,seed", [(30, 1), (50, 6), (400, 8)])
def test_bootstrap_p_value_from_scipys_bootstrap_distribution(n, seed):
    a, b = scores(n, 43 + n, shift=0.02)
    d = b - a
    r = bootstrap_test(a, b, n_resamples=5000, seed=seed, ci="percentile")
    dist = stats.bootstrap((d,), np.mean, n_resamples=5000, rng=np.random.default_rng(seed),
                           method="percentile").bootstrap_distribution
    assert r.p_value == (np.count_nonzero(np.abs(dist - d.mean()) >= abs(d.mean())) + 1) / 5001
    assert r.statistic == pytest.approx(d.mean(), rel=1e-12) and r.seed == seed


def test_bootstrap_confidence_level():
    a, b = scores(80, 45)
    wide = bootstrap_ci(a, b, confidence=0.99, n_resamples=4000)
    narrow = bootstrap_ci(a, b, confidence=0.8, n_resamples=4000)
    assert wide[0] < narrow[0] < narrow[1] < wide[1]


# ---- effect sizes -------------------------------------------------------------------------------------------


def test_effect_sizes_by_hand():
    a = np.array([0.2, 0.4, 0.1, 0.5, 0.3, 0.3])
    b = np.array([0.5, 0.3, 0.1, 0.9, 0.2, 0.6])
    d = exact_d(a, b)  # 0.3, -0.1, 0, 0.4, -0.1, 0.3
    assert cohens_dz(a, b) == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-12)
    # non-zero |d|: 0.3 0.1 0.4 0.1 0.3 -> ranks 3.5 1.5 5 1.5 3.5; R+ = 3.5 + 5 + 3.5 = 12, R- = 3
    assert rank_biserial(a, b) == pytest.approx((12 - 3) / 15)
    r = t_test(a, b)
    assert r.rank_biserial == pytest.approx(0.6) and r.effect_size == pytest.approx(cohens_dz(a, b))
    assert r.effect_size == pytest.approx(r.statistic / np.sqrt(6), rel=1e-12)
    assert (r.wins, r.ties, r.losses) == (3, 1, 2)
    assert stats.wilcoxon(d).statistic == min(12, 3)
    assert rank_biserial([0.0] * 4, [0.1, 0.2, -0.3, 0.0]) == 0.0


def test_rank_biserial_against_scipy_rank_sums():
    for seed in range(5):
        a, b = scores(40, seed, grid=10)
        d = exact_d(a, b)
        nz = d[d != 0]
        ranks = stats.rankdata(np.abs(nz))
        r_plus, r_minus = ranks[nz > 0].sum(), ranks[nz < 0].sum()
        assert rank_biserial(a, b) == pytest.approx((r_plus - r_minus) / (r_plus + r_minus), rel=1e-12)


def test_result_is_a_frozen_dataclass():
    r = t_test(*scores(10, 1))
    assert isinstance(r, TestResult)
    with pytest.raises(AttributeError):
        r.p_value = 0.5  # type: ignore[misc]
    assert set(r.__dataclass_fields__) == {"test", "statistic", "p_value", "mean_diff", "ci_low", "ci_high",
                                           "effect_size", "rank_biserial", "wins", "ties", "losses", "n", "seed"}


# ---- corrections --------------------------------------------------------------------------------------------

P = np.array([0.01, 0.04, 0.03, 0.005, 0.20])


def test_bonferroni_by_hand():
    assert adjust_pvalues(P, "bonferroni").tolist() == pytest.approx([0.05, 0.2, 0.15, 0.025, 1.0])


def test_holm_by_hand():
    # sorted: 0.005*5 = 0.025, 0.01*4 = 0.04, 0.03*3 = 0.09, 0.04*2 = 0.08 -> 0.09 (running max), 0.2*1 = 0.2
    assert adjust_pvalues(P, "holm").tolist() == pytest.approx([0.04, 0.09, 0.09, 0.025, 0.2])


def test_bh_and_by_by_hand():
    # sorted: 0.005*5/1 = 0.025, 0.01*5/2 = 0.025, 0.03*5/3 = 0.05, 0.04*5/4 = 0.05, 0.2*5/5 = 0.2 (running min)
    assert adjust_pvalues(P, "bh").tolist() == pytest.approx([0.025, 0.05, 0.05, 0.025, 0.2])
    c = 1 + 1 / 2 + 1 / 3 + 1 / 4 + 1 / 5
    assert adjust_pvalues(P, "by").tolist() == pytest.approx([0.025 * c, 0.05 * c, 0.05 * c, 0.025 * c, 0.2 * c])
    p = np.array([0.04, 0.041, 0.042, 0.5])
    # 0.04*4/1 = 0.16, 0.041*4/2 = 0.082, 0.042*4/3 = 0.056, 0.5 -> running min from the top
    assert adjust_pvalues(p, "bh").tolist() == pytest.approx([0.056, 0.056, 0.056, 0.5])


def test_corrections_edge_cases():
    assert adjust_pvalues(P, "none").tolist() == P.tolist()
    assert adjust_pvalues([], "holm").size == 0
    assert adjust_pvalues([0.3, 0.3], "holm").tolist() == [0.6, 0.6]
    assert adjust_pvalues([0.9, 0.8], "bonferroni").tolist() == [1.0, 1.0]
    assert adjust_pvalues([0.01, 0.02], "fdr_bh").tolist() == pytest.approx([0.02, 0.02])
    with pytest.raises(ValidationError):
        adjust_pvalues([0.1, 1.2], "holm")
    with pytest.raises(ValidationError):
        adjust_pvalues([0.1, np.nan], "holm")
    with pytest.raises(ValidationError, match="unknown correction"):
        adjust_pvalues([0.1], "sidak")


# ---- Tukey's HSD ----------------------------------------------------------------------------------------------


def two_way_anova(X: np.ndarray) -> tuple[float, int]:
    """Residual mean square of score = system + topic + error, from the sums of squares."""
    k, n = X.shape
    grand = X.mean()
    ss_total = ((X - grand) ** 2).sum()
    ss_systems = n * ((X.mean(axis=1) - grand) ** 2).sum()
    ss_topics = k * ((X.mean(axis=0) - grand) ** 2).sum()
    df = (k - 1) * (n - 1)
    return (ss_total - ss_systems - ss_topics) / df, df


def test_tukey_against_a_hand_written_two_way_anova():
    rng = np.random.default_rng(3)
    X = rng.random((5, 25)) + np.arange(5)[:, None] * 0.05 + rng.random(25)[None, :]
    res = tukey_hsd(X, list("vwxyz"), confidence=0.9)
    mse, df = two_way_anova(X)
    assert res.df_residual == df == 4 * 24 and res.ms_residual == pytest.approx(mse, rel=1e-10)
    k, n = X.shape
    design = np.hstack([np.ones((k * n, 1)), np.kron(np.eye(k), np.ones((n, 1)))[:, 1:],
                        np.kron(np.ones((k, 1)), np.eye(n))[:, 1:]])  # the same model by least squares
    coef, *_ = np.linalg.lstsq(design, X.ravel(), rcond=None)
    assert res.ms_residual == pytest.approx(np.sum((X.ravel() - design @ coef) ** 2) / df, rel=1e-10)
    means = X.mean(axis=1)
    q_crit = stats.studentized_range.ppf(0.9, k, df)
    assert len(res.frame) == 10
    for row in res.frame.itertuples(index=False):
        i, j = "vwxyz".index(row.system_a), "vwxyz".index(row.system_b)
        q = abs(means[j] - means[i]) / np.sqrt(mse / n)
        assert row.statistic == pytest.approx(q, rel=1e-10)
        assert row.p_value == pytest.approx(stats.studentized_range.sf(q, k, df), rel=1e-8)
        half = q_crit * np.sqrt(mse / n)
        assert (row.ci_low, row.ci_high) == pytest.approx((means[j] - means[i] - half, means[j] - means[i] + half))


def test_tukey_two_systems_is_the_paired_t_test():
    for shift in (0.03, 0.3):  # the second far in the tail, where scipy's integral stops resolving
        a, b = scores(40, 51, shift=shift)
        row = tukey_hsd(np.vstack([a, b]), ["a", "b"]).frame.iloc[0]
        t = t_test(a, b)
        assert row["statistic"] == pytest.approx(np.sqrt(2) * abs(t.statistic), rel=1e-9)
        assert row["p_value"] == pytest.approx(t.p_value, rel=1e-6)


def test_tukey_tail_below_scipys_integration_floor():
    rng = np.random.default_rng(4)
    X = rng.random((6, 2000)) + np.array([0, 0.005, 0.01, 0.02, 0.1, 0.2])[:, None]
    res = tukey_hsd(X)
    mse, df = two_way_anova(X)
    for row in res.frame.itertuples(index=False):
        one_pair = 2 * stats.t.sf(row.statistic / np.sqrt(2), df)  # P(this pair's |t| >= q / sqrt 2)
        assert one_pair * (1 - 1e-9) <= row.p_value <= 15 * one_pair * (1 + 1e-9)  # within the union bound
        if row.statistic < 6:  # the body of the distribution: scipy's integral itself
            assert row.p_value == pytest.approx(stats.studentized_range.sf(row.statistic, 6, df), rel=1e-8)
    assert res.frame.p_value.min() < 1e-90  # not scipy's floor of about 1e-11


def test_tukey_exact_fit_and_errors():
    X = np.arange(4.0)[None, :] + np.array([0.0, 1.0, 0.0, 1.0])[:, None]  # additive, exactly: no residual
    res = tukey_hsd(X, ["w", "x", "y", "z"])
    assert res.ms_residual == 0.0
    frame = res.frame.set_index(["system_a", "system_b"])
    assert frame.loc[("w", "y"), "p_value"] == 1.0 and frame.loc[("w", "y"), "statistic"] == 0.0
    assert frame.loc[("w", "x"), "p_value"] == 0.0 and frame.loc[("w", "x"), "statistic"] == np.inf
    with pytest.raises(ValidationError, match="two systems"):
        tukey_hsd(np.ones((1, 5)))
    with pytest.raises(ValidationError, match="two topics"):
        tukey_hsd(np.ones((3, 1)))
    with pytest.raises(ValidationError, match="distinct"):
        tukey_hsd(np.ones((2, 3)), ["x", "x"])


# ---- many systems ---------------------------------------------------------------------------------------------


def test_compare_columns_pairs_and_baseline():
    X = systems_matrix()
    c = compare_systems(frame_of(X), test="t")
    assert isinstance(c, Comparison)
    assert list(c.frame.columns) == ["system_a", "system_b", "measure", "test", "statistic", "p_value",
                                     "p_adjusted", "significant", "mean_a", "mean_b", "mean_diff", "ci_low",
                                     "ci_high", "effect_size", "rank_biserial", "wins", "ties", "losses", "n"]
    assert list(zip(c.frame.system_a, c.frame.system_b)) == [("s0", "s1"), ("s0", "s2"), ("s0", "s3"),
                                                             ("s1", "s2"), ("s1", "s3"), ("s2", "s3")]
    base = compare_systems(frame_of(X), baseline="s2")
    assert list(zip(base.frame.system_a, base.frame.system_b)) == [("s2", "s0"), ("s2", "s1"), ("s2", "s3")]
    assert base.baseline == "s2" and base.systems == ("s0", "s1", "s2", "s3")
    assert np.allclose(c.frame.mean_diff, c.frame.mean_b - c.frame.mean_a, rtol=0, atol=1e-15)
    chosen = compare_systems(frame_of(X), systems=["s3", "s1"])
    assert list(zip(chosen.frame.system_a, chosen.frame.system_b)) == [("s3", "s1")]


@pytest.mark.parametrize("test", PAIRED)
def test_compare_rows_equal_the_two_system_tests(test):
    X = systems_matrix(k=3, n=45, seed=4, grid=40)
    c = compare_systems(frame_of(X), test=test, seed=7, n_resamples=3000, correction="none")
    ids = [f"q{j:05d}" for j in range(45)]
    for row in c.frame.itertuples(index=False):
        a = pd.Series(X[int(row.system_a[1:])], index=ids)
        b = pd.Series(X[int(row.system_b[1:])], index=ids)
        r = paired_test(a, b, test, seed=7, n_resamples=3000)
        assert row.p_value == r.p_value and row.statistic == pytest.approx(r.statistic, rel=1e-12)
        assert (row.ci_low, row.ci_high) == pytest.approx((r.ci_low, r.ci_high), rel=1e-12)
        assert (row.effect_size, row.rank_biserial) == pytest.approx((r.effect_size, r.rank_biserial), rel=1e-12)
        assert (row.wins, row.ties, row.losses, row.n) == (r.wins, r.ties, r.losses, r.n)
        assert row.p_adjusted == row.p_value


def test_compare_small_n_uses_exact_enumeration():
    X = systems_matrix(k=3, n=12, seed=5, grid=10 ** 6)
    c = compare_systems(frame_of(X), test="permutation", correction="none")
    for row in c.frame.itertuples(index=False):
        assert row.p_value == brute_force_p(exact_d(X[int(row.system_a[1:])], X[int(row.system_b[1:])], 9))


def test_compare_tukey():
    X = systems_matrix(k=5, n=30, seed=6)
    c = compare_systems(frame_of(X), test="tukey")
    hsd = tukey_hsd(X, [f"s{i}" for i in range(5)]).frame
    assert np.array_equal(c.frame.p_value, hsd.p_value) and np.array_equal(c.frame.p_adjusted, hsd.p_value)
    assert c.family_sizes == {"AP": 10}
    base = compare_systems(frame_of(X), test="tukey", baseline="s3")
    row = base.frame[base.frame.system_b == "s1"].iloc[0]  # the hsd row (s1, s3), seen from s3
    ref = hsd[(hsd.system_a == "s1") & (hsd.system_b == "s3")].iloc[0]
    assert row.p_value == ref.p_value and row.mean_diff == pytest.approx(-ref.mean_diff)
    assert (row.ci_low, row.ci_high) == pytest.approx((-ref.ci_high, -ref.ci_low))


def test_compare_corrections_and_families():
    X = systems_matrix(k=4, n=50, seed=8)
    frame = pd.concat([frame_of(X, measure="AP"), frame_of(np.sqrt(X), measure="nDCG@10")], ignore_index=True)
    raw = compare_systems(frame, correction="none")
    for correction in ("holm", "bonferroni", "bh", "by"):
        per = compare_systems(frame, correction=correction, family="per_measure")
        assert per.family_sizes == {"AP": 6, "nDCG@10": 6}
        for measure in ("AP", "nDCG@10"):
            mask = per.frame.measure == measure
            assert np.array_equal(per.frame.p_adjusted[mask], adjust_pvalues(raw.frame.p_value[mask], correction))
        every = compare_systems(frame, correction=correction, family="all")
        assert every.family_sizes == {"AP": 12, "nDCG@10": 12}
        assert np.array_equal(every.frame.p_adjusted, adjust_pvalues(raw.frame.p_value, correction))
        assert compare_systems(frame, correction=correction, family="measure").family == "per_measure"
    bonf = compare_systems(frame, correction="bonferroni", family="all")
    assert np.allclose(bonf.frame.p_adjusted, np.minimum(1, raw.frame.p_value * 12))
    assert (bonf.frame.significant == (bonf.frame.p_adjusted < 0.05)).all()
    loose = compare_systems(frame, correction="none", alpha=0.5)
    assert (loose.frame.significant == (loose.frame.p_value < 0.5)).all()


def test_compare_degenerate_pairs_do_not_stop_the_comparison():
    X = systems_matrix(k=4, n=30, seed=10)
    X[2] = X[1]  # identical to s1
    X[3] = X[0] + 0.125  # a constant difference from s0
    for test in PAIRED:
        c = compare_systems(frame_of(X), test=test, n_resamples=500, correction="holm")
        same = c.frame[(c.frame.system_a == "s1") & (c.frame.system_b == "s2")].iloc[0]
        assert np.isnan(same.statistic) and same.p_value == 1.0 and not same.significant
        assert (same.wins, same.ties, same.losses) == (0, 30, 0)
        shifted = c.frame[(c.frame.system_a == "s0") & (c.frame.system_b == "s3")].iloc[0]
        assert np.isnan(shifted.effect_size) and shifted.rank_biserial == 1.0
        if test == "t":
            assert np.isnan(shifted.statistic) and np.isnan(shifted.p_value) and np.isnan(shifted.p_adjusted)
            assert c.family_sizes == {"AP": 5}
        else:
            assert shifted.p_value < 0.01 and c.family_sizes == {"AP": 6}


def test_compare_measures_selection_and_errors():
    X = systems_matrix(k=3, n=20, seed=9)
    frame = pd.concat([frame_of(X, measure="AP"), frame_of(X ** 2, measure="P@10")], ignore_index=True)
    assert compare_systems(frame, measures=["P@10"]).measures == ("P@10",)
    assert compare_systems(frame, measures="AP").measures == ("AP",)
    assert compare_systems(frame, test="randomization", n_resamples=100).test == "permutation"
    cases = [(dict(measures=["RR"]), "RR"), (dict(baseline="nope"), "baseline 'nope'"),
             (dict(test="anova"), "unknown test"), (dict(family="system"), "unknown family"),
             (dict(alpha=1.5), "alpha"), (dict(systems=["s0", "zz"]), "zz"), (dict(systems=["s0"]), "at least two")]
    for kwargs, message in cases:
        with pytest.raises(ValidationError, match=message):
            compare_systems(frame, **kwargs)
    with pytest.raises(ValidationError, match="at least two queries"):
        compare_systems(frame[frame["query"] == "q00000"])
    with pytest.raises(ValidationError, match="^per_query: expected a per-query table .*, found no column value$"):
        compare_systems(frame.drop(columns="value"))
    bad = frame.copy()
    bad.loc[0, "value"] = np.nan
    with pytest.raises(ValidationError, match="not a finite number"):
        compare_systems(bad)
    with pytest.raises(ValidationError, match="more than one"):
        compare_systems(pd.concat([frame, frame.iloc[:1]]))


def test_compare_query_mismatch_is_an_error_unless_zero_filled():
    X = systems_matrix(k=3, n=10, seed=12)
    frame = frame_of(X)
    frame = frame[~((frame.system == "s1") & frame["query"].isin(["q00003", "q00007"]))]
    with pytest.raises(ValidationError, match=r"'s1' has no AP value for \['q00003', 'q00007'\].*-c"):
        compare_systems(frame)
    c = compare_systems(frame, fill="zero")
    assert (c.frame.n == 10).all()
    filled = X[1].copy()
    filled[[3, 7]] = 0
    assert c.frame.mean_a[c.frame.system_a == "s1"].iloc[0] == pytest.approx(filled.mean())


@pytest.mark.parametrize("test", ["permutation", "bootstrap", "t", "wilcoxon"])
def test_same_seed_same_p_values_bit_for_bit_whatever_the_row_order(test):
    X = np.vstack([systems_matrix(k=4, n=80, seed=11, grid=20)])
    frame = pd.concat([frame_of(X, measure="AP"), frame_of(X ** 2, measure="nDCG@10")], ignore_index=True)
    systems = ["s0", "s1", "s2", "s3"]
    one = compare_systems(frame, test=test, seed=5, n_resamples=2000, systems=systems).frame
    for shuffle_seed in range(3):
        shuffled = frame.sample(frac=1.0, random_state=shuffle_seed).reset_index(drop=True)
        two = compare_systems(shuffled, test=test, seed=5, n_resamples=2000, systems=systems,
                              measures=["AP", "nDCG@10"]).frame
        pd.testing.assert_frame_equal(one, two, check_exact=True)
        # without a given order, systems come in order of appearance: each pair's p-value is still the same
        three = compare_systems(shuffled, test=test, seed=5, n_resamples=2000, measures=["AP", "nDCG@10"]).frame
        key = lambda f: {(m, frozenset((x, y))): p for m, x, y, p in zip(f.measure, f.system_a, f.system_b, f.p_value)}
        assert key(three) == key(one)
    if test in ("permutation", "bootstrap"):
        other = compare_systems(frame, test=test, seed=6, n_resamples=2000, systems=systems).frame
        assert not np.array_equal(one.p_value, other.p_value)


def test_determinism_across_processes():
    rng = np.random.default_rng(1)
    frame = frame_of(rng.random((3, 300)))
    code = ("import sys, numpy as np, pandas as pd; from metrics.stats.significance import compare_systems; "
            "values = np.frombuffer(bytes.fromhex(sys.stdin.read()), dtype=np.float64); "
            "f = pd.DataFrame({'system': np.repeat(['s0', 's1', 's2'], 300), "
            "'query': np.tile([f'q{j:05d}' for j in range(300)], 3), 'measure': 'AP', 'value': values}); "
            "print(*(compare_systems(f, test=t, seed=3, n_resamples=4000).frame[c].to_numpy().tobytes().hex() "
            "for t in ('permutation', 'bootstrap') for c in ('p_value', 'ci_low')))")
    there = subprocess.run([sys.executable, "-c", code], input=frame.value.to_numpy().tobytes().hex(),
                           capture_output=True, text=True, check=True).stdout.split()
    here = [compare_systems(frame, test=t, seed=3, n_resamples=4000).frame[c].to_numpy().tobytes().hex()
            for t in ("permutation", "bootstrap") for c in ("p_value", "ci_low")]
    assert there == here


def test_pvalue_matrix():
    X = systems_matrix(k=3, n=25, seed=14)
    c = compare_systems(frame_of(X))
    m = c.pvalue_matrix("AP")
    assert m.shape == (3, 3) and np.isnan(np.diag(m)).all()
    assert m.loc["s0", "s2"] == m.loc["s2", "s0"] == c.frame.p_adjusted[(c.frame.system_a == "s0")
                                                                        & (c.frame.system_b == "s2")].iloc[0]
    with pytest.raises(ValidationError, match="was not compared"):
        c.pvalue_matrix("RR")


def test_shared_flips_at_scale_agree_with_the_t_test():
    k, n = 6, 3000
    rng = np.random.default_rng(0)
    X = np.clip(rng.random(n)[None, :] + rng.normal(0, 0.1, (k, n)) + np.linspace(0, 0.012, k)[:, None], 0, 1)
    c = compare_systems(frame_of(X), test="permutation", n_resamples=4000, seed=0, correction="none")
    assert ((c.frame.p_value * 4001 - 1).round(6) % 1 == 0).all()
    t = compare_systems(frame_of(X), test="t", correction="none").frame
    middle = c.frame.p_value.between(0.01, 0.9)
    assert middle.sum() >= 3 and np.allclose(c.frame.p_value[middle], t.p_value[middle], atol=0.03)


# ---- the command ----------------------------------------------------------------------------------------------


@pytest.fixture
def collection(tmp_path):
    """A qrels file and three runs over 30 queries, one run missing two queries."""
    rng = np.random.default_rng(0)
    qrels, runs = [], {"good": [], "fair": [], "noise": [], "partial": []}
    for q in range(1, 31):
        docs = [f"d{q}_{i}" for i in range(15)]
        rel = rng.random(15) < 0.3
        rel[0] = True
        qrels += [f"{q} 0 {d} {int(r)}" for d, r in zip(docs, rel)]
        for name, weight in (("good", 2.0), ("fair", 1.0), ("noise", 0.0), ("partial", 1.5)):
            if name == "partial" and q in (5, 6):
                continue
            s = rel * weight + rng.random(15)
            runs[name] += [f"{q} Q0 {docs[i]} {r + 1} {s[i]:.6f} {name}" for r, i in enumerate(np.argsort(-s))]
    (tmp_path / "qrels").write_text("\n".join(qrels) + "\n")
    for name, lines in runs.items():
        (tmp_path / f"{name}.run").write_text("\n".join(lines) + "\n")
    return str(tmp_path / "qrels"), {name: str(tmp_path / f"{name}.run") for name in runs}


def cli(capsys, *argv):
    """Run ``rankscope compare``: status, stdout, stderr (argparse's errors exit; that is caught too)."""
    try:
        code = main(["compare", *argv])
    except SystemExit as stop:
        code = stop.code
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_csv_and_json_are_the_tidy_frame(collection, capsys):
    from metrics import evaluate

    qrels, runs = collection
    paths = [runs["good"], runs["fair"], runs["noise"]]
    options = ["--test", "bootstrap", "--seed", "4", "--resamples", "500", "--ci", "percentile",
               "--tie-tolerance", "0.01", "-m", "AP", "-m", "P@5", "--family", "all", "--correction", "by"]
    code, out, err = cli(capsys, qrels, *paths, *options, "--format", "csv")
    assert code == 0 and err == ""
    expected = compare_systems(evaluate(qrels, paths, ["AP", "P@5"]), test="bootstrap", seed=4, n_resamples=500,
                               ci="percentile", tie_tolerance=0.01, family="all", correction="by").frame
    got = pd.read_csv(io.StringIO(out))
    assert list(got.columns) == list(expected.columns)
    assert got[["system_a", "system_b", "measure"]].values.tolist() == \
        expected[["system_a", "system_b", "measure"]].values.tolist()
    assert np.allclose(got.p_adjusted, expected.p_adjusted, rtol=1e-12) and (got.ties == expected.ties).all()
    code, out, _ = cli(capsys, qrels, *paths, *options, "--format", "json")
    doc = json.loads(out)
    assert doc["settings"]["family_sizes"] == {"AP": 6, "P@5": 6} and doc["settings"]["ci"] == "percentile"
    assert [r["p_value"] for r in doc["comparisons"]] == pytest.approx(expected.p_value.tolist(), rel=1e-12)


def test_cli_table_and_latex_use_the_results_table(collection, capsys):
    qrels, runs = collection
    code, out, _ = cli(capsys, qrels, runs["noise"], runs["good"], runs["fair"], "--baseline", "noise",
                       "--test", "wilcoxon", "--zero-method", "pratt")
    assert code == 0 and out.splitlines()[0].split() == ["System", "AP", "nDCG@10"]
    assert "noise (baseline)" in out and "holm correction within each measure: AP 2 tests, nDCG@10 2 tests." in out
    code, out, _ = cli(capsys, qrels, runs["noise"], runs["good"], "--format", "latex", "--test", "tukey")
    assert code == 0 and r"\toprule" in out and "Tukey" in out


@pytest.mark.parametrize("argv,message", [
    (["--test", "z"], "invalid choice: 'z'"), (["--format", "xml"], "invalid choice: 'xml'"),
    (["--alpha", "x"], "invalid float value"), (["--alpha", "2"], "alpha: expected a number above 0 and below 1, found 2.0"),
    (["--seed", "-1"], "seed: expected a non-negative integer, found -1"), (["--resamples", "0"], "--resamples: expected an integer from 1 to 10000000, found 0"),
    (["--baseline", "nope"], "baseline 'nope' is not one of the systems"), (["--tie-tolerance", "-1"], "tie_tolerance"),
    (["-m", "NoSuchMeasure"], "NoSuchMeasure")])
def test_cli_bad_input_is_one_line_and_status_2(collection, capsys, argv, message):
    qrels, runs = collection
    code, out, err = cli(capsys, qrels, runs["good"], runs["fair"], *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("rankscope compare: ") and message in err, err


def test_cli_mismatched_runs_need_c(collection, capsys):
    qrels, runs = collection
    code, out, err = cli(capsys, qrels, runs["good"], runs["partial"])
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "'partial' has no AP value for ['5', '6']" in err and "-c" in err
    code, _, _ = cli(capsys, qrels, runs["good"], runs["partial"], "-c")
    assert code == 0
    code, _, err = cli(capsys, qrels, runs["good"])
    assert code == 2 and "at least two runs" in err and err.count("\n") == 1
