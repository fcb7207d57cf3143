"""Curves (metrics.curves): each point against the measure it stands for, against a slow textbook
implementation, against the worked examples of the seed documents, and through ``rankscope curves``."""

from __future__ import annotations

import io
import json
import math

import numpy as np
import pandas as pd
import pytest

from metrics import ValidationError, parse_measure, rank_runs
from rankscope.cli import main
from rankscope.commands.curves import one_table
from metrics.curves import (eleven_point, gain_curves, interpolated_pr, mean_over_queries, pr_curve,
                            precision_recall_at_k)
from metrics.measures.interpolated import RECALL_LEVELS, required_relevant
from tests.random_collections import random_collection, trec_order

SEEDS = range(25)
CONVENTIONS = [{}, {"preset": "trec_eval-10"}, {"preset": "textbook"}, {"relevance_level": 2},
               {"complete": True}, {"judged_only": True}, {"depth": 7}]


def _ranked(seed: int, **options):
    collection = random_collection(seed)
    return collection, rank_runs(collection.qrels_text, {"s": collection.run_text}, **options)[0]


def _per_query(frame: pd.DataFrame, column: str, x: str) -> pd.DataFrame:
    rows = frame[frame["query"] != "all"]
    return rows.pivot(index="query", columns=x, values=column)


def _measure(label: str, r) -> np.ndarray:
    return parse_measure(label).compute(r)


# ---- consistency with the measures ----------------------------------------------------------------------
@pytest.mark.parametrize("options", CONVENTIONS, ids=str)
def test_precision_recall_at_k_equal_the_measures(options):
    checked = 0
    for seed in SEEDS:
        _, r = _ranked(seed, **options)
        depth = int(r.num_ret.max(initial=0)) + 3  # past the end of every ranking
        frame = precision_recall_at_k(r, depth=depth)
        assert len(frame) == (r.n_queries + 1) * depth
        precision = _per_query(frame, "precision", "k").reindex(r.queries)
        recall = _per_query(frame, "recall", "k").reindex(r.queries)
        average = frame[frame["query"] == "all"].set_index("k")
        for k in range(1, depth + 1):
            p, rec = _measure(f"P@{k}", r), _measure(f"R@{k}", r)
            if r.n_queries:
                assert (precision[k].to_numpy() == p).all(), f"seed {seed} P@{k}"
                assert (recall[k].to_numpy() == rec).all(), f"seed {seed} R@{k}"
            assert average.at[k, "precision"] == parse_measure(f"P@{k}").aggregate(p), f"seed {seed} mean P@{k}"
            assert average.at[k, "recall"] == parse_measure(f"R@{k}").aggregate(rec), f"seed {seed} mean R@{k}"
            checked += 1
    assert checked > 200


@pytest.mark.parametrize("options", CONVENTIONS, ids=str)
@pytest.mark.parametrize("gain, discount, base, ideal", [("linear", "log2", 2.0, "judged"),
                                                         ("exp", "log2", 2.0, "judged"),
                                                         ("linear", "jk", 3.0, "judged"),
                                                         ("exp", "log2", 2.0, "retrieved")])
