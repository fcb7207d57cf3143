"""A workspace that cannot be written or reached raises StoreUnavailable with one clear line."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap

import pytest
from sqlalchemy import create_engine, text

from tests import processes
from tests.workspace.conftest import ROOT, child_env
from tests.workspace.helpers import qrels_bytes, run_bytes
from workspace import StoreUnavailable, open_workspace
from workspace.engine import resolve

# Run in a child that cannot override file permissions (root could): opens the workspace, adds, prints.
_CHILD = textwrap.dedent("""
    import sys
    from tests.workspace.helpers import qrels_bytes, run_bytes
    from workspace import StoreUnavailable, open_workspace
    try:
        ws = open_workspace(sys.argv[1], files=sys.argv[2])
        ws.add_collection("c", qrels=("q", qrels_bytes(1)), runs=[("a.run", run_bytes(1))], author="a")
    except StoreUnavailable as err:
        print("StoreUnavailable:", err)
    else:
        print("written")
""")


def _without_override(argv: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return argv
    return ["setpriv", "--inh-caps=-all", "--bounding-set=-dac_override,-dac_read_search", "--"] + argv


def _read_only(*paths) -> None:
    for path in paths:
        for root, dirs, files in os.walk(path):
            for name in files:
                os.chmod(os.path.join(root, name), 0o444)
            for name in dirs:
                os.chmod(os.path.join(root, name), 0o555)
        os.chmod(path, 0o555)


def _restore(*paths) -> None:
    for path in paths:
        os.chmod(path, 0o755)
        for root, dirs, _ in os.walk(path):
            for name in dirs:
                os.chmod(os.path.join(root, name), 0o755)


def test_a_read_only_workspace_folder_gives_one_clear_line(target):
    with target.open() as ws:
        ws.add_collection("first", qrels=("q", qrels_bytes(2)), runs=[("b.run", run_bytes(2))], author="a")
    folders = [target.folder / "ws"] if target.kind == "sqlite" else [target.folder / "files"]
    _read_only(*folders)
    try:
        out = subprocess.run(_without_override([sys.executable, "-c", _CHILD, target.location, target.files]),
                             cwd=ROOT, env=child_env(), capture_output=True, text=True, timeout=120)
    finally:
        _restore(*folders)
    assert out.returncode == 0, out.stderr
    line = out.stdout.strip()
    assert "\n" not in line and line.startswith("StoreUnavailable:")
    assert ("read-only" in line or "not writable" in line or "cannot be opened" in line), line


def test_a_new_workspace_in_a_read_only_folder(tmp_path):
    _read_only(tmp_path)
    try:
        out = subprocess.run(_without_override([sys.executable, "-c", _CHILD, str(tmp_path / "ws"),
                                                str(tmp_path / "ws" / "files")]),
                             cwd=ROOT, env=child_env(), capture_output=True, text=True, timeout=120)
    finally:
        _restore(tmp_path)
    assert out.stdout.startswith("StoreUnavailable: workspace folder") and "cannot be created" in out.stdout
    assert out.stdout.count("\n") == 1


def test_a_locked_database_gives_one_clear_line(target):
    with target.open() as ws:
        cid = ws.add_collection("c", qrels=("q", qrels_bytes(1)), runs=[("a.run", run_bytes(1))], author="a").id
    if target.kind == "sqlite":
        holder = sqlite3.connect(target.folder / "ws" / "workspace.db", isolation_level=None)
        holder.execute("BEGIN EXCLUSIVE")
    else:
        engine = create_engine(resolve(target.location, target.files).url)
        holder = engine.connect()
        holder.execute(text("LOCK TABLE notes IN ACCESS EXCLUSIVE MODE"))
    try:
        with pytest.raises(StoreUnavailable) as err:
            with target.open(busy_timeout=0.5) as ws:
                ws.save_note(cid, "1", None, "", "x", author="a")
        assert "\n" not in str(err.value) and "is locked by another process" in str(err.value)
    finally:
        holder.rollback() if target.kind == "postgresql" else holder.execute("ROLLBACK")
        holder.close()
    with target.open() as ws:  # once the lock is gone, the save goes through
        assert ws.save_note(cid, "1", None, "", "x", author="a").comment == "x"


def test_a_server_that_does_not_answer_gives_one_clear_line(tmp_path):
    port = processes.free_port()
    with pytest.raises(StoreUnavailable) as err:
        open_workspace(f"postgresql://someone:secret@127.0.0.1:{port}/db", files=str(tmp_path), busy_timeout=2)
    message = str(err.value)
    assert "\n" not in message and "does not answer" in message and f"127.0.0.1:{port}" in message
    assert "secret" not in message
