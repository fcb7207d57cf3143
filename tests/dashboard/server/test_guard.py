"""The worker of dashboard.server.guard: its value, its limits turned into one-line errors, and a parent that goes on."""

from __future__ import annotations

import gzip
import multiprocessing
import os
import time

import pytest

import metrics
import metrics.io
import metrics.io.texts
from dashboard.server import guard
from sample_data import demo_paths

RUN = demo_paths()[1][0]


def _one_line(err: Exception) -> str:
    message = str(err)
    assert "\n" not in message and "Traceback" not in message
    return message


def _parent_goes_on() -> None:
    """Another call works, and no worker is left behind."""
    data = RUN.read_bytes()
    run = guard.call(RUN.name, metrics.read_run, data, name=RUN.name)
    assert run.table.num_rows == metrics.read_run(data, name=RUN.name).table.num_rows
    assert multiprocessing.active_children() == []


def test_a_worker_returns_what_the_function_returns():
    data = RUN.read_bytes()
    here = metrics.read_run(data, name=RUN.name)
    there = guard.call(RUN.name, metrics.read_run, data, name=RUN.name)
    assert there.name == here.name and there.table.equals(here.table)


def test_a_parsed_file_comes_back_memory_mapped_with_its_name_and_tag(monkeypatch):
    monkeypatch.setenv("RANKSCOPE_WORKER_FROM_MB", "0.001")
    data = RUN.read_bytes()
    here = metrics.read_run(data, name=RUN.name)
    there = guard.parse(metrics.read_run, data, RUN.name)
    assert (there.name, there.tag) == (here.name, here.tag) and there.table.equals(here.table)
    assert multiprocessing.active_children() == []


def test_a_gzip_bomb_parsed_through_a_file_stops_at_the_ceiling(monkeypatch):
    monkeypatch.setenv("RANKSCOPE_WORKER_MEMORY_MB", "600")
    monkeypatch.setenv("RANKSCOPE_UNZIP_MB", "4096")  # the decompression limits aside: this is the ceiling's test
    monkeypatch.setenv("RANKSCOPE_UNZIP_RATIO", "100000")
    bomb = gzip.compress(b"401 0 doc 1\n" * 20_000_000, compresslevel=1)
    with pytest.raises(guard.LimitError, match=r"^bomb\.qrels: needs more than 600 MB"):
        guard.parse(metrics.read_qrels, bomb, "bomb.qrels")
    _parent_goes_on()


def test_past_the_memory_ceiling_the_caller_gets_one_line_and_the_parent_goes_on(monkeypatch):
    monkeypatch.setenv("RANKSCOPE_WORKER_MEMORY_MB", "600")
    with pytest.raises(guard.LimitError) as caught:
        guard.call("huge.qrels", bytearray, 8 << 30)
    message = _one_line(caught.value)
    assert message.startswith("huge.qrels: ") and "600 MB" in message and "RANKSCOPE_WORKER_MEMORY_MB" in message
    assert isinstance(caught.value, metrics.RankscopeError)
    _parent_goes_on()


def test_a_worker_killed_without_an_answer_is_reported_as_past_the_ceiling(monkeypatch):
    monkeypatch.setenv("RANKSCOPE_WORKER_MEMORY_MB", "700")
    with pytest.raises(guard.LimitError) as caught:
        guard.call("huge.run", os.abort)
    message = _one_line(caught.value)
    assert message.startswith("huge.run: ") and "700 MB" in message and "status -6" in message
    _parent_goes_on()


def test_past_the_time_limit_the_worker_is_killed(monkeypatch):
    monkeypatch.setenv("RANKSCOPE_WORKER_SECONDS", "0.5")
    start = time.monotonic()
    with pytest.raises(guard.LimitError) as caught:
        guard.call("slow.run", time.sleep, 60)
    assert time.monotonic() - start < 10
    message = _one_line(caught.value)
    assert message.startswith("slow.run: ") and "0.5 s" in message and "RANKSCOPE_WORKER_SECONDS" in message
    _parent_goes_on()


def test_a_gzip_bomb_stops_at_the_ceiling(monkeypatch):
    monkeypatch.setenv("RANKSCOPE_WORKER_MEMORY_MB", "600")
    bomb = gzip.compress(b"401 0 doc 1\n" * 20_000_000, compresslevel=1)  # 3 MB that expand to 240 MB
    assert guard.small(b"401 0 doc 1\n") and not guard.small(bomb)
    with pytest.raises(guard.LimitError, match=r"^bomb\.qrels: needs more than 600 MB"):
        guard.call("bomb.qrels", metrics.read_qrels, bomb, name="bomb.qrels", in_process=guard.small(bomb))
    _parent_goes_on()


def test_errors_on_bad_input_keep_their_class_and_message():
    with pytest.raises(metrics.ParseError, match=r"^broken\.run:2: ") as caught:
        guard.call("broken.run", metrics.read_run, b"401 Q0 d 1 2.0 x\n401 Q0 e 2\n", name="broken.run")
    assert caught.value.line == 2
    with pytest.raises(metrics.UnknownMeasureError):
        guard.call("a measure", metrics.parse_measure, "nDCG@@")


