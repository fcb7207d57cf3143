"""A pool by name: the budget shared among topics in rounds, and the pool's statistics against plain counts."""

from __future__ import annotations

import numpy as np
import pytest

from metrics.errors import ValidationError
from metrics.io import read_qrels, read_run
from metrics.judgments.pooling import METHODS
from metrics.judgments.pooling import make_pool
from tests.metrics.judgments.pool_cases import random_case


def read(case):
    runs = [read_run(text, name=name) for name, text in case.runs.items()]
    return runs, read_qrels(case.qrels, name="q") if case.qrels else None


def trec_eval_order(text: str) -> dict[str, list[str]]:
    """Each topic's documents of a run as trec_eval ranks them (score descending, then id descending)."""
    rows = [line.split() for line in text.splitlines()]
    out: dict[str, list[tuple]] = {}
    for q, _, d, _, s, _ in rows:
        out.setdefault(q, []).append((-float(np.float32(s)), tuple(-b for b in d.encode()) + (1,), d))
    return {q: [d for *_, d in sorted(v)] for q, v in out.items()}


@pytest.mark.parametrize("depth", [5, 12], ids=["shallower than Judged@10", "deeper"])
@pytest.mark.parametrize("seed", range(15))
def test_statistics_equal_plain_counts(seed, depth):
    case = random_case(seed)
    runs, qrels = read(case)
    pool = make_pool(runs, qrels, method="depth", depth=depth)
    judged = {(q, d) for q, _, d, g in (line.split() for line in case.qrels.splitlines()) if int(g) >= 0}
    ranked = {name: trec_eval_order(text) for name, text in case.runs.items()}
    proposed = set(zip(pool.documents["topic"], pool.documents["docid"]))
    # the depth-k pool: every document some run ranks within the depth, not judged yet
    expected = {(q, d) for lists in ranked.values() for q, docs in lists.items() for d in docs[:depth]} - judged
    assert proposed == expected
    for row in pool.runs.itertuples(index=False):
        others = {(q, d) for name, lists in ranked.items() if name != row.system
                  for q, docs in lists.items() for d in docs[:depth]}
        mine = {(q, d) for q, docs in ranked[row.system].items() for d in docs[:depth]}
        assert row.alone == len((mine - others) & proposed)
        answered = ranked[row.system]
        before = np.mean([sum((q, d) in judged for d in docs[:10]) / 10 for q, docs in answered.items()])
        after = np.mean([sum((q, d) in judged | proposed for d in docs[:10]) / 10 for q, docs in answered.items()])
        assert (row.judged_before, row.judged_after) == (pytest.approx(before), pytest.approx(after))
    by_topic = pool.topics.set_index("topic")
    for topic in by_topic.index:
        assert by_topic.loc[topic, "proposed"] == sum(1 for q, _ in proposed if q == topic)


@pytest.mark.parametrize("method", list(METHODS))
def test_a_budget_goes_round_the_topics(method):
    case = random_case(7, n_runs=3)
    runs, qrels = read(case)
    whole = make_pool(runs, qrels, method=method, depth=6).documents
    part = make_pool(runs, qrels, method=method, depth=6, budget=5).documents
    assert len(part) == min(5, len(whole))
    if method != "decide":  # one topic after another: each topic's k-th document in the k-th round
        topics = part["topic"].tolist()
        rounds = [topics[:i].count(t) for i, t in enumerate(topics)]
        assert rounds == sorted(rounds)
    assert part["order"].tolist() == list(range(1, len(part) + 1))


def test_the_depth_pool_goes_by_best_rank():
    case = random_case(3)
    runs, qrels = read(case)
    docs = make_pool(runs, qrels, method="depth", depth=8).documents
    for _, group in docs.groupby("topic", sort=False):
        assert group["weight"].is_monotonic_increasing


def test_an_unknown_method_or_a_budget_of_zero_is_refused():
    runs, qrels = read(random_case(1))
    with pytest.raises(ValidationError, match="method must be one of"):
        make_pool(runs, qrels, method="random")
    with pytest.raises(ValidationError, match="budget must be a positive integer or None, got 0"):
        make_pool(runs, qrels, budget=0)
