"""Claims carried by notes, checked again on each version of a collection, on SQLite and PostgreSQL: a run
replaced in a new version (or an amended one) flips a claim, with the numbers before and after; a version-8
workspace is upgraded to keep claims."""

from __future__ import annotations

import pytest
from sqlalchemy import create_engine, text

from metrics.review.claims import (
    FAILS,
    FLIPPED,
    HOLDS,
    UNCHECKABLE,
    Better,
    Rank,
    Threshold,
)
from tests.workspace.claim_runs import BM25, DENSE, QRELS, WEAK
from workspace import StoredClaim, WorkspaceError
from workspace.claims import ALL_TOPICS, MAX_CLAIMS
from workspace.engine import resolve
from workspace.recheck import add_claims, collection_claims, rechecked
from workspace.schema import MIGRATIONS, SCHEMA_VERSION

CLAIMS = [Better("dense", "bm25", "AP"), Threshold("bm25", "AP", value=7 / 9, tolerance=0.0001), Rank("dense", "AP", 1)]


def _add(ws):
    return ws.add_collection("meeting", ("qrels.txt", QRELS), [("bm25.run", BM25), ("dense.run", DENSE)],
                             author="ana")


def _replace_dense(ws, cid, **options):
    return ws.new_version(cid, remove_systems=["dense"], add_runs=[("dense.run", WEAK)], author="bo", **options)


def test_a_replaced_run_flips_the_claims_saved_before_with_numbers_before_and_after(target):
    with target.open() as ws:
        v1 = _add(ws)
        note = add_claims(ws, v1.id, CLAIMS, author="ana")
        assert note.topic == ALL_TOPICS and [c.claim for c in note.claims] == CLAIMS
        assert {c.since for c in note.claims} == {v1.id}
        assert [t.status for _, t in rechecked(ws, v1.id)] == [HOLDS, HOLDS, HOLDS]
        v2 = _replace_dense(ws, v1.id)
    with target.open() as ws:  # read back by another process's store
        found = rechecked(ws, v2.id)
        assert [c.claim for c, _ in found] == CLAIMS
        better, threshold, rank = (t for _, t in found)
        assert better.status == FLIPPED and better.versions == (v1.id, v2.id) and better.flipped_by == v2.id
        assert better.before.numbers["difference"] == pytest.approx(5 / 6 - 7 / 9, abs=1e-15)
        assert better.after.numbers["difference"] == pytest.approx(5 / 12 - 7 / 9, abs=1e-15)
        assert (rank.status, rank.before.numbers["rank"], rank.after.numbers["rank"]) == (FLIPPED, 1, 2)
        assert threshold.status == HOLDS and threshold.now.numbers["value"] == pytest.approx(7 / 9, abs=1e-15)
        # looked at on the version it was saved on, nothing has flipped
        assert [t.status for _, t in rechecked(ws, v1.id)] == [HOLDS, HOLDS, HOLDS]
        v3 = ws.new_version(v2.id, remove_systems=["dense"], author="bo")
        assert [t.status for _, t in rechecked(ws, v3.id)][0] == FLIPPED
        assert [t.now.status for _, t in rechecked(ws, v3.id)] == [UNCHECKABLE, HOLDS, UNCHECKABLE]
        assert [t.versions for _, t in rechecked(ws, v3.id)][0] == (v1.id, v2.id, v3.id)


def test_a_claim_saved_on_a_version_later_amended_is_checked_on_its_replacement(target):
    with target.open() as ws:
        v1 = _add(ws)
        v2 = ws.new_version(v1.id, add_runs=[("other.run", BM25)], author="bo")
        add_claims(ws, v2.id, CLAIMS[:1], author="bo")
        amended = _replace_dense(ws, v2.id, amend=True)  # the same sitting: v2 is replaced, not followed
        assert amended.parent == v1.id and ws.collection(v2.id).replaced_by == amended.id
        ((stored, trail),) = rechecked(ws, amended.id)
        assert stored.since == v2.id and trail.versions == (v2.id, amended.id)
        assert (trail.saved.status, trail.now.status, trail.status) == (HOLDS, FAILS, FLIPPED)


