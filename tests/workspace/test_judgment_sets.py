"""A collection holds several named judgment sets, one the reference, on SQLite and PostgreSQL; a version-4
workspace is upgraded to name them."""

from __future__ import annotations

import hashlib

import pytest
from sqlalchemy import create_engine, text

from metrics.io import read_qrels
from tests.workspace.helpers import qrels_bytes, run_bytes
from workspace import WorkspaceError
from workspace.engine import resolve
from workspace.schema import SCHEMA_VERSION


def _add(ws, **options):
    return ws.add_collection("judged twice", qrels=("nist.qrels", qrels_bytes(1)),
                             runs=[("a.run", run_bytes(1)), ("b.run", run_bytes(2))], author="ana", **options)


def test_sets_round_trip_and_new_versions_keep_or_replace_them(target):
    crowd, llm = ("crowd.txt", qrels_bytes(2)), ("gpt.qrels", qrels_bytes(3))
    with target.open() as ws:
        info = _add(ws, judgments=[("crowd", crowd), ("gpt-judge", llm)])
    with target.open() as ws:
        stored = ws.load(info.id)
        assert stored.reference == "nist" and stored.qrels.judgment_set == "nist"
        assert [(n, f.name, f.read()) for n, f in stored.judgment_sets] == [
            ("nist", "nist.qrels", qrels_bytes(1)), ("crowd", "crowd.txt", crowd[1]), ("gpt-judge", "gpt.qrels", llm[1])]
        assert info.size == sum(len(b) for b in (qrels_bytes(1), run_bytes(1), run_bytes(2), crowd[1], llm[1]))
        parsed = ws.parsed_qrels(hashlib.sha256(llm[1]).hexdigest())  # a judgment set's parse, cached like the qrels'
        assert parsed.table.equals(read_qrels(llm[1]).table)
        # a new version keeps the sets unless told otherwise, and can rename the reference
        kept = ws.load(ws.new_version(info.id, remove_systems=["b"], author="bo", reference="assessors").id)
        assert [n for n, _ in kept.judgment_sets] == ["assessors", "crowd", "gpt-judge"]
        assert [f.sha256 for _, f in kept.judgment_sets] == [f.sha256 for _, f in stored.judgment_sets]
        replaced = ws.load(ws.new_version(kept.info.id, author="bo", judgments=[("llm", llm)]).id)
        assert [(n, f.name) for n, f in replaced.judgment_sets] == [("assessors", "nist.qrels"), ("llm", "gpt.qrels")]
        alone = ws.load(ws.new_version(replaced.info.id, author="bo", judgments=[]).id)
        assert alone.judgments == () and alone.reference == "assessors"


@pytest.mark.parametrize("judgments, reference, message", [
    ([("crowd", ("a.txt", b"1 0 d 1\n")), ("crowd", ("b.txt", b"1 0 d 2\n"))], None, "'crowd' twice"),
    ([("nist", ("a.txt", b"1 0 d 1\n"))], None, "'nist' twice"),
    ([("a|b", ("a.txt", b"1 0 d 1\n"))], None, "without '|'"),
    ([("crowd", ("a.txt", b"1 0 d 1\n"))], "", "non-empty"),
    ([("crowd", b"1 0 d 1\n")], None, "a (file name, bytes) pair"),
])
def test_bad_sets_are_refused_before_anything_is_stored(target, judgments, reference, message):
    with target.open() as ws:
        with pytest.raises(WorkspaceError, match=message.replace("|", r"\|").replace("(", r"\(").replace(")", r"\)")):
            _add(ws, judgments=judgments, reference=reference)
        assert ws.collections() == []


def test_a_bad_judgment_file_names_its_line(target):
    from metrics.errors import ParseError

    with target.open() as ws:
        with pytest.raises(ParseError, match=r"crowd\.txt:2: expected 4 fields"):
            _add(ws, judgments=[("crowd", ("crowd.txt", b"1 0 d 1\n1 0 e\n"))])


def test_a_version_6_workspace_is_upgraded_and_its_sets_named_after_their_files(target):
    with target.open() as ws:
        info = _add(ws)
    engine = create_engine(resolve(target.location, target.files).url)
    with engine.begin() as conn:  # back to version 6: the columns it did not have, nor the tables of 8, 10, 11 and 12
        conn.execute(text("ALTER TABLE collection_files DROP COLUMN judgment_set"))
        conn.execute(text("ALTER TABLE notes DROP COLUMN claims"))
        for table in ("class_answers", "class_sessions", "lessons", "presentations", "ended_sign_ins",
                      "judging_adjudications", "judging_judgments", "judging_assignments", "judging_tasks"):
            conn.execute(text(f"DROP TABLE {table}"))
        conn.execute(text("UPDATE schema_version SET version = 6"))
    engine.dispose()
    with target.open() as ws:
        stored = ws.load(info.id)
        assert stored.judgments == () and stored.qrels.judgment_set is None and stored.reference == "nist"
        added = ws.load(ws.new_version(info.id, author="bo", judgments=[("crowd", ("c.txt", qrels_bytes(2)))]).id)
        assert [n for n, _ in added.judgment_sets] == ["nist", "crowd"]
    engine = create_engine(resolve(target.location, target.files).url)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT version FROM schema_version")).scalar_one() == SCHEMA_VERSION == 13
    engine.dispose()