def test_gain_curves_equal_the_measures(options, gain, discount, base, ideal):
    params = [f'gain="{gain}"'] if gain != "linear" else []
    params += [f'discount="{discount}"'] if discount != "log2" else []
    params += [f"base={base}"] if base != 2.0 else []
    dcg_name = f"DCG({','.join(params)})" if params else "DCG"
    params += [f'ideal="{ideal}"'] if ideal != "judged" else []
    ndcg_name = f"nDCG({','.join(params)})" if params else "nDCG"
    for seed in SEEDS:
        _, r = _ranked(seed, **options)
        positive = np.diff(r.ideal_grades()[1])
        depth = int(max(r.num_ret.max(initial=0), positive.max(initial=0))) + 2
        frame = gain_curves(r, gain=gain, discount=discount, base=base, ideal=ideal, depth=depth)
        ndcg = _per_query(frame, "ndcg", "k").reindex(r.queries)
        dcg = _per_query(frame, "dcg", "k").reindex(r.queries)
        average = frame[frame["query"] == "all"].set_index("k")
        for k in range(1, depth + 1):
            expected = _measure(f"{ndcg_name}@{k}", r)
            if r.n_queries:
                assert (ndcg[k].to_numpy() == expected).all(), f"seed {seed} {ndcg_name}@{k}"
                assert (dcg[k].to_numpy() == _measure(f"{dcg_name}@{k}", r)).all(), f"seed {seed} DCG@{k}"
            assert average.at[k, "ndcg"] == parse_measure(f"{ndcg_name}@{k}").aggregate(expected)
        if r.n_queries:
            # trec_eval's ndcg (no cutoff): the curve once both the ranking and the ideal ranking have ended
            whole = _measure(ndcg_name, r)
            ends = np.maximum(r.num_ret, positive if ideal == "judged" else 0)
            at_end = ndcg.to_numpy()[np.arange(r.n_queries), np.maximum(ends, 1) - 1]
            assert (at_end == whole).all(), f"seed {seed}"
            # ... which is the curve at k = number retrieved only when the ranking is not shorter than the ideal
            longer = r.num_ret >= (positive if ideal == "judged" else 0)
            at_n = ndcg.to_numpy()[np.arange(r.n_queries), np.maximum(r.num_ret, 1) - 1]
            assert (at_n[longer] == whole[longer]).all()


def test_ndcg_without_cutoff_differs_from_the_curve_at_the_ranking_end_when_the_ideal_is_longer():
    qrels = "1 0 a 1\n1 0 b 1\n1 0 c 1\n"
    r = rank_runs(qrels, {"s": "1 Q0 x 1 2 s\n1 Q0 a 2 1 s\n"})[0]
    frame = gain_curves(r, depth=3, average=False)
    whole = float(_measure("nDCG", r)[0])
    assert frame["ndcg"].iloc[1] > whole  # nDCG@2: the ideal cut at 2 as well
    assert frame["ndcg"].iloc[2] == whole  # nDCG@3: the ideal ranking has ended
    assert frame["dcg"].iloc[1] == frame["dcg"].iloc[2]  # DCG stays constant past the ranking


@pytest.mark.parametrize("options", CONVENTIONS + [{"preset": "textbook", "judged_only": True},
                                                   {"preset": "trec_eval-10", "relevance_level": 2}], ids=str)
@pytest.mark.parametrize("rule", [None, "trec_eval-9", "trec_eval-10", "textbook"])
def test_eleven_points_equal_iprec_at_recall_and_their_mean_11pt_avg(options, rule):
    labels = [f"iprec_at_recall_{level:.2f}" for level in RECALL_LEVELS]
    for seed in SEEDS:
        _, r = _ranked(seed, **options)
        source = r if rule is None else rank_runs(random_collection(seed).qrels_text,
                                                  {"s": random_collection(seed).run_text},
                                                  **{**options, "interpolation": rule})[0]
        frame = eleven_point(r, rule=rule)
        per_query = _per_query(frame, "iprec", "recall").reindex(r.queries)
        if r.n_queries:
            assert list(frame["measure"].iloc[:11]) == labels
        else:
            assert set(frame["query"]) == {"all"}
        average = frame[frame["query"] == "all"]
        assert list(average["measure"]) == labels
        for level, label in zip(RECALL_LEVELS, labels):
            expected = _measure(label, source)
            got = per_query[level].to_numpy()
            assert np.array_equal(got, expected, equal_nan=True), f"seed {seed} {label}"
            mean = parse_measure(label).aggregate(expected)
            assert np.array_equal(average.loc[average["recall"] == level, "iprec"].to_numpy(), [mean],
                                  equal_nan=True), f"seed {seed} mean {label}"
        # a query's eleven points, summed from 1.0 down as trec_eval sums, are its 11pt_avg exactly
        eleven = _measure("11pt_avg", source)
        total = np.zeros(r.n_queries)
        for level in reversed(RECALL_LEVELS):
            total += per_query[level].to_numpy()
        assert np.array_equal(total / 11, eleven, equal_nan=True), f"seed {seed}"
        # the mean of the eleven averaged points is the mean 11pt_avg (the additions in another order)
        mean_11pt = parse_measure("11pt_avg").aggregate(eleven)
        points = average["iprec"].to_numpy()
        if np.isnan(mean_11pt):
            assert np.isnan(points).any()
        else:
            assert points.mean() == pytest.approx(mean_11pt, rel=1e-13, abs=1e-15), f"seed {seed}"


