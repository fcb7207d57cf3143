"""Every uploader of the data page goes through the guard: runs, qrels, topics, documents and session files.

A gzip bomb (64 MiB of one letter in 64 kB) in each file uploader must be refused with one line naming the
file and the decompression limit, and what was loaded must stay as it was. The session file is JSON (no
gzip): with a worker time limit of a millisecond and every input sent to a worker, its upload must stop at
that limit, which only the guard sets.
"""

from __future__ import annotations

import gzip

import pytest

pytest.importorskip("streamlit", reason="the dashboard extra (streamlit) is not installed")
from tests.dashboard.app_pages.small_collection import metrics_shown  # noqa: E402
from tests.dashboard.conftest import open_page  # noqa: E402
from tests.dashboard.conftest import upload as _upload

BOMB = gzip.compress(b"a" * (16 << 20), compresslevel=9, mtime=0) * 4
LIMIT = "the decompression limit of the dashboard (RANKSCOPE_UNZIP_RATIO)"


def _shown(at) -> list[str]:
    return [e.value.replace("\\", "") for e in at.error]


@pytest.mark.parametrize("label", ["Topics (optional)", "Documents (optional)", "Runs", "Qrels"])
def test_a_gzip_bomb_in_any_uploader_is_refused_at_the_decompression_limit(label):
    at = open_page("data")
    before = metrics_shown(at)
    name = f"bomb {label.split()[0].lower()}.gz"
    _upload(at, label, [(name, BOMB, "application/gzip")] if label == "Runs" else (name, BOMB, "application/gzip"))
    assert not at.exception
    assert _shown(at) == [f"{name}: expands more than 100 times its size, {LIMIT}"]
    assert metrics_shown(at) == before
    assert not [c.value for c in at.caption if "query texts" in c.value or "documents." in c.value]


def test_a_session_file_is_read_under_the_guards_limits(monkeypatch):
    at = open_page("data")
    monkeypatch.setenv("RANKSCOPE_WORKER_FROM_MB", "0.000001")  # every input to a worker...
    monkeypatch.setenv("RANKSCOPE_WORKER_SECONDS", "0.001")  # ...which has no time to answer
    before = metrics_shown(at)
    _upload(at, "Session file", ("mine.json", b'{"format": "rankscope-session", "version": 1}', "application/json"))
    assert not at.exception
    shown = _shown(at)
    assert len(shown) == 1 and shown[0].startswith("mine.json: stopped after 0.001 s"), shown
    assert "RANKSCOPE_WORKER_SECONDS" in shown[0] and metrics_shown(at) == before


def test_the_runs_of_one_upload_are_read_side_by_side_and_kept_in_their_order(monkeypatch):
    import threading
    import uuid

    from dashboard.data import files
    from dashboard.server import guard

    both = threading.Barrier(2, timeout=60)
    real = guard.parse

    def parse(reader, data, name):
        if name.startswith("side"):  # the two runs
            both.wait()  # returns only once the other run's reading has started too: sequential reading times out
        return real(reader, data, name)

    monkeypatch.setattr(guard, "parse", parse)
    monkeypatch.setattr(files, "READ_SIDE_BY_SIDE", 2)
    token = uuid.uuid4().hex  # contents no other test has parsed: nothing comes from the cache
    qrels = f"1 0 d{token} 1\n2 0 e{token} 1\n".encode()
    bodies = {name: "".join(f"{q} Q0 {doc}{token} {r} {9 - r} {name}\n" for q in (1, 2) for r, doc in
                            enumerate(order, start=1)).encode()
              for name, order in (("side1", ("d", "e", "f")), ("side2", ("f", "e", "d")))}
    at = open_page("data")
    _upload(at, "Qrels", ("tiny.qrels", qrels, "text/plain"))
    _upload(at, "Runs", [("side1.run.gz", gzip.compress(bodies["side1"]), "application/gzip"),  # gzip: a worker each
                         ("broken.run", b"1 Q0 a 1 2.0 X\n1 Q0 b 2\n", "text/plain"),
                         ("side2.run.gz", gzip.compress(bodies["side2"]), "application/gzip")])
    assert not at.exception
    shown = _shown(at)
    assert len(shown) == 1 and shown[0].startswith("broken.run:2:"), shown
    assert [name for name, _ in at.session_state["rankscope_loaded"].runs] == ["side1", "side2"]  # dashboard.session.state
