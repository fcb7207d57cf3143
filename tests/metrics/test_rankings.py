"""Ranking: whatever the order of a run's lines, the same ranked arrays (and so the same numbers)."""

from __future__ import annotations

import numpy as np
import pytest

from metrics import rank_runs
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