@pytest.mark.parametrize("rule", ["trec_eval-9", "trec_eval-10", "textbook"])
def test_envelope_gives_iprec_at_recall_at_the_eleven_levels(rule):
    for seed in SEEDS:
        _, r = _ranked(seed, preset="textbook", interpolation=rule)
        envelope = interpolated_pr(r).envelope
        num_rel = dict(zip(r.queries, r.num_rel()))
        for level in RECALL_LEVELS:
            expected = dict(zip(r.queries, _measure(f"iprec_at_recall_{level:.2f}", r)))
            for query, group in envelope.groupby("query"):
                k = int(required_relevant(level, np.array([num_rel[query]]), rule)[0])
                values = group.loc[group["needed"] == k, "iprec"].unique()
                assert list(values) == [expected[query]], f"seed {seed} query {query} level {level}"


def test_envelope_is_a_staircase_from_0_to_1():
    for seed in SEEDS:
        _, r = _ranked(seed)
        for _, group in interpolated_pr(r).envelope.groupby("query"):
            x, y = group["x"].to_numpy(), group["y"].to_numpy()
            assert x[0] == 0.0 and x[-1] == 1.0
            assert (np.diff(x) >= 0).all() and (np.diff(y) <= 0).all()
            assert (y[0::2] == y[1::2]).all()  # two vertices per step


# ---- slow textbook implementations ---------------------------------------------------------------------
def _cases(seed: int, score_dtype=np.float32):
    """(query, ranked docids, judgments) of every query that has judgments and a ranking."""
    collection = random_collection(seed)
    for query in sorted(set(collection.run) & set(collection.qrels)):
        yield query, trec_order(collection.run[query], score_dtype), collection.qrels[query]


def slow_precision_recall(ranking, judged, level):
    num_rel = sum(g >= level for g in judged.values())
    found, out = 0, []
    for rank, doc in enumerate(ranking, start=1):
        found += judged.get(doc, -1) >= level
        out.append((rank, found / num_rel if num_rel else 0.0, found / rank))
    return out


def slow_required(x: float, num_rel: int, rule: str) -> int:
    if rule == "trec_eval-9":
        return int(x * num_rel + 0.9)
    if rule == "trec_eval-10":
        return int(math.floor(x * num_rel + 0.5))
    return next(k for k in range(num_rel + 1) if k / num_rel >= x)


def slow_iprec_needing(ranking, judged, level, k):
    """Highest precision at any rank that has found at least max(k, 1) relevant documents; 0 if none."""
    best, found = 0.0, 0
    for rank, doc in enumerate(ranking, start=1):
        found += judged.get(doc, -1) >= level
        if found >= max(k, 1):
            best = max(best, found / rank)
    return best


