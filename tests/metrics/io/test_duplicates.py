"""Duplicate (query, document) pairs: the fast suspect search never misses one; policies keep the right row."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics import ParseError, read_run
from metrics.io.duplicates import dedupe, duplicate_rows, suspects
from tests.cpu_time import best_in_turns

PAIRS = st.lists(st.tuples(st.sampled_from(["1", "2", "10", "x"]),
                           st.one_of(st.integers(0, 30).map(str), st.sampled_from(["007", "7", "0x7", "-0", "00", "d", "D", "é"]))),
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
    assert set(duplicate_rows(table_of(pairs))[0].tolist()) == truth


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


@settings(max_examples=100, deadline=None)
@given(PAIRS, st.sampled_from(["first", "last", "max"]), st.booleans())
def test_a_read_run_knows_the_query_blocks_of_the_lines_it_kept(pairs, policy, from_file):
    # the blocks the duplicate check finds become the run's own only when it drops no line
    text = "".join(f"{q} Q0 {d} {i + 1} {i % 7} t\n" for i, (q, d) in enumerate(pairs))
    source = text.encode() if from_file else pd.DataFrame(
        {"query": [q for q, _ in pairs], "docid": [d for _, d in pairs],
         "score": [float(i % 7) for i in range(len(pairs))], "rank": np.arange(1.0, len(pairs) + 1)})
    if not pairs and from_file:
        return  # an empty file is an error of its own
    run = read_run(source, name="r", duplicates=policy)
    query = run.table.column("query").to_pylist()
    assert run.query_starts.tolist() == [i for i in range(len(query)) if i == 0 or query[i] != query[i - 1]]
    assert run.queries == tuple(sorted(set(query), key=str.encode))
    assert run.renamed("other").query_starts.tolist() == run.query_starts.tolist()


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
    # every query 6 lines long (the reshaped fast path); a repeat in the second query
    pairs = [(q, d) for q in ("1", "2", "3") for d in ids]
    pairs[8] = ("2", ids[1])
    assert set(suspects(table_of(pairs)).tolist()) >= {7, 8}
    assert len(dedupe(table_of(pairs), "t", None, "first", "score")) == 17
    a, b = _colliding_decimals(1)[0]  # two numbers whose 32-bit hashes are equal; 5 and 05 differ in the key
    far = [("1", a), ("1", b), ("2", "5"), ("2", "6"), ("3", "5"), ("3", "05")]
    assert suspects(table_of(far)).tolist() == [0, 1]  # suspects, not duplicates
    assert len(dedupe(table_of(far), "t", None, "error", "score")) == 6


def textbook_string_hash(text: str, windows) -> int:
    """The documented hash, one string at a time: its length, then an 8-byte little-endian word per window,
    from min(window, length - 8), or length + window for a negative one (the string's own bytes,
    zero-padded, when shorter than 8)."""
    b = text.encode("utf-8")
    mask = 2 ** 64 - 1
    h = (len(b) * 0x9E3779B97F4A7C15) & mask
    for w in windows:
        at = 0 if len(b) < 8 else min(w, len(b) - 8) if w >= 0 else max(len(b) + w, 0)
        h ^= int.from_bytes(b[at:at + 8].ljust(8, b"\0"), "little")
        h = (h * 0xFF51AFD7ED558CCD) & mask
        h ^= h >> 29
    return h


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(min_size=0, max_size=90), min_size=0, max_size=40), st.integers(0, 5), st.integers(1, 4),
       st.lists(st.sampled_from([0, 3, 8, 16, 24, 40, -8, -16, -40]), min_size=1, max_size=5))
def test_string_hash_is_the_textbook_hash_whatever_the_chunks(texts, skip, parts, windows):
    from metrics.io.ids import choose_windows, string_hash

    array = pa.array(texts, pa.string()).slice(min(skip, len(texts)))  # an offset into the buffers
    kept = texts[min(skip, len(texts)):]
    cuts = sorted({0, len(kept), *np.linspace(0, len(kept), parts + 1).astype(int).tolist()})
    chunked = pa.chunked_array([array.slice(a, b - a) for a, b in itertools.pairwise(cuts)] or [array], pa.string())
    windows = tuple(windows)
    expected = [textbook_string_hash(t, windows) for t in kept]
    assert string_hash(array, windows).tolist() == expected
    assert string_hash(chunked, windows).tolist() == expected
    assert string_hash(pa.array(kept, pa.large_string()), windows).tolist() == expected
    same = [t for t in kept for _ in range(2)]  # equal strings hash equal with the chosen windows too
    h = string_hash(pa.array(same, pa.string()))
    assert (h[0::2] == h[1::2]).all()
    if kept:
        chosen = choose_windows(array)
        assert string_hash(chunked).tolist() == [textbook_string_hash(t, chosen) for t in kept]


def test_ids_up_to_forty_bytes_are_hashed_whole_and_longer_ones_where_they_vary():
    from metrics.io.ids import choose_windows, string_hash

    ids = [f"clueweb09-en{i % 12:04d}-{i % 100:02d}-{i:05d}" for i in range(5000)]
    assert choose_windows(pa.array(ids)) == (0, 8, 16, 24)  # 25 bytes: words 0, 8, 16 and bytes 17-24
    h = string_hash(pa.array(ids))
    assert len(set(h.tolist())) == len(ids)
    # addresses alike in their first, middle and last 8 bytes: the varying words are chosen
    urls = [f"https://www.site{i % 977:04d}.org/{['news', 'sport'][i % 2]}/{1995 + i % 30}/{i}/index.html"
            for i in range(20000)]
    chosen = choose_windows(pa.array(urls))
    assert 2 <= len(chosen) <= 4 and 0 not in chosen and -8 not in chosen  # not "https://w" nor "dex.html"
    assert len(set(string_hash(pa.array(urls)).tolist())) > 19_990


def test_long_ids_are_hashed_on_the_fewest_words_that_tell_them_apart_and_one_more():
    from metrics.io.ids import choose_windows, string_hash

    # one word (the number, bytes 24-31) tells these apart: it and the next most varied are read
    ids = [f"https://www.example.org/{i:08d}/section-{i % 3}/index.html" for i in range(6000)]
    chosen = choose_windows(pa.array(ids))
    assert len(chosen) == 2 and chosen[0] == 24
    assert len(set(string_hash(pa.array(ids), chosen[:1]).tolist())) == len(ids)
    # ids that differ in many places, each word of a few values only: more words, never over four
    rng = np.random.default_rng(5)
    words = ["".join(rng.choice(list("ab"), 8)) for _ in range(4)]
    many = [f"{rng.choice(words)}{rng.choice(words)}{rng.choice(words)}{rng.choice(words)}{rng.choice(words)}x"
            for _ in range(3000)]
    assert len(choose_windows(pa.array(many))) == 4


def test_string_ids_of_every_length_find_every_duplicate():
    rng = np.random.default_rng(3)
    alphabet = np.array(list("abcXYZ0189-_#é"))
    ids = ["".join(rng.choice(alphabet, size=int(n))) for n in rng.integers(1, 60, 3000)]
    pairs = [(str(q), ids[int(i)]) for q, i in zip(rng.integers(0, 40, 6000), rng.integers(0, 3000, 6000))]
    pairs.sort(key=lambda p: p[0])
    truth = np.flatnonzero(pd.DataFrame(pairs).duplicated(keep=False).to_numpy())
    assert len(truth) > 50
    assert set(truth) <= set(suspects(table_of(pairs)).tolist())
    rows, group = duplicate_rows(table_of(pairs))
    assert rows.tolist() == truth.tolist()  # exactly the repeated pairs' rows, each pair one group
    keys = [pairs[r] for r in rows]
    assert len(set(group.tolist())) == len(set(keys)) and all(
        (group[i] == group[j]) == (keys[i] == keys[j]) for i in range(len(keys)) for j in range(0, len(keys), 7))


# ---- files made to collide ----------------------------------------------------------------------------------
def _colliding_pairs(count: int) -> list[tuple[str, str]]:
    """``count`` pairs of distinct ``D``-prefixed ids with equal 32-bit hashes (a birthday search)."""
    from metrics.io.ids import hash32

    ids = np.array([f"D{n}" for n in range(1 << 20)], dtype=object)
    h = hash32(pa.array(ids, pa.string()))
    order = np.argsort(h, kind="stable")
    same = np.flatnonzero(h[order][1:] == h[order][:-1])
    same = same[np.diff(np.concatenate([[-2], same])) > 1][:count]
    assert len(same) == count, "the search found too few colliding pairs"
    return [(ids[order[i]], ids[order[i + 1]]) for i in same]


def _colliding_decimals(count: int) -> list[tuple[str, str]]:
    """``count`` pairs of distinct 11-digit numbers with equal 32-bit hashes: keys whose halves xor alike
    (k and k + 2**32 + 1, with bits 0 and 32 of k clear), written back as the texts they key."""
    from metrics.io.ids import decimal_key, hash32

    first = int(decimal_key(pa.array(["0" * 11]))[0])  # the key of the first 11-digit text
    keys = [3 * 2 ** 33 + 16 * p for p in range(count)]
    pairs = [(str(k - first), str(k + 2 ** 32 + 1 - first)) for k in keys]
    flat = pa.array([d for pair in pairs for d in pair])
    assert all(len(d) == 11 for d in flat.to_pylist()) and len(set(flat.to_pylist())) == 2 * count
    assert (hash32(flat)[0::2] == hash32(flat)[1::2]).all()
    return pairs


def _run_bytes(ids_of_topic, topics: int) -> bytes:
    lines = []
    for t in range(topics):
        ids = ids_of_topic(t)
        lines += [f"{1000 + t} Q0 {d} {r + 1} {len(ids) - r} x\n" for r, d in enumerate(ids)]
    return "".join(lines).encode()


@pytest.fixture(scope="module")
def crafted_and_clean():
    """Files of 400 topics x 256 lines: every id of a topic shares its 32-bit hash with another id of that
    topic (text ids; 11-digit numbers), and a clean file of the same shape. No id is repeated within a
    topic."""
    pairs = _colliding_pairs(128)
    text = [d for pair in pairs for d in pair]
    rng = np.random.default_rng(5)
    crafted = _run_bytes(lambda t: [text[i] for i in rng.permutation(len(text))], 400)
    numbers = [d for pair in _colliding_decimals(128) for d in pair]
    numeric = _run_bytes(lambda t: [numbers[i] for i in rng.permutation(len(numbers))], 400)
    clean = _run_bytes(lambda t: [f"D{t * 1000 + i}" for i in range(256)], 400)
    return {"text": crafted, "numeric": numeric}, clean


def test_crafted_collisions_are_suspects_and_no_duplicate(crafted_and_clean):
    crafted, clean = crafted_and_clean
    for data in crafted.values():
        run = read_run(data, name="x")
        assert len(suspects(run.table)) == run.table.num_rows == 102_400  # every row, and nothing dropped
    assert len(suspects(read_run(clean, name="x").table)) == 0


def _with_planted_duplicates(data: bytes, every: int) -> tuple[bytes, pd.DataFrame]:
    """The lines of ``data`` with every ``every``-th line written again further down its topic (its document
    id repeated, another score), and the file's (query, document) pairs in order."""
    lines = data.decode().splitlines(keepends=True)
    out = []
    for i, line in enumerate(lines):
        out.append(line)
        if i % every == every - 1:
            query, _, doc, *_ = lines[i - every // 2].split()
            if line.split()[0] == query:
                out.append(f"{query} Q0 {doc} 0 -1 x\n")
    pairs = pd.DataFrame([line.split()[:3:2] for line in out], columns=["query", "docid"])
    return "".join(out).encode(), pairs


@pytest.mark.parametrize("kind", ["text", "numeric"])
def test_the_check_stays_exact_on_a_file_made_to_collide(crafted_and_clean, kind):
    # real duplicates among ids that all share their hashes: exactly those are found, and each policy keeps
    # what pandas keeps on the same pairs (the oracle compares the strings themselves)
    data, pairs = _with_planted_duplicates(crafted_and_clean[0][kind], 97)
    truth = np.flatnonzero(pairs.duplicated(keep=False).to_numpy())
    assert len(truth) > 1000  # some per topic: the check has to tell them from the colliding ones
    table = read_run(data, name="x", duplicates="first").table
    assert table.num_rows == len(pairs) - pairs.duplicated().sum()
    kept = pd.DataFrame({"query": table["query"].to_pylist(), "docid": table["docid"].to_pylist()})
    expected = pairs.drop_duplicates(keep="first")
    assert kept.reset_index(drop=True).equals(expected.reset_index(drop=True))
    first = int(np.flatnonzero(pairs.duplicated().to_numpy())[0])
    earlier = int(np.flatnonzero((pairs[["query", "docid"]] == pairs.iloc[first]).all(axis=1).to_numpy())[0])
    with pytest.raises(ParseError, match=rf"^x:{first + 1}: duplicate document .* \(first on line {earlier + 1}\)"):
        read_run(data, name="x")


@pytest.mark.parametrize("kind", ["text", "numeric"])
def test_reading_a_file_made_to_collide_costs_a_small_multiple_of_a_clean_one(crafted_and_clean, kind):
    # CPU time per line of the crafted file over that of the clean file of the same number of lines: a ratio
    # within one run, the two read in turns (tests.cpu_time), never an absolute time. A search over all rows
    # on any collision (pandas' MultiIndex and isin over every line, then the suspects' strings compared as
    # Python objects) took 6-30 times the clean file's time; comparing only the suspects, in arrow, about
    # 1.5-2.5 times.
    crafted, clean = crafted_and_clean
    data = crafted[kind]
    bad, good = best_in_turns(lambda d: read_run(d, name="x"), (data, clean), rounds=5)
    ratio = (bad / data.count(b"\n")) / (good / clean.count(b"\n"))
    assert ratio < 4.0, f"a file made to collide costs {ratio:.1f} times a clean one per line"


def test_decimal_ids_are_keyed_one_for_one_and_other_numbers_by_their_text():
    from metrics.io.ids import keyed, string_hash

    # every text of one to four digits, ordered by length, then number: its key is its place in that order
    texts = [str(n).zfill(width) for width in range(1, 5) for n in range(10 ** width)]
    keys, exact = keyed(pa.chunked_array([texts[:5000], texts[5000:]]))
    assert exact and keys.tolist() == list(range(len(texts)))
    longest = ["9223372036854775807", "0000000000000000001", "1000000000000000000", "999999999999999999"]
    keys, exact = keyed(pa.array(longest))
    first19 = sum(10 ** k for k in range(1, 19))  # the texts shorter than 19 digits
    assert exact and keys.tolist() == [2 ** 63 - 1 + first19, 1 + first19, 10 ** 18 + first19,
                                       10 ** 18 - 1 + first19 - 10 ** 18]
    # a sign, a hexadecimal number, 20 digits, a number past 2**63 - 1, in any chunk: the text's hash
    for other in ["+7", "-0", "0x1F", "0" * 20, "9223372036854775808", "1.5", "7 "]:
        column = pa.chunked_array([["7", "07", "8"], [other]])
        keys, exact = keyed(column)
        assert not exact and keys.tolist() == string_hash(column).tolist(), other
    # and the rows are told apart as their texts are
    alike = [("1", "0x1F"), ("1", "0031"), ("1", "-0"), ("1", "00"), ("2", "0031"), ("2", "0031"), ("2", "31")]
    assert duplicate_rows(table_of(alike))[0].tolist() == [4, 5]
    assert duplicate_rows(table_of([(q, d) for q, d in alike if d.isdigit()]))[0].tolist() == [2, 3]


def test_hashes_and_codes_are_the_same_on_threads_as_in_one(monkeypatch):
    from metrics.io import ids as id_module
    from metrics.io.ids import codes_in, id_keys, string_hash

    rng = np.random.default_rng(11)
    text = [f"https://www.example.org/{int(i)}/index.html" for i in rng.integers(0, 50_000, 90_000)]
    numbers = [str(int(i)) for i in rng.integers(0, 10**12, 90_000)]
    judged = pa.array(sorted(set(text[::7])))
    expected = {}
    for threaded in (False, True):
        monkeypatch.setattr(id_module, "_THREADED_ROWS", 0 if threaded else 1 << 60)
        monkeypatch.setattr(pa, "cpu_count", lambda: 2 if threaded else 1)
        ids = pa.chunked_array([text[i:i + 7000] for i in range(0, len(text), 7000)])
        nums = pa.chunked_array([numbers[i:i + 7000] for i in range(0, len(numbers), 7000)])
        got = {"hash": string_hash(ids), "keys": id_keys(nums), "codes": codes_in(ids, judged)}
        if threaded:
            for name, value in got.items():
                np.testing.assert_array_equal(value, expected[name], err_msg=name)
        expected = got
    lookup = {d: i for i, d in enumerate(judged.to_pylist())}
    assert expected["codes"].tolist() == [lookup.get(d, -1) for d in text]


@pytest.mark.parametrize("shape", ["equal", "ragged", "one long among short"])
@pytest.mark.parametrize("dtype", [np.uint64, np.float64, np.float32])
def test_sorted_within_sorts_each_segment_and_keeps_it_in_place(shape, dtype):
    from metrics.io.arrays import sorted_within

    rng = np.random.default_rng(len(shape))
    lengths = {"equal": np.full(50, 40), "ragged": rng.integers(1, 60, 50),
               "one long among short": np.append(rng.integers(1, 4, 200), 5000)}[shape]
    starts = np.cumsum(lengths) - lengths
    values = rng.integers(0, 30, int(lengths.sum())).astype(dtype)  # many equal values
    if dtype != np.uint64:
        values[rng.random(len(values)) < 0.05] = np.inf  # as large as the padding
        values[rng.random(len(values)) < 0.05] = -np.inf
    got = sorted_within(values, starts, lengths)
    for s, n in zip(starts, lengths):
        part = got[s:s + n]
        assert sorted(part.tolist()) == list(range(s, s + n))
        assert values[part].tolist() == sorted(values[s:s + n].tolist())


@pytest.mark.parametrize("weak", [False, True], ids=["keys", "keys made to collide"])
@pytest.mark.parametrize("seed", range(12))
def test_ids_sharing_whole_keys_in_twos_threes_and_more_are_found_as_pandas_finds_them(seed, weak, monkeypatch):
    # pools of 19- and 18-digit numbers (with one seed in three also hexadecimal and zero-padded ids, with
    # another zero-padded decimals), each drawn several times into short queries; with keys made to collide
    # (the id's length, never exact), runs of two, three and more equal keys, some of them the same id,
    # some not, which only the texts tell apart
    from metrics.io import duplicates

    if weak:
        monkeypatch.setattr(duplicates, "keyed", lambda column: (
            pc.binary_length(column).to_numpy().astype(np.uint64) * np.uint64(0x100000001), False))
    rng = np.random.default_rng(seed)
    base = [10 ** 18 + 16 * int(p) for p in rng.choice(1000, 6, replace=False)]
    pool = [str(c) for c in base] + [str(c - 2 ** 56) for c in base]
    if seed % 3 == 0:
        pool += ["0x1F", "0031", "0x20", "0032"]
    elif seed % 3 == 1:
        pool += ["0031", "031", "31"]
    pairs = [(str(q), pool[i]) for q in range(int(rng.integers(1, 6))) for i in rng.integers(0, len(pool), 12)]
    pairs = [pairs[i] for i in rng.permutation(len(pairs))] if seed % 2 else pairs
    frame = pd.DataFrame(pairs, columns=["query", "docid"])
    rows, group = duplicate_rows(table_of(pairs))
    assert rows.tolist() == np.flatnonzero(frame.duplicated(keep=False).to_numpy()).tolist()
    labels = frame.iloc[rows].apply(tuple, axis=1).tolist()  # one group per distinct (query, id), no other
    assert len(set(zip(labels, group.tolist()))) == len(set(labels)) == len(set(group.tolist()))
