"""New versions that change conventions, texts and system names; files parsed once by the caller; tables
derived from stored files kept beside them; seeding an empty workspace once, even by two processes at once."""

from __future__ import annotations

import hashlib
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import workspace.cache
import workspace.derived
import workspace.ingest
from metrics.io import read_qrels, read_run
from tests import processes
from tests.workspace.conftest import ROOT, child_env
from tests.workspace.helpers import qrels_bytes, run_bytes
from workspace import WorkspaceError


def _add(ws, n_runs: int = 2):
    runs = [(f"sys{i}.run", run_bytes(10 + i)) for i in range(n_runs)]
    return ws.add_collection("c", qrels=("qrels.txt", qrels_bytes(3)), runs=runs, author="ana"), runs


def test_a_new_version_changes_conventions_texts_and_system_names(target):
    with target.open() as ws:
        info, runs = _add(ws, 3)
        topics, documents = ("t.tsv", b"1\tfirst topic\n"), ("d.tsv", b"D1\ta document\n")
        new = ws.new_version(info.id, conventions={"relevance_level": 2, "complete": True}, topics=topics,
                             documents=documents, rename_systems={"sys0": "bm25", "sys2": "sys0"},
                             remove_systems=["sys1"], add_runs=[("sys1.run", run_bytes(99))], author="bo")
        assert (new.parent, new.version, new.lineage) == (info.id, 2, info.id)
        assert new.systems == ("bm25", "sys0", "sys1")
        stored, old = ws.load(new.id), ws.load(info.id)
        assert stored.conventions["relevance_level"] == 2 and stored.conventions["complete"] is True
        assert old.conventions["relevance_level"] == 1 and old.info.systems == ("sys0", "sys1", "sys2")
        assert [r.read() for r in stored.runs] == [runs[0][1], runs[2][1], run_bytes(99)]
        assert stored.topics.read() == topics[1] and stored.documents.read() == documents[1]
        assert old.topics is None and old.documents is None
        again = ws.load(ws.new_version(new.id, author="cy").id)  # nothing changed: everything kept
        assert again.conventions == stored.conventions and again.info.systems == new.systems
        assert again.topics.sha256 == stored.topics.sha256 and again.documents.sha256 == stored.documents.sha256
        for kwargs, message in [({"rename_systems": {"nope": "x"}}, "cannot rename system.*'nope'"),
                                ({"rename_systems": {"bm25": "sys0"}}, "unique system names.*'sys0'"),
                                ({"rename_systems": {"bm25": "a\nb"}}, "system name: expected one"),
                                ({"conventions": {"relevance_level": "high"}}, "conventions:"),
                                ({"conventions": [1]}, "conventions: expected a dict"),
                                ({"topics": b"x"}, "topics: expected a \\(file name, bytes\\) pair")]:
            with pytest.raises(WorkspaceError, match=message):
                ws.new_version(new.id, author="cy", **kwargs)
        assert len(ws.collections()) == 3  # refused versions leave nothing


def test_files_parsed_by_the_caller_are_not_parsed_again(target, monkeypatch):
    qrels, runs = qrels_bytes(4), [("a.run", run_bytes(40)), ("b.run", run_bytes(41))]
    given = {hashlib.sha256(qrels).hexdigest(): read_qrels(qrels, name="q.txt")}
    given.update({hashlib.sha256(data).hexdigest(): read_run(data, name=name) for name, data in runs})

    def refuse(*args, **kwargs):
        raise AssertionError("parsed again")

    for module in (workspace.ingest, workspace.cache):  # where files are stored, and read back
        monkeypatch.setattr(module, "read_run", refuse)
        monkeypatch.setattr(module, "read_qrels", refuse)
    with target.open() as ws:
        info = ws.add_collection("c", qrels=("q.txt", qrels), runs=runs, author="ana", parsed=given)
        extra = run_bytes(42)
        parse = {hashlib.sha256(extra).hexdigest(): read_run(extra, name="c.run")}
        new = ws.new_version(info.id, add_runs=[("c.run", extra)], parsed=parse, author="ana")
        assert info.topics == len(given[hashlib.sha256(qrels).hexdigest()].queries)
        for stored, data in zip(ws.load(new.id).runs, [d for _, d in runs] + [extra]):
            cached = ws.parsed_run(stored.sha256)  # the cache written from the caller's parse
            assert cached.name == stored.system
            assert cached.table.equals(given.get(stored.sha256, parse.get(stored.sha256)).table, check_metadata=False)
        with pytest.raises(WorkspaceError, match="expected its parse as a Run, found Qrels"):
            ws.add_collection("bad", qrels=("q.txt", qrels), runs=[("x.run", qrels)], author="ana",
                              parsed={hashlib.sha256(qrels).hexdigest(): given[hashlib.sha256(qrels).hexdigest()]})