@pytest.mark.parametrize("level", [1, 2])
def test_pr_curve_matches_a_slow_implementation(level):
    compared = 0
    for seed in SEEDS:
        collection, r = _ranked(seed, relevance_level=level)
        frame = pr_curve(r)
        for query, ranking, judged in _cases(seed):
            rows = frame[frame["query"] == query]
            if not any(g >= level for g in judged.values()):
                assert rows.empty
                continue
            expected = slow_precision_recall(ranking, judged, level)
            assert list(rows["rank"]) == [e[0] for e in expected]
            assert list(rows["recall"]) == [e[1] for e in expected]
            assert list(rows["precision"]) == [e[2] for e in expected]
            assert list(rows["docid"]) == ranking
            assert list(rows["relevant"]) == [judged.get(d, -1) >= level for d in ranking]
            grades = [judged[d] if judged.get(d, -1) >= 0 else None for d in ranking]
            assert [None if math.isnan(g) else g for g in rows["grade"]] == grades
            compared += len(rows)
    assert compared > 300


@pytest.mark.parametrize("rule", ["trec_eval-9", "trec_eval-10", "textbook"])
def test_interpolated_pr_matches_a_slow_implementation(rule):
    rng = np.random.default_rng(7)
    compared = 0
    for seed in SEEDS:
        collection, r = _ranked(seed, interpolation=rule)
        frame = interpolated_pr(r)
        for query, ranking, judged in _cases(seed):
            num_rel = sum(g >= 1 for g in judged.values())
            points = frame.points[frame.points["query"] == query]
            envelope = frame.envelope[frame.envelope["query"] == query]
            if not num_rel:
                assert points.empty and envelope.empty
                continue
            curve = slow_precision_recall(ranking, judged, 1)
            # at a rank's recall: the highest precision at any rank whose recall is at least as high
            expected = [max(p for _, rec, p in curve if rec >= recall) for _, recall, _ in curve]
            assert list(points["iprec"]) == expected, f"seed {seed} query {query}"
            lo, hi, y = (envelope["x"].to_numpy()[0::2], envelope["x"].to_numpy()[1::2],
                         envelope["y"].to_numpy()[0::2])
            for x in np.concatenate(([0.0, 1.0], rng.random(20))):
                inside = np.flatnonzero((lo <= x) & ((x < hi) | ((hi == 1.0) & (x == 1.0))))
                k = slow_required(float(x), num_rel, rule)
                assert y[inside[0]] == slow_iprec_needing(ranking, judged, 1, k), f"seed {seed} {query} x={x}"
                compared += 1
    assert compared > 500


def test_eleven_point_textbook_matches_the_definition():
    for seed in SEEDS:
        _, r = _ranked(seed, preset="textbook")
        frame = eleven_point(r, average=False)
        for query, ranking, judged in _cases(seed, np.float64):
            curve = slow_precision_recall(ranking, judged, 1)
            got = frame.loc[frame["query"] == query, "iprec"].tolist()
            expected = [max([p for _, rec, p in curve if rec >= x] or [0.0]) for x in RECALL_LEVELS]
            if not any(g >= 1 for g in judged.values()):
                expected = [0.0] * 11
            assert got == expected, f"seed {seed} query {query}"


def test_precision_recall_at_k_matches_a_slow_implementation():
    for seed in SEEDS:
        _, r = _ranked(seed)
        depth = 12
        frame = precision_recall_at_k(r, depth=depth)
        evaluated = list(r.queries)
        slow = {}
        for query, ranking, judged in _cases(seed):
            num_rel = sum(g >= 1 for g in judged.values())
            slow[query] = []
            for k in range(1, depth + 1):
                found = sum(judged.get(d, -1) >= 1 for d in ranking[:k])
                slow[query].append((found / k, found / num_rel if num_rel else 0.0))
            rows = frame[frame["query"] == query]
            assert list(zip(rows["precision"], rows["recall"])) == slow[query]
        assert sorted(slow) == evaluated
        average = frame[frame["query"] == "all"]
        for k in range(1, depth + 1):
            mean_p = sum(slow[q][k - 1][0] for q in evaluated) / len(evaluated)
            assert average["precision"].iloc[k - 1] == pytest.approx(mean_p, abs=1e-15)


