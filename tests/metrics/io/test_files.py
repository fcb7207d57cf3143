"""Writing a file never replaces a symbolic link, a FIFO, a device node or a directory, nor writes through a link.

The rule (metrics.io.files): the path must be new or a regular file. Each kind of file is put at the path of
``report -o``, ``workspace export -o`` and a file of ``report --exports``; the command must refuse in one line
(exit status 2) and leave it as it was (same kind, same target, same device numbers, the linked file's bytes
unchanged). A device node is made with mknod, which needs root; ``-`` writes to stdout.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from tests.paths import ROOT

KINDS = ["symlink", "dangling symlink", "fifo", "device", "directory"]


def _rankscope(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rankscope", *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=600)


def _plant(kind: str, path: Path) -> tuple:
    """Put a ``kind`` at ``path``; what must be the same afterwards."""
    if kind == "symlink":
        target = path.with_name("precious.txt")
        target.write_bytes(b"keep me\n")
        path.symlink_to(target.name)
        return ("link", os.readlink(path), target.read_bytes())
    if kind == "dangling symlink":
        path.symlink_to("/nonexistent/created-through-a-link")
        return ("link", os.readlink(path))
    if kind == "fifo":
        os.mkfifo(path)
        return ("fifo", stat.S_ISFIFO(os.lstat(path).st_mode))
    if kind == "device":
        if os.geteuid() != 0:
            pytest.skip("a device node needs root (mknod)")
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # a copy of /dev/null's node
        return ("device", stat.S_ISCHR(os.lstat(path).st_mode), os.lstat(path).st_rdev)
    path.mkdir()
    (path / "inside").write_bytes(b"x")
    return ("directory", sorted(os.listdir(path)))


def _state(kind: str, path: Path) -> tuple:
    info = os.lstat(path)
    if kind == "symlink":
        return ("link", os.readlink(path), path.with_name("precious.txt").read_bytes())
    if kind == "dangling symlink":
        return ("link", os.readlink(path))
    if kind == "fifo":
        return ("fifo", stat.S_ISFIFO(info.st_mode))
    if kind == "device":
        return ("device", stat.S_ISCHR(info.st_mode), info.st_rdev)
    return ("directory", sorted(os.listdir(path)))


def _unblock(path: Path) -> threading.Thread:
    """A reader of a FIFO, so that a command that wrongly opens it for writing does not hang the test."""
    def drain():
        try:
            with open(path, "rb") as f:
                f.read()
        except OSError:
            pass

    thread = threading.Thread(target=drain, daemon=True)
    thread.start()
    return thread


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    """A tiny qrels and run, stored as a collection to export: (workspace, id, qrels, run)."""
    folder = tmp_path_factory.mktemp("ws")
    qrels, run = folder / "tiny.qrels", folder / "tiny.run"
    qrels.write_bytes(b"1 0 a 1\n1 0 b 0\n2 0 c 1\n")
    run.write_bytes(b"1 Q0 a 1 2.0 x\n1 Q0 b 2 1.0 x\n2 Q0 c 1 1.0 x\n")
    done = _rankscope("workspace", "add", str(qrels), str(run), "--name", "tiny", "--workspace", str(folder / "ws"),
                      cwd=folder)
    assert done.returncode == 0, done.stderr
    return folder / "ws", done.stdout.strip(), str(qrels), str(run)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("command", ["report", "export", "exports"])
def test_a_write_never_replaces_another_kind_of_file(tmp_path, collection, kind, command):
    workspace, cid, qrels, run = collection
    name = "summary.csv" if command == "exports" else "out.file"
    target = tmp_path / "out" / name if command == "exports" else tmp_path / name
    target.parent.mkdir(exist_ok=True)
    before = _plant(kind, target)
    reader = _unblock(target) if kind == "fifo" else None
    if command == "report":
        done = _rankscope("report", qrels, run, "-m", "AP", "-o", str(target), cwd=tmp_path)
    elif command == "export":
        done = _rankscope("workspace", "export", cid, "-o", str(target), "--workspace", str(workspace), cwd=tmp_path)
    else:
        done = _rankscope("report", qrels, run, "-m", "AP", "-o", str(tmp_path / "r.html"),
                          "--exports", str(target.parent), "--no-images", cwd=tmp_path)
    lines = done.stderr.strip().splitlines()
    if command == "exports":  # the report itself was written first
        assert lines[0].startswith("wrote "), done.stderr
        lines = lines[1:]
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert lines[0].startswith(f"rankscope {'workspace' if command == 'export' else 'report'}: cannot write ")
    assert "rankscope writes only a new path or a regular file" in lines[0]
    assert _state(kind, target) == before
    assert not [p for p in target.parent.iterdir() if p.name.startswith(".") and p.name.endswith(".tmp")]
    if reader is not None:
        os.close(os.open(target, os.O_WRONLY | os.O_NONBLOCK))  # let the reader go
        reader.join(5)


def test_a_regular_file_is_replaced_whole_and_dash_writes_to_stdout(tmp_path, collection):
    workspace, cid, _, _ = collection
    old = tmp_path / "session.json"
    old.write_bytes(b"old")
    done = _rankscope("workspace", "export", cid, "-o", str(old), "--workspace", str(workspace), cwd=tmp_path)
    assert done.returncode == 0 and old.read_bytes().startswith(b"{"), done.stderr
    to_stdout = _rankscope("workspace", "export", cid, "-o", "-", "--workspace", str(workspace), cwd=tmp_path)
    assert to_stdout.returncode == 0 and to_stdout.stderr == ""
    written, shown = json.loads(old.read_bytes()), json.loads(to_stdout.stdout)
    assert {k: v for k, v in written.items() if k != "saved_utc"} == {k: v for k, v in shown.items() if k != "saved_utc"}
    assert not (tmp_path / "-").exists()


def test_write_atomic_checks_the_path_again_before_the_name_is_taken(tmp_path, monkeypatch):
    """A link put at the path while the bytes are written is not replaced either."""
    from metrics.io import files

    path = tmp_path / "out.html"
    real_fsync = os.fsync

    def plant_then_sync(fd):
        if not path.exists():
            path.symlink_to("elsewhere")
        real_fsync(fd)

    monkeypatch.setattr(files.os, "fsync", plant_then_sync)
    with pytest.raises(files.NotRegularFile, match="a symbolic link is there"):
        files.write_atomic(path, b"new")
    assert os.readlink(path) == "elsewhere" and [p.name for p in tmp_path.iterdir()] == ["out.html"]
