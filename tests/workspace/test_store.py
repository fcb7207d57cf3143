"""Collections round-trip through the store on SQLite and PostgreSQL: files, parses, versions, changes."""

from __future__ import annotations

import hashlib
import os
import re

import pytest

from metrics.errors import ParseError
from metrics.io import read_qrels, read_run
from tests.random_collections import random_collection
from tests.workspace.helpers import qrels_bytes, run_bytes
from workspace import StoredCollection, UnknownCollection, WorkspaceError


def _add(ws, seed: int = 0, n_runs: int = 3, **options):
    runs = [(f"sys{i}.run", run_bytes(seed * 100 + i)) for i in range(n_runs)]
    return ws.add_collection(f"collection {seed}", qrels=("qrels.txt", qrels_bytes(seed)), runs=runs,
                             author="ana", **options), runs


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_collections_and_files_round_trip(target, seed):
    with target.open() as ws:
        topics = ("topics.txt", b"<top><num>1</num><title>x</title></top>\n")
        info, runs = _add(ws, seed, topics=topics, conventions={"relevance_level": 2, "complete": True})
        expected_topics = len(random_collection(seed).qrels)
        assert info.version == 1 and info.parent is None and info.created_by == "ana" and not info.archived
        assert info.systems == ("sys0", "sys1", "sys2") and info.topics == expected_topics
        assert re.fullmatch(r"[A-Za-z0-9_-]{16}", info.id)
        assert info.size == len(qrels_bytes(seed)) + sum(len(b) for _, b in runs) + len(topics[1])
    with target.open() as ws:  # reopened: everything from the database and the files
        stored = ws.load(info.id)
        assert isinstance(stored, StoredCollection) and stored.info == info == ws.collection(info.id)
        assert stored.conventions["relevance_level"] == 2 and stored.conventions["complete"] is True
        assert stored.qrels.read() == qrels_bytes(seed)
        assert stored.qrels.sha256 == hashlib.sha256(qrels_bytes(seed)).hexdigest()
        assert [(r.name, r.read()) for r in stored.runs] == runs
        assert [r.sha256 for r in stored.runs] == [hashlib.sha256(b).hexdigest() for _, b in runs]
        assert [r.size for r in stored.runs] == [len(b) for _, b in runs]
        assert stored.topics.read() == topics[1] and stored.documents is None
        for stored_run, (name, data) in zip(stored.runs, runs):
            parsed, direct = ws.parsed_run(stored_run.sha256), read_run(data, name=stored_run.system)
            assert parsed.name == direct.name and parsed.tag == direct.tag
            assert parsed.table.equals(direct.table, check_metadata=False)
            assert parsed.table.schema == direct.table.schema
        qrels = ws.parsed_qrels(stored.qrels.sha256)
        assert qrels.table.equals(read_qrels(qrels_bytes(seed)).table)
        assert ws.parsed_run("0" * 64) is None and ws.parsed_qrels(stored.runs[0].sha256) is None


