"""Version-1, version-2 and version-12 workspaces are upgraded on open; a newer one is refused with one line
naming the versions."""

from __future__ import annotations

import numpy as np
import pytest
from sqlalchemy import create_engine, inspect, text

from workspace import SchemaTooNew
from workspace.engine import resolve
from workspace.schema import SCHEMA_VERSION

# The version-1 schema, as that release wrote it: notes without a base, no events table.
V1 = [
    "CREATE TABLE schema_version (version INTEGER NOT NULL)",
    "CREATE TABLE blobs (sha256 VARCHAR(64) PRIMARY KEY, size BIGINT NOT NULL, created_at VARCHAR(40) NOT NULL)",
    "CREATE TABLE collections (id VARCHAR(16) PRIMARY KEY, name TEXT NOT NULL, version INTEGER NOT NULL,"
    " parent VARCHAR(16) REFERENCES collections(id), created_by TEXT NOT NULL, created_at VARCHAR(40) NOT NULL,"
    " archived BOOLEAN NOT NULL, deleted BOOLEAN NOT NULL, size BIGINT NOT NULL, systems TEXT NOT NULL,"
    " topics INTEGER NOT NULL, conventions TEXT NOT NULL)",
    "CREATE TABLE collection_files (collection VARCHAR(16) NOT NULL REFERENCES collections(id),"
    " position INTEGER NOT NULL, role VARCHAR(16) NOT NULL, name TEXT NOT NULL, system TEXT,"
    " sha256 VARCHAR(64) NOT NULL REFERENCES blobs(sha256), PRIMARY KEY (collection, position))",
    "CREATE TABLE notes (revision {serial} PRIMARY KEY, collection VARCHAR(16) NOT NULL REFERENCES collections(id),"
    " topic TEXT NOT NULL, system TEXT, tag TEXT NOT NULL, comment TEXT NOT NULL, author TEXT NOT NULL,"
    " created_at VARCHAR(40) NOT NULL)",
    "INSERT INTO schema_version VALUES (1)",
    "INSERT INTO collections VALUES ('AAAAAAAAAAAAAAAA', 'old', 1, NULL, 'ana', '2025-01-01T00:00:00+00:00',"
    " false, false, 0, '[]', 0, '{{}}')",
]
# (topic, system, comment) in save order: the revisions 1..6
SAVES = [("1", None, "a"), ("1", None, "b"), ("2", "x", "c"), ("1", "x", "d"), ("1", None, "e"), ("2", "x", "f")]


def _build_v1(target) -> None:
    where = resolve(target.location, target.files)
    engine = create_engine(where.url)
    serial = "SERIAL" if target.kind == "postgresql" else "INTEGER"
    with engine.begin() as conn:
        for statement in V1:
            conn.execute(text(statement.format(serial=serial)))
        for topic, system, comment in SAVES:
            conn.execute(text("INSERT INTO notes (collection, topic, system, tag, comment, author, created_at) "
                              "VALUES ('AAAAAAAAAAAAAAAA', :t, :s, '', :c, 'ana', '2025-01-01T00:00:00+00:00')"),
                         {"t": topic, "s": system, "c": comment})
    engine.dispose()


