"""The collection summary: counts per grade, and each run's topics, depths and judged share, against pandas."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from metrics import read_qrels, read_run
from metrics.review.collection import describe_collection


def _textbook_systems(qrels, runs) -> pd.DataFrame:
    """Each run's row from its DataFrame: a group-by per topic and a set of the judged (topic, document) pairs."""
    qf = qrels.frame
    judged_topics = set(qf["query"])
    judged_pairs = set(zip(qf["query"], qf["docid"]))
    rows = []
    for run in runs:
        rf = run.frame
        depth = rf.groupby("query").size()
        hits = [(q, d) in judged_pairs for q, d in zip(rf["query"], rf["docid"])]
        rows.append({"system": run.name, "topics": len(depth), "judged_topics_answered": len(judged_topics & set(depth.index)),
                     "documents": len(rf), "min_depth": int(depth.min()), "max_depth": int(depth.max()),
                     "judged_share": float(np.mean(hits))})
    return pd.DataFrame(rows)


def _collection(seed: int):
    rng = np.random.default_rng(seed)
    numeric = seed % 2 == 0
    doc = (lambda i: str(i)) if numeric else (lambda i: f"clueweb09-en{i:07d}")
    topics = [str(t) for t in rng.choice(400, size=int(rng.integers(1, 40)), replace=False)]
    qrels = []
    for t in topics:
        for d in rng.choice(3000, size=int(rng.integers(1, 60)), replace=False):
            qrels.append(f"{t} 0 {doc(d)} {rng.choice([-1, 0, 0, 1, 2, 3])}\n")
    runs = []
    for s in range(int(rng.integers(1, 4))):
        asked = list(rng.choice(topics, size=int(rng.integers(1, len(topics) + 1)), replace=False))
        asked += [str(400 + t) for t in range(int(rng.integers(0, 4)))]  # topics without judgments
        lines = []
        for t in asked:
            docs = rng.choice(3000, size=int(rng.integers(1, 3000 if seed % 5 == 0 else 80)), replace=False)
            lines += [f"{t} Q0 {doc(d)} {i + 1} {len(docs) - i} run{s}\n" for i, d in enumerate(docs)]
        if seed % 3 == 0 and len(lines) > 2:  # one topic's lines in two places
            cut = int(rng.integers(1, len(lines)))
            lines = lines[cut:] + lines[:cut]
        runs.append(read_run("".join(lines), name=f"run{s}"))
    return read_qrels("".join(qrels), name="q"), runs


@pytest.mark.parametrize("seed", range(20))
def test_the_systems_table_agrees_with_pandas(seed):
    qrels, runs = _collection(seed)
    summary = describe_collection(qrels, runs)
    expected = _textbook_systems(qrels, runs)
    pd.testing.assert_frame_equal(summary.systems.reset_index(drop=True), expected, check_dtype=False, rtol=0, atol=1e-12)
    assert summary.n_topics == qrels.frame["query"].nunique()
    assert summary.n_judged == len(qrels)


@pytest.mark.parametrize("numeric", [True, False])
def test_a_run_long_enough_for_the_filtered_lookup_is_counted_exactly(numeric):
    # 90,000 lines: the document codes go through the hashed filter (runs of 65,536 lines or more)
    rng = np.random.default_rng(7)
    doc = str if numeric else (lambda i: f"D{i}")
    qrels = read_qrels("".join(f"{t} 0 {doc(d)} {g}\n" for t in range(30) for d, g in
                               zip(rng.choice(5000, 200, replace=False), rng.integers(-1, 3, 200))), name="q")
    run = read_run("".join(f"{t} Q0 {doc(d)} {i + 1} {-i} r\n" for t in range(2, 32)
                           for i, d in enumerate(rng.choice(5000, 3000, replace=False))), name="r")
    assert len(run) >= 1 << 16
    pd.testing.assert_frame_equal(describe_collection(qrels, [run]).systems, _textbook_systems(qrels, [run]),
                                  check_dtype=False, rtol=0, atol=1e-12)
