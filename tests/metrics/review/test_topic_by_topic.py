"""Topic by topic (metrics.review.topic_by_topic): two systems side by side against a slow dictionary
implementation, and one topic's rankings against the textbook trec_eval order on seeded random collections."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from metrics import ValidationError, evaluate, rank_runs
from metrics.review.topic_by_topic import RANKING_COLUMNS, paired_topics, side_by_side
from tests.random_collections import random_collection, trec_order

SEEDS = range(15)


def _collection(seed: int):
    c = random_collection(seed)
    lines = [line.split() for line in c.run_text.splitlines() if line.strip()]
    topics = sorted(c.run)
    # the second system reverses the first one's scores and, when it can, misses its first topic
    other = [" ".join([*f[:4], repr(-float(f[4])), "b"]) for f in lines if len(topics) < 2 or f[0] != topics[0]]
    return c, {"a": c.run_text, "b": "\n".join(other) + "\n"}


def _slow_pairs(per_query: pd.DataFrame, measure: str, missing: str):
    values = {s: {q: v for q, v in zip(g["query"], g["value"])}
              for s, g in per_query[per_query["measure"] == measure].groupby("system")}
    a, b = values.get("a", {}), values.get("b", {})
    topics = set(a) | set(b) if missing == "zero" else set(a) & set(b)
    rows = [(q, a.get(q, 0.0), b.get(q, 0.0)) for q in topics]
    rows = [(q, x, y, y - x) for q, x, y in rows]
    rows.sort(key=lambda r: (-r[3], r[0]))
    return rows, sorted(set(a) - set(b)), sorted(set(b) - set(a))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("missing", ["drop", "zero"])
def test_paired_topics_against_a_slow_implementation(seed, missing):
    c, runs = _collection(seed)
    per_query = evaluate(c.qrels_text, runs, ["AP", "nDCG@5"])
    for measure in ("AP", "nDCG@5"):
        pair = paired_topics(per_query, measure, "a", "b", missing=missing)
        rows, only_a, only_b = _slow_pairs(per_query, measure, missing)
        assert pair.frame["query"].tolist() == [r[0] for r in rows]
        for column, i in (("a", 1), ("b", 2), ("diff", 3)):
            assert pair.frame[column].tolist() == pytest.approx([r[i] for r in rows], rel=1e-12, abs=1e-15)
        assert sorted(pair.only_a) == only_a and sorted(pair.only_b) == only_b
        diffs = [r[3] for r in rows]
        assert (pair.wins, pair.ties, pair.losses) == (sum(d > 0 for d in diffs), sum(d == 0 for d in diffs),
                                                       sum(d < 0 for d in diffs))


def test_paired_topics_of_a_system_with_itself_is_all_ties():
    c, runs = _collection(3)
    per_query = evaluate(c.qrels_text, runs, ["RR"])
    pair = paired_topics(per_query, "RR", "a", "a")
    assert pair.wins == pair.losses == 0 and pair.ties == len(pair.frame) > 0
    assert (pair.frame["diff"] == 0).all()


def test_paired_topics_rejects_what_it_cannot_pair():
    c, runs = _collection(4)
    per_query = evaluate(c.qrels_text, runs, ["RR"])
    with pytest.raises(ValidationError, match="no system"):
        paired_topics(per_query, "RR", "a", "nobody")
    with pytest.raises(ValidationError, match="no values"):
        paired_topics(per_query, "AP", "a", "b")
    with pytest.raises(ValidationError, match="missing"):
        paired_topics(per_query, "RR", "a", "b", missing="fill")


@pytest.mark.parametrize("seed", SEEDS)
def test_side_by_side_is_the_trec_eval_order_with_the_judgments(seed):
    c, runs = _collection(seed)
    ranked = rank_runs(c.qrels_text, runs)
    depth = 7
    for topic in sorted(set(c.run) & set(c.qrels))[:3]:
        frame = side_by_side(ranked, topic, depth=depth)
        assert list(frame.columns) == list(RANKING_COLUMNS)
        shown = frame[frame["system"] == "a"]
        expected = trec_order(c.run[topic])[:depth]
        assert shown["docid"].tolist() == expected
        assert shown["rank"].tolist() == list(range(1, len(expected) + 1))
        for docid, grade, judged, relevant in zip(shown["docid"], shown["grade"], shown["judged"], shown["relevant"]):
            truth = c.qrels[topic].get(docid)
            if truth is None or truth < 0:
                assert math.isnan(grade) and not judged and not relevant
            else:
                assert grade == truth and judged and relevant == (truth >= 1)


def test_side_by_side_skips_systems_without_the_topic():
    ranked = rank_runs("1 0 a 1\n2 0 b 1\n", {"x": "1 Q0 a 1 1 x\n", "y": "2 Q0 b 1 1 y\n"})
    assert side_by_side(ranked, "1")["system"].tolist() == ["x"]
    assert side_by_side(ranked, "3").empty
    with pytest.raises(ValidationError):
        side_by_side(ranked, "1", depth=0)