def test_a_version_1_workspace_is_upgraded_on_open(target):
    _build_v1(target)
    with target.open() as ws:
        assert ws.collection("AAAAAAAAAAAAAAAA").name == "old"
        assert [c.id for c in ws.collections()] == ["AAAAAAAAAAAAAAAA"]  # listed: not replaced (schema 5)
        # each history becomes one chain: a revision's base is the previous one of the same (topic, system)
        expected_base, last = {}, {}
        for revision, (topic, system, _) in enumerate(SAVES, start=1):
            expected_base[revision] = last.get((topic, system))
            last[(topic, system)] = revision
        history = [n for key in {(t, s) for t, s, _ in SAVES}
                   for n in ws.note_history("AAAAAAAAAAAAAAAA", *key)]
        assert {n.revision: n.base for n in history} == expected_base
        assert {(n.topic, n.system, n.comment) for n in ws.notes("AAAAAAAAAAAAAAAA")} == {
            ("1", None, "e"), ("2", "x", "f"), ("1", "x", "d")}
        ws.rename("AAAAAAAAAAAAAAAA", "new", author="bo")  # the events table of version 2 is there
        note = ws.save_note("AAAAAAAAAAAAAAAA", "1", None, "t", "g", author="bo", base=5)
        assert note.revision == 7
    engine = create_engine(resolve(target.location, target.files).url)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT version FROM schema_version")).scalar_one() == SCHEMA_VERSION
        assert conn.execute(text("SELECT action, author FROM events")).all() == [("rename", "bo")]
        assert conn.execute(text("SELECT COUNT(*) FROM note_bases")).scalar_one() == 0  # version 4's tables
        assert conn.execute(text("SELECT COUNT(*) FROM markers")).scalar_one() == 0
        assert conn.execute(text("SELECT replaced_by FROM collections")).all() == [(None,)]  # no version amended
        assert conn.execute(text("SELECT COUNT(*) FROM members")).scalar_one() == 0  # no owner before login mode
        assert conn.execute(text("SELECT COUNT(*) FROM class_sessions")).scalar_one() == 0  # version 8's tables
        assert conn.execute(text("SELECT COUNT(*) FROM notes WHERE claims IS NOT NULL")).scalar_one() == 0  # v9
        assert conn.execute(text("SELECT COUNT(*) FROM presentations")).scalar_one() == 0  # version 10's table
        assert conn.execute(text("SELECT COUNT(*) FROM ended_sign_ins")).scalar_one() == 0  # version 11's table
        assert conn.execute(text("SELECT COUNT(*) FROM judging_tasks")).scalar_one() == 0  # version 12's tables
    engine.dispose()


def test_a_newer_workspace_is_refused_with_one_line(target):
    target.open().close()
    engine = create_engine(resolve(target.location, target.files).url)
    with engine.begin() as conn:
        conn.execute(text(f"UPDATE schema_version SET version = {SCHEMA_VERSION + 1}"))
    engine.dispose()
    with pytest.raises(SchemaTooNew) as err:
        target.open()
    message = str(err.value)
    assert "\n" not in message and f"version {SCHEMA_VERSION + 1}" in message and f"version {SCHEMA_VERSION}" in message


# The version-2 schema, as that release wrote it: version 1 with notes.base and the events table.
V2 = [statement.replace(" created_at VARCHAR(40) NOT NULL)", " created_at VARCHAR(40) NOT NULL,"
                        " base INTEGER REFERENCES notes(revision))") if statement.startswith("CREATE TABLE notes")
      else statement for statement in V1[:-2]] + [
    "CREATE TABLE events (id {serial} PRIMARY KEY, collection VARCHAR(16) NOT NULL REFERENCES collections(id),"
    " action VARCHAR(16) NOT NULL, detail TEXT NOT NULL, author TEXT NOT NULL, at VARCHAR(40) NOT NULL)",
    "INSERT INTO schema_version VALUES (2)",
]


def _random_forest(rng) -> dict[str, str | None]:
    """``{id: parent}``: a few lineages, each version made from a random earlier one, in creation order."""
    parents: dict[str, str | None] = {}
    for i in range(14):
        cid = f"C{i:015d}"
        parents[cid] = None if not parents or rng.random() < 0.25 else list(parents)[int(rng.integers(len(parents)))]
    return parents


def _first_version(parents: dict[str, str | None], cid: str) -> str:
    while parents[cid] is not None:
        cid = parents[cid]
    return cid


