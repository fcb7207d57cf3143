"""Deleting is undone within the undo window; purging then removes the bytes, and leaves no stored file (bytes,
Arrow cache, derived table, leftover of an interrupted write) that no collection names, on SQLite and
PostgreSQL; a purge killed at any moment, or racing an add of the same bytes, never leaves a row naming a
missing file."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone

import pandas as pd
import pytest
from sqlalchemy import create_engine, text

import workspace.ingest
import workspace.purge
from tests import processes
from tests.workspace.conftest import ROOT, child_env
from tests.workspace.helpers import qrels_bytes, run_bytes
from workspace import Actor, UnknownCollection, WorkspaceError
from workspace.engine import resolve

HOUR = 3600.0


def _files(target):
    """Every file under the stored files' folder, by its path relative to it."""
    root = target.folder / ("ws/files" if target.kind == "sqlite" else "files")
    return {str(p.relative_to(root)): p for p in root.rglob("*") if p.is_file()}


def _sql(target, statement: str, **params):
    engine = create_engine(resolve(target.location, target.files).url)
    try:
        with engine.begin() as conn:
            result = conn.execute(text(statement), params)
            return result.all() if result.returns_rows else None
    finally:
        engine.dispose()


def _frame_inputs(stored) -> dict:
    return {"qrels": stored.qrels.sha256, "run": stored.runs[0].sha256, "measures": ["AP"]}


def _keep_frame(ws, stored) -> None:
    assert ws.keep_derived_frame("per_query", _frame_inputs(stored), pd.DataFrame({"system": ["a"], "value": [0.5]}))


def _rows_name_existing_files(target) -> None:
    """Every file row (of any collection, deleted or not) names stored bytes that match their digest."""
    files = _files(target)
    for (sha,) in _sql(target, "SELECT DISTINCT sha256 FROM collection_files"):
        path = files.get(f"{sha[:2]}/{sha}")
        assert path is not None, f"a row names {sha[:12]}, which is not stored"
        assert hashlib.sha256(path.read_bytes()).hexdigest() == sha


def _expected_files(ws, ids, framed) -> set[str]:
    """What the collections ``ids`` name: each file's bytes and Arrow cache (a qrels or a run), and each
    derived table written by this test for a collection of ``framed`` (:func:`_keep_frame`) whose files are
    all among them."""
    from workspace import derived

    names, digests = set(), set()
    for cid in ids:
        stored = ws.load(cid)
        for f in [stored.qrels, *stored.runs]:
            names |= {f"{f.sha256[:2]}/{f.sha256}", f"{f.sha256[:2]}/{f.sha256}.arrow"}
            digests.add(f.sha256)
    for stored in framed:
        inputs = _frame_inputs(stored)
        if {inputs["qrels"], inputs["run"]} <= digests:
            sha, _ = derived.key_of("per_query", inputs)
            names.add(f"{sha[:2]}/{sha}.frame")
    return names


def test_a_deletion_can_be_undone_within_the_window_and_not_after_the_purge(target):
    with target.open() as ws:
        ana = ws.acting_as(Actor("ana@example.org"))
        info = ana.add_collection("kept", qrels=("q.txt", qrels_bytes(1)), runs=[("a.run", run_bytes(1))])
        ana.save_note(info.id, "1", None, "hard", "a note")
        ana.delete(info.id)
        assert info.id not in {c.id for c in ws.collections(archived=True)}
        with pytest.raises(UnknownCollection):
            ws.load(info.id)
        gone, = ana.deleted()
        assert (gone.collection, gone.author, gone.name) == (info.id, "ana@example.org", "kept")
        assert ws.acting_as(Actor("bea@example.org")).deleted() == []  # only for those who may restore it
        _sql(target, "UPDATE events SET at = :at WHERE action = 'delete'",
             at=(datetime.now(timezone.utc) - timedelta(hours=2)).isoformat())  # deleted two hours ago
        assert ws.purge(3 * HOUR, author="op").collections == ()  # within a window of three hours: kept
        restored = ana.restore(info.id)
        assert restored.id == info.id and not restored.archived
        stored = ws.load(info.id)
        assert stored.qrels.read() == qrels_bytes(1) and stored.runs[0].read() == run_bytes(1)
        assert [n.comment for n in ws.notes(info.id)] == ["a note"] and ana.deleted() == []

        ana.delete(info.id)
        _sql(target, "UPDATE events SET at = :at WHERE action = 'delete'",
             at=(datetime.now(timezone.utc) - timedelta(hours=2)).isoformat())
        done = ws.purge(HOUR, author="op")  # past a window of one hour: purged
        assert done.collections == (info.id,) and done.files >= 4 and done.bytes > len(run_bytes(1))
        assert ana.deleted() == []
        with pytest.raises(WorkspaceError, match="purged"):
            ws.restore(info.id, author="op")
        assert [(e.action, e.author) for e in ws.log(info.id)][:2] == [("purge", "op"), ("delete", "ana@example.org")]
        assert _files(target) == {}
        with pytest.raises(WorkspaceError, match="at least 0"):
            ws.purge(-1, author="op")


