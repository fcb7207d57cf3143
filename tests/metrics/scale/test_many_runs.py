"""Many tiny runs: what evaluating them holds grows with their rows, not with a table of its own for each run.

A run of fifteen lines evaluated on two measures gives six rows; held as a table of its own it cost about
8 KB (100,000 runs: 0.8 GB before anything was compared). The tables are now put together as they arrive
(:data:`metrics.scale.pool.BATCH` at a time), and the result equals the in-process evaluation, bit for bit.
"""

from __future__ import annotations

import random
import tracemalloc

import pandas as pd
import pytest

import metrics
from metrics.scale import evaluate_parallel

pytestmark = pytest.mark.slow
RUNS = 600  # six batches
PER_RUN_BYTES = 3_000  # at most, at the peak: six rows and a share of the tables put together


def _collection(runs: int) -> tuple[bytes, dict[str, bytes]]:
    rnd = random.Random(7)
    qrels = "".join(f"{t} 0 d{d} {(t + d) % 3}\n" for t in range(1, 4) for d in range(10)).encode()
    return qrels, {f"r{i:05d}": "".join(f"{t} Q0 d{d} {d + 1} {rnd.random():.4f} r{i}\n"
                                        for t in range(1, 4) for d in range(5)).encode()
                   for i in range(runs)}


def test_the_memory_of_many_tiny_runs_is_that_of_their_rows():
    qrels, runs = _collection(RUNS)
    shuffled = dict(random.Random(3).sample(list(runs.items()), len(runs)))
    evaluate_parallel(qrels, dict(list(runs.items())[:3]), ["AP", "nDCG@10"])  # the libraries imported first
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        got = evaluate_parallel(qrels, shuffled, ["AP", "nDCG@10"])
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    assert peak / RUNS <= PER_RUN_BYTES, f"{peak / RUNS:,.0f} bytes a run at the peak, {RUNS} runs"
    expected = metrics.evaluate(qrels, runs, ["AP", "nDCG@10"])  # systems in order of name, as evaluate_parallel's
    pd.testing.assert_frame_equal(got, expected, check_exact=True)
