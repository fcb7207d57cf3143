"""Several processes and threads at once, and processes killed with SIGKILL in the middle of writing."""

from __future__ import annotations

import collections
import hashlib
import os
import signal
import subprocess
import time

import pytest

from tests import processes
from tests.workspace.helpers import qrels_bytes, run_bytes
from tests.workspace.writers import check_sqlite, start_writer


def _collection(target) -> str:
    with target.open() as ws:
        return ws.add_collection("c", qrels=("q", qrels_bytes(1)), runs=[("a.run", run_bytes(1))], author="a").id


def _files_folder(target):
    return target.folder / ("ws/files" if target.kind == "sqlite" else "files")


def _check_stored_files(target) -> None:
    """Every file under its final name holds exactly the bytes its name says."""
    for path in _files_folder(target).rglob("*"):
        if path.is_file() and len(path.name) == 64:
            assert hashlib.sha256(path.read_bytes()).hexdigest() == path.name


@pytest.mark.slow
def test_two_processes_of_ten_threads_save_every_note_exactly_once(target):
    cid = _collection(target)
    each = 15
    children = [start_writer(target, "notes", cid, f"p{p}", "10", str(each)) for p in range(2)]
    try:
        for child in children:
            assert child.wait(timeout=300) == 0
    finally:
        for child in children:
            processes.stop(child, grace=2)
    with target.open() as ws:
        saved = [n for topic in map(str, range(5)) for system in (None, "sys")
                 for n in ws.note_history(cid, topic, system)]
    counts = collections.Counter(n.comment for n in saved)
    expected = {f"p{p}-{t}-{i}" for p in range(2) for t in range(10) for i in range(each)}
    assert set(counts) == expected and set(counts.values()) == {1}
    assert len({n.revision for n in saved}) == len(saved) == 2 * 10 * each
    check_sqlite(target)


@pytest.mark.slow
def test_note_saves_killed_mid_loop_keep_every_committed_note(target):
    cid = _collection(target)
    printed: dict[int, str] = {}
    for round_ in range(3):
        child = start_writer(target, "note-loop", cid, f"r{round_}", stdout=subprocess.PIPE, text=True)
        try:
            for _ in range(20 + 7 * round_):
                revision, comment = child.stdout.readline().split()
                printed[int(revision)] = comment
            os.killpg(child.pid, signal.SIGKILL)
            child.wait(timeout=30)
            for line in child.stdout.read().splitlines():  # committed and printed before the kill, not read yet
                revision, comment = line.split()
                printed[int(revision)] = comment
        finally:
            processes.stop(child, grace=2)
            child.stdout.close()
    with target.open() as ws:
        history = ws.note_history(cid, "1", None)
    found = {n.revision: n.comment for n in history}
    assert all(found.get(r) == c for r, c in printed.items())  # every committed save is there
    assert len(found) - len(printed) <= 3  # at most the one in flight per round, and it is whole
    assert all(n.comment.startswith("r") and n.author == n.comment.split("-")[0] for n in history)
    check_sqlite(target)


@pytest.mark.slow
def test_adding_a_big_collection_killed_midway_leaves_it_whole_or_absent(target):
    done = start_writer(target, "add", "2", "20000", stdout=subprocess.PIPE, text=True)
    try:
        assert done.wait(timeout=300) == 0
        complete = done.stdout.read().split()[-1]
    finally:
        processes.stop(done, grace=2)
        done.stdout.close()
    for delay in (0.05, 0.4, 1.0, 2.0):
        child = start_writer(target, "add", "4", "150000", stdout=subprocess.PIPE, text=True)
        try:
            assert child.stdout.readline().strip() == "start"
            time.sleep(delay)
            os.killpg(child.pid, signal.SIGKILL)
        finally:
            processes.stop(child, grace=2)
            child.stdout.close()
        check_sqlite(target)
        _check_stored_files(target)
        with target.open() as ws:
            listed = ws.collections()
            assert complete in {c.id for c in listed}
            for info in listed:  # each visible collection is complete: every file there and parseable
                stored = ws.load(info.id)
                assert len(stored.runs) == len(info.systems) and stored.qrels.read()
                for run in stored.runs:
                    assert len(run.read()) == run.size
                    assert ws.parsed_run(run.sha256) is not None
