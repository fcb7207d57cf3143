"""Every measure pytrec_eval computes, per query and aggregated, against pytrec_eval itself.

pytrec_eval embeds trec_eval 9's C code, so agreement here is agreement with trec_eval 9 (the
``trec_eval-9`` preset). Each case is a seeded random collection (see ``tests/random_collections.py``:
ties, float32-collapsing near-ties, graded and negative grades, unjudged documents, topics missing on
either side, topics without relevant documents, rankings shorter than the cutoffs) evaluated under one set
of options (-l, -J, -c, -M and combinations of them); every value must equal pytrec_eval's to 1e-9.

trec_eval's -M has no pytrec_eval switch: the run is cut to the top M by a textbook sort before it is
handed to pytrec_eval. -c is emulated by giving pytrec_eval an empty ranking for each judged query the run
misses; pytrec_eval's values for such a ranking depend on what it evaluated before, so those queries are
compared with the trec_eval binaries instead (``test_trec_eval_binaries.py``). pytrec_eval 0.5.11 can crash computing bpref beside other measures when a ranking is empty, and
an evaluator holding many measure families can hang after a few hundred calls, so each family gets an
evaluator of its own (as trec_eval computes each measure independently, nothing is lost).
"""

from __future__ import annotations

import math

import pytest

pytrec_eval = pytest.importorskip("pytrec_eval", reason="pytrec-eval-terrier (the oracle) is not installed")

from metrics import evaluate, parse_measure  # noqa: E402
from tests.random_collections import random_collection, trec_order  # noqa: E402

# every measure family pytrec_eval computes, except the non-numeric runid and relstring
FAMILIES = ["num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
            "iprec_at_recall", "P", "recall", "infAP", "gm_bpref", "Rprec_mult", "utility", "11pt_avg", "binG",
            "G", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut", "relative_P", "success", "set_P",
            "set_relative_P", "set_recall", "set_map", "set_F", "num_nonrel_judged_ret"]
OPTIONS = {
    "default": {},
    "l2": {"relevance_level": 2},
    "l3": {"relevance_level": 3},
    "J": {"judged_only": True},
    "c": {"complete": True},
    "M1": {"depth": 1},
    "M7": {"depth": 7},
    "M50": {"depth": 50},
    "cJ": {"complete": True, "judged_only": True},
    "cM7": {"complete": True, "depth": 7},
    "Jl2": {"judged_only": True, "relevance_level": 2},
    "cJl2M20": {"complete": True, "judged_only": True, "relevance_level": 2, "depth": 20},
}
SEEDS_PER_BLOCK = 60
BLOCKS = 2  # seeds 0 .. SEEDS_PER_BLOCK * BLOCKS - 1 for every option set
CASES = len(OPTIONS) * SEEDS_PER_BLOCK * BLOCKS  # random (collection, options) cases compared


def collection_for(seed: int):
    """Small and larger collections in turn, so cutoffs 5 to 1000 fall both inside and past the rankings."""
    sizes = [(10, 60), (4, 8), (25, 150), (2, 400)]
    max_queries, max_docs = sizes[seed % len(sizes)]
    return random_collection(seed, max_queries=max_queries, max_docs=max_docs)


def oracle(collection, options: dict) -> dict:
    run = collection.run
    if options.get("depth"):
        run = {q: {d: docs[d] for d in trec_order(docs)[: options["depth"]]} for q, docs in run.items()}
    if options.get("complete"):
        run = {**{q: {} for q in collection.qrels}, **run}
    merged: dict = {}
    for family in FAMILIES:
        evaluator = pytrec_eval.RelevanceEvaluator(
            collection.qrels, {family}, relevance_level=options.get("relevance_level", 1),
            judged_docs_only_flag=options.get("judged_only", False))
        for query, values in evaluator.evaluate(run).items():
            merged.setdefault(query, {}).update(values)
    return merged