@pytest.mark.parametrize("seed", [0, 1])
def test_a_version_2_workspace_gets_lineages_and_notes_follow_them(target, seed):
    rng = np.random.default_rng(seed)
    parents = _random_forest(rng)
    where = resolve(target.location, target.files)
    engine = create_engine(where.url)
    serial = "SERIAL" if target.kind == "postgresql" else "INTEGER"
    saved = []  # (revision, collection, topic, system, base) as the version-2 store kept them
    with engine.begin() as conn:
        for statement in V2:
            conn.execute(text(statement.format(serial=serial)))
        for version, (cid, parent) in enumerate(parents.items()):
            conn.execute(text("INSERT INTO collections VALUES (:id, 'c', 1, :parent, 'ana',"
                              " :at, false, false, 0, '[]', 0, '{}')"),
                         {"id": cid, "parent": parent, "at": f"2025-01-01T00:00:{version:02d}+00:00"})
        for revision in range(1, 41):
            cid = list(parents)[int(rng.integers(len(parents)))]
            topic, system = str(int(rng.integers(1, 3))), [None, "x"][int(rng.integers(2))]
            same = [r for r in saved if (r[1], r[2], r[3]) == (cid, topic, system)]  # version 2: per collection
            base = same[-1][0] if same and rng.random() < 0.7 else None
            conn.execute(text("INSERT INTO notes (collection, topic, system, tag, comment, author, created_at, base)"
                              " VALUES (:c, :t, :s, '', :m, 'ana', '2025-01-02T00:00:00+00:00', :b)"),
                         {"c": cid, "t": topic, "s": system, "m": f"note {revision}", "b": base})
            saved.append((revision, cid, topic, system, base))
    engine.dispose()

    with target.open() as ws:
        for cid in parents:
            root = _first_version(parents, cid)
            assert ws.collection(cid).lineage == root
            family = {c for c in parents if _first_version(parents, c) == root}
            mine = [r for r in saved if r[1] in family]
            named = {r[4] for r in mine if r[4] is not None}
            expected = sorted(r[0] for r in mine if r[0] not in named)
            assert sorted(n.revision for n in ws.notes(cid)) == expected
            assert all(n.collection in family for n in ws.notes(cid))
            for topic in "12":
                for system in (None, "x"):
                    got = [(n.revision, n.collection, n.base) for n in ws.note_history(cid, topic, system)]
                    assert got == [(r[0], r[1], r[4]) for r in mine if (r[2], r[3]) == (topic, system)]
        child = next(c for c, p in parents.items() if p is not None)
        note = ws.save_note(child, "9", None, "", "after", author="bo")  # a save after the upgrade
        assert note in ws.notes(_first_version(parents, child)) and note.collection == child


def test_a_version_12_workspace_ties_no_old_lesson_to_a_collection(target):
    """Version 13 adds the collection of a lesson and of a class: a lesson saved before names none, so it is its
    author's alone in the login mode; a class started before keeps running under its key."""
    from metrics.teaching import lesson as lesson_json
    from metrics.teaching.questions import Question, Ranking
    from workspace import Actor
    from workspace.classroom import Classroom
    from workspace.schema import MIGRATIONS

    questions = (Question("value", "AP", (Ranking((1, 0, 1)),)),)
    where = resolve(target.location, target.files)
    engine = create_engine(where.url)
    serial = "SERIAL" if target.kind == "postgresql" else "INTEGER"
    with engine.begin() as conn:  # version 12, made by the steps that made it
        for statement in V1:
            conn.execute(text(statement.format(serial=serial)))
        for version in range(1, 12):
            MIGRATIONS[version](conn)
        conn.execute(text("UPDATE schema_version SET version = 12"))
        assert "collection" not in {c["name"] for c in inspect(conn).get_columns("lessons")}
        conn.execute(text("INSERT INTO lessons VALUES ('LLLLLLLLLLLLLLLL', 'week 1', 'ana@example.org',"
                          " '2025-01-01T00:00:00+00:00', :q)"), {"q": lesson_json.dumps(questions)})
    engine.dispose()
    with target.open() as ws:
        old = Classroom(ws).lesson("LLLLLLLLLLLLLLLL")
        assert (old.name, old.questions, old.collection, old.version) == ("week 1", questions, None, None)
        ana, bob = (Classroom(ws.acting_as(Actor(who))) for who in ("ana@example.org", "bob@example.org"))
        assert [i.id for i in ana.lessons()] == ["LLLLLLLLLLLLLLLL"] and bob.lessons() == []
        code, key = ana.start(author="ana", lesson="LLLLLLLLLLLLLLLL")
        assert ana.show(code, key, 0).phase == "open"
    engine = create_engine(where.url)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT version FROM schema_version")).scalar_one() == SCHEMA_VERSION == 13
        assert conn.execute(text("SELECT collection, lineage FROM lessons")).all() == [(None, None)]
        assert conn.execute(text("SELECT collection, lineage FROM class_sessions")).all() == [(None, None)]
    engine.dispose()
