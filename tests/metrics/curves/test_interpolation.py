"""Interpolated precision (iprec_at_recall, 11pt_avg) under the three interpolation rules.

* ``textbook``: against a slow, obviously correct per-query implementation on seeded random collections.
* ``trec_eval-10`` (and ``trec_eval-9``): against trec_eval's own expected outputs in the shared test data,
  when that folder is present, and against a few values pinned here on a tiny inline collection.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from metrics import evaluate, parse_measure
from metrics.measures.interpolated import RECALL_LEVELS, IPrec, IPrecAvg, required_relevant
from tests.random_collections import random_collection, trec_order
from tests.paths import ROOT, SHARED

TREC_TEST = SHARED / "data" / "trec_eval_test"
LEVELS = RECALL_LEVELS + (0.05, 0.25, 1 / 3, 0.77, 0.95)  # the standard 11 and some that do not divide R
SLOW_LOOP_RULE = "textbook"
"""The rule the slow per-query loop below defines (recall at least x, exactly)."""
TREC_EVAL_OUTPUTS = {"trec_eval-10": "out.test.aq", "trec_eval-9": "v9.0.8/out.test.aq"}
"""The rules trec_eval's own expected outputs check: each rule, and its release's output file."""


def slow_iprec(ranking: list[str], judged: dict, level: float, threshold: int) -> float:
    """Highest precision at any rank whose recall is >= level; 0 if there is none."""
    num_rel = sum(grade >= threshold for grade in judged.values())
    best, found = 0.0, 0
    for rank, doc in enumerate(ranking, start=1):
        found += judged.get(doc, -1) >= threshold
        if num_rel and found / num_rel >= level:
            best = max(best, found / rank)
    return best


@pytest.mark.parametrize("threshold", [1, 2])
def test_textbook_rule_matches_a_per_query_implementation(threshold):
    measures = [IPrec(recall=level) for level in LEVELS] + [IPrecAvg()]
    compared = 0
    for seed in range(60):
        collection = random_collection(seed)
        frame = evaluate(collection.qrels_text, {"s": collection.run_text}, measures, preset="textbook",
                         interpolation=SLOW_LOOP_RULE, relevance_level=threshold)
        got = {(q, m): v for q, m, v in zip(frame["query"], frame["measure"], frame["value"])}
        for query in sorted(set(collection.run) & set(collection.qrels)):
            ranking = trec_order(collection.run[query], np.float64)
            judged = collection.qrels[query]
            expected = [slow_iprec(ranking, judged, level, threshold) for level in LEVELS]
            for level, value in zip(LEVELS, expected):
                assert got[(query, str(IPrec(recall=level)))] == value, f"seed {seed} query {query} level {level}"
            average = sum(reversed(expected[:len(RECALL_LEVELS)])) / len(RECALL_LEVELS)
            assert got[(query, str(IPrecAvg()))] == pytest.approx(average, abs=1e-15), f"seed {seed} query {query}"
            compared += len(LEVELS) + 1
    assert compared > 1000


def test_textbook_level_is_the_least_count_reaching_the_recall():
    num_rel = np.arange(0, 200)
    for level in LEVELS:
        k = required_relevant(level, num_rel, "textbook")
        ok = num_rel > 0
        assert (k[ok] / num_rel[ok] >= level).all()
        assert ((k[ok] - 1) / num_rel[ok] < level).all()
        assert (k[~ok] == 0).all()


def _expected_lines(path: Path) -> dict[tuple[str, str], str]:
    table = {}
    for line in path.read_text().splitlines():
        measure, query, value = (part.strip() for part in line.split("\t"))
        if measure.startswith("iprec_at_recall_") or measure == "11pt_avg":
            table[(measure, query)] = value
    return table


@pytest.mark.parametrize("rule", sorted(TREC_EVAL_OUTPUTS))
def test_trec_eval_rule_matches_trec_eval_test_output(rule):
    if not TREC_TEST.is_dir():
        pytest.skip(f"trec_eval's test data not found: {TREC_TEST} is missing")
    expected = _expected_lines(TREC_TEST / TREC_EVAL_OUTPUTS[rule])
    labels = sorted({measure for measure, _ in expected})
    frame = evaluate(TREC_TEST / "qrels.test", TREC_TEST / "results.test", labels, preset=rule, interpolation=rule)
    assert len(labels) == 12
    for label in labels:
        rows = frame[frame["measure"] == label]
        for query, value in zip(rows["query"], rows["value"]):
            assert f"{value:.4f}" == expected[(label, query)], f"{label} {query}"
        mean = parse_measure(label).aggregate(rows["value"].to_numpy())
        assert f"{mean:.4f}" == expected[(label, "all")], f"{label} all"


# What `trec_eval -q -m iprec_at_recall.0.2 -m 11pt_avg qrels.txt run.txt` prints for qrels.txt = QRELS
# and run.txt = RUN: 7 relevant documents, 5 of them retrieved, at ranks 1, 3, 4, 8 and 10. At recall 0.2
# trec_eval 9.x needs (long)(0.2 * 7 + 0.9) = 2 relevant documents, trec_eval 10.0 lround(0.2 * 7) = 1.
# (9.x values checked with pytrec_eval; 10.0 values follow its lround rule, checked above on out.test.aq.)
QRELS = "".join(f"1 0 {doc} {grade}\n" for doc, grade in
                [("r1", 1), ("r2", 1), ("r3", 1), ("r4", 1), ("r5", 1), ("r6", 1), ("r7", 1),
                 ("n1", 0), ("n2", 0), ("n3", 0)])
RUN = "".join(f"1 Q0 {doc} {rank} {11 - rank} sys\n" for rank, doc in
              enumerate(["r1", "n1", "r2", "r3", "n2", "x1", "n3", "r4", "x2", "r5"], start=1))
PINNED = {
    "trec_eval-9": {"iprec_at_recall_0.20": 0.7500, "11pt_avg": 0.5227},  # trec_eval 9.0.8
    "trec_eval-10": {"iprec_at_recall_0.20": 1.0000, "11pt_avg": 0.5455},  # trec_eval 10.0
    "textbook": {"iprec_at_recall_0.20": 0.7500, "11pt_avg": 0.5227},
}


@pytest.mark.parametrize("preset", sorted(PINNED))
def test_pinned_values(preset):
    frame = evaluate(QRELS, RUN, list(PINNED[preset]), preset=preset)
    got = dict(zip(frame["measure"], frame["value"]))
    for label, value in PINNED[preset].items():
        assert round(got[label], 4) == value, label