def test_purging_leaves_no_stored_file_that_no_collection_names(target):
    with target.open() as ws:
        shared_run = ("shared.run", run_bytes(7))
        a = ws.add_collection("a", qrels=("q1", qrels_bytes(1)), runs=[shared_run], author="op")
        b = ws.add_collection("b", qrels=("q1", qrels_bytes(1)), runs=[("b.run", run_bytes(8))], author="op")
        c = ws.add_collection("c", qrels=("q2", qrels_bytes(2)), runs=[shared_run, ("c.run", run_bytes(9))],
                              author="op")
        c2 = ws.new_version(c.id, add_runs=[("c2.run", run_bytes(10))], author="op")
        d = ws.add_collection("d", qrels=("q3", qrels_bytes(3)), runs=[("d.run", run_bytes(11))], author="op",
                              topics=("topics.txt", b"<top><num>1</num><title>t</title></top>\n"))
        framed = [ws.load(info.id) for info in (a, b, c, c2, d)]
        for stored in framed:
            _keep_frame(ws, stored)
        for cid, topic in ((c.id, "1"), (d.id, "2")):
            ws.save_note(cid, topic, None, "", f"on {cid}", author="op")
        folder = next(iter(_files(target).values())).parent
        old = folder / f".{'0' * 64}.123.abcdef01.tmp"  # a write interrupted two hours ago, and one under way
        old.write_bytes(b"half a file")
        os.utime(old, (time.time() - 2 * HOUR,) * 2)
        fresh = folder / f".{'1' * 64}.124.abcdef02.tmp"
        fresh.write_bytes(b"being written")
        for info in (a, c, d):
            ws.delete(info.id, author="op")
        done = ws.purge(0, author="op")
        assert sorted(done.collections) == sorted([a.id, c.id, d.id])
        on_disk = set(_files(target))
        assert on_disk - {str(fresh.relative_to(folder.parent))} == _expected_files(ws, [b.id, c2.id], framed)
        assert fresh.exists() and not old.exists()
        assert ws.load(c2.id).runs[0].read() == run_bytes(7)  # shared with the purged versions: kept
        assert [n.comment for n in ws.notes(c2.id)] == [f"on {c.id}"]  # the lineage lives on in c2
        assert _sql(target, "SELECT COUNT(*) FROM notes WHERE lineage = :l", l=d.id) == [(0,)]  # d's went with it
        assert {sha for (sha,) in _sql(target, "SELECT sha256 FROM blobs")} == {
            f.sha256 for cid in (b.id, c2.id) for f in (ws.load(cid).qrels, *ws.load(cid).runs)}
        _rows_name_existing_files(target)
        assert ws.purge(0, author="op").files == 0  # nothing left to remove


