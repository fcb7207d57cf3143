"""A saved lesson is part of its collection (SQLite and PostgreSQL): the lineage's roles decide who sees it, who
saves one and who starts, opens, reveals and ends a class of it (the ``teach`` action, an editor at least); the
teacher's key alone is not enough once the role is gone; a lesson made from no stored collection is its
author's alone; students need no role; the open mode and the operator are not checked."""

from __future__ import annotations

import pytest

pytest.importorskip("sqlalchemy", reason="the workspace extra (sqlalchemy) is not installed")

from metrics.teaching.questions import Question, Ranking  # noqa: E402
from tests.workspace.helpers import qrels_bytes, run_bytes  # noqa: E402
from workspace import Actor, Forbidden, NoAccess, WorkspaceError  # noqa: E402
from workspace.checks import new_id  # noqa: E402
from workspace.classroom import Classroom  # noqa: E402

ANA, BOB, CY, DI, ROOT = "ana@example.org", "bob@example.org", "cy@example.org", "di@example.org", "root@example.org"
QUESTIONS = (Question("value", "AP", (Ranking((1, 0, 1, 0, 0), (1, 1), name="secretsys, topic 1"),),
                      source="loaded data: secretsys, topic 1"),)


def _rooms(ws) -> dict[str, Classroom]:
    people = {who: Actor(who) for who in (ANA, BOB, CY, DI)}
    people[ROOT] = Actor(ROOT, admin=True)
    return {who: Classroom(ws.acting_as(actor)) for who, actor in people.items()}


def _collection(ws) -> str:
    """ana's collection: cy edits it, di views it, bob holds no role."""
    return ws.add_collection("secret", ("q.txt", qrels_bytes(0)), [("secretsys.run", run_bytes(0))], author=ANA,
                             members={ANA: "owner", CY: "editor", DI: "viewer"}).id


def test_the_collections_roles_decide_who_sees_saves_and_starts_its_lessons(target):
    with target.open() as ws:
        cid = _collection(ws)
        room = _rooms(ws)
        saved = room[ANA].save_lesson("week 3", QUESTIONS, author="typed, not used", collection=cid)
        assert (saved.collection, saved.version, saved.created_by) == (cid, 1, ANA)
        for who in (ANA, CY, ROOT):  # the owner, an editor, an administrator
            assert [info.id for info in room[who].lessons()] == [saved.id]
            assert room[who].lesson(saved.id).questions == QUESTIONS
        for who in (BOB, DI):  # no role, a viewer: the lesson is not there for them
            assert room[who].lessons() == []
            with pytest.raises(WorkspaceError, match="unknown lesson id .*not yours to teach"):
                room[who].lesson(saved.id)
            with pytest.raises(WorkspaceError, match="unknown lesson id"):
                room[who].start(author=who, lesson=saved.id)
        with pytest.raises(NoAccess, match="no access to collection"):
            room[BOB].save_lesson("mine now", QUESTIONS, author=BOB, collection=cid)
        with pytest.raises(Forbidden, match="may not teach the lessons of collection .* needs the editor role"):
            room[DI].save_lesson("mine now", QUESTIONS, author=DI, collection=cid)
        with pytest.raises(NoAccess):  # a lesson being made from the collection: the same rule
            room[BOB].start(QUESTIONS, author=BOB, collection=cid)
        code, key = room[CY].start(author=CY, lesson=saved.id)
        assert room[CY].questions(code) == QUESTIONS


def test_the_key_alone_does_not_teach_once_the_role_is_gone(target):
    with target.open() as ws:
        cid = _collection(ws)
        room = _rooms(ws)
        lesson = room[ANA].save_lesson("week 3", QUESTIONS, author=ANA, collection=cid)
        code, key = room[CY].start(author=CY, lesson=lesson.id)
        assert room[CY].teaches(code, key) and not room[BOB].teaches(code, key)
        with pytest.raises(NoAccess):  # bob holding cy's key (a copied cookie) opens nothing
            room[BOB].show(code, key, 0)
        room[CY].show(code, key, 0)
        student = new_id()
        assert room[BOB].answer(code, student, 0, "0.42") == "0.42"  # a student needs no role
        ws.share(cid, CY, None, author="operator")
        assert not room[CY].teaches(code, key)
        for act in (lambda r: r.reveal(code, key), lambda r: r.show(code, key, 0), lambda r: r.close(code, key)):
            with pytest.raises(NoAccess):
                act(room[CY])
        assert room[CY].status(code).phase == "open"  # nothing changed
        room[ANA].reveal(code, key)  # the owner, with the key
        assert room[ANA].status(code).phase == "revealed"


def test_a_lesson_of_no_stored_collection_is_its_authors_alone(target):
    with target.open() as ws:
        room = _rooms(ws)
        mine = room[BOB].save_lesson("typed grades", QUESTIONS, author=BOB)
        assert (mine.collection, mine.version, mine.created_by) == (None, None, BOB)
        assert [i.id for i in room[BOB].lessons()] == [mine.id]
        assert room[ANA].lessons() == [] and [i.id for i in room[ROOT].lessons()] == [mine.id]
        with pytest.raises(WorkspaceError, match="unknown lesson id"):
            room[ANA].start(author=ANA, lesson=mine.id)
        code, key = room[BOB].start(author=BOB, lesson=mine.id)
        assert room[BOB].teaches(code, key)
        with pytest.raises(WorkspaceError, match="from a saved lesson or from questions, not both"):
            room[BOB].start(QUESTIONS, author=BOB, lesson=mine.id)


def test_the_open_mode_and_the_operator_see_and_teach_every_lesson(target):
    with target.open() as ws:
        cid = _collection(ws)
        room = _rooms(ws)
        theirs = room[ANA].save_lesson("week 3", QUESTIONS, author=ANA, collection=cid)
        private = room[BOB].save_lesson("typed", QUESTIONS, author=BOB)
        for anyone in (Classroom(ws), Classroom(ws.acting_as(Actor("a typed name", checked=False)))):
            assert {i.id for i in anyone.lessons()} == {theirs.id, private.id}
            code, key = anyone.start(author="kim", lesson=theirs.id)
            assert anyone.show(code, key, 0).phase == "open"
