"""Tables read off the curves (metrics.curve_frames), one topic's curves, and the eleven points under each
interpolation rule: every number against the measure it stands for, on seeded random collections."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from metrics import Conventions, ValidationError, evaluate, rank_runs
from metrics.curve_frames import LEVEL_NAMES, at_x, eleven_point_table, select_queries
from metrics.curves import (eleven_point, eleven_point_rules, gain_curves, interpolated_pr, pr_curve,
                            precision_recall_at_k)
from metrics.evaluate import per_query_frame, resolve_measures
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
def test_select_queries_keeps_every_measure_of_the_kept_queries(seed):
    c, runs, ranked = _two_systems(seed, complete=seed % 2 == 0)
    pairs = resolve_measures(["AP", "nDCG@5", "P@3", "RR", "R@10", "IPrecAvg", "ERR@5"])
    for r in ranked:
        keep = list(r.queries[::2]) + ["no-such-topic"]
        part = select_queries(r, keep)
        assert part.queries.tolist() == list(r.queries[::2])
        whole = per_query_frame(r, pairs)
        cut = per_query_frame(part, pairs)
        expected = whole[whole["query"].isin(part.queries)].reset_index(drop=True)
        pd.testing.assert_frame_equal(cut, expected)


def test_select_queries_of_nothing_is_empty_and_checks_its_input():
    _, _, ranked = _two_systems(1)
    empty = select_queries(ranked[0], ["nope"])
    assert empty.n_queries == 0 and len(empty.rel) == 0
    with pytest.raises(ValidationError):
        select_queries(ranked[0], "401")
    with pytest.raises(ValidationError):
        select_queries("not rankings", ["1"])


@pytest.mark.parametrize("seed", SEEDS)
def test_one_topic_curves_equal_the_whole_runs_rows_of_that_topic(seed):
    c, runs, ranked = _two_systems(seed)
    topic = ranked[0].queries[len(ranked[0].queries) // 2]
    for fn in (pr_curve, interpolated_pr):
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