def test_a_purge_stopped_after_its_rows_or_midway_through_its_files_is_finished_by_the_next(target, monkeypatch):
    from workspace import purge
    from workspace.engine import transaction

    with target.open() as ws:
        keep = ws.add_collection("keep", qrels=("q", qrels_bytes(1)), runs=[("k.run", run_bytes(1))], author="op")
        _keep_frame(ws, ws.load(keep.id))
        gone = [ws.add_collection(f"g{i}", qrels=("q", qrels_bytes(1)), runs=[(f"g{i}.run", run_bytes(20 + i))],
                                  author="op") for i in range(3)]
        for info in gone:
            ws.delete(info.id, author="op")
        with transaction(ws._engine, ws.location) as conn:  # the rows' step alone, then "killed"
            assert sorted(purge.expire(conn, datetime.now(timezone.utc), "op")) == sorted(i.id for i in gone)
        _rows_name_existing_files(target)  # no row names a file; the unnamed files are still there
        assert len(_files(target)) > len(_expected_files(ws, [keep.id], [ws.load(keep.id)]))

        removed = []
        real = type(ws._blobs).remove

        def dies_after_two(self, sha, suffix=""):
            if len(removed) == 2:
                raise KeyboardInterrupt  # the process stops in the middle of removing files
            removed.append(sha)
            return real(self, sha, suffix)

        monkeypatch.setattr(type(ws._blobs), "remove", dies_after_two)
        with pytest.raises(KeyboardInterrupt):
            ws.purge(0, author="op")
        monkeypatch.undo()
        _rows_name_existing_files(target)
        ws.purge(0, author="op")
        assert set(_files(target)) == _expected_files(ws, [keep.id], [ws.load(keep.id)])
        _rows_name_existing_files(target)


def test_an_add_racing_a_purge_of_the_same_bytes_stores_them_again(target, monkeypatch):
    with target.open() as ws, target.open() as other:
        old = ws.add_collection("old", qrels=("q", qrels_bytes(4)), runs=[("r.run", run_bytes(4))], author="op")
        ws.delete(old.id, author="op")
        real = workspace.ingest.prepare

        def purge_in_between(*args, **kwargs):  # the files are stored (or found stored), no row names them yet
            prepared = real(*args, **kwargs)
            assert other.purge(0, author="op").collections == (old.id,)
            return prepared

        monkeypatch.setattr(workspace.ingest, "prepare", purge_in_between)
        new = ws.add_collection("new", qrels=("q", qrels_bytes(4)), runs=[("r.run", run_bytes(4))], author="op")
        monkeypatch.undo()
        _rows_name_existing_files(target)
        stored = ws.load(new.id)
        assert stored.qrels.read() == qrels_bytes(4) and stored.runs[0].read() == run_bytes(4)
        assert ws.parsed_run(stored.runs[0].sha256) is not None  # its cache is written again when it is read


def _with_damaged_table(ws, target):
    """A stored collection whose derived table (:func:`_keep_frame`) is kept and then damaged."""
    stored = ws.load(ws.add_collection("c", qrels=("q", qrels_bytes(3)), runs=[("r.run", run_bytes(3))],
                                       author="op").id)
    _keep_frame(ws, stored)
    (table,) = [p for name, p in _files(target).items() if name.endswith(".frame")]
    table.write_bytes(table.read_bytes()[:-7])
    return stored


def test_a_damaged_table_written_again_while_a_purge_runs_is_kept(target, monkeypatch):
    with target.open() as ws:
        stored = _with_damaged_table(ws, target)  # the purge's listing finds it unreadable
        real = workspace.purge._unnamed

        def written_again_after_the_listing(*args, **kwargs):
            found = real(*args, **kwargs)
            assert [suffix for _, suffix in found] == [".frame"]
            _keep_frame(ws, stored)  # a page computed the table again and kept it whole
            return found

        monkeypatch.setattr(workspace.purge, "_unnamed", written_again_after_the_listing)
        assert ws.purge(0, author="op").files == 0
        assert ws.derived_frame("per_query", _frame_inputs(stored)) is not None