def slow_dcg(grades, k, gain, discount, base):
    total = 0.0
    for i, g in enumerate(grades[:k], start=1):
        value = max(g, 0) if gain == "linear" else 2.0 ** max(g, 0) - 1.0
        divisor = math.log2(i + 1) if discount == "log2" else (1.0 if i < base else math.log(i) / math.log(base))
        total += value / divisor
    return total


@pytest.mark.parametrize("gain, discount, base, ideal", [("linear", "log2", 2.0, "judged"),
                                                         ("exp", "jk", 2.0, "judged"),
                                                         ("exp", "jk", 4.0, "retrieved")])
def test_gain_curves_match_a_slow_implementation(gain, discount, base, ideal):
    for seed in SEEDS:
        _, r = _ranked(seed)
        depth = 15
        frame = gain_curves(r, gain=gain, discount=discount, base=base, ideal=ideal, depth=depth)
        for query, ranking, judged in _cases(seed):
            grades = [judged.get(d, -1) for d in ranking]
            pool = judged.values() if ideal == "judged" else grades
            best = sorted((g for g in pool if g > 0), reverse=True)
            rows = frame[frame["query"] == query]
            for k, dcg, idcg, ndcg in zip(rows["k"], rows["dcg"], rows["idcg"], rows["ndcg"]):
                want, want_ideal = slow_dcg(grades, k, gain, discount, base), slow_dcg(best, k, gain, discount, base)
                assert dcg == pytest.approx(want, rel=1e-12, abs=1e-12)
                assert idcg == pytest.approx(want_ideal, rel=1e-12, abs=1e-12)
                assert ndcg == pytest.approx(want / want_ideal if want_ideal else 0.0, rel=1e-12, abs=1e-12)


# ---- worked examples of the seed documents ---------------------------------------------------------------
def _printed(value: float, text: str) -> bool:
    """``value`` printed at the decimals of ``text`` is ``text`` (half a unit of the last decimal)."""
    decimals = len(text.partition(".")[2])
    return abs(value - float(text)) <= 0.5 * 10.0 ** -decimals + 1e-12


GRADED10 = [3, 2, 3, 0, 0, 1, 2, 2, 3, 0]


def test_seed_001_dcg_table():
    # 001: gains 3 2 3 0 0 1 2 2 3 0 with 2^g - 1 and log2(1 + i); the ideal is 3 3 3 2 2 2 1 0 0 0
    qrels = "".join(f"1 0 d{i} {g}\n" for i, g in enumerate(GRADED10))
    run = "".join(f"1 Q0 d{i} {i + 1} {10 - i} x\n" for i in range(10))
    frame = gain_curves(rank_runs(qrels, {"x": run}), gain="exp", depth=10, average=False)
    dcg = "7.00 8.89 12.39 12.39 12.39 12.75 13.75 14.70 16.80 16.80".split()
    idcg = "7.00 11.42 14.92 16.21 17.37 18.44 18.77 18.77 18.77 18.77".split()
    ndcg = "1.00 0.78 0.83 0.76 0.71 0.69 0.73 0.78 0.90 0.90".split()
    for column, printed in (("dcg", dcg), ("idcg", idcg), ("ndcg", ndcg)):
        values = frame[column].tolist()
        assert all(_printed(v, t) for v, t in zip(values, printed)), (column, [round(v, 2) for v in values])


LECTURE_QRELS = "".join(f"1 0 t1-{i:02d} {int(i <= 6)}\n" for i in range(1, 13))
LECTURE_A = ["t1-01", "t1-07", "t1-02", "t1-03", "t1-04", "t1-05", "t1-08", "t1-09", "t1-10", "t1-06"]
LECTURE_B = ["t1-07", "t1-01", "t1-08", "t1-09", "t1-02", "t1-03", "t1-04", "t1-10", "t1-05", "t1-06"]


