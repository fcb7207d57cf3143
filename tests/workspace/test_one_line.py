"""Each case that printed a traceback now gives one line (and exit status 2), never a traceback.

Locations that do not parse (a port that is not a number, an IPv6 bracket left open), a file store that
does not answer (``--files ftp://`` with nothing listening), a SQLite file whose header is garbage, an
``--output`` that cannot be created, an endless qrels (``/dev/zero``), the collections page while the
database is down, and ``workspace export`` of a collection whose stored file was deleted.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests import processes
from tests.workspace.conftest import ROOT, child_env
from tests.workspace.helpers import qrels_bytes, run_bytes


def _rankscope(*args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rankscope", *args], cwd=cwd, capture_output=True, text=True,
                          env={**child_env(), **(env or {})}, timeout=600)


def _one_line(done: subprocess.CompletedProcess, starts: str) -> str:
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert lines[0].startswith(starts), lines[0]
    return lines[0]


@pytest.fixture
def files(tmp_path) -> Path:
    (tmp_path / "q.txt").write_bytes(qrels_bytes(1))
    (tmp_path / "a.run").write_bytes(run_bytes(1))
    return tmp_path


@pytest.mark.parametrize("location, says", [
    ("postgresql://u:p@127.0.0.1:notaport/db", "found a URL that does not parse"),
    ("postgresql://u:p@[::1/db", "found a URL that does not parse"),
    ("postgresql+asyncpg://u:p@127.0.0.1/db", "found another kind of URL"),
])
def test_a_location_that_does_not_parse(files, location, says):
    done = _rankscope("workspace", "list", "--workspace", location, cwd=files,
                      env={"RANKSCOPE_WORKSPACE_FILES": str(files / "stored")})
    assert says in _one_line(done, "rankscope workspace: workspace postgresql")


def test_a_file_store_that_does_not_answer(files):
    port = processes.free_port()  # nothing listens there
    done = _rankscope("workspace", "add", "q.txt", "a.run", "--name", "x", "--workspace", str(files / "ws"),
                      "--files", f"ftp://127.0.0.1:{port}/stored", cwd=files)
    line = _one_line(done, f"rankscope workspace: stored files folder ftp://127.0.0.1:{port}/stored ")
    assert "does not answer" in line


def test_a_sqlite_file_with_a_garbage_header(files):
    (files / "garbage.db").write_bytes(b"not a database, only words " * 200)
    done = _rankscope("workspace", "list", "--workspace", f"sqlite:///{files / 'garbage.db'}", cwd=files)
    assert "is not a workspace database" in _one_line(done, "rankscope workspace: workspace database ")


def test_an_output_that_cannot_be_created(files):
    done = _rankscope("eval", "--output", "/proc/x", "q.txt", "a.run", cwd=files)
    assert _one_line(done, "rankscope eval: cannot write the dataset: /proc/x")


@pytest.mark.parametrize("args", [["/dev/zero", "a.run"], ["q.txt", "/dev/zero"], ["q.txt", "@/dev/zero"]])
def test_an_endless_file_is_read_in_bounded_pieces(files, args):
    done = subprocess.run(["prlimit", "--as=2000000000", sys.executable, "-m", "rankscope", "eval", *args],
                          cwd=files, capture_output=True, text=True, env=child_env(), timeout=600)
    assert _one_line(done, "rankscope eval: ")  # 2 GB of address space: a read sized by the file would fail


def test_export_refuses_a_collection_whose_stored_file_was_deleted(files):
    added = _rankscope("workspace", "add", "q.txt", "a.run", "--name", "x", "--workspace", "ws", cwd=files)
    assert added.returncode == 0, added.stderr
    cid = added.stdout.strip()
    stored = [p for p in (files / "ws" / "files").glob("*/*") if len(p.name) == 64]
    assert len(stored) == 2
    for path in stored:
        path.unlink()  # the run's file (or the qrels'): either must be noticed
        done = _rankscope("workspace", "export", cid, "-o", "out.json", "--workspace", "ws", cwd=files)
        assert "is missing from" in _one_line(done, "rankscope workspace: stored file ")
        assert not (files / "out.json").exists()


def test_the_collections_page_while_the_database_is_down(files, monkeypatch):
    pytest.importorskip("streamlit", reason="the dashboard extra (streamlit) is not installed")
    from streamlit.testing.v1 import AppTest

    port = processes.free_port()  # a PostgreSQL server that is down: nothing listens on its port
    monkeypatch.setenv("RANKSCOPE_WORKSPACE", f"postgresql://rankscope@127.0.0.1:{port}/rankscope")
    monkeypatch.setenv("RANKSCOPE_WORKSPACE_FILES", str(files / "stored"))
    at = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=120)
    at.switch_page("app_pages/collections.py")
    at.run()
    assert [e.value for e in at.exception] == []
    shown = [e.value.replace("\\", "") for e in at.error]
    assert len(shown) == 1 and "\n" not in shown[0], shown
    assert shown[0].startswith("The workspace cannot be opened: workspace database ") and "does not answer" in shown[0]
