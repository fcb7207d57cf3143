"""One sitting, one version: a change amends the version it changes when the same author made it moments ago
and nobody built on it; the same files find the collection that holds them; default names follow the
content (workspace.versions)."""

from __future__ import annotations

import threading

import pytest
from sqlalchemy import select

import workspace.versions as versions
from tests.workspace.helpers import qrels_bytes, run_bytes
from workspace.engine import transaction
from workspace.schema import events


def _first(ws, author: str = "ana", runs: int = 2):
    return ws.add_collection(None, qrels=("cran.graded.qrels", qrels_bytes(3)),
                             runs=[(f"sys{i}.run", run_bytes(10 + i)) for i in range(runs)], author=author)


def test_a_sittings_changes_amend_its_version_into_one(target):
    with target.open() as ws:
        first = _first(ws)
        assert first.name == "cran.graded: sys0, sys1" and first.version == 1
        note = ws.save_note(first.id, "3", None, "hard", "seen on the first form", author="bo")
        topics = ws.new_version(first.id, topics=("t.tsv", b"1\tone\n"), author="ana", amend=True)
        runs = ws.new_version(topics.id, add_runs=[("sys2.run", run_bytes(12))], author="ana", amend=True)
        assert [c.id for c in ws.collections()] == [runs.id]  # one collection, one version, listed
        assert (runs.version, runs.parent, runs.lineage) == (1, None, first.id)
        assert runs.name == "cran.graded: sys0, sys1, sys2" and runs.systems == ("sys0", "sys1", "sys2")
        assert ws.load(runs.id).topics.read() == b"1\tone\n"
        assert ws.collection(first.id).replaced_by == topics.id and ws.collection(topics.id).replaced_by == runs.id
        assert ws.load(first.id).info.systems == ("sys0", "sys1")  # the amended form still opens, unchanged
        assert [(n.revision, n.comment) for n in ws.notes(runs.id)] == [(note.revision, note.comment)]
        with transaction(ws._engine, ws.location, read=True) as conn:
            done = conn.execute(select(events.c.collection, events.c.action, events.c.detail)).all()
        assert done == [(first.id, "amend", topics.id), (topics.id, "amend", runs.id)]


@pytest.mark.parametrize("why", ["another author", "built on", "too old", "not asked", "amended already"])
def test_a_change_is_a_new_version_when_it_may_not_amend(target, monkeypatch, why):
    with target.open() as ws:
        first = _first(ws)
        author, amend = "ana", True
        if why == "another author":
            author = "bo"
        elif why == "built on":
            ws.new_version(first.id, remove_systems=["sys1"], author="bo")
        elif why == "too old":
            monkeypatch.setattr(versions, "AMEND_SECONDS", -1)
        elif why == "not asked":
            amend = False
        else:
            ws.new_version(first.id, topics=("t.tsv", b"1\tone\n"), author="ana", amend=True)
        new = ws.new_version(first.id, add_runs=[("sys2.run", run_bytes(12))], author=author, amend=amend)
        assert (new.parent, new.version, new.lineage) == (first.id, 2, first.id)
        assert ws.collection(first.id).replaced_by == (None if why != "amended already" else
                                                       ws.collection(first.id).replaced_by)
        assert new.id in [c.id for c in ws.collections()]


def test_two_amendments_of_one_version_at_once_replace_it_once(target):
    with target.open() as ws:
        first = _first(ws)
        made, barrier = [], threading.Barrier(2)

        def amend(seed: int) -> None:
            barrier.wait()
            made.append(ws.new_version(first.id, add_runs=[(f"x{seed}.run", run_bytes(seed))], author="ana",
                                       amend=True))

        threads = [threading.Thread(target=amend, args=(20 + i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        replaced = ws.collection(first.id).replaced_by
        winner, = [m for m in made if m.id == replaced]
        loser, = [m for m in made if m.id != replaced]
        assert (winner.parent, winner.version) == (None, 1)
        assert (loser.parent, loser.version) == (first.id, 2)  # the other follows it: nothing lost


def test_the_same_files_find_the_collection_that_holds_them(target):
    with target.open() as ws:
        qrels = __import__("hashlib").sha256(qrels_bytes(3)).hexdigest()
        digest = {i: __import__("hashlib").sha256(run_bytes(10 + i)).hexdigest() for i in range(3)}
        assert ws.holding(qrels, [digest[0], digest[1]]) is None
        first = _first(ws)
        assert ws.holding(qrels, [digest[1], digest[0]]).id == first.id  # any order
        assert ws.holding(qrels, [digest[0]]) is None and ws.holding(qrels, list(digest.values())) is None
        assert ws.holding("0" * 64, [digest[0], digest[1]]) is None
        newer = _first(ws, author="bo")
        assert ws.holding(qrels, [digest[0], digest[1]]).id == newer.id  # the newest
        ws.archive(newer.id, author="bo")
        assert ws.holding(qrels, [digest[0], digest[1]]).id == first.id  # archived ones last
        ws.delete(first.id, author="ana")
        assert ws.holding(qrels, [digest[0], digest[1]]).id == newer.id
        amended = ws.new_version(newer.id, topics=("t.tsv", b"1\tone\n"), author="bo", amend=True)
        assert ws.holding(qrels, [digest[0], digest[1]]).id == amended.id  # not the replaced form


def test_a_default_name_follows_the_content_and_a_given_one_stays(target):
    with target.open() as ws:
        first = _first(ws, runs=4)
        assert first.name == "cran.graded: sys0, sys1, sys2 +1 more"
        fewer = ws.new_version(first.id, remove_systems=["sys0", "sys3"], author="bo")
        assert fewer.name == "cran.graded: sys1, sys2"
        ws.rename(fewer.id, "robust runs", author="bo")
        kept = ws.new_version(fewer.id, remove_systems=["sys1"], author="bo")
        assert kept.name == "robust runs"


@pytest.mark.parametrize("qrels, systems, name", [
    ("cranfield.graded.qrels", ["lucene", "weak", "tfidf", "titles"], "cranfield.graded: lucene, weak, tfidf +1 more"),
    ("qrels.txt.gz", ["bm25"], "qrels: bm25"), ("qrels", ["a", "b"], "qrels: a, b"), ("q.robust04.TXT", [], "q.robust04"), ("robust.QRELS.txt", ["a"], "robust: a"),
    (".hidden", ["x"], ".hidden: x"), ("a\tb.qrels", ["x  y"], "a b: x y")])
def test_default_names(qrels, systems, name):
    assert versions.default_name(qrels, systems) == name


def test_a_default_name_is_at_most_200_characters():
    name = versions.default_name("q.qrels", ["s" * 150, "t" * 150])
    assert len(name) == 200 and name.endswith("…") and name.startswith("q: " + "s" * 150)
