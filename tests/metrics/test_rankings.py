"""Ranking: whatever the order of a run's lines, the same ranked arrays (and so the same numbers)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from metrics import ValidationError, rank_runs
from metrics.evaluate import per_query_frame, resolve_measures
from metrics.rankings import NONPOOL, UNJUDGED, grades_or_nan
from tests.random_collections import random_collection


def _ranked(qrels_text: str, run_text: str):
    r = rank_runs(qrels_text, [run_text])[0]
    return r.queries.tolist(), r.offsets.tolist(), r.rel.tolist(), r.docids().tolist()


@pytest.mark.parametrize("seed", range(20))
def test_query_blocks_in_any_order_rank_like_a_full_shuffle(seed):
    collection = random_collection(seed)
    lines = [line for line in collection.run_text.splitlines() if line.strip()]
    rng = np.random.default_rng(seed)
    # the usual layout: each query's lines together, by score, queries in an arbitrary order
    blocks: dict[str, list[tuple[float, str]]] = {}
    for line in lines:
        fields = line.split()
        blocks.setdefault(fields[0], []).append((-float(fields[4]), line))
    order = list(blocks)
    rng.shuffle(order)
    blocked = "".join(line + "\n" for q in order for _, line in sorted(blocks[q], key=lambda t: t[0]))
    shuffled = "".join(line + "\n" for line in rng.permutation(lines))
    assert _ranked(collection.qrels_text, blocked) == _ranked(collection.qrels_text, shuffled)


def test_numeric_topic_order_is_reordered_byte_wise():
    qrels = "9 0 a 1\n10 0 b 1\n100 0 c 1\n"
    run = "9 Q0 a 1 3 x\n9 Q0 z 2 1 x\n10 Q0 b 1 2 x\n100 Q0 y 1 5 x\n100 Q0 c 2 4 x\n"
    queries, offsets, rel, docids = _ranked(qrels, run)
    assert queries == ["10", "100", "9"]
    assert docids == ["b", "y", "c", "a", "z"]
    assert offsets == [0, 1, 3, 5]


@pytest.mark.parametrize("seed", range(12))
def test_select_queries_keeps_every_measure_of_the_kept_queries(seed):
    c = random_collection(seed)
    flipped = "\n".join(" ".join(f if i != 4 else repr(-float(f)) for i, f in enumerate(line.split()))
                        for line in c.run_text.splitlines() if line.strip()) + "\n"
    ranked = rank_runs(c.qrels_text, {"s": c.run_text, "t": flipped}, complete=seed % 2 == 0)
    pairs = resolve_measures(["AP", "nDCG@5", "P@3", "RR", "R@10", "IPrecAvg", "ERR@5"])
    for r in ranked:
        keep = list(r.queries[::2]) + ["no-such-topic"]
        part = r.select_queries(keep)
        assert part.queries.tolist() == list(r.queries[::2])
        assert (part.system, part.conventions, part.run) == (r.system, r.conventions, r.run)
        whole = per_query_frame(r, pairs)
        cut = per_query_frame(part, pairs)
        expected = whole[whole["query"].isin(part.queries)].reset_index(drop=True)
        pd.testing.assert_frame_equal(cut, expected)


def test_select_queries_of_nothing_is_empty_and_checks_its_input():
    r = rank_runs(random_collection(1).qrels_text, [random_collection(1).run_text])[0]
    empty = r.select_queries(["nope"])
    assert empty.n_queries == 0 and len(empty.rel) == 0 and empty.offsets.tolist() == [0]
    for one_string in ("401", b"401"):
        with pytest.raises(ValidationError, match="^queries: expected a sequence of query ids, found one string$"):
            r.select_queries(one_string)


def test_grades_or_nan_marks_what_has_no_grade():
    codes = np.array([3, 0, 1, NONPOOL, UNJUDGED])
    assert grades_or_nan(codes)[:3].tolist() == [3.0, 0.0, 1.0]
    assert np.isnan(grades_or_nan(codes)[3:]).all()


@pytest.mark.parametrize("seed", range(6))
def test_pos_counts_from_one_in_every_query_as_a_loop_does(seed):
    from metrics.rankings import Rankings

    rng = np.random.default_rng(seed)
    lengths = rng.choice([0, 0, 1, 2, 7, 1000], size=int(rng.integers(1, 40)))  # empty queries among others
    offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    n = int(offsets[-1])
    rankings = Rankings(system="s", queries=np.array([str(i) for i in range(len(lengths))], dtype=object),
                        offsets=offsets, rel=np.zeros(n, dtype=np.int64), rows=np.arange(n),
                        rel_levels=np.zeros((len(lengths), 2), dtype=np.int64), grade_values=np.array([0, 1]),
                        conventions=None, run=None)
    expected = [r for length in lengths for r in range(1, int(length) + 1)]
    assert rankings.pos.tolist() == expected and rankings.pos.dtype == np.int64
