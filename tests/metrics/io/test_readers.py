"""Readers: every kind of source, duplicate policies, tie-breaking and the float32 convention."""

from __future__ import annotations

import gzip

import pandas as pd
import pytest

from metrics import ParseError, ValidationError, evaluate, read_qrels, read_run

RUN = "1 Q0 a 1 3.0 sysA\n1 Q0 b 2 2.0 sysA\n2 Q0 c 1 1.0 sysA\n"


def test_sources_agree(tmp_path):
    path = tmp_path / "bm25.run"
    path.write_text(RUN)
    gz = tmp_path / "bm25.run.gz"
    gz.write_bytes(gzip.compress(RUN.encode()))
    frame = pd.DataFrame({"query": ["1", "1", "2"], "docid": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    runs = [read_run(path), read_run(str(path)), read_run(gz), read_run(RUN.encode(), name="bm25"),
            read_run(RUN, name="bm25"), read_run(frame, name="bm25")]
    for run in runs:
        assert run.name == "bm25"
        assert run.frame[["query", "docid", "score"]].equals(runs[0].frame[["query", "docid", "score"]])
    assert runs[0].tag == "sysA"


def test_missing_file_is_a_parse_error(tmp_path):
    with pytest.raises(ParseError, match=r"^nope.run: cannot read file"):
        read_run(tmp_path / "nope.run")


def test_dataframe_missing_columns():
    with pytest.raises(ValidationError, match=r"missing \['score'\]"):
        read_run(pd.DataFrame({"query": ["1"], "docid": ["a"]}))


@pytest.mark.parametrize("policy, expected", [("first", 3.0), ("last", 1.0), ("max", 3.0)])
def test_duplicate_policies(policy, expected):
    text = "1 Q0 a 1 3.0 s\n1 Q0 b 2 2.0 s\n1 Q0 a 3 1.0 s\n"
    run = read_run(text, duplicates=policy)
    frame = run.frame.set_index("docid")
    assert len(run) == 2 and frame.loc["a", "score"] == expected


def test_duplicate_qrels_keep_max():
    qrels = read_qrels("1 0 a 1\n1 0 a 3\n1 0 b 0\n", duplicates="max")
    assert qrels.frame.set_index("docid").loc["a", "relevance"] == 3


def test_unknown_policy():
    with pytest.raises(ValidationError, match="^duplicates: expected one of 'error', 'first', 'last', 'max', found "):
        read_run(RUN, duplicates="sometimes")


def test_ties_broken_by_docid_descending_bytewise():
    # equal scores: docid descending byte-wise, so "b" > "B" > "A10" > "A1" (not numeric order)
    qrels = "1 0 b 1\n1 0 B 0\n1 0 A10 0\n1 0 A1 0\n"
    run = "1 Q0 A1 1 5 s\n1 Q0 A10 2 5 s\n1 Q0 B 3 5 s\n1 Q0 b 4 5 s\n"
    assert evaluate(qrels, run, ["recip_rank"])["value"].tolist() == [1.0]
    run_rev = "1 Q0 b 1 5 s\n1 Q0 B 2 5 s\n1 Q0 A10 3 5 s\n1 Q0 A1 4 5 s\n"
    assert evaluate("1 0 A1 1\n", run_rev, ["recip_rank"])["value"].tolist() == [0.25]


def test_float32_preset_collapses_near_ties():
    # 1.0 and 1.0 + 1e-9 are equal in float32, so docid order decides: "z" first
    qrels = "1 0 a 1\n1 0 z 0\n"
    run = "1 Q0 a 1 1.000000001 s\n1 Q0 z 2 1.0 s\n"
    assert evaluate(qrels, run, ["recip_rank"])["value"].tolist() == [0.5]
    assert evaluate(qrels, run, ["recip_rank"], preset="trec_eval-10")["value"].tolist() == [1.0]


def test_rank_column_is_ignored():
    qrels = "1 0 a 1\n"
    assert evaluate(qrels, "1 Q0 a 1 1.0 s\n1 Q0 b 2 2.0 s\n", ["recip_rank"])["value"].tolist() == [0.5]


def test_gzip_members_are_concatenated_and_bombs_refused(monkeypatch):
    import metrics.io.readers

    two = gzip.compress(RUN[:36].encode(), mtime=0) + gzip.compress(RUN[36:].encode(), mtime=0)
    assert len(read_run(two, name="x")) == 3
    with pytest.raises(ParseError, match="^x: expected gzip data, found other bytes after the gzip stream$"):
        read_run(two + b"junk", name="x")
    monkeypatch.setattr(metrics.io.readers, "GZIP_LIMIT", 1 << 20)
    bomb = gzip.compress(b"1 Q0 a 1 1 x\n" * 200_000, mtime=0)  # 2.6 MB from 10 kB
    with pytest.raises(ParseError, match="^x: expected gzip data that expands to at most 1 MiB, found more$"):
        read_run(bomb, name="x")


def _bomb(members: int) -> bytes:
    """Gzip of ``members`` x 16 MiB of one letter (each member about 16 kB): one letter expands ~1000 times."""
    member = gzip.compress(b"a" * (16 << 20), compresslevel=9, mtime=0)
    return member * members


def test_read_limits_stop_a_bomb_early_by_size_or_by_ratio():
    import metrics.io
    from metrics.errors import InputTooLarge
    from metrics.io import ReadLimits
    from metrics.io.texts import read_documents, read_topics

    bomb = _bomb(64)  # 1 GiB from about 1 MB
    for reader in (read_topics, read_documents, read_run, read_qrels):
        with pytest.raises(InputTooLarge, match=r"^t\.gz: expected gzip data that expands at most 100 times, "
                                                r"found more$") as caught:
            reader(bomb, name="t.gz", limits=ReadLimits(gzip_bytes=1 << 30, gzip_ratio=100))
        assert caught.value.limit == "gzip_ratio"
    with pytest.raises(InputTooLarge, match=r"^t\.gz: expected gzip data that expands to at most 20 MiB, "
                                            r"found more$") as caught:
        read_topics(bomb, name="t.gz", limits=ReadLimits(gzip_bytes=20 << 20))
    assert caught.value.limit == "gzip_bytes" and isinstance(caught.value, ParseError)
    # below RATIO_FROM, a small file may expand as much as it likes: a blank-padded file of a few lines
    padded = gzip.compress(b"1\t" + b" " * (metrics.io.readers.RATIO_FROM - 100) + b"wing\n", compresslevel=9)
    assert dict(read_topics(padded, limits=ReadLimits(gzip_ratio=2))) == {"1": "wing"}
    with pytest.raises(ValidationError, match="ReadLimits.gzip_ratio: expected a positive number, found 0"):
        ReadLimits(gzip_ratio=0)


def test_a_stream_is_read_in_bounded_pieces(tmp_path, monkeypatch):
    import os
    import threading

    import metrics.io.readers

    # /dev/zero is endless: the first piece holds a NUL, and the text check refuses it (no MemoryError)
    with pytest.raises(ParseError, match=r"^zero: expected UTF-8 text, found UTF-16 \(save the file as UTF-8\)$"):
        read_qrels("/dev/zero", name="zero")
    # an endless stream of text (`yes |`) stops at the limit, in one line
    monkeypatch.setattr(metrics.io.readers, "GZIP_LIMIT", 3 << 20)
    fifo = tmp_path / "endless"
    os.mkfifo(fifo)

    def feed():
        try:
            with open(fifo, "wb") as out:
                while True:
                    out.write(b"1 0 d 1\n" * 65536)
        except BrokenPipeError:
            pass

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    with pytest.raises(ParseError, match=r"^endless: expected at most 3 MiB, found a stream that goes on past it$"):
        read_qrels(fifo)
    writer.join(10)
    assert not writer.is_alive()
    # a finite stream reads as the file would
    os.unlink(fifo)
    os.mkfifo(fifo)
    threading.Thread(target=lambda: fifo.write_bytes(RUN.encode()), daemon=True).start()
    assert read_run(fifo).table.equals(read_run(RUN, name="endless").table)


def test_dataframe_sources_are_validated():
    frame = pd.DataFrame({"query": ["1", "1"], "docid": ["a", None], "score": [1.0, 2.0]})
    with pytest.raises(ValidationError, match="column 'docid' has missing values"):
        read_run(frame)
    with pytest.raises(ValidationError, match="column 'score' has missing values"):
        read_run(frame.assign(docid=["a", "b"], score=[1.0, float("nan")]))
    with pytest.raises(ValidationError, match="column 'relevance' cannot be read as int64"):
        read_qrels(pd.DataFrame({"query": ["1"], "docid": ["a"], "relevance": [1.5]}))
    with pytest.raises(ParseError, match='^<DataFrame>:2: duplicate document "a" for query "1"'):
        read_qrels(pd.DataFrame({"query": ["1", "1"], "docid": ["a", "a"], "relevance": [1, 0]}))
    qrels = read_qrels(pd.DataFrame({"query": [1, 2], "docid": ["a", "b"], "relevance": [1, 0]}))
    assert qrels.queries == ("1", "2")


def test_line_numbers_count_every_kind_of_line_end():
    with pytest.raises(ParseError, match=r"^x:3: expected 6 fields"):
        read_run(b"1 Q0 a 1 1 x\r2 Q0 b 1 1 x\r\n3 Q0 c 1 x\n", name="x")
    with pytest.raises(ParseError, match=r"^x:3: expected UTF-8 text, found byte 0xff"):
        read_run(b"1 Q0 a 1 1 x\r2 Q0 b 1 1 x\r\n3 Q0 \xff 1 1 x\n", name="x")


def test_only_spaces_and_tabs_separate_fields():
    # a no-break space or a form feed is part of a doc id, as in trec_eval, on both reading paths
    for data in ("1 Q0 a\u00a0b 1 1 x\n", "1 Q0 a\u00a0b 1 1 x\n# comment\n", "1\tQ0\ta\u00a0b\t1\t1\tx\n"):
        assert read_run(data.encode(), name="x").table.column("docid").to_pylist() == ["a\u00a0b"]
    with pytest.raises(ParseError, match="expected 6 fields"):
        read_run(b"1 Q0 a 1 1 \n", name="x")  # a trailing space is no tag


def test_tag_is_the_first_lines_sixth_field():
    assert read_run(b"1\tQ0\ta\t1\t1\tsys-A\r\n", name="x").tag == "sys-A"
    assert read_run(b"# header\n1 Q0 a 1 1 sys-B extra\n", name="x").tag == "sys-B"
