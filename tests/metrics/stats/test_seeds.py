"""Systems of several runs: the mixed model against statsmodels' MixedLM, the grouping rule, and the spreads
against a textbook loop."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.multitest import multipletests

from metrics.errors import ValidationError
from metrics.io import system_name
from metrics.stats.mixed import mixed_model_test
from metrics.stats.seeds import compare_seeded, group_runs, seed_ranges, seed_spread
from tests.metrics.stats.seed_oracle import P_TOLERANCE, long_frame, statsmodels_fit


def _reml_loglike(a: np.ndarray, b: np.ndarray, t: float, ts: float, seed: float, e: float) -> float:
    """The textbook REML log-likelihood (constants dropped): dense V, -(log|V| + log|X'V^-1X| + r'V^-1r) / 2."""
    frame = long_frame(a, b)
    same = {c: (lambda v: (v[:, None] == v[None, :]).astype(float))(frame[c].astype(str).to_numpy(dtype=object))
            for c in ("topic", "system", "run")}
    v = t * same["topic"] + ts * same["topic"] * same["system"] + seed * same["run"] + e * np.eye(len(frame))
    x = np.c_[np.ones(len(frame)), (frame["system"] == "b").to_numpy(float)]
    y = frame["y"].to_numpy(float)
    vi = np.linalg.inv(v)
    xvx = x.T @ vi @ x
    r = y - x @ np.linalg.solve(xvx, x.T @ vi @ y)
    return -0.5 * (np.linalg.slogdet(v)[1] + np.linalg.slogdet(xvx)[1] + r @ vi @ r)


def _layout(rng: np.random.Generator, ka: int, kb: int, n: int, *, seed_sd: float = 0.04,
            effect: float = 0.03) -> tuple[np.ndarray, np.ndarray]:
    topics = rng.normal(0.45, 0.2, n)
    a = topics + rng.normal(0, 0.08, n) + rng.normal(0, seed_sd, (ka, 1)) + rng.normal(0, 0.05, (ka, n))
    b = topics + effect + rng.normal(0, 0.08, n) + rng.normal(0, seed_sd, (kb, 1)) + rng.normal(0, 0.05, (kb, n))
    return a, b


# the layouts: 2 runs each, unequal runs, one system of one run, a seed variance of ~0, few and many topics
LAYOUTS = [(2, 2, 25, 0.04), (3, 3, 40, 0.04), (4, 2, 15, 0.04), (5, 3, 30, 0.08), (2, 5, 8, 0.02),
           (3, 1, 20, 0.04), (3, 3, 30, 0.0), (2, 2, 3, 0.05), (6, 6, 50, 0.01)]
SE_RTOL = 1e-4


@pytest.mark.parametrize(("ka", "kb", "n", "seed_sd"), LAYOUTS)
@pytest.mark.parametrize("seed", [0, 1])
def test_mixed_model_test_matches_statsmodels_mixedlm(ka, kb, n, seed_sd, seed):
    rng = np.random.default_rng(1000 * seed + 100 * ka + 10 * kb + n)
    a, b = _layout(rng, ka, kb, n, seed_sd=seed_sd)
    ours, theirs = mixed_model_test(a, b), statsmodels_fit(a, b)
    assert ours.difference == pytest.approx(theirs.fe_params["system[T.b]"], abs=1e-12)
    assert ours.mean_a == pytest.approx(theirs.fe_params["Intercept"], abs=1e-12)
    # REML is a maximum: the textbook likelihood at our variances is at least at statsmodels' (it sorts the
    # components by name: run, topic, topic_system)
    seed_v, topic_v, inter_v = theirs.vcomp
    assert _reml_loglike(a, b, ours.var_topic, ours.var_topic_system, ours.var_seed, ours.var_residual) \
        >= _reml_loglike(a, b, topic_v, inter_v, seed_v, theirs.scale) - 1e-8
    assert ours.se == pytest.approx(theirs.bse["system[T.b]"], rel=SE_RTOL)
    assert abs(ours.p_value - theirs.pvalues["system[T.b]"]) < P_TOLERANCE
    assert ours.statistic == pytest.approx(theirs.tvalues["system[T.b]"], rel=SE_RTOL)
    assert (ours.runs_a, ours.runs_b, ours.topics) == (ka, kb, n)


def test_the_standard_error_is_the_formula_of_the_balanced_layout():
    rng = np.random.default_rng(7)
    a, b = _layout(rng, 3, 4, 20)
    r = mixed_model_test(a, b)
    share = 1 / 3 + 1 / 4
    assert r.se ** 2 == pytest.approx((2 * r.var_topic_system + r.var_residual * share) / 20 + r.var_seed * share)
    assert r.p_value == pytest.approx(2 * (1 - 0.5 * (1 + math.erf(abs(r.difference / r.se) / math.sqrt(2)))))


def test_seed_variation_widens_the_test_that_ignores_it():
    # with a large seed variance, the paired t-test on seed-averaged values is far more confident
    from scipy import stats
    rng = np.random.default_rng(3)
    a, b = _layout(rng, 3, 3, 50, seed_sd=0.1, effect=0.05)
    paired = stats.ttest_rel(b.mean(axis=0), a.mean(axis=0))
    mixed = mixed_model_test(a, b)
    assert mixed.se > 2 * (mixed.difference / paired.statistic) and mixed.p_value > paired.pvalue


def test_identical_values_give_no_p_value():
    same = np.tile(np.linspace(0, 1, 5), (2, 1))
    r = mixed_model_test(same, same)
    assert r.difference == 0 and r.se < 1e-4


@pytest.mark.parametrize(("a", "b", "message"), [
    (np.zeros((2, 3)), np.zeros((2, 4)), "same topics"),
    (np.zeros(3), np.zeros((2, 3)), "same topics"),
    (np.zeros((2, 1)), np.zeros((2, 1)), "at least 2 topics"),
    (np.zeros((1, 5)), np.zeros((1, 5)), "at least 2 runs"),
    (np.zeros((0, 5)), np.zeros((3, 5)), "at least 2 runs"),
    (np.full((2, 3), np.nan), np.zeros((2, 3)), "finite"),
])
def test_bad_layouts_are_one_line_errors(a, b, message):
    with pytest.raises(ValidationError, match=message) as err:
        mixed_model_test(a, b)
    assert "\n" not in str(err.value)


# ---------------------------------------------------------------------------------------------------- grouping

@pytest.mark.parametrize(("names", "expected"), [
    ([system_name(f) for f in ("bm25.seed1.run", "bm25.seed2.run", "bm25.seed3.run.gz")],
     {"bm25": ("bm25.seed1", "bm25.seed2", "bm25.seed3")}),
    (["bm25_seed1", "bm25_seed2", "dense.fold3", "dense.fold1"],
     {"bm25": ("bm25_seed1", "bm25_seed2"), "dense": ("dense.fold3", "dense.fold1")}),
    (["m-SEED-1", "m-Seed_2", "m.rep3"], {"m": ("m-SEED-1", "m-Seed_2", "m.rep3")}),
    (["a.seed1.seed2"], {"a.seed1": ("a.seed1.seed2",)}),
    # names the rule leaves alone: TREC-style run numbers, no separator, no number, a bare member
    (["team-run1", "team-run2", "bm25seed1", "dense.seed", "seed1", "x.seedling1"],
     {n: (n,) for n in ["team-run1", "team-run2", "bm25seed1", "dense.seed", "seed1", "x.seedling1"]}),
])
def test_the_naming_rule(names, expected):
    assert group_runs(names) == expected


def test_an_explicit_mapping_overrides_the_rule_and_a_rule_of_ones_own():
    runs = ["bm25.seed1", "bm25.seed2", "odd.seed1", "x1", "x2"]
    assert group_runs(runs, groups={"mine": ["odd.seed1", "x1"]}) == {
        "bm25": ("bm25.seed1", "bm25.seed2"), "mine": ("odd.seed1", "x1"), "x2": ("x2",)}
    assert group_runs(runs, rule=r"(?P<system>[a-z]+)\d") == {
        "bm25.seed1": ("bm25.seed1",), "bm25.seed2": ("bm25.seed2",), "odd.seed1": ("odd.seed1",),
        "x": ("x1", "x2")}
    assert group_runs(runs, rule=None) == {r: (r,) for r in runs}


@pytest.mark.parametrize(("runs", "kwargs", "message"), [
    (["a", "a"], {}, "expected each run name once"),
    (["a1"], {"groups": {"a": "a1"}}, "list of names"),
    (["a1"], {"groups": {"a": []}}, "names no runs"),
    (["a1"], {"groups": {"a": ["zz"]}}, "not among the runs"),
    (["a1", "a2"], {"groups": {"a": ["a1"], "b": ["a1", "a2"]}}, "in both"),
    (["a1"], {"rule": "("}, "not a regular expression"),
    (["a1"], {"rule": r"(\w+)\d"}, r"\(\?P<system>"),
    (["bm25", "bm25.seed1"], {}, "both a run and the system"),
])
def test_bad_groupings_are_one_line_errors(runs, kwargs, message):
    with pytest.raises(ValidationError, match=message) as err:
        group_runs(runs, **kwargs)
    assert "\n" not in str(err.value)


# ---------------------------------------------------------------------------------------------- spreads

def _per_query(rng: np.random.Generator) -> tuple[pd.DataFrame, dict]:
    groups = {"dense": ("dense.seed1", "dense.seed2", "dense.seed3"), "bm25": ("bm25",),
              "splade": ("splade.seed1", "splade.seed2")}
    rows = []
    for runs in groups.values():
        for run in runs:
            for q in range(12):
                if rng.random() < 0.15:  # a topic this run does not answer
                    continue
                for measure in ("AP", "nDCG@10"):
                    rows.append((run, f"q{q}", measure, float(rng.random())))
    rows.append(("other", "q1", "AP", 0.5))  # a run of no system compared
    return pd.DataFrame(rows, columns=["system", "query", "measure", "value"]), groups


def test_seed_spread_and_seed_ranges_against_a_loop():
    rng = np.random.default_rng(11)
    per_query, groups = _per_query(rng)
    means = per_query.groupby(["system", "measure"], as_index=False, sort=False)["value"].mean()
    spread = seed_spread(means, groups)
    assert list(spread["system"].drop_duplicates()) == list(groups)
    for system, runs in groups.items():
        for measure in ("AP", "nDCG@10"):
            values = [float(means[(means.system == r) & (means.measure == measure)].value.iloc[0]) for r in runs]
            row = spread[(spread.system == system) & (spread.measure == measure)].iloc[0]
            k, mean = len(values), sum(values) / len(values)
            sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (k - 1)) if k > 1 else float("nan")
            assert row.runs == k and row.value == pytest.approx(mean)
            assert (math.isnan(sd) and math.isnan(row.sd)) or row.sd == pytest.approx(sd)
            assert (row.low, row.high) == (min(values), max(values))
    ranges = seed_ranges(per_query, groups)
    assert len(ranges) == len(ranges.drop_duplicates(["system", "query", "measure"]))
    count = 0
    for system, runs in groups.items():
        for q in sorted(set(per_query["query"])):
            for measure in ("AP", "nDCG@10"):
                values = [float(v) for r in runs for v in per_query[(per_query.system == r) & (per_query["query"] == q)
                                                                   & (per_query.measure == measure)].value]
                hit = ranges[(ranges.system == system) & (ranges["query"] == q) & (ranges.measure == measure)]
                if not values:
                    assert hit.empty
                    continue
                count += 1
                row = hit.iloc[0]
                assert (row.runs, row.low, row.high) == (len(values), min(values), max(values))
                assert row.value == pytest.approx(sum(values) / len(values))
    assert count == len(ranges)


# ------------------------------------------------------------------------------------------------ compare

def test_compare_seeded_tests_the_topics_every_run_answers_and_corrects_like_statsmodels():
    rng = np.random.default_rng(5)
    per_query, groups = _per_query(rng)
    table = compare_seeded(per_query, groups, measures="AP")
    assert list(zip(table.system_a, table.system_b)) == [("dense", "bm25"), ("dense", "splade"), ("bm25", "splade")]
    wide = per_query[per_query.measure == "AP"].pivot(index="system", columns="query", values="value")
    for row in table.itertuples():
        runs_a, runs_b = groups[row.system_a], groups[row.system_b]
        block = wide.loc[[*runs_a, *runs_b]].dropna(axis=1)  # documented: topics every run of the pair answers
        assert row.topics == block.shape[1] < 12
        theirs = statsmodels_fit(block.loc[list(runs_a)].to_numpy(), block.loc[list(runs_b)].to_numpy())
        assert abs(row.p_value - theirs.pvalues["system[T.b]"]) < P_TOLERANCE
    assert table.p_adjusted.to_numpy() == pytest.approx(multipletests(table.p_value, method="holm")[1])
    assert list(table.significant) == list(table.p_adjusted < 0.05)


def test_compare_seeded_with_a_baseline_and_the_pairs_it_cannot_test():
    rng = np.random.default_rng(6)
    per_query, groups = _per_query(rng)
    table = compare_seeded(per_query, groups, baseline="bm25", correction="none")
    assert set(zip(table.measure, table.system_a, table.system_b)) == {
        (m, "bm25", s) for m in ("AP", "nDCG@10") for s in ("dense", "splade")}
    assert (table.p_adjusted == table.p_value).all()
    singles = {"bm25": ("bm25",), "other": ("other",)}
    for kwargs, message in [({"baseline": "nope"}, "unknown baseline"), ({"measures": ["P@5"]}, "unknown measure"),
                            ({"alpha": 1.5}, "alpha: expected a number above 0 and below 1, found 1.5")]:
        with pytest.raises(ValidationError, match=message):
            compare_seeded(per_query, groups, **kwargs)
    with pytest.raises(ValidationError, match="two or more runs"):
        compare_seeded(per_query, singles)
    with pytest.raises(ValidationError, match="needs two systems"):
        compare_seeded(per_query, {"bm25": ("bm25",)})
    with pytest.raises(ValidationError, match="no values for run"):
        compare_seeded(per_query, {**groups, "ghost": ("g.seed1", "g.seed2")})