def test_limits_come_from_the_environment(monkeypatch):
    assert guard.limits() == guard.Limits()
    monkeypatch.setenv("RANKSCOPE_WORKER_MEMORY_MB", "1024")
    monkeypatch.setenv("RANKSCOPE_WORKER_SECONDS", "30")
    monkeypatch.setenv("RANKSCOPE_WORKER_FROM_MB", "0.5")
    assert guard.limits() == guard.Limits(memory_mb=1024, seconds=30.0, in_process_bytes=500_000, unzip_mb=256)
    monkeypatch.setenv("RANKSCOPE_UNZIP_MB", "100")
    monkeypatch.setenv("RANKSCOPE_UNZIP_RATIO", "20")
    assert guard.limits().reading == metrics.io.ReadLimits(gzip_bytes=100 << 20, gzip_ratio=20.0)
    assert not guard.small(b"x" * 600_000)
    monkeypatch.setenv("RANKSCOPE_WORKER_SECONDS", "soon")
    with pytest.raises(metrics.ValidationError, match="RANKSCOPE_WORKER_SECONDS='soon': expected a positive number"):
        guard.limits()


def _bomb(mib: int) -> bytes:
    """Gzip of ``mib`` MiB of one letter, in members of 16 MiB (about 16 kB each)."""
    return gzip.compress(b"a" * (16 << 20), compresslevel=9, mtime=0) * (mib // 16)


@pytest.mark.parametrize("reader", [metrics.io.texts.read_topics, metrics.io.texts.read_documents, metrics.read_run,
                                    metrics.read_qrels], ids=lambda r: r.__name__)
def test_every_reader_of_uploads_stops_a_bomb_at_the_decompression_limit(monkeypatch, reader):
    bomb = _bomb(1024)  # 1 GiB of "a" in 1 MB
    with pytest.raises(guard.LimitError) as caught:
        guard.parse(reader, bomb, "bomb.gz")
    assert _one_line(caught.value) == ("bomb.gz: expands more than 100 times its size, the decompression limit of "
                                       "the dashboard (RANKSCOPE_UNZIP_RATIO)")
    monkeypatch.setenv("RANKSCOPE_UNZIP_MB", "8")  # past the limit in bytes before the ratio is checked
    with pytest.raises(guard.LimitError) as caught:
        guard.parse(reader, bomb, "bomb.gz")
    assert _one_line(caught.value) == ("bomb.gz: expands to more than 8 MB, the decompression limit of the "
                                       "dashboard (RANKSCOPE_UNZIP_MB)")
    _parent_goes_on()


def test_the_decompression_limit_is_a_quarter_of_the_ceiling_unless_set(monkeypatch):
    monkeypatch.setenv("RANKSCOPE_WORKER_MEMORY_MB", "600")
    assert guard.limits().unzip_mb == 150
    texts = gzip.compress("".join(f"{i}\tquery number {i}\n" for i in range(40_000)).encode() * 2)
    topics = guard.parse(metrics.io.texts.read_topics, gzip.compress(b"1\twing\n2\tflow\n"), "t.tsv.gz")
    assert dict(topics) == {"1": "wing", "2": "flow"}
    with pytest.raises(metrics.ParseError, match=r'^t\.tsv\.gz:40001: expected each topic id once, found "0" again'):
        guard.parse(metrics.io.texts.read_topics, texts, "t.tsv.gz")  # a reader's own error, through the worker


def test_a_session_file_goes_through_the_guard(monkeypatch):
    from dashboard.exports.session_file import session_from_json

    monkeypatch.setenv("RANKSCOPE_WORKER_FROM_MB", "0.000001")  # every input goes to a worker
    monkeypatch.setenv("RANKSCOPE_WORKER_SECONDS", "0.001")
    data = b'{"format": "rankscope-session"}'
    assert not guard.small(data)
    with pytest.raises(guard.LimitError, match=r"^s\.json: stopped after 0\.001 s"):
        guard.call("s.json", session_from_json, data, in_process=guard.small(data))


def _what_the_worker_imported() -> tuple[bool, list[str]]:
    """In the worker: whether Streamlit was imported, and the names the main module defines."""
    import sys

    main = sys.modules.get("__mp_main__") or sys.modules["__main__"]
    return "streamlit" in sys.modules, sorted(n for n in vars(main) if not n.startswith("__"))


def test_a_worker_started_during_a_session_does_not_run_the_app(monkeypatch):
    # While a session's script runs, Streamlit's main module is dashboard/app.py, and multiprocessing has
    # every new worker import the parent's main module (as __mp_main__). When that ran the app, each worker
    # started Streamlit, the memory sweeper and the pages (seconds each on a busy server, and with a workspace
    # a connection of its own) before its file: three sessions uploading at once waited on one another's.
    import sys
    import types
    from pathlib import Path

    app = Path(guard.__file__).parents[1] / "app.py"
    script = types.ModuleType("__main__")
    script.__file__, script.__spec__ = str(app), None
    monkeypatch.setitem(sys.modules, "__main__", script)
    streamlit, names = guard.call("app.py", _what_the_worker_imported)
    assert not streamlit
    assert "main" in names and "st" not in names  # app.py was imported: it defined its function, ran nothing
    assert multiprocessing.active_children() == []