def _frame(seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 40))
    values = rng.random(n)
    values[rng.random(n) < 0.2] = np.nan
    return pd.DataFrame({"query": np.array([f"q{i}" for i in rng.integers(0, 9, n)], dtype=object),
                         "measure": np.array(["AP", "nDCG@10", "P(rel=2)@5"] * n, dtype=object)[:n],
                         "value": values, "low": values - 1e-17, "count": rng.integers(-5, 5, n)})


@pytest.mark.parametrize("seed", range(4))
def test_derived_tables_round_trip_exactly_and_are_keyed_on_their_inputs(target, seed):
    inputs = {"qrels": "a" * 64, "run": "b" * 64, "conventions": {"relevance_level": 1}, "measures": ["AP"]}
    frame = _frame(seed)
    with target.open() as ws:
        assert ws.derived_frame("per_query", inputs) is None
        assert ws.keep_derived_frame("per_query", inputs, frame)
    with target.open() as ws:  # another process's view: from the file
        back = ws.derived_frame("per_query", inputs)
        pd.testing.assert_frame_equal(back, frame, check_exact=True)
        assert ws.derived_frame("per_query", {**inputs, "measures": ["AP", "P@5"]}) is None
        assert ws.derived_frame("tie_ranges", inputs) is None
        assert ws.derived_frame("per_query", {**inputs, "conventions": {"relevance_level": 2}}) is None


@pytest.mark.parametrize("damage", ["flipped byte", "truncated", "empty", "another table's file"])
def test_a_damaged_derived_table_is_ignored_and_rewritten(target, damage):
    inputs, other = {"run": "c" * 64}, {"run": "d" * 64}
    with target.open() as ws:
        ws.keep_derived_frame("per_query", inputs, _frame(1))
        ws.keep_derived_frame("per_query", other, _frame(2))
    files = target.folder / ("ws/files" if target.kind == "sqlite" else "files")
    path, = [p for p in files.rglob("*.frame") if workspace.derived.key_of("per_query", inputs)[0] in p.name]
    data = path.read_bytes()
    if damage == "flipped byte":
        at = len(data) - 200
        data = data[:at] + bytes([data[at] ^ 1]) + data[at + 1:]
    elif damage == "truncated":
        data = data[: len(data) // 2]
    elif damage == "empty":
        data = b""
    else:
        data, = [p.read_bytes() for p in files.rglob("*.frame") if p != path]
    path.write_bytes(data)
    with target.open() as ws:
        assert ws.derived_frame("per_query", inputs) is None
        assert ws.keep_derived_frame("per_query", inputs, _frame(1))
        pd.testing.assert_frame_equal(ws.derived_frame("per_query", inputs), _frame(1), check_exact=True)
        pd.testing.assert_frame_equal(ws.derived_frame("per_query", other), _frame(2), check_exact=True)


def test_collections_added_once_under_a_marker(target):
    with target.open() as ws:
        item = {"name": "seeded", "qrels": ("q", qrels_bytes(1)), "runs": [("a.run", run_bytes(1))]}
        added = ws.add_collections_once("demo", [item, {**item, "name": "second"}], author="x")
        assert [c.name for c in added] == ["seeded", "second"]
        assert ws.add_collections_once("demo", [item], author="x") == []
        assert [c.name for c in ws.add_collections_once("other", [item], author="x")] == ["seeded"]
        assert sorted(c.name for c in ws.collections()) == ["second", "seeded", "seeded"]
        with pytest.raises(WorkspaceError, match="marker"):
            ws.add_collections_once("x" * 65, [item], author="x")


def test_two_processes_seeding_one_empty_workspace_seed_it_once(target):
    pytest.importorskip("streamlit", reason="the dashboard extra (streamlit) is not installed")
    target.open().close()  # the tables exist: both children race on the seeding itself
    ready = [target.folder / f"ready{i}" for i in range(2)]
    go = target.folder / "go"
    children = [processes.start([sys.executable, "-m", "tests.workspace.worker", "seed", target.location,
                                 target.files, str(r), str(go)], cwd=ROOT, env=child_env(),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for r in ready]
    try:
        for child, flag in zip(children, ready):
            while not flag.exists():
                assert child.poll() is None, f"a seeding process ended early: {child.stderr.read()[-800:]}"
                try:
                    child.wait(timeout=0.01)
                except subprocess.TimeoutExpired:
                    pass
        go.touch()
        answers = [child.communicate(timeout=300) for child in children]
        assert [child.returncode for child in children] == [0, 0], [err[-800:] for _, err in answers]
        seen = [int(out.split()[-1]) for out, _ in answers]
    finally:
        for child in children:
            processes.stop(child, grace=2)
    assert seen == [0, 0]  # both found the workspace empty, both tried
    from dashboard.store import opened
    from sample_data import teaching_examples

    with target.open() as ws:
        names = sorted(c.name for c in ws.collections(archived=True))
    assert names == sorted([opened.DEMO] + [opened.EXAMPLE.format(n) for n in teaching_examples()])