def _run(name, docs):
    return "".join(f"1 Q0 {d} {i} {20 - i} {name}\n" for i, d in enumerate(docs, start=1))


@pytest.mark.parametrize("preset", ["trec_eval-9", "textbook"])
def test_seed_001_lecture_curves(preset):
    rk = rank_runs(LECTURE_QRELS, {"A": _run("A", LECTURE_A), "B": _run("B", LECTURE_B)}, preset=preset)
    raw = pr_curve(rk)
    printed = {
        "A": ("1.00 0.50 0.67 0.75 0.80 0.83 0.71 0.63 0.56 0.60", "0.17 0.17 0.33 0.50 0.67 0.83 0.83 0.83 0.83 1.00"),
        "B": ("0.00 0.50 0.33 0.25 0.40 0.50 0.57 0.50 0.56 0.60", "0.00 0.17 0.17 0.17 0.33 0.50 0.67 0.67 0.83 1.00"),
    }
    for system, (precision, recall) in printed.items():
        rows = raw[raw["system"] == system]
        assert all(_printed(v, t) for v, t in zip(rows["precision"], precision.split()))
        assert all(_printed(v, t) for v, t in zip(rows["recall"], recall.split()))
    points = eleven_point(rk)
    iprec = {"A": "1.0 1.0 0.83 0.83 0.83 0.83 0.83 0.83 0.83 0.6 0.6", "B": " ".join(["0.6"] * 11)}
    for system, values in iprec.items():
        rows = points[(points["system"] == system) & (points["query"] == "1")]
        assert all(_printed(v, t) for v, t in zip(rows["iprec"], values.split())), rows["iprec"].tolist()
    # "Ranking A: (2 * 1.0 + 7 * 0.83 + 2 * 0.6) / 11 = 0.82", "Ranking B: (11 * 0.6) / 11 = 0.6"
    assert _printed(points[(points["system"] == "A") & (points["query"] == "1")]["iprec"].mean(), "0.82")
    assert _printed(points[(points["system"] == "B") & (points["query"] == "1")]["iprec"].mean(), "0.6")


def test_seed_001_lecture_eleven_points_under_trec_eval_10():
    # trec_eval 10 reads recall 0.2 at lround(0.2 * 6) = 1 relevant document, not 2, and recall 0.9 at
    # lround(5.4) = 5, not 6: 1.0 and 0.83 where the slide (textbook rule, as trec_eval 9) has 0.83 and 0.6
    rk = rank_runs(LECTURE_QRELS, {"A": _run("A", LECTURE_A)}, preset="trec_eval-10")
    points = eleven_point(rk, average=False)["iprec"].round(2).tolist()
    assert points == [1.0, 1.0, 1.0, 0.83, 0.83, 0.83, 0.83, 0.83, 0.83, 0.83, 0.6]


# ---- averaging ------------------------------------------------------------------------------------------
def test_mean_over_queries_reproduces_the_all_rows_and_averages_subsets():
    _, r = _ranked(3)
    frame = precision_recall_at_k(r, depth=10)
    per_query = frame[frame["query"] != "all"]
    again = mean_over_queries(per_query, "k", ["precision", "recall"])
    mine = frame[frame["query"] == "all"].reset_index(drop=True)
    pd.testing.assert_frame_equal(again[mine.columns], mine)
    subset = list(r.queries[:2])
    part = mean_over_queries(per_query[per_query["query"].isin(subset)], "k", ["precision"])
    for k in range(1, 11):
        values = per_query[(per_query["k"] == k) & per_query["query"].isin(subset)]["precision"].to_numpy()
        assert part.loc[part["k"] == k, "precision"].item() == values.mean()
    assert (part["n_queries"] == 2).all()


