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
from tests.dashboard.conftest import open_page, upload as _upload  # noqa: E402
from tests.dashboard.test_app import metrics_shown  # noqa: E402

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
