"""Power and topic-set size, against statsmodels' TTestPower and FTestAnovaPower."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.power import FTestAnovaPower, TTestPower

from metrics.errors import ValidationError
from metrics.stats.power import (
    anova_min_range,
    anova_power,
    anova_topics,
    power_analysis,
    t_min_effect,
    t_power,
    t_topics,
    topic_variances,
)

CASES = [(0.2, 50, 0.05), (0.5, 20, 0.01), (0.1, 300, 0.05), (1.3, 5, 0.1), (0.0, 10, 0.05)]


def test_t_power_where_scipys_noncentral_t_fails():
    """scipy's nct.cdf gives NaN at d = 1.45, n = 50 (statsmodels too); the power is 1 to within 1e-15."""
    assert t_power(1.45, 50) == pytest.approx(1.0, abs=1e-15)
    near = TTestPower().power(effect_size=1.4515, nobs=50, alpha=0.05)
    assert np.isfinite(near) and t_power(1.4515, 50) == pytest.approx(near, abs=1e-15)
    assert stats.norm.cdf(-np.sqrt(50) * 1.45) < 1e-15


@pytest.mark.parametrize("effect, n, alpha", CASES)
def test_t_power_is_statsmodels(effect, n, alpha):
    want = TTestPower().power(effect_size=effect, nobs=n, alpha=alpha, alternative="two-sided")
    assert t_power(effect, n, alpha) == pytest.approx(want, rel=1e-9, abs=1e-12)
    assert t_power(-effect, n, alpha) == pytest.approx(want, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("n, alpha, power", [(50, 0.05, 0.8), (20, 0.01, 0.9), (100, 0.05, 0.6)])
def test_t_min_effect_is_statsmodels(n, alpha, power):
    got = t_min_effect(n, alpha, power)
    assert TTestPower().power(effect_size=got, nobs=n, alpha=alpha) == pytest.approx(power, abs=1e-9)
    want = TTestPower().solve_power(nobs=n, alpha=alpha, power=power, alternative="two-sided")
    assert got == pytest.approx(want, rel=1e-4)  # statsmodels' solver stops at a looser tolerance


@pytest.mark.parametrize("effect, alpha, power", [(0.5, 0.05, 0.8), (0.2, 0.05, 0.8), (0.1, 0.01, 0.9)])
def test_t_topics_is_the_ceiling_of_statsmodels(effect, alpha, power):
    exact = TTestPower().solve_power(effect_size=effect, alpha=alpha, power=power, alternative="two-sided")
    n = t_topics(effect, alpha, power)
    assert n == int(np.ceil(exact - 1e-9))
    assert t_power(effect, n, alpha) >= power > t_power(effect, n - 1, alpha)


def _cohen_f(delta: float, m: int) -> float:
    """Two systems at ±delta/2, the rest at the mean: f**2 = delta**2 / (2 m)."""
    return delta / np.sqrt(2.0 * m)


@pytest.mark.parametrize("delta, m, n, alpha", [(0.5, 5, 30, 0.05), (1.0, 3, 10, 0.01), (0.2, 10, 200, 0.05)])
def test_anova_power_is_statsmodels_with_total_nobs(delta, m, n, alpha):
    want = FTestAnovaPower().power(effect_size=_cohen_f(delta, m), nobs=m * n, alpha=alpha, k_groups=m)
    assert anova_power(delta, m, n, alpha) == pytest.approx(want, rel=1e-9)


@pytest.mark.parametrize("m, n, alpha, power", [(5, 30, 0.05, 0.8), (3, 100, 0.01, 0.9)])
def test_anova_min_range_is_statsmodels(m, n, alpha, power):
    got = anova_min_range(m, n, alpha, power)
    achieved = FTestAnovaPower().power(effect_size=_cohen_f(got, m), nobs=m * n, alpha=alpha, k_groups=m)
    assert achieved == pytest.approx(power, abs=1e-9)
    f = FTestAnovaPower().solve_power(nobs=m * n, alpha=alpha, power=power, k_groups=m)
    assert got == pytest.approx(f * np.sqrt(2.0 * m), rel=1e-4)


@pytest.mark.parametrize("delta, m", [(0.5, 5), (0.3, 10), (1.0, 2)])
def test_anova_topics_is_the_smallest_reaching_the_power(delta, m):
    n = anova_topics(delta, m, 0.05, 0.8)
    total = FTestAnovaPower().solve_power(effect_size=_cohen_f(delta, m), alpha=0.05, power=0.8, k_groups=m)
    assert n == int(np.ceil(total / m - 1e-9))
    assert anova_power(delta, m, n) >= 0.8 > anova_power(delta, m, n - 1)


def _frame(X: np.ndarray) -> pd.DataFrame:
    return pd.DataFrame([{"system": f"s{s}", "query": str(q), "measure": "AP", "value": X[s, q]}
                         for s in range(X.shape[0]) for q in range(X.shape[1])])


def test_variances_against_textbook_loops():
    rng = np.random.default_rng(3)
    X = rng.random((4, 25))
    m, n = X.shape
    sse = 0.0
    for s in range(m):
        for t in range(n):
            sse += (X[s, t] - X[s].mean() - X[:, t].mean() + X.mean()) ** 2
    diffs = [np.var(X[b] - X[a], ddof=1) for a in range(m) for b in range(a + 1, m)]
    v_e, v_d, v_w = topic_variances(X)
    assert v_e == pytest.approx(sse / ((m - 1) * (n - 1)), rel=1e-12)
    assert np.mean(diffs) == pytest.approx(2 * sse / ((m - 1) * (n - 1)), rel=1e-12)  # why "paired" is no choice
    assert v_d == pytest.approx(np.mean(diffs), rel=1e-12)
    assert v_w == pytest.approx(np.mean([np.var(row, ddof=1) for row in X]), rel=1e-12)  # equal topic counts
    groups = [X[s] for s in range(m)]  # the one-way ANOVA's mean square error, from scipy's F and the sums
    f = stats.f_oneway(*groups).statistic
    between = n * ((X.mean(axis=1) - X.mean()) ** 2).sum() / (m - 1)
    assert v_w == pytest.approx(between / f, rel=1e-9)


@pytest.mark.parametrize("seed", range(20))
def test_the_mean_variance_of_the_pairs_differences_is_twice_the_residual_variance(seed):
    rng = np.random.default_rng(seed)
    m, n = int(rng.integers(2, 9)), int(rng.integers(2, 40))
    X = rng.random((m, n)) * rng.integers(1, 3, size=(m, 1)) + rng.random((1, n))
    X[:, rng.random(n) < 0.2] = 0.0  # topics every system scores 0 on
    if rng.random() < 0.3:
        X[1] = X[0] + 0.1  # a pair whose differences are constant
    pairs = []
    for a in range(m):  # textbook: each pair's differences, their sample variance, the mean over the pairs
        for b in range(a + 1, m):
            d = [X[b, t] - X[a, t] for t in range(n)]
            mean = sum(d) / n
            pairs.append(sum((x - mean) ** 2 for x in d) / (n - 1))
    v_e, v_d, _ = topic_variances(X)
    assert sum(pairs) / len(pairs) == pytest.approx(2 * v_e, rel=1e-9, abs=1e-15)
    assert v_d == pytest.approx(2 * v_e, rel=1e-9, abs=1e-15)


def test_paired_variance_is_refused_with_the_reason():
    X = np.random.default_rng(0).random((3, 6))
    with pytest.raises(ValidationError, match=r"'paired' is 'residual'.*exactly 2 x the residual variance"):
        power_analysis(_frame(X), "AP", variance="paired")


def test_power_analysis_puts_the_pieces_together():
    rng = np.random.default_rng(7)
    X = rng.random((1, 40)) + rng.normal(0, 0.1, (3, 40)) + np.array([[0.0], [0.05], [0.1]])
    res = power_analysis(_frame(X), "AP", alpha=0.05, power=0.8, effect=0.05)
    sigma2 = topic_variances(X)[0]
    t_row, f_row = res.summary.iloc[0], res.summary.iloc[1]
    d = TTestPower().solve_power(nobs=40, alpha=0.05, power=0.8)
    assert t_row["min_effect"] == pytest.approx(d * np.sqrt(2 * sigma2), rel=1e-6)
    assert t_row["topics_needed"] == t_topics(0.05 / np.sqrt(2 * sigma2))
    assert f_row["topics_needed"] == anova_topics(0.05 / np.sqrt(sigma2), 3)
    first = res.pairs.iloc[0]
    diff = X[1] - X[0]
    dz = diff.mean() / diff.std(ddof=1)
    assert first["post_hoc_power"] == pytest.approx(TTestPower().power(dz, 40, 0.05), rel=1e-9)
    within = power_analysis(_frame(X), "AP", variance="within")
    assert within.sigma2 == pytest.approx(topic_variances(X)[2], rel=1e-12)
    assert within.summary["min_effect"].iloc[0] > res.summary["min_effect"].iloc[0]  # topic difficulty kept in


@pytest.mark.parametrize("kwargs, text", [({"alpha": 1.5}, "alpha"), ({"power": 0.01}, "power must exceed"),
                                          ({"effect": -0.1}, "effect"), ({"variance": "x"}, "variance")])
def test_bad_options_are_refused(kwargs, text):
    X = np.random.default_rng(0).random((2, 5))
    with pytest.raises(ValidationError, match=text):
        power_analysis(_frame(X), "AP", **kwargs)


def test_unknown_measure_is_refused():
    with pytest.raises(ValidationError, match="no values of measure"):
        power_analysis(_frame(np.random.default_rng(0).random((2, 5))), "nDCG")


def test_power_command_prints_the_analysis(capsys, tmp_path):
    import json

    from metrics import evaluate
    from rankscope.cli import main

    rng = np.random.default_rng(12)
    qrels = "".join(f"{q} 0 d{d} {int(rng.random() < 0.3)}\n" for q in range(1, 21) for d in range(30))
    (tmp_path / "qrels").write_text(qrels)
    runs = []
    for name in ("x", "y", "z"):
        path = tmp_path / f"{name}.run"
        path.write_text("".join(f"{q} Q0 d{d} 0 {rng.random():.6f} {name}\n" for q in range(1, 21) for d in range(30)))
        runs.append(str(path))
    assert main(["power", str(tmp_path / "qrels"), *runs, "-m", "AP", "--effect", "0.05", "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    per_query = evaluate(str(tmp_path / "qrels"), runs, ["AP"])
    X = per_query.pivot(index="system", columns="query", values="value").to_numpy()
    sigma2 = topic_variances(X)[0]
    assert document["sigma2"] == pytest.approx(sigma2, rel=1e-12)
    d = TTestPower().solve_power(nobs=20, alpha=0.05, power=0.8)
    assert document["designs"][0]["min_effect"] == pytest.approx(d * np.sqrt(2 * sigma2), rel=1e-4)
    assert len(document["pairs"]) == 3
    assert main(["power", str(tmp_path / "qrels"), *runs, "-m", "AP"]) == 0
    text = capsys.readouterr().out
    assert "paired t" in text and "one-way ANOVA" in text and "post hoc power of each pair" in text
    assert "achieved" not in text and "adds nothing to it" in text
    assert main(["power", str(tmp_path / "qrels"), *runs, "--power", "2"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_power_on_runs_missing_topics_names_the_command_line_flag(capsys, tmp_path):
    from rankscope.cli import main

    (tmp_path / "q.txt").write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n3 0 d 1\n")
    (tmp_path / "x.run").write_text("1 Q0 a 1 2 x\n2 Q0 c 1 2 x\n3 Q0 d 1 1 x\n")
    (tmp_path / "y.run").write_text("1 Q0 b 1 2 y\n2 Q0 c 1 2 y\n")  # no topic 3
    files = [str(tmp_path / name) for name in ("q.txt", "x.run", "y.run")]
    for command in (["power"], ["compare"]):
        assert main([*command, *files, "-m", "AP"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "'y' has no AP value for ['3']" in err
        assert "pass -c" in err and "complete=True" not in err and "fill=" not in err
        assert main([*command, *files, "-m", "AP", "-c"]) == 0  # the flag named does it
        capsys.readouterr()
