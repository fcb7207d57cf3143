"""The dashboard opened from a notebook: the link answers on loopback, the workspace holds the collection with
its runs (a frame stored as a TREC file that reads back to the same run), and closing stops every process
of the server's group."""

from __future__ import annotations

import urllib.request
from pathlib import Path

import pandas as pd
import pytest

import metrics

pytest.importorskip("streamlit", reason="the dashboard extra (streamlit) is not installed")
pytest.importorskip("sqlalchemy", reason="the workspace extra (sqlalchemy) is not installed")

from rankscope.notebook import Collection, Dashboard, open_dashboard  # noqa: E402
from tests.processes import group_members  # noqa: E402
from workspace import open_workspace  # noqa: E402

DEMO = Path(__file__).resolve().parents[2] / "sample_data" / "demo"


def test_open_serves_the_stored_collection_and_close_stops_the_group(tmp_path):
    bm25 = DEMO / "runs" / "bm25.run.gz"
    frame = metrics.read_run(DEMO / "runs" / "bm25_rm3.run.gz").frame
    pyterrier = pd.DataFrame({"qid": frame["query"], "docno": frame["docid"], "score": frame["score"]})
    nb = Collection(DEMO / "qrels.txt", {"bm25.run": bm25, "expanded": pyterrier}, relevance_level=2)
    board = open_dashboard(nb, "from a notebook", workspace=tmp_path / "ws", show=False, timeout=240)
    try:
        assert isinstance(board, Dashboard) and board.running
        assert board.url.startswith("http://127.0.0.1:") and board.url.endswith(f"/?collection={board.collection}")
        with urllib.request.urlopen(board.url, timeout=30) as reply:
            assert reply.status == 200 and b"<html" in reply.read().lower()
        with open_workspace(tmp_path / "ws") as ws:
            info = ws.collection(board.collection)
            stored = ws.load(board.collection)
            assert info.name == "from a notebook" and info.systems == ("bm25.run", "expanded")
            assert stored.conventions["relevance_level"] == 2
            runs = {f.system: f for f in stored.runs}
            assert runs["bm25.run"].read() == bm25.read_bytes()  # a file is stored as it was
            back = metrics.read_run(runs["expanded"].read(), name="expanded").frame
            pd.testing.assert_frame_equal(back.sort_values(["query", "docid"]).reset_index(drop=True)[
                                              ["query", "docid", "score"]],
                                          frame.sort_values(["query", "docid"]).reset_index(drop=True)[
                                              ["query", "docid", "score"]])
            assert stored.qrels.read() == (DEMO / "qrels.txt").read_bytes()
        assert group_members(board.pid)
    finally:
        board.close()
    assert not board.running and group_members(board.pid) == []
    board.close()  # a second close does nothing


def test_the_server_stops_when_the_interpreter_exits(tmp_path):
    import subprocess
    import sys

    script = (f"from rankscope.notebook import Collection\n"
              f"nb = Collection({str(DEMO / 'qrels.txt')!r}, [{str(DEMO / 'runs' / 'bm25.run.gz')!r}])\n"
              f"board = nb.open(workspace={str(tmp_path / 'ws')!r}, timeout=240)\n"
              f"print(board.pid, flush=True)\n")  # and exits without closing it
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", script], cwd=root, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    pid = int(done.stdout.split()[-1])
    assert group_members(pid) == []
