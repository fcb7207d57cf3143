"""The large-file paths of the readers and of ranking, held to slow textbook loops written here.

Small inputs never take them: files of ``MAP_MIN_BYTES`` or more are read through a memory map, and runs of
2**16 rows or more look their documents up through a filter of hashes. Each test forces or builds that size.
"""

from __future__ import annotations

import gzip

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import metrics.io.readers
from metrics import ParseError, read_qrels, read_run
from metrics.conventions import Conventions
from metrics.io import Qrels, Run
from metrics.io.arrays import take_rows
from metrics.io.ids import codes_in, filter_window, string_hash
from metrics.rankings import NONPOOL, UNJUDGED, Judgments, rank


def random_ids(rng: np.random.Generator, n: int) -> list[str]:
    """Ids of every length 0-30: numbers, ClueWeb-like names, and prefixes / suffixes of each other."""
    base = ["", "7", "07", "007", "d", "D", "é", "clueweb09-en0003-47-21107", "clueweb09-en0004-47-21107",
            "47-21107", "abcdefgh", "abcdefghi", "xabcdefgh", "a\x00b"]
    out = []
    for _ in range(n):
        kind = rng.integers(4)
        if kind == 0:
            out.append(str(int(rng.integers(0, 10 ** int(rng.integers(1, 10))))))
        elif kind == 1:
            out.append(f"clueweb09-en{rng.integers(10000):04d}-{rng.integers(100):02d}-{rng.integers(100000):05d}")
        elif kind == 2:
            out.append("".join(rng.choice(list("ab#-é"), size=int(rng.integers(0, 12)))))
        else:
            out.append(base[int(rng.integers(len(base)))])
    return out


def chunked(values: list, sizes: list[int], type_=pa.string()) -> pa.ChunkedArray:
    cuts = np.cumsum([0, *sizes])
    assert cuts[-1] == len(values)
    return pa.chunked_array([pa.array(values[a:b], type_) for a, b in zip(cuts[:-1], cuts[1:])], type=type_)


@pytest.mark.parametrize("seed", range(4))
def test_take_rows_is_indexing(seed):
    rng = np.random.default_rng(seed)
    values = random_ids(rng, 500)
    sizes = [0, *np.diff(np.sort(rng.integers(0, 500, size=6)), prepend=0, append=500).tolist(), 0]
    column = chunked(values, [s for s in sizes])
    rows = rng.integers(0, 500, size=int(rng.integers(0, 900)))  # repeats, any order, sometimes none
    assert take_rows(column, rows).to_pylist() == [values[i] for i in rows]
    assert take_rows(column.combine_chunks(), rows).to_pylist() == [values[i] for i in rows]


@pytest.mark.parametrize("seed", range(4))
def test_one_window_hash_equal_strings_hash_equal_wherever_they_sit(seed):
    rng = np.random.default_rng(seed)
    values = random_ids(rng, 3000)
    array = pa.array(values, pa.string())
    window = (-8,)  # the last 8 bytes: the filter's window for ids like these
    h = string_hash(array, window)
    for start in (0, 1, 7, 2990, 2999):  # slices: offsets into the same buffers
        assert string_hash(array.slice(start), window).tolist() == h[start:].tolist()
    alone = [string_hash(pa.array([v]), window).item() for v in values[:300]]  # each at its buffer's very end
    assert alone == h[:300].tolist()
    by_value: dict[str, int] = {}
    for value, code in zip(values, h.tolist()):
        assert by_value.setdefault(value, code) == code
    short = {v: c for v, c in by_value.items() if len(v.encode()) <= 8}  # these are hashed whole, bijectively
    assert len(set(short.values())) == len(short)


@pytest.mark.parametrize("seed", range(3))
def test_codes_in_match_a_dictionary_lookup(seed):
    rng = np.random.default_rng(seed)
    judged_ids = sorted(set(random_ids(rng, 2000)))
    n = 70_000  # past the 2**16 rows below which every row is looked up exactly
    pool = judged_ids + random_ids(rng, 5000)
    values = [pool[i] for i in rng.integers(0, len(pool), size=n)]
    sizes = np.diff(np.sort(rng.integers(0, n, size=9)), prepend=0, append=n).tolist()
    judged = pa.array(judged_ids, pa.string())
    codes = codes_in(chunked(values, sizes), judged)
    index = {d: i for i, d in enumerate(judged_ids)}
    assert codes.dtype == np.int32
    assert codes.tolist() == [index.get(v, -1) for v in values]