def test_mean_over_queries_refuses_curves_without_common_points():
    _, r = _ranked(3)
    with pytest.raises(ValidationError, match="averaged point by point"):
        mean_over_queries(pr_curve(r), "rank", ["precision"])
    frame = precision_recall_at_k(r, depth=3, average=False)
    with pytest.raises(ValidationError, match="more than once"):
        mean_over_queries(pd.concat([frame, frame]), "k", ["precision"])
    with pytest.raises(ValidationError, match="missing"):
        mean_over_queries(frame, "k", ["nope"])


def test_average_counts_every_evaluated_query_and_pads_past_the_ranking():
    qrels = "1 0 a 1\n1 0 b 1\n2 0 c 1\n3 0 d 0\n"
    run = "1 Q0 a 1 2 s\n2 Q0 x 1 1 s\n2 Q0 c 2 0.5 s\n"
    plain = precision_recall_at_k(rank_runs(qrels, {"s": run}), depth=4)
    complete = precision_recall_at_k(rank_runs(qrels, {"s": run}, complete=True), depth=4)
    assert sorted(set(plain["query"])) == ["1", "2", "all"]  # query 3 is not answered: left out
    assert sorted(set(complete["query"])) == ["1", "2", "3", "all"]  # -c: it counts, with zeros
    q1 = plain[plain["query"] == "1"]
    assert q1["precision"].tolist() == [1.0, 0.5, 1 / 3, 0.25]  # P@k keeps dividing by k
    assert q1["recall"].tolist() == [0.5] * 4
    assert plain[plain["query"] == "all"]["n_queries"].unique().tolist() == [2]
    assert complete[complete["query"] == "all"]["n_queries"].unique().tolist() == [3]
    assert complete[complete["query"] == "3"]["precision"].tolist() == [0.0] * 4


# ---- inputs ----------------------------------------------------------------------------------------------
def test_several_systems_and_column_layout():
    collection = random_collection(5)
    rk = rank_runs(collection.qrels_text, {"a": collection.run_text, "b": collection.run_text})
    for frame in (pr_curve(rk), interpolated_pr(rk).points, interpolated_pr(rk).envelope, eleven_point(rk),
                  precision_recall_at_k(rk, depth=5), gain_curves(rk, depth=5)):
        assert list(frame.columns[:4]) == ["system", "query", "x", "y"]
        assert list(pd.unique(frame["system"])) == ["a", "b"]
        a = frame[frame["system"] == "a"].drop(columns="system").reset_index(drop=True)
        b = frame[frame["system"] == "b"].drop(columns="system").reset_index(drop=True)
        pd.testing.assert_frame_equal(a, b)
    assert list(pr_curve(rk).columns) == ["system", "query", "x", "y", "rank", "recall", "precision", "docid",
                                          "grade", "relevant"]
    assert list(precision_recall_at_k(rk, depth=2).columns) == ["system", "query", "x", "y", "k", "precision",
                                                                "recall", "n_queries"]
    assert list(gain_curves(rk, depth=2).columns) == ["system", "query", "x", "y", "k", "dcg", "idcg", "ndcg",
                                                      "n_queries"]
    assert list(eleven_point(rk).columns) == ["system", "query", "x", "y", "recall", "iprec", "measure", "n_queries"]


def test_bad_inputs_raise_validation_errors():
    _, r = _ranked(1)
    with pytest.raises(ValidationError):
        pr_curve("not rankings")
    with pytest.raises(ValidationError):
        pr_curve([])
    with pytest.raises(ValidationError):
        pr_curve([r, 3])
    with pytest.raises(ValidationError, match="share"):
        pr_curve([r, r])
    for depth in (0, -1, 2.5, True):
        with pytest.raises(ValidationError):
            precision_recall_at_k(r, depth=depth)
    with pytest.raises(ValidationError):
        gain_curves(r, gain="square")
    with pytest.raises(ValidationError):
        gain_curves(r, discount="log10")
    with pytest.raises(ValidationError):
        gain_curves(r, discount="jk", base=1.0)
    with pytest.raises(ValidationError):
        gain_curves(r, base=3.0)
    with pytest.raises(ValidationError):
        gain_curves(r, ideal="best")
    with pytest.raises(ValidationError):
        eleven_point(r, rule="linear")
    with pytest.raises(ValidationError):
        interpolated_pr(r, rule="linear")


