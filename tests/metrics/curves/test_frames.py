"""Tables read off the curves (metrics.curves), one topic's curves, and the eleven points under each
interpolation rule: every number against the measure it stands for, on seeded random collections."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from metrics import Conventions, ValidationError, evaluate, rank_runs
from metrics.curves import (LEVEL_NAMES, at_x, eleven_point, eleven_point_rules, eleven_point_table, gain_curves,
                            interpolated_pr, pr_curve, precision_recall_at_k)
from metrics.evaluate import resolve_measures
from tests.random_collections import random_collection

SEEDS = range(12)
RULES = ("trec_eval-9", "trec_eval-10", "textbook")


def _two_systems(seed: int, **options):
    c = random_collection(seed)
    flipped = "\n".join(" ".join(f if i != 4 else repr(-float(f)) for i, f in enumerate(line.split()))
                        for line in c.run_text.splitlines() if line.strip()) + "\n"
    runs = {"s": c.run_text, "t": flipped}
    return c, runs, rank_runs(c.qrels_text, runs, **options)


@pytest.mark.parametrize("seed", SEEDS)
def test_one_topic_curves_equal_the_whole_runs_rows_of_that_topic(seed):
    c, runs, ranked = _two_systems(seed)
    topic = ranked[0].queries[len(ranked[0].queries) // 2]
    for fn in (pr_curve, lambda r, **kw: interpolated_pr(r, **kw).points,
               lambda r, **kw: interpolated_pr(r, **kw).envelope):
        whole = fn(ranked)
        one = fn(ranked, queries=[topic])
        pd.testing.assert_frame_equal(one, whole[whole["query"] == topic].reset_index(drop=True), check_dtype=False)
    for fn, kwargs in ((eleven_point, {}), (precision_recall_at_k, {"depth": 12}), (gain_curves, {"depth": 12})):
        whole = fn(ranked, average=False, **kwargs)
        one = fn(ranked, queries=[topic], average=False, **kwargs)
        pd.testing.assert_frame_equal(one, whole[whole["query"] == topic].reset_index(drop=True), check_dtype=False)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("rule", RULES)
def test_eleven_point_table_equals_the_measures(seed, rule):
    c, runs, ranked = _two_systems(seed, preset=rule)
    level_labels = dict(zip(LEVEL_NAMES, [label for label, _ in resolve_measures(
        [f"IPrec(recall={level})" for level in LEVEL_NAMES])]))
    expected = evaluate(c.qrels_text, runs, ["IPrecAvg", *level_labels.values()], conventions=Conventions(preset=rule))
    points = eleven_point(ranked, rule=rule)
    averaged = eleven_point_table(points)
    assert averaged["system"].tolist() == [r.system for r in ranked if r.n_queries]
    for row in averaged.itertuples(index=False):
        mine = expected[expected["system"] == row.system]
        assert row.n_queries == mine["query"].nunique()
        assert averaged.loc[averaged["system"] == row.system, "11pt_avg"].item() == pytest.approx(
            mine[mine["measure"] == "IPrecAvg"]["value"].mean(), rel=1e-12, abs=1e-15)
        for name in LEVEL_NAMES:
            assert averaged.loc[averaged["system"] == row.system, name].item() == pytest.approx(
                mine[mine["measure"] == level_labels[name]]["value"].mean(), rel=1e-12, abs=1e-15)
    for topic in ranked[0].queries[:3]:
        one = eleven_point_table(points, topic)
        for row in one.itertuples(index=False):
            value = expected[(expected["system"] == row.system) & (expected["query"] == topic)
                             & (expected["measure"] == "IPrecAvg")]["value"].item()
            assert one.loc[one["system"] == row.system, "11pt_avg"].item() == value  # bit for bit


@pytest.mark.parametrize("seed", SEEDS)
def test_eleven_point_rules_equal_each_preset(seed):
    c, runs, ranked = _two_systems(seed)
    both = eleven_point_table(eleven_point_rules(ranked))
    assert both["rule"].tolist() == [rule for rule in RULES for r in ranked if r.n_queries]
    for rule in RULES:
        expected = evaluate(c.qrels_text, runs, ["IPrecAvg"], conventions=Conventions(interpolation=rule))
        for system, value in expected.groupby("system")["value"].mean().items():
            got = both[(both["rule"] == rule) & (both["system"] == system)]["11pt_avg"].item()
            assert got == pytest.approx(value, rel=1e-12, abs=1e-15)
    with pytest.raises(ValidationError):
        eleven_point_rules(ranked, rules=("nearest",))


def test_eleven_point_table_checks_its_input():
    with pytest.raises(ValidationError):
        eleven_point_table(pd.DataFrame({"system": ["a"], "query": ["1"]}))
    broken = pd.DataFrame({"system": ["a"] * 5, "query": ["1"] * 5, "recall": np.arange(5) / 10, "iprec": 0.5})
    with pytest.raises(ValidationError, match="eleven"):
        eleven_point_table(broken)


@pytest.mark.parametrize("seed", SEEDS)
def test_at_x_reads_the_measures_at_rank_k(seed):
    c, runs, ranked = _two_systems(seed)
    curves = gain_curves(ranked, depth=10)
    rows = at_x(curves[curves["query"] == "all"], 7)
    expected = evaluate(c.qrels_text, runs, ["nDCG@7"]).groupby("system", sort=False)["value"].mean()
    assert rows["k"].tolist() == [7] * len(rows)
    assert rows.set_index("system")["ndcg"].to_dict() == pytest.approx(expected.to_dict(), rel=1e-12)
    with pytest.raises(ValidationError, match="deeper"):
        at_x(curves, 11)


@pytest.mark.parametrize("seed", SEEDS)
def test_averages_alone_are_the_same_rows(seed):
    _, _, ranked = _two_systems(seed)
    for fn in (precision_recall_at_k, gain_curves):
        whole = fn(ranked, depth=9)
        alone = fn(ranked, depth=9, per_query=False)
        assert (alone["query"] == "all").all()
        pd.testing.assert_frame_equal(alone, whole[whole["query"] == "all"].reset_index(drop=True), check_dtype=False)


def test_identical_series_groups_the_systems_whose_curves_coincide():
    from metrics.curves import identical_series

    frame = pd.DataFrame({"system": list("aabbccdd"), "k": [1, 2] * 4,
                          "precision": [1.0, 0.5, 0.0, 0.5, 1.0, 0.5, 0.0, 0.5 + 1e-15],
                          "recall": [0.5, 0.5, 0.0, 0.5, 0.5, 0.5, 0.0, 0.5]})
    assert identical_series(frame, "k", ["precision", "recall"]) == [("a", "c"), ("b", "d")]
    assert identical_series(frame, "k", ["precision"], tolerance=0.0) == [("a", "c")]
    assert identical_series(frame[frame["system"] != "c"], "k", ["precision", "recall"]) == [("b", "d")]
    shorter = frame[~((frame["system"] == "c") & (frame["k"] == 2))]
    assert identical_series(shorter, "k", ["precision", "recall"]) == [("b", "d")]