def test_codes_in_filters_web_addresses_that_all_end_alike_on_a_word_that_varies(monkeypatch):
    rng = np.random.default_rng(7)
    n = 70_000
    values = [f"https://www.site{rng.integers(5000):04d}.org/news/{rng.integers(1990, 2020)}/{rng.integers(10**6)}"
              "/index.html" for _ in range(n)]
    judged_ids = sorted(set(values[::97]) | {"https://www.site0001.org/news/2000/1/index.html"})
    judged = pa.array(judged_ids, pa.string())
    assert filter_window(pa.array(values)) != -8  # the last 8 bytes ("dex.html") are one value for all
    looked_up = []
    real = pc.index_in

    def index_in(values, *args, **kwargs):
        looked_up.append(len(values))
        return real(values, *args, **kwargs)

    monkeypatch.setattr(pc, "index_in", index_in)
    codes = codes_in(chunked(values, [n // 3, n // 3, n - 2 * (n // 3)]), judged)
    index = {d: i for i, d in enumerate(judged_ids)}
    assert codes.tolist() == [index.get(v, -1) for v in values]
    assert looked_up and sum(looked_up) < n // 10  # the rows the filter passes: the judged ones and few more


def textbook_rel(qrels_lines: list[tuple[str, str, int]], run_lines: list[tuple[str, str, float]]):
    """Per judged query (byte-wise order), the relevance codes down its ranking: score descending, then
    document id descending compared byte-wise."""
    grades = {(q, d): g for q, d, g in qrels_lines}
    judged_queries = sorted({q for q, _, _ in qrels_lines}, key=str.encode)
    out = {}
    for q in judged_queries:
        docs = sorted(((s, d) for qq, d, s in run_lines if qq == q), key=lambda p: (p[0], p[1].encode()),
                      reverse=True)
        if docs:
            out[q] = [NONPOOL if (q, d) not in grades else UNJUDGED if grades[q, d] < 0 else grades[q, d]
                      for _, d in docs]
    return out


@pytest.mark.parametrize("seed", range(2))
def test_rank_of_a_large_chunked_run_matches_the_textbook(seed):
    rng = np.random.default_rng(seed)
    queries = [str(q) for q in rng.choice(100_000, size=120, replace=False)]
    qrels_lines, run_lines = [], []
    for q in queries:
        docs = list(dict.fromkeys(random_ids(rng, 900)))
        for d in rng.choice(docs, size=min(40, len(docs)), replace=False):
            qrels_lines.append((q, str(d), int(rng.integers(-1, 4))))
        scores = np.round(rng.normal(size=len(docs)), 1)  # many ties
        run_lines.extend((q, d, float(s)) for d, s in zip(docs, scores))
    run_lines = [run_lines[i] for i in np.argsort(rng.random(len(run_lines)))] if seed else run_lines
    assert len(run_lines) >= 1 << 16
    qrels = Qrels(name="q", table=pa.table({"query": [q for q, _, _ in qrels_lines],  # ids no file can hold too
                                             "docid": [d for _, d, _ in qrels_lines],
                                             "relevance": pa.array([g for _, _, g in qrels_lines], pa.int64())}))
    n = len(run_lines)
    sizes = np.diff(np.sort(rng.integers(0, n, size=12)), prepend=0, append=n).tolist()
    table = pa.table({"query": chunked([q for q, _, _ in run_lines], sizes),
                      "docid": chunked([d for _, d, _ in run_lines], sizes),
                      "score": chunked([s for _, _, s in run_lines], sizes, pa.float64()),
                      "rank": chunked([float("nan")] * n, sizes, pa.float64())})
    # scores 0.1 apart: the same order in float32, the default precision
    rk = rank(Judgments.from_qrels(qrels), Run(name="x", table=table), Conventions())
    expected = textbook_rel(qrels_lines, run_lines)
    assert list(rk.queries) == list(expected)
    got = {q: rk.rel[rk.offsets[i]:rk.offsets[i + 1]].tolist() for i, q in enumerate(rk.queries)}
    assert got == expected


def run_text(rng: np.random.Generator, lines: int) -> str:
    ids = random_ids(rng, lines)
    return "".join(f"{1 + i // 50} Q0 {d.replace(chr(0), '0') or 'empty'}-{i} {i % 50 + 1} {rng.normal():.3f} tag\n"
                   for i, d in enumerate(ids))


def split_lines(text: str) -> list[tuple[str, str, float]]:
    """The textbook reader: each line split on blanks."""
    return [(f[0], f[2], float(f[4])) for f in (line.split() for line in text.splitlines()) if f]


@pytest.fixture
def mapped(monkeypatch):
    """Every plain file is read through a memory map, whatever its size."""
    monkeypatch.setattr(metrics.io.readers, "MAP_MIN_BYTES", 1)


def test_a_mapped_file_reads_as_its_bytes_and_lines(tmp_path, mapped):
    rng = np.random.default_rng(5)
    text = run_text(rng, 3000)
    path = tmp_path / "bm25.run"
    path.write_bytes(text.encode())
    got = read_run(path)
    assert got.table.equals(read_run(text.encode(), name="bm25").table)
    assert got.name == "bm25" and got.tag == "tag"
    t = got.table
    assert list(zip(t["query"].to_pylist(), t["docid"].to_pylist(), t["score"].to_pylist())) == split_lines(text)
    irregular = text.replace(" Q0 ", "\tQ0  ", 7)  # the split path and the line reader read the map too
    path.write_bytes(irregular.encode())
    assert read_run(path).table.select(["query", "docid", "score"]).equals(t.select(["query", "docid", "score"]))


@pytest.mark.parametrize("content", [b"\xef\xbb\xbf1 0 d 1\n", None])
def test_a_mapped_qrels_with_bom_or_gzip(tmp_path, mapped, content):
    path = tmp_path / "q.txt"
    path.write_bytes(content if content is not None else gzip.compress(b"1 0 d 1\n2 0 e 0\n"))
    got = read_qrels(path)
    assert got.table["docid"].to_pylist() == (["d"] if content else ["d", "e"])


REFUSED = {  # files refused by the reader's look at their whole text, before any line is read
    "NUL byte": (b"1 Q0 d 1 2.5 t\n" * 40 + b"1 Q0 e 2 1\x00 t\n", "q:41: expected text, found a NUL byte (binary file?)"),
    "UTF-16": ("1 Q0 d 1 2.5 t\n".encode("utf-16") * 40, "q: expected UTF-8 text, found UTF-16 (save the file as UTF-8)"),
    "PNG": (b"\x89PNG\r\n\x1a\n" + b"1 Q0 d 1 2.5 t\n" * 40, "q: expected a text file, found a PNG image"),
    "blank": (b" \n\t\n\n", "q: empty file: expected lines "),
}


@pytest.mark.parametrize("ahead", [False, True], ids=["checks first", "parse started early"])
@pytest.mark.parametrize("case", list(REFUSED))
@pytest.mark.parametrize("kind", ["run", "qrels"])
def test_a_file_its_checks_refuse_is_refused_alike_whether_its_parse_started_or_not(monkeypatch, case, kind, ahead):
    import metrics.io.parsing

    monkeypatch.setattr(metrics.io.parsing, "AHEAD_BYTES", 0 if ahead else 1 << 40)
    data, message = REFUSED[case]
    if kind == "qrels":
        data = data.replace(b"Q0 d 1 2.5 t", b"0 d 1").replace(b"Q0 e 2 1", b"0 e")
        data = data.replace("Q0 d 1 2.5 t".encode("utf-16")[2:], "0 d 1".encode("utf-16")[2:])
    with pytest.raises(ParseError) as caught:
        (read_run if kind == "run" else read_qrels)(data, name="q")
    assert str(caught.value).startswith(message), str(caught.value)


@pytest.mark.parametrize(("text", "message"), [
    (b"1 Q0 d 1 2.5 t\n1 Q0 e 2 x t\n", 'q.run:2: expected a finite number in field 5 "score", found "x"'),
    (b"1 Q0 d 1 2.5 t\n1 Q0 d 2 1.5 t\n", 'q.run:2: duplicate document "d" for query "1"'),
    (b"1 Q0 d 1 2.5 t\n1 Q0 \xff 2 1.5 t\n", "q.run:2: expected UTF-8 text, found byte 0xff"),
    (b"1 Q0 d 1 2.5 t\n\x00", "q.run:2: expected text, found a NUL byte"),
])
def test_a_mapped_file_gives_the_same_errors(tmp_path, mapped, text, message):
    path = tmp_path / "q.run"
    path.write_bytes(text)
    with pytest.raises(ParseError) as mapped_error:
        read_run(path)
    with pytest.raises(ParseError) as bytes_error:
        read_run(text, name="q.run")
    assert str(mapped_error.value) == str(bytes_error.value)
    assert str(mapped_error.value).startswith(message)