def test_empty_rankings_give_frames_with_the_columns():
    # every retrieved document unjudged, and -J drops them all
    r = rank_runs("1 0 a 1\n", {"s": "1 Q0 z 1 1 s\n"}, judged_only=True)[0]
    assert pr_curve(r).empty and list(pr_curve(r).columns)[:4] == ["system", "query", "x", "y"]
    curve = interpolated_pr(r)
    assert curve.points.empty and (curve.envelope["y"] == 0).all()
    assert precision_recall_at_k(r)["precision"].eq(0).all()
    assert gain_curves(r)["dcg"].eq(0).all()


# ---- command line ---------------------------------------------------------------------------------------
@pytest.fixture()
def files(tmp_path):
    collection = random_collection(11)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(collection.qrels_text)
    a, b = tmp_path / "alpha.run", tmp_path / "beta.run"
    a.write_text(collection.run_text)
    b.write_text(random_collection(12).run_text.replace(" sys\n", " beta\n"))
    return collection, str(qrels), str(a), str(b)


@pytest.mark.parametrize("kind, function", [("pr", lambda rk: pr_curve(rk)),
                                            ("interpolated", lambda rk: one_table(interpolated_pr(rk), rk)),
                                            ("11pt", lambda rk: eleven_point(rk)),
                                            ("dcg", lambda rk: gain_curves(rk)),
                                            ("pk", lambda rk: precision_recall_at_k(rk))])
def test_cli_prints_the_same_frame_as_csv_and_json(files, capsys, kind, function):
    _, qrels, a, b = files
    expected = function(rank_runs(qrels, [a, b]))
    assert main(["curves", qrels, a, b, "--kind", kind]) == 0
    got = pd.read_csv(io.StringIO(capsys.readouterr().out), dtype={"query": str, "docid": str})
    assert list(got.columns) == list(expected.columns)
    assert len(got) == len(expected)
    for column in ("x", "y"):
        assert np.allclose(got[column].to_numpy(float), expected[column].to_numpy(float), rtol=0, atol=0,
                           equal_nan=True)
    assert main(["curves", qrels, a, b, "--kind", kind, "--format", "json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert len(records) == len(expected) and set(records[0]) == set(expected.columns)


def test_cli_options_reach_the_curves(files, capsys):
    _, qrels, a, _ = files
    rk = rank_runs(qrels, [a], preset="trec_eval-10", relevance_level=2, depth=5)
    query = str(rk[0].queries[0])
    assert main(["curves", qrels, a, "--kind", "dcg", "--gain", "exp", "--discount", "jk", "--base", "3",
                 "--ideal", "retrieved", "--depth", "4", "-l", "2", "-M", "5", "--compat", "trec_eval-10",
                 "--query", query, "--format", "json"]) == 0
    records = json.loads(capsys.readouterr().out)
    expected = gain_curves(rk, gain="exp", discount="jk", base=3.0, ideal="retrieved", depth=4)
    expected = expected[expected["query"] == query]
    assert [r["ndcg"] for r in records] == expected["ndcg"].tolist()
    assert {r["query"] for r in records} == {query}
    assert main(["curves", qrels, a, "--kind", "11pt", "--interpolation", "textbook", "--format", "json"]) == 0
    records = json.loads(capsys.readouterr().out)
    textbook = eleven_point(rank_runs(qrels, [a], preset="textbook"))
    assert [r["iprec"] for r in records] == textbook["iprec"].tolist()


def test_cli_unknown_query_is_an_error(files, capsys):
    _, qrels, a, _ = files
    assert main(["curves", qrels, a, "--kind", "pk", "--query", "no-such-query"]) == 2
    assert "no-such-query" in capsys.readouterr().err
