"""A full disk gives StoreUnavailable with one line, and leaves the workspace as it was before.

The disk is real: a 2 MB tmpfs mounted for the test (root may mount; the mount is undone in a ``finally``).
Where mounting is not permitted those tests are skipped, naming why; a file-size limit (``RLIMIT_FSIZE``
in a child process, which makes writes fail with EFBIG rather than ENOSPC) stands in for a full disk in
:func:`test_a_file_size_limit_gives_one_line_and_keeps_the_workspace`, which runs everywhere.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from metrics.io import read_qrels, read_run
from tests.workspace.conftest import ROOT, child_env
from tests.workspace.helpers import qrels_bytes, run_bytes
from workspace import StoreUnavailable, open_workspace
from workspace.cache import from_arrow

DISK = 2 * 1024 * 1024
_BLOB = re.compile(r"[0-9a-f]{64}\Z")


@contextlib.contextmanager
def _small_disk(folder: Path):
    """A fresh 2 MB tmpfs mounted on ``folder``, unmounted on the way out."""
    folder.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a 2 MB tmpfs needs root; test_a_file_size_limit_... covers the same with EFBIG")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={DISK}", "tmpfs", str(folder)],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"mounting a 2 MB tmpfs is not permitted here ({mounted.stderr.strip()[:120]}); "
                    f"test_a_file_size_limit_... covers the same with EFBIG")
    try:
        yield folder
    finally:
        if subprocess.run(["umount", str(folder)], capture_output=True).returncode != 0:
            subprocess.run(["umount", "-l", str(folder)], capture_output=True)


def _free(folder: Path) -> int:
    stat = os.statvfs(folder)
    return stat.f_bavail * stat.f_frsize


def _check_stored_files(files: Path) -> int:
    """Every file under a final name is whole (its bytes match their digest, a cache reads back); no
    temporary is left. The number of stored files."""
    count = 0
    for path in files.rglob("*"):
        if path.is_dir():
            continue
        assert path.parent.name == path.name[:2], path
        sha, _, suffix = path.name.partition(".")
        assert _BLOB.match(sha) and suffix in ("", "arrow"), f"not a stored file name: {path}"
        data = path.read_bytes()
        if suffix == "":
            assert hashlib.sha256(data).hexdigest() == sha, f"partial file under a final name: {path}"
        else:
            assert from_arrow(data, sha, "run") or from_arrow(data, sha, "qrels"), f"partial cache: {path}"
        count += 1
    return count


def _check_collection(ws, cid: str, qrels: bytes, runs: list[tuple[str, bytes]]) -> None:
    stored = ws.load(cid)
    assert stored.qrels.read() == qrels
    assert [(r.name, r.read()) for r in stored.runs] == runs
    for stored_run, (_, data) in zip(stored.runs, runs):
        parsed = ws.parsed_run(stored_run.sha256)
        assert parsed.table.equals(read_run(data, name=stored_run.system).table, check_metadata=False)
    assert ws.parsed_qrels(stored.qrels.sha256).table.equals(read_qrels(qrels).table)


def test_a_collection_bigger_than_the_free_space(target, tmp_path):
    with _small_disk(tmp_path / "disk") as disk:
        location = str(disk / "ws") if target.kind == "sqlite" else target.location
        files = disk / ("ws/files" if target.kind == "sqlite" else "files")
        earlier = []
        with open_workspace(location, files=str(files)) as ws:
            for seed in (1, 2):
                runs = [(f"r{seed}{i}.run", run_bytes(10 * seed + i)) for i in range(2)]
                earlier.append((ws.add_collection(f"c{seed}", qrels=("q.txt", qrels_bytes(seed)), runs=runs,
                                                  author="ana").id, qrels_bytes(seed), runs))
            big = run_bytes(99, lines=100_000)
            free = _free(disk)
            assert len(big) > free > 0  # the run cannot fit
            with pytest.raises(StoreUnavailable) as err:
                ws.add_collection("too big", qrels=("q.txt", qrels_bytes(3)),
                                  runs=[("small.run", run_bytes(5)), ("big.run", big)], author="bo")
            message = str(err.value)
            assert "\n" not in message and message.startswith("cannot store big.run: stored files folder")
            assert "is full (no space left)" in message and str(files) in message
            # the part of big.run written before the disk filled was removed (q.txt and small.run, stored
            # whole before it, stay: about 30 KB, reused if they are added again)
            assert _free(disk) > free - 256 * 1024

            assert [c.id for c in ws.collections()] == [earlier[1][0], earlier[0][0]]
            stored = _check_stored_files(files)
            for cid, qrels, runs in earlier:
                _check_collection(ws, cid, qrels, runs)
            note = ws.save_note(earlier[0][0], "1", None, "", "still writable", author="cy")
            assert ws.notes(earlier[0][0]) == [note]
        assert stored >= 2 * 2 * 3  # qrels and two runs of each, with their caches (small.run's may stay)
        with open_workspace(location, files=str(files)) as ws:  # reopened: all still there
            for cid, qrels, runs in earlier:
                _check_collection(ws, cid, qrels, runs)
            assert [c.name for c in ws.collections()] == ["c2", "c1"]


def test_a_full_disk_under_the_database(tmp_path):
    """SQLite on a disk with no space left: a note cannot be saved (one line), nothing is lost."""
    with _small_disk(tmp_path / "disk") as disk:
        runs = [("a.run", run_bytes(1))]
        with open_workspace(disk / "ws") as ws:
            cid = ws.add_collection("c", qrels=("q.txt", qrels_bytes(1)), runs=runs, author="ana").id
            kept = ws.save_note(cid, "1", None, "hard", "before", author="ana")
        filler = disk / "filler"
        with pytest.raises(OSError), open(filler, "wb", buffering=0) as handle:
            while True:  # until the disk is full
                handle.write(b"\0" * 65536)
        try:
            with pytest.raises(StoreUnavailable) as err:
                with open_workspace(disk / "ws") as ws:
                    assert [c.id for c in ws.collections()] == [cid]
                    ws.save_note(cid, "1", None, "hard", "x" * 20_000, author="bo", base=kept.revision)
            message = str(err.value)
            assert "\n" not in message and "is on a full disk" in message, message
        finally:
            filler.unlink()
        with open_workspace(disk / "ws") as ws:
            assert ws.notes(cid) == [kept]
            _check_collection(ws, cid, qrels_bytes(1), runs)
            assert ws.save_note(cid, "1", None, "", "after", author="bo", base=kept.revision).base == kept.revision
        _check_stored_files(disk / "ws" / "files")


# In a child: writes past 1 MB fail with EFBIG (SIGXFSZ ignored), then one small and one big collection.
_LIMITED = textwrap.dedent("""
    import resource, signal, sys
    from tests.workspace.helpers import qrels_bytes, run_bytes
    from workspace import StoreUnavailable, open_workspace
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))
    with open_workspace(sys.argv[1]) as ws:
        print(ws.add_collection("small", qrels=("q.txt", qrels_bytes(1)), runs=[("a.run", run_bytes(1))],
                                author="ana").id)
        try:
            ws.add_collection("big", qrels=("q.txt", qrels_bytes(2)), runs=[("big.run", run_bytes(9, 60_000))],
                              author="ana")
        except StoreUnavailable as err:
            print("StoreUnavailable:", err)
""")


def test_a_file_size_limit_gives_one_line_and_keeps_the_workspace(tmp_path):
    """Stands in for a full disk where mounting is not permitted: ``RLIMIT_FSIZE`` gives EFBIG, not ENOSPC,
    through the same code path (a failed write removed, the rows never committed)."""
    out = subprocess.run([sys.executable, "-c", _LIMITED, str(tmp_path / "ws")], cwd=ROOT, env=child_env(),
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    cid, line = out.stdout.splitlines()
    assert line.startswith("StoreUnavailable: cannot store big.run: stored files folder")
    assert line.endswith("cannot hold a file this large (file size limit)")
    _check_stored_files(tmp_path / "ws" / "files")
    with open_workspace(tmp_path / "ws") as ws:
        assert [c.id for c in ws.collections()] == [cid]
        _check_collection(ws, cid, qrels_bytes(1), [("a.run", run_bytes(1))])