def close(mine: float, want: float) -> bool:
    """Equal to 1e-9, NaN only where the oracle has NaN."""
    return abs(mine - want) <= 1e-9 or (math.isnan(mine) and math.isnan(want))


def compare(seed: int, options: dict) -> int:
    """Compare one case per query and in aggregate; return the number of per-query values compared."""
    collection = collection_for(seed)
    expected = oracle(collection, options)
    got = evaluate(collection.qrels_text, {"sys": collection.run_text}, FAMILIES, **options)
    table = {(q, m): v for q, m, v in zip(got["query"], got["measure"], got["value"])}
    assert set(got["query"]) == set(expected), f"seed {seed}: evaluated queries differ"
    assert set(got["measure"]) == {label for values in expected.values() for label in values}, \
        f"seed {seed}: measure labels differ"
    compared = 0
    per_label: dict[str, list[float]] = {}
    for query, values in expected.items():
        for label, value in values.items():
            mine = table[(query, label)]
            if label.startswith("gm_"):
                mine = math.log(max(mine, 1e-5))  # pytrec_eval reports the per-query log
            if query not in collection.run:
                # -c: pytrec_eval's values for the empty ranking the emulation hands it depend on what it
                # evaluated before in the process (all 0, even num_rel and gm_map, when it is the first), so
                # these queries are held to trec_eval -c itself (test_trec_eval_binaries.py), and here only
                # enter the aggregates
                per_label.setdefault(label, []).append(mine)
                continue
            per_label.setdefault(label, []).append(value)
            # -J can empty a ranking: trec_eval then prints nan for iprec_at_recall_0.00 and 11pt_avg
            assert close(mine, value), f"seed {seed} query {query} {label}: {mine!r} != {value!r}"
            compared += 1
    by_label = {label: group.to_numpy() for label, group in got.groupby("measure", sort=False)["value"]}
    for label, values in per_label.items():
        want = pytrec_eval.compute_aggregated_measure(label, values)
        mine = parse_measure(label).aggregate(by_label[label])
        assert close(mine, want), f"seed {seed} all {label}: {mine!r} != {want!r}"
    return compared


@pytest.mark.parametrize("block", range(BLOCKS))
@pytest.mark.parametrize("name", list(OPTIONS))
def test_per_query_and_aggregate_equal_pytrec_eval(name, block):
    seeds = range(block * SEEDS_PER_BLOCK, (block + 1) * SEEDS_PER_BLOCK)
    compared = sum(compare(seed, OPTIONS[name]) for seed in seeds)
    assert compared >= SEEDS_PER_BLOCK * 100  # every case compares dozens of values


def test_the_cases_cover_the_edge_cases():
    """The random collections really contain what the comparison is meant to exercise."""
    import numpy as np

    seen = dict.fromkeys(["tie", "float32 near-tie", "negative grade", "grade >= 2", "unjudged retrieved",
                          "judged topic not retrieved", "retrieved topic not judged", "no relevant document",
                          "ranking shorter than 10", "ranking longer than 100"], 0)
    for seed in range(SEEDS_PER_BLOCK * BLOCKS):
        col = collection_for(seed)
        for q, docs in col.run.items():
            scores = list(docs.values())
            seen["tie"] += len(set(scores)) < len(scores)
            seen["float32 near-tie"] += len(set(np.float32(scores))) < len(set(scores))
            seen["unjudged retrieved"] += any(d not in col.qrels.get(q, {}) for d in docs)
            seen["retrieved topic not judged"] += q not in col.qrels
            seen["ranking shorter than 10"] += len(docs) < 10
            seen["ranking longer than 100"] += len(docs) > 100
        for q, grades in col.qrels.items():
            seen["negative grade"] += any(g < 0 for g in grades.values())
            seen["grade >= 2"] += any(g >= 2 for g in grades.values())
            seen["judged topic not retrieved"] += q not in col.run
            seen["no relevant document"] += all(g < 1 for g in grades.values())
    assert all(count >= 10 for count in seen.values()), seen