def test_a_damaged_table_written_again_after_the_purge_last_checked_it_is_kept(target, monkeypatch):
    with target.open() as ws:
        stored = _with_damaged_table(ws, target)  # stale at the listing and at the check under the lock
        real, checks = workspace.purge._stale, []

        def written_again_after_the_last_check(*args, **kwargs):
            stale = real(*args, **kwargs)
            checks.append(stale)
            if len(checks) == 2:  # the check under the lock, just before the removal
                _keep_frame(ws, stored)  # a page computed the table again and kept it whole
            return stale

        monkeypatch.setattr(workspace.purge, "_stale", written_again_after_the_last_check)
        assert ws.purge(0, author="op").files == 0
        assert checks == [True, True]
        assert ws.derived_frame("per_query", _frame_inputs(stored)) is not None
        assert not [name for name in _files(target) if name.endswith(".tmp")]  # nothing left aside


@pytest.mark.slow
def test_purges_killed_at_any_moment_never_leave_a_row_naming_a_missing_file(target, monkeypatch):
    with target.open() as ws:
        keep = ws.add_collection("keep", qrels=("qrels.txt", qrels_bytes(1)), runs=[("k.run", run_bytes(1))],
                                 author="op")
        _keep_frame(ws, ws.load(keep.id))
    start = 100
    for delay in (0.0, 0.3, 0.8, 1.5, 2.5):
        child = processes.start([sys.executable, "-m", "tests.workspace.worker", "purge-loop", target.location,
                                 target.files, str(start)], cwd=ROOT, env=child_env(), stdout=subprocess.PIPE, text=True)
        try:
            assert child.stdout.readline().strip() == str(start)  # one round done: the next is under way
            time.sleep(delay)
            os.killpg(child.pid, signal.SIGKILL)
        finally:
            processes.stop(child, grace=2)
            child.stdout.close()
        start += 1000
        _rows_name_existing_files(target)
        with target.open() as ws:
            assert ws.load(keep.id).runs[0].read() == run_bytes(1)
    with target.open() as ws:
        for info in ws.collections():
            if info.id != keep.id:  # a round killed before its deletion
                ws.delete(info.id, author="op")
        # a killed round may leave the temporary file of a write it was making: a leftover once an hour has
        # passed (LEFTOVER_SECONDS), which is now, as far as this purge knows
        monkeypatch.setattr(workspace.purge, "LEFTOVER_SECONDS", 0.0)
        ws.purge(0, author="op")
        assert set(_files(target)) == _expected_files(ws, [keep.id], [ws.load(keep.id)])
        _rows_name_existing_files(target)


@pytest.mark.parametrize("where", ["folder", "fsspec"])
def test_a_removal_judged_once_moved_aside_keeps_or_removes_and_never_replaces_a_newer_file(tmp_path, where):
    import secrets

    from workspace.files import BlobStore

    store = BlobStore(tmp_path if where == "folder" else f"memory://purge-{secrets.token_hex(4)}")
    sha, judged = "ab" * 32, []

    def judge(verdict, write_meanwhile=None):
        def keep_if(table):
            judged.append(table.read_bytes() if where == "folder" else table)
            if write_meanwhile is not None:
                store.put(sha, write_meanwhile, ".frame")
            return verdict
        return keep_if

    store.put(sha, b"old table", ".frame")
    assert store.remove(sha, ".frame", keep_if=judge(True)) is None
    assert store.get(sha, "t", ".frame") == b"old table"
    assert store.remove(sha, ".frame", keep_if=judge(True, write_meanwhile=b"newer table")) is None
    assert store.get(sha, "t", ".frame") == b"newer table"  # the newer one stays; the old one is not put back
    assert store.remove(sha, ".frame", keep_if=judge(False)) == len(b"newer table")
    assert not store.exists(sha, ".frame")
    assert store.remove(sha, ".frame", keep_if=judge(False)) == 0  # a missing file is no error, nothing judged
    assert judged == [b"old table", b"old table", b"newer table"]
    assert list(store.listing()) == []
    if where == "folder":
        assert [p.name for p in tmp_path.rglob("*") if p.is_file()] == []  # nothing left aside