@pytest.mark.parametrize("damage", ["garbage", "truncated", "other file"])
def test_parse_cache_is_arrow_beside_the_bytes_and_survives_damage(target, damage):
    with target.open() as ws:
        info, runs = _add(ws, 5, n_runs=2)
        sha, other = (hashlib.sha256(data).hexdigest() for _, data in runs)
    files = target.folder / ("ws/files" if target.kind == "sqlite" else "files")
    cached = files / sha[:2] / f"{sha}.arrow"
    assert (files / sha[:2] / sha).read_bytes() == runs[0][1] and cached.read_bytes()[:6] == b"ARROW1"
    good = cached.read_bytes()
    cached.write_bytes({"garbage": b"not arrow", "truncated": good[: len(good) // 2],
                        "other file": (files / other[:2] / f"{other}.arrow").read_bytes()}[damage])
    with target.open() as ws:
        assert ws.parsed_run(sha).table.equals(read_run(runs[0][1]).table, check_metadata=False)
    assert cached.read_bytes() == good  # written again


def test_system_names_are_made_unique_in_order(target):
    with target.open() as ws:
        data = run_bytes(1)
        names = ["bm25.run", "bm25.txt", "BM25.run.gz", "bm25-2.run", "bm25.trec"]
        info = ws.add_collection("dups", qrels=("q", qrels_bytes(1)), runs=[(n, data) for n in names], author="a")
        expected, seen = [], set()
        for n in names:  # the rule, written out: system_name, then -2, -3... until unused
            base = n.split(".")[0]
            name, k = base, 1
            while name in seen:
                k += 1
                name = f"{base}-{k}"
            seen.add(name)
            expected.append(name)
        assert info.systems == tuple(expected) == ("bm25", "bm25-2", "BM25", "bm25-2-2", "bm25-3")


def test_new_versions_link_to_their_parents_and_leave_them_unchanged(target):
    with target.open() as ws:
        v1, runs = _add(ws, 3)
        v2 = ws.new_version(v1.id, add_runs=[("extra.run", run_bytes(77)), ("sys0.run", run_bytes(78))],
                            remove_systems=["sys1"], author="bo")
        v3 = ws.new_version(v2.id, remove_systems=["extra"], author="cy")
        assert (v2.version, v2.parent, v2.created_by) == (2, v1.id, "bo")
        assert (v3.version, v3.parent) == (3, v2.id)
        assert v2.systems == ("sys0", "sys2", "extra", "sys0-2") and v3.systems == ("sys0", "sys2", "sys0-2")
        assert len({v1.id, v2.id, v3.id}) == 3
        assert ws.load(v1.id).info.systems == ("sys0", "sys1", "sys2")
        assert [r.read() for r in ws.load(v1.id).runs] == [b for _, b in runs]
        assert ws.load(v3.id).runs[2].read() == run_bytes(78)
        assert [c.id for c in ws.collections()] == [v3.id, v2.id, v1.id]
        with pytest.raises(WorkspaceError, match=r"cannot remove system\(s\) 'nope'"):
            ws.new_version(v1.id, remove_systems=["nope"], author="bo")


def test_rename_archive_and_delete(target):
    with target.open() as ws:
        a, _ = _add(ws, 1)
        b, _ = _add(ws, 2)
        assert ws.rename(a.id, "renamed", author="x").name == "renamed" == ws.collection(a.id).name
        assert ws.archive(a.id, author="x").archived
        assert [c.id for c in ws.collections()] == [b.id]
        assert [c.id for c in ws.collections(archived=True)] == [b.id, a.id]
        assert not ws.archive(a.id, False, author="x").archived
        ws.delete(b.id, author="x")
        assert [c.id for c in ws.collections(archived=True)] == [a.id]
        with pytest.raises(UnknownCollection, match=f"{b.id}.*deleted"):
            ws.load(b.id)
        with pytest.raises(UnknownCollection):
            ws.rename(b.id, "again", author="x")


@pytest.mark.parametrize("bad", ["AAAAAAAAAAAAAAAA", "short", "../../etc/passwd", "x' OR '1'='1", "", None, 42,
                                 "A" * 17])
def test_unknown_ids_are_one_line_errors_naming_the_id(target, bad):
    with target.open() as ws:
        _add(ws, 1, n_runs=1)
        for call in (ws.collection, ws.load, ws.notes):
            with pytest.raises(UnknownCollection) as err:
                call(bad)
            assert "\n" not in str(err.value) and "unknown collection id" in str(err.value)
            assert str(bad)[:10] in str(err.value)
            # the message is shown to users: it names the id, never where the workspace is
            assert str(target.folder) not in str(err.value) and ws.location.label not in str(err.value)
            assert "postgresql" not in str(err.value) and "workspace.db" not in str(err.value)


def test_missing_and_tampered_files_name_the_file(target):
    with target.open() as ws:
        info, runs = _add(ws, 4)
        stored = ws.load(info.id)
    files = target.folder / ("ws/files" if target.kind == "sqlite" else "files")
    one, two = stored.runs[0], stored.runs[1]
    os.remove(files / one.sha256[:2] / one.sha256)
    data = bytearray((files / two.sha256[:2] / two.sha256).read_bytes())
    data[len(data) // 2] ^= 1
    (files / two.sha256[:2] / two.sha256).write_bytes(bytes(data))
    with pytest.raises(WorkspaceError, match=r"stored file sys0\.run .* is missing") as err:
        one.read()
    assert "\n" not in str(err.value)
    with pytest.raises(WorkspaceError, match=r"stored file sys1\.run .* does not match its SHA-256"):
        two.read()
    assert stored.runs[2].read() == runs[2][1]


def test_bad_input_is_refused_before_anything_is_stored(target):
    with target.open() as ws:
        bad = b"1 Q0 d1 1 2.0 t\n1 Q0 d2 2\n"
        with pytest.raises(ParseError, match=r"broken\.run:2: expected"):
            ws.add_collection("bad", qrels=("q", qrels_bytes(1)), runs=[("ok.run", run_bytes(1)), ("broken.run", bad)],
                              author="a")
        for kwargs, message in [({"name": ""}, "collection name"), ({"name": "a\nb"}, "collection name"),
                                ({"author": ""}, "author"), ({"qrels": "q.txt"}, "qrels"),
                                ({"runs": [("r", "text")]}, "run"), ({"conventions": {"nope": 1}}, "conventions")]:
            args = {"name": "n", "qrels": ("q", qrels_bytes(1)), "runs": [("r.run", run_bytes(1))], "author": "a",
                    **kwargs}
            with pytest.raises(WorkspaceError, match=message):
                ws.add_collection(args.pop("name"), **args)
        assert ws.collections(archived=True) == []


def test_files_in_an_fsspec_store(target):
    import secrets

    import fsspec

    from workspace import open_workspace

    root = f"memory://rankscope-{secrets.token_hex(4)}"
    with open_workspace(target.location, files=root) as ws:
        info, runs = _add(ws, 6, n_runs=2)
        stored = ws.load(info.id)
        assert [r.read() for r in stored.runs] == [b for _, b in runs]
        assert ws.parsed_run(stored.runs[1].sha256).table.equals(read_run(runs[1][1]).table, check_metadata=False)
        fs = fsspec.filesystem("memory")
        sha = stored.runs[0].sha256
        assert fs.cat_file(f"{root}/{sha[:2]}/{sha}") == runs[0][1]
        assert fs.cat_file(f"{root}/{sha[:2]}/{sha}.arrow")[:6] == b"ARROW1"
        assert not fs.exists(f"{root}/tmp") or fs.ls(f"{root}/tmp") == []  # no temporary left behind
        fs.pipe_file(f"{root}/{sha[:2]}/{sha}", runs[0][1] + b"x")
        with pytest.raises(WorkspaceError, match="does not match its SHA-256"):
            stored.runs[0].read()


def test_new_ids_never_start_with_a_dash():
    from workspace.checks import ID as _ID
    from workspace.checks import new_id as _new_id

    ids = [_new_id() for _ in range(5000)]
    assert all(_ID.match(cid) and not cid.startswith("-") for cid in ids) and len(set(ids)) == len(ids)
    assert len({cid[0] for cid in ids}) == 63  # every other first character still occurs
