"""metrics.stats.risk: URisk, TRisk, ZRisk and GeoRisk against hand-worked examples, the papers' formulas written as
slow loops, and scipy's one-sample t-test."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from metrics import ValidationError
from metrics.stats.risk import RISK_COLUMNS, georisk, risk_adjusted_deltas, risk_table, trisk, urisk, zrisk


def phi(x: float) -> float:
    """The standard normal distribution function, from the error function."""
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def slow_urisk(s, b, alpha):
    """Wang et al.: (1/c) [sum of wins - (1 + alpha) sum of |losses|], topic by topic."""
    wins = losses = 0.0
    for sj, bj in zip(s, b):
        if sj > bj:
            wins += sj - bj
        elif sj < bj:
            losses += bj - sj
    return (wins - (1 + alpha) * losses) / len(s)


def slow_zrisk(x, alpha):
    """Dinçer et al. 2016, cell by cell: e_ij = S_i T_j / N, z_ij = (x_ij - e_ij) / sqrt(e_ij)."""
    r, c = len(x), len(x[0])
    S = [sum(x[i][j] for j in range(c)) for i in range(r)]
    T = [sum(x[i][j] for i in range(r)) for j in range(c)]
    N = sum(S)
    out = []
    for i in range(r):
        total = 0.0
        for j in range(c):
            e = S[i] * T[j] / N if N else 0.0
            if e == 0:
                continue
            z = (x[i][j] - e) / math.sqrt(e)
            total += z if z > 0 else (1 + alpha) * z
        out.append(total)
    return out


def slow_georisk(x, alpha):
    c = len(x[0])
    return [math.sqrt(sum(row) / c * phi(z / c)) for row, z in zip(x, slow_zrisk(x, alpha))]


# ---- worked by hand ---------------------------------------------------------------------------------------------


def test_urisk_worked_example():
    # deltas 0.1, -0.2, 0: URisk_1 = (0.1 - 2 * 0.2) / 3 = -0.1; URisk_0 = (0.1 - 0.2) / 3
    s, b = [0.5, 0.2, 0.3], [0.4, 0.4, 0.3]
    assert urisk(s, b, alpha=1.0) == pytest.approx(-0.1)
    assert urisk(s, b, alpha=0.0) == pytest.approx(-0.1 / 3)
    assert urisk(s, b, alpha=4.0) == pytest.approx((0.1 - 5 * 0.2) / 3)
    assert risk_adjusted_deltas(s, b, 1.0) == pytest.approx([0.1, -0.4, 0.0])


def test_trisk_worked_example():
    # adjusted deltas 0.1, -0.4, 0: mean -0.1; deviations 0.2, -0.3, 0.1, squares sum 0.14, variance 0.07;
    # SE = sqrt(0.07 / 3); TRisk = -0.1 / sqrt(0.07 / 3) = -0.65465...
    t = trisk([0.5, 0.2, 0.3], [0.4, 0.4, 0.3], alpha=1.0)
    assert t.statistic == pytest.approx(-0.1 / math.sqrt(0.07 / 3))
    assert t.statistic == pytest.approx(-0.6546537)
    assert t.df == 2 and t.flag == "" and t.urisk == pytest.approx(-0.1)


def test_trisk_flags_a_consistent_loser_and_winner():
    b = np.linspace(0.2, 0.8, 20)
    worse = trisk(b - 0.05 - 0.01 * np.arange(20) % 3, b, alpha=1.0)
    better = trisk(b + 0.05 + 0.01 * (np.arange(20) % 3), b, alpha=1.0)
    assert worse.statistic < -2 and worse.flag == "riskier"
    assert better.statistic > 2 and better.flag == "safer"


@pytest.mark.parametrize("seed", range(30))
def test_trisk_flags_by_its_p_value_at_the_level_as_scipys_one_sample_t_test(seed):
    rng = np.random.default_rng(seed)
    c = int(rng.choice([2, 3, 5, 10, 20, 60, 400]))
    b = rng.random(c)
    s = np.clip(b + rng.normal(rng.choice([-0.1, 0.0, 0.1]), 0.15, c), 0.0, 1.0)
    alpha, level = float(rng.choice([0.0, 1.0, 5.0])), float(rng.choice([0.01, 0.05, 0.1]))
    t = trisk(s, b, alpha, level)
    adjusted = [d if d >= 0 else (1 + alpha) * d for d in s - b]
    oracle = stats.ttest_1samp(adjusted, 0.0)
    assert t.statistic == pytest.approx(oracle.statistic) and t.p_value == pytest.approx(oracle.pvalue)
    assert t.flag == ("" if not oracle.pvalue < level else "safer" if oracle.statistic > 0 else "riskier")
    assert t.critical == pytest.approx(stats.t.ppf(1 - level / 2, c - 1))
    assert (abs(t.statistic) > t.critical) == (t.p_value < level)


def _deltas_with_trisk(t: float, c: int) -> np.ndarray:
    """``c`` per-topic differences whose one-sample t statistic is ``t`` (standardised noise, shifted)."""
    d = np.random.default_rng(c).normal(0.0, 1.0, c)
    return (d - d.mean()) / d.std(ddof=1) * 0.1 + t * 0.1 / np.sqrt(c)


def test_trisk_beyond_2_at_10_topics_is_not_flagged_and_below_2_at_many_topics_is():
    base = np.full(400, 0.5)
    few = trisk(base[:10] + _deltas_with_trisk(2.1, 10), base[:10], alpha=0.0)
    assert few.statistic == pytest.approx(2.1) and few.critical == pytest.approx(2.2622, abs=1e-4)
    assert few.flag == "" and few.p_value > 0.05  # |TRisk| > 2, yet not significant at 10 topics
    many = trisk(base + _deltas_with_trisk(-1.99, 400), base, alpha=0.0)
    assert many.statistic == pytest.approx(-1.99) and many.critical == pytest.approx(1.9659, abs=1e-4)
    assert many.flag == "riskier" and many.p_value < 0.05  # |TRisk| < 2, yet significant at 400 topics


def test_a_level_outside_0_and_1_is_refused():
    with pytest.raises(ValidationError, match="level"):
        trisk([0.1, 0.2], [0.2, 0.1], level=1.5)


def test_zrisk_and_georisk_worked_example():
    # S = (4, 4), T = (4, 4), N = 8: every e_ij = 2; z = -1/sqrt(2) where x = 1, +1/sqrt(2) where x = 3
    # ZRisk_1 = 1/sqrt(2) - 2/sqrt(2) = -1/sqrt(2) for both; GeoRisk = sqrt(4/2 * Phi(-1/(2 sqrt(2))))
    x = [[1.0, 3.0], [3.0, 1.0]]
    assert zrisk(x, 1.0) == pytest.approx([-1 / math.sqrt(2)] * 2)
    assert zrisk(x, 0.0) == pytest.approx([0.0, 0.0], abs=1e-12)
    expected = math.sqrt(2.0 * phi(-1 / (2 * math.sqrt(2))))
    assert expected == pytest.approx(0.85069, abs=1e-5)
    assert georisk(x, 1.0) == pytest.approx([expected] * 2)


def test_zrisk_of_a_system_that_only_scores_where_others_do_not():
    # S = (2, 2), T = (2, 2), N = 4, e = 1: system 0 has z = 1, -1 -> ZRisk_2 = 1 - 3 = -2
    assert zrisk([[2.0, 0.0], [0.0, 2.0]], 2.0) == pytest.approx([-2.0, -2.0])


def test_a_topic_every_system_fails_adds_nothing():
    base = np.array([[0.2, 0.5, 0.7], [0.4, 0.1, 0.9]])
    padded = np.hstack([base, np.zeros((2, 1))])
    assert zrisk(padded, 1.0) == pytest.approx(zrisk(base, 1.0))


# ---- the formulas as slow loops, on seeded random matrices ----------------------------------------------------


@pytest.mark.parametrize("seed", range(12))
def test_against_slow_loops(seed):
    rng = np.random.default_rng(seed)
    r, c = int(rng.integers(2, 6)), int(rng.integers(2, 40))
    x = rng.random((r, c)).round(int(rng.integers(1, 4)))  # rounding makes ties and zeros
    if seed % 4 == 0:
        x[:, 0] = 0.0  # a topic no system answers
    alpha = float(rng.choice([0.0, 1.0, 2.5, 5.0]))
    assert zrisk(x, alpha) == pytest.approx(slow_zrisk(x.tolist(), alpha), rel=1e-9, abs=1e-12)
    assert georisk(x, alpha) == pytest.approx(slow_georisk(x.tolist(), alpha), rel=1e-9, abs=1e-12)
    for i in range(1, r):
        assert urisk(x[i], x[0], alpha) == pytest.approx(slow_urisk(x[i], x[0], alpha), abs=1e-12)


@pytest.mark.parametrize("seed", range(12))
def test_trisk_is_the_one_sample_t_test_of_the_adjusted_deltas(seed):
    rng = np.random.default_rng(100 + seed)
    c = int(rng.integers(3, 60))
    b = rng.random(c)
    s = np.clip(b + rng.normal(0.02, 0.1, c), 0, 1)
    alpha = float(rng.choice([0.0, 1.0, 5.0]))
    adjusted = [sj - bj if sj >= bj else (1 + alpha) * (sj - bj) for sj, bj in zip(s, b)]
    oracle = stats.ttest_1samp(adjusted, 0.0)
    t = trisk(s, b, alpha)
    assert t.statistic == pytest.approx(oracle.statistic, rel=1e-9)
    assert t.p_value == pytest.approx(oracle.pvalue, rel=1e-9)
    assert t.df == c - 1


# ---- the table ---------------------------------------------------------------------------------------------------


def tidy(x: np.ndarray, systems: list[str], measure: str = "AP") -> pd.DataFrame:
    return pd.DataFrame([{"system": sy, "query": str(j), "measure": measure, "value": float(x[i, j])}
                         for i, sy in enumerate(systems) for j in range(x.shape[1])])


def test_risk_table_matches_the_functions_and_counts():
    rng = np.random.default_rng(7)
    x = rng.random((3, 25)).round(1)
    frame = pd.concat([tidy(x, ["base", "a", "b"]), tidy(x[::-1], ["base", "a", "b"], "P@10")], ignore_index=True)
    table = risk_table(frame, "base", alpha=2.0)
    shuffled = risk_table(frame.sample(frac=1.0, random_state=1), "base", alpha=2.0)
    pd.testing.assert_frame_equal(shuffled.sort_values(["measure", "system"]).reset_index(drop=True), table)
    assert list(table.columns) == list(RISK_COLUMNS)
    assert table[["measure", "system"]].values.tolist() == [["AP", "a"], ["AP", "b"], ["P@10", "a"], ["P@10", "b"]]
    row = table.iloc[1]
    d = x[2] - x[0]
    assert (row.wins, row.ties, row.losses) == ((d > 0).sum(), (d == 0).sum(), (d < 0).sum())
    assert row.weighted_loss_count == pytest.approx(3.0 * (d < 0).sum())  # a count: each loss counted 1 + alpha times
    assert row.t_critical == pytest.approx(stats.t.ppf(0.975, 24))
    assert row.urisk == pytest.approx(slow_urisk(x[2], x[0], 2.0))
    assert row.zrisk == pytest.approx(slow_zrisk(x.tolist(), 2.0)[2])
    assert row.georisk == pytest.approx(slow_georisk(x.tolist(), 2.0)[2])


def test_bad_inputs_raise_validation_errors():
    with pytest.raises(ValidationError, match="alpha"):
        urisk([1.0], [0.5], alpha=-1)
    with pytest.raises(ValidationError, match="at least 2 topics"):
        trisk([1.0], [0.5])
    with pytest.raises(ValidationError, match="shapes"):
        urisk([1.0, 2.0], [0.5])
    with pytest.raises(ValidationError, match=">= 0"):
        zrisk([[0.1, -0.2], [0.3, 0.4]])
    x = np.array([[0.1, 0.2], [0.3, 0.4]])
    frame = tidy(x, ["a", "b"])
    with pytest.raises(ValidationError, match="baseline"):
        risk_table(frame, "c")
    with pytest.raises(ValidationError, match="-c"):
        risk_table(frame.iloc[:-1], "a")


def test_constant_adjusted_deltas_give_no_statistic():
    t = trisk([0.5, 0.6, 0.7], [0.4, 0.5, 0.6])
    assert math.isnan(t.statistic) and math.isnan(t.p_value) and t.flag == ""
    assert t.urisk == pytest.approx(0.1)


# ---- the command line -----------------------------------------------------------------------------------------


def demo():
    from sample_data import demo_paths

    qrels, runs = demo_paths()
    return str(qrels), [str(r) for r in runs[:3]]


def test_compare_prints_risk_against_the_baseline(capsys):
    import json

    from metrics import evaluate
    from rankscope.cli import main

    qrels, runs = demo()
    assert main(["compare", qrels, *runs, "-c", "-m", "AP", "--risk-alpha", "2", "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    per_query = evaluate(qrels, runs, ["AP"], complete=True)
    wide = per_query.pivot(index="query", columns="system", values="value")
    systems = list(dict.fromkeys(per_query["system"]))
    x = wide[systems].to_numpy().T
    rows = document["risk"]
    assert [r["system"] for r in rows] == systems[1:] and {r["baseline"] for r in rows} == {systems[0]}
    for i, row in enumerate(rows, start=1):
        assert row["urisk"] == pytest.approx(slow_urisk(x[i], x[0], 2.0))
        adjusted = [d if d >= 0 else 3.0 * d for d in x[i] - x[0]]
        oracle = stats.ttest_1samp(adjusted, 0.0)
        assert row["trisk"] == pytest.approx(oracle.statistic) and row["p_value"] == pytest.approx(oracle.pvalue)
        assert row["flag"] == ("" if not oracle.pvalue < 0.05 else "safer" if oracle.statistic > 0 else "riskier")
        assert row["zrisk"] == pytest.approx(slow_zrisk(x.tolist(), 2.0)[i])
        assert row["georisk"] == pytest.approx(slow_georisk(x.tolist(), 2.0)[i])
    assert main(["compare", qrels, *runs, "-c", "-m", "AP", "--risk-alpha", "2", "--baseline", systems[1]]) == 0
    text = capsys.readouterr().out
    assert f"Risk against {systems[1]} (alpha = 2: a loss weighs 3; L x (1+alpha) is the number of losses times 3)" in text
    assert f"two-sided p-value is below 0.05 (|TRisk| beyond {stats.t.ppf(0.975, 49):.3g} at 50 topics)" in text
    assert "|TRisk| > 2" not in text and "weighted L" not in text
    assert main(["compare", qrels, *runs, "-c", "-m", "AP", "--risk-alpha", "2", "--alpha", "0.01",
                 "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["risk"]  # flagged at the tests' level
    assert all(r["flag"] == ("" if not r["p_value"] < 0.01 else "safer" if r["trisk"] > 0 else "riskier") for r in rows)
    assert rows[0]["t_critical"] == pytest.approx(stats.t.ppf(0.995, 49))


def test_compare_refuses_risk_where_it_cannot_show_it(capsys):
    from rankscope.cli import main

    qrels, runs = demo()
    assert main(["compare", qrels, *runs, "-c", "--risk-alpha", "1", "--format", "csv"]) == 2
    err = capsys.readouterr().err
    assert "--risk-alpha: expected --format table or json, found csv" in err and "Traceback" not in err
    assert main(["compare", qrels, *runs, "-c", "--risk-alpha", "-1"]) == 2
    assert "risk alpha: expected a non-negative number, found -1.0" in capsys.readouterr().err
