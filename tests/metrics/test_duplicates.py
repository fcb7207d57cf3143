"""Duplicate (query, document) pairs: the fast suspect search never misses one; policies keep the right row."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics import ParseError, read_run
from metrics.io.duplicates import dedupe, suspects

PAIRS = st.lists(st.tuples(st.sampled_from(["1", "2", "10", "x"]),
                           st.one_of(st.integers(0, 30).map(str), st.sampled_from(["007", "7", "d", "D", "é"]))),
                 min_size=0, max_size=60)


def table_of(pairs, scores=None):
    scores = scores if scores is not None else [float(i % 7) for i in range(len(pairs))]
    return pa.table({"query": pa.array([q for q, _ in pairs], pa.string()),
                     "docid": pa.array([d for _, d in pairs], pa.string()),
                     "score": pa.array(scores, pa.float64())})


@settings(max_examples=150, deadline=None)
@given(PAIRS, st.booleans())
def test_suspects_include_every_duplicate(pairs, grouped):
    if grouped:
        pairs = sorted(pairs, key=lambda p: p[0])
    frame = pd.DataFrame(pairs, columns=["query", "docid"])
    truth = set(np.flatnonzero(frame.duplicated(keep=False).to_numpy()))
    found = suspects(table_of(pairs))
    assert truth <= set(found.tolist())
    assert list(found) == sorted(found)


@settings(max_examples=150, deadline=None)
@given(PAIRS, st.sampled_from(["first", "last", "max"]))
def test_policies_keep_what_pandas_keeps(pairs, policy):
    table = table_of(pairs)
    frame = table.to_pandas()
    if policy == "max":
        expected = (frame.assign(row=np.arange(len(frame))).sort_values(["score", "row"], ascending=[False, True])
                    .drop_duplicates(["query", "docid"]).sort_values("row").drop(columns="row"))
    else:
        expected = frame.drop_duplicates(["query", "docid"], keep=policy)
    got = dedupe(table, "t", None, policy, "score").to_pandas()
    assert got.reset_index(drop=True).equals(expected.reset_index(drop=True))


def test_error_names_the_second_line_and_the_first():
    table = table_of([("1", "a"), ("1", "b"), ("2", "a"), ("1", "c"), ("1", "b"), ("1", "a")])
    with pytest.raises(ParseError, match=r'^t:5: duplicate document "b" for query "1" \(first on line 2\)'):
        dedupe(table, "t", None, "error", "score")
    with pytest.raises(ParseError, match=r"^t:50: .*\(first on line 20\)"):
        dedupe(table, "t", np.arange(10, 70, 10), "error", "score")


def test_one_long_query_among_short_ones_and_shuffled_files():
    # padding every query to the longest would need far more memory: the (query, hash) sort is used instead
    pairs = [("big", str(i)) for i in range(5000)] + [(str(q), "d") for q in range(3000)] + [("big", "4999")]
    assert {4999, 8000} <= set(suspects(table_of(pairs)).tolist())
    order = np.random.default_rng(0).permutation(len(pairs))
    shuffled = [pairs[i] for i in order]
    found = set(suspects(table_of(shuffled)).tolist())
    assert {int(np.flatnonzero(order == 8000)[0]), int(np.flatnonzero(order == 4999)[0])} <= found


def test_numeric_ids_that_read_as_equal_numbers_are_not_duplicates():
    run = read_run("1 Q0 7 1 2 x\n1 Q0 007 2 1 x\n1 Q0 +7 3 0 x\n", name="x")
    assert len(run) == 3


@pytest.mark.parametrize("ids", [[str(i) for i in range(6)], [f"doc-{i}" for i in range(6)]])
def test_equal_length_queries_numeric_and_string_ids(ids):
    # every query 6 lines long (the reshaped fast path); a repeat in the second query, ids 2**32 apart
    pairs = [(q, d) for q in ("1", "2", "3") for d in ids]
    pairs[8] = ("2", ids[1])
    assert set(suspects(table_of(pairs)).tolist()) >= {7, 8}
    assert len(dedupe(table_of(pairs), "t", None, "first", "score")) == 17
    far = [("1", "5"), ("1", str(5 + 2 ** 32)), ("2", "5"), ("2", "6")]
    assert suspects(table_of(far)).tolist() == [0, 1]  # same low 32 bits: suspects, not duplicates
    assert len(dedupe(table_of(far), "t", None, "error", "score")) == 4


def textbook_string_hash(text: str) -> int:
    """The documented hash, one string at a time: its length, then three 8-byte little-endian windows."""
    b = text.encode("utf-8")
    mask = 2 ** 64 - 1
    h = (len(b) * 0x9E3779B97F4A7C15) & mask
    span = max(len(b) - 8, 0)
    for k in range(3):
        at = span * k // 2
        h ^= int.from_bytes(b[at:at + 8].ljust(8, b"\0"), "little")
        h = (h * 0xFF51AFD7ED558CCD) & mask
        h ^= h >> 29
    return h


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(min_size=0, max_size=40), min_size=0, max_size=40), st.integers(0, 5), st.integers(1, 4))
def test_string_hash_is_the_textbook_hash_whatever_the_chunks(texts, skip, parts):
    from metrics.io.duplicates import string_hash

    array = pa.array(texts, pa.string()).slice(min(skip, len(texts)))  # an offset into the buffers
    kept = texts[min(skip, len(texts)):]
    cuts = sorted({0, len(kept), *np.linspace(0, len(kept), parts + 1).astype(int).tolist()})
    chunked = pa.chunked_array([array.slice(a, b - a) for a, b in itertools.pairwise(cuts)] or [array], pa.string())
    expected = [textbook_string_hash(t) for t in kept]
    assert string_hash(array).tolist() == expected
    assert string_hash(chunked).tolist() == expected
    assert string_hash(pa.array(kept, pa.large_string())).tolist() == expected


def test_string_ids_of_every_length_find_every_duplicate():
    rng = np.random.default_rng(3)
    alphabet = np.array(list("abcXYZ0189-_#é"))
    ids = ["".join(rng.choice(alphabet, size=int(n))) for n in rng.integers(1, 60, 3000)]
    pairs = [(str(q), ids[int(i)]) for q, i in zip(rng.integers(0, 40, 6000), rng.integers(0, 3000, 6000))]
    pairs.sort(key=lambda p: p[0])
    truth = np.flatnonzero(pd.DataFrame(pairs).duplicated(keep=False).to_numpy())
    assert len(truth) > 50
    found = suspects(table_of(pairs))
    assert set(truth) <= set(found.tolist()) and len(found) <= len(truth) + 5  # a hash collision or two at most