def test_an_edit_keeps_the_claims_and_concurrent_additions_are_both_kept(target):
    with target.open() as ws:
        v1 = _add(ws)
        first = add_claims(ws, v1.id, CLAIMS[:1], author="ana")
        edited = ws.save_note(v1.id, ALL_TOPICS, None, "meeting", "we agreed", author="bo", base=first.revision)
        assert [c.claim for c in edited.claims] == CLAIMS[:1]
        # two people add a claim to the same revision at once: two heads, each with its own
        for claim, who in ((CLAIMS[1], "ana"), (CLAIMS[2], "bo")):
            ws.save_note(v1.id, ALL_TOPICS, None, "meeting", "we agreed", author=who, base=edited.revision,
                         claims=[*edited.claims, StoredClaim(claim, v1.id, who, "2026-01-01T00:00:00+00:00")])
        assert len([n for n in ws.notes(v1.id) if n.topic == ALL_TOPICS]) == 2
        assert [c.claim for c in collection_claims(ws.notes(v1.id))] == CLAIMS
        merged = add_claims(ws, v1.id, [CLAIMS[0]], author="ana")  # said again: one claim; merges the heads
        assert [n.revision for n in ws.notes(v1.id)] == [merged.revision]
        assert [c.claim for c in merged.claims] == CLAIMS and (merged.tag, merged.comment) == (
            "meeting", "we agreed\n---\nwe agreed")


def test_bad_claims_are_refused_with_one_line(target):
    with target.open() as ws:
        v1 = _add(ws)
        other = ws.add_collection("other", ("qrels.txt", QRELS), [("bm25.run", BM25)], author="ana")
        with pytest.raises(WorkspaceError, match="expected a version of this collection") as err:
            ws.save_note(v1.id, ALL_TOPICS, None, "", "", author="ana",
                         claims=[StoredClaim(CLAIMS[0], other.id, "ana", "2026-01-01T00:00:00+00:00")])
        with pytest.raises(WorkspaceError, match="expected a Threshold, Better or Rank claim, found str"):
            ws.save_note(v1.id, ALL_TOPICS, None, "", "", author="ana",
                         claims=[StoredClaim("dense > bm25", v1.id, "ana", "2026-01-01T00:00:00+00:00")])
        many = [Threshold("bm25", "AP", at_least=i / 1000) for i in range(MAX_CLAIMS + 1)]
        with pytest.raises(WorkspaceError, match=f"expected at most {MAX_CLAIMS}, found {MAX_CLAIMS + 1}"):
            add_claims(ws, v1.id, many, author="ana")
        assert "\n" not in str(err.value) and ws.notes(v1.id) == []


def test_a_version_8_workspace_is_upgraded_and_its_notes_carry_no_claims(target):
    with target.open() as ws:
        v1 = _add(ws)
        ws.save_note(v1.id, "q1", None, "hard", "a note before claims", author="ana")
    engine = create_engine(resolve(target.location, target.files).url)
    with engine.begin() as conn:  # back to version 8: notes without the claims column, nor the tables of 10-12,
        conn.execute(text("ALTER TABLE notes DROP COLUMN claims"))  # the live class's tables as 8 made them
        for table in ("presentations", "ended_sign_ins", "judging_adjudications", "judging_judgments",
                      "judging_assignments", "judging_tasks", "class_answers", "class_sessions", "lessons"):
            conn.execute(text(f"DROP TABLE {table}"))
        MIGRATIONS[7](conn)
        conn.execute(text("UPDATE schema_version SET version = 8"))
    engine.dispose()
    with target.open() as ws:
        (note,) = ws.notes(v1.id)
        assert (note.comment, note.claims) == ("a note before claims", ())
        add_claims(ws, v1.id, CLAIMS[:1], author="ana")
        assert [t.status for _, t in rechecked(ws, v1.id)] == [HOLDS]
    engine = create_engine(resolve(target.location, target.files).url)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT version FROM schema_version")).scalar_one() == SCHEMA_VERSION == 13
        assert conn.execute(text("SELECT claims FROM notes WHERE topic = 'q1'")).scalar_one() is None
    engine.dispose()
