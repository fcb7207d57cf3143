"""The live class in the workspace: saved lessons, running classes and their answers.

A class is shared by the teacher's browser session and every student's, on one server process or several
(they all read the same database). It is named by a short random :data:`CODE` (six characters from an
alphabet without 0/O, 1/I/L), checked against that pattern before any query. Its questions are fixed
when it starts; the teacher's actions (show a question, reveal it, close the class) need the key given at
start (only its SHA-256 is stored) and add one to the class's ``revision``, which the students' pages poll
cheaply (:meth:`Classroom.status`). Each student is a random token of their browser session, with an
optional nickname; an answer is accepted only while its question is open, and a later answer of the same
student to the same question replaces the earlier one. A class closes itself :data:`CLASS_HOURS` after it
started.

A lesson is a named list of questions (:mod:`metrics.teaching.lesson`), kept to be used again. It is part of
the collection its questions were made from: the store records that version (``collection``) and its lineage,
and the lineage's roles decide (:mod:`workspace.access`, the ``teach`` action: an editor at least) who sees
the lesson, saves one, and starts, opens, reveals and ends a class of it. A class keeps its lesson's
collection, so each action of its teacher needs the role at that moment, besides the key. A lesson made from
no stored collection (worked examples, typed grades, files not saved in the workspace) is its author's alone.
In the open mode, and for the operator, nothing is checked. Students need no role: whoever has a class's code
sees its open question, and a question's right answer only once it is revealed.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from sqlalchemy import and_, func, or_, select
from sqlalchemy.dialects import postgresql, sqlite

from metrics.errors import RankscopeError
from metrics.teaching import lesson as lesson_json
from metrics.teaching.reveal import answer_text, parse_answer
from workspace import members as member_rows
from workspace.access import may
from workspace.checks import ID, line, new_id, now
from workspace.engine import transaction
from workspace.errors import WorkspaceError

__all__ = ["ALPHABET", "CLASS_HOURS", "CODE", "MAX_NICKNAME", "ClassAnswer", "ClassClosed", "ClassStatus",
           "Classroom", "LessonInfo", "UnknownClass", "normal_code"]

ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
CODE = re.compile(rf"[{ALPHABET}]{{6}}\Z")
CLASS_HOURS = 12
MAX_NICKNAME = 24
MAX_LESSONS = 500
PHASES = ("waiting", "open", "revealed")


class UnknownClass(WorkspaceError):
    """A code that names no class of this workspace."""


class ClassClosed(WorkspaceError):
    """An answer to a class that is closed, or to a question that is not open."""


def normal_code(text: object) -> str:
    """A code as typed (any case, spaces or a dash inside) made canonical, or :class:`UnknownClass`."""
    code = re.sub(r"[\s-]", "", text).upper() if isinstance(text, str) and len(text) <= 16 else ""
    if not CODE.match(code):
        raise UnknownClass(f"{str(text)[:16]!r} is not a class code: expected 6 letters and digits")
    return code


@dataclass(frozen=True)
class LessonInfo:
    """A saved lesson: ``questions`` as :class:`metrics.teaching.questions.Question` values; ``collection`` and
    ``version``: the stored collection (its version's id and number) they were made from, None for none."""

    id: str
    name: str
    created_by: str
    created_at: str
    questions: tuple
    collection: str | None = None
    version: int | None = None


@dataclass(frozen=True)
class ClassStatus:
    """Where a class is: the question shown (``current``, 0-based, -1 before the first), its ``phase``
    (waiting, open, revealed), whether the class is ``closed``, and its ``revision``."""

    code: str
    current: int
    phase: str
    closed: bool
    revision: int
    count: int  # questions


@dataclass(frozen=True)
class ClassAnswer:
    """One student's answer to one question (``answer`` as stored: metrics.teaching.reveal.answer_text)."""

    position: int
    student: str
    nickname: str | None
    answer: str
    answered_at: str


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def _expired(created_at: str) -> bool:
    try:
        started = datetime.fromisoformat(created_at)
    except ValueError:
        return True
    return datetime.now(timezone.utc) - started > timedelta(hours=CLASS_HOURS)


class Classroom:
    """Lessons and classes of one :class:`~workspace.Workspace` (its database connections)."""

    def __init__(self, ws) -> None:
        self._engine, self._where, self._actor = ws._engine, ws.location, ws.actor

    def _tx(self, read: bool = False):
        return transaction(self._engine, self._where, read=read)

    def _checked(self) -> bool:
        """Whether roles decide for the person acted for (not the operator, the open mode or an administrator)."""
        return self._actor is not None and self._actor.checked and not self._actor.admin

    def _author(self, author: str) -> str:
        """Who is recorded: the signed-in person when roles decide, else ``author`` (one line)."""
        return line(self._actor.name if self._actor is not None and self._actor.checked else author, "author")

    def _collection(self, conn, cid: str | None):
        """``(version id, lineage)`` of collection ``cid`` when the person may teach its lessons; (None, None)
        for no collection. Raises :class:`~workspace.access.NoAccess` or :class:`~workspace.access.Forbidden`."""
        if cid is None:
            return None, None
        found = member_rows.row(conn, self._actor, cid, "teach")
        return found.id, found.lineage

    def _visible(self, conn):
        """The condition on ``lessons`` (joined to ``collections``) of the lessons the person may see and teach:
        those of a collection whose lineage gives them the ``teach`` action, and their own made from none."""
        from workspace.schema import collections, lessons

        if not self._checked():
            return None
        teachable = [at for at, role in member_rows.roles(conn, self._actor.name).items()
                     if may(self._actor, "teach", role)]
        return or_(and_(lessons.c.lineage.in_(teachable), collections.c.deleted.is_(False)),
                   and_(lessons.c.lineage.is_(None), lessons.c.created_by == self._actor.name))

    def _lessons(self, conn, where=None):
        from workspace.schema import collections, lessons

        query = select(lessons, collections.c.version).outerjoin(collections, collections.c.id == lessons.c.collection)
        for condition in (self._visible(conn), where):
            if condition is not None:
                query = query.where(condition)
        return query

    # -- lessons -----------------------------------------------------------------------------------------------
    def save_lesson(self, name: str, questions, *, author: str, collection: str | None = None) -> LessonInfo:
        """Keep a list of questions under a name (a new lesson each time; the old ones stay).

        ``collection``: the stored collection (a version's id) the questions were made from, whose roles then
        decide who sees and teaches the lesson (saving one needs the ``teach`` action); None: made from no
        stored collection, the author's alone.
        """
        from workspace.schema import lessons

        line(name, "lesson name")
        author = self._author(author)
        text = lesson_json.dumps(questions)
        with self._tx() as conn:
            cid, lineage = self._collection(conn, collection)
            row = {"id": new_id(), "name": name, "created_by": author, "created_at": now(), "questions": text,
                   "collection": cid, "lineage": lineage}
            conn.execute(lessons.insert().values(**row))
            saved = conn.execute(self._lessons(conn, lessons.c.id == row["id"])).one()
        return self._lesson(saved)

    def lessons(self) -> list[LessonInfo]:
        """The saved lessons the person may see, newest first (at most :data:`MAX_LESSONS`)."""
        from workspace.schema import lessons

        with self._tx(read=True) as conn:
            rows = conn.execute(self._lessons(conn).order_by(lessons.c.created_at.desc(), lessons.c.id)
                                .limit(MAX_LESSONS)).all()
        return [self._lesson(row) for row in rows]

    def lesson(self, lid: str) -> LessonInfo:
        """One saved lesson the person may see; a lesson they may not see is unknown, as one that is not."""
        from workspace.schema import lessons

        if not isinstance(lid, str) or not ID.match(lid):
            raise WorkspaceError(f"unknown lesson id {str(lid)[:40]!r}: expected 16 characters A-Z a-z 0-9 _ -")
        with self._tx(read=True) as conn:
            row = conn.execute(self._lessons(conn, lessons.c.id == lid)).first()
        if row is None:
            raise WorkspaceError(f"unknown lesson id {lid!r}: no such lesson in this workspace, or not yours to teach")
        return self._lesson(row)

    @staticmethod
    def _lesson(row) -> LessonInfo:
        try:
            questions = lesson_json.loads(row.questions)
        except RankscopeError as err:
            raise WorkspaceError(f"lesson {row.id}: {err}") from None
        return LessonInfo(row.id, row.name, row.created_by, row.created_at, questions, row.collection, row.version)

    # -- classes -------------------------------------------------------------------------------------------
    def start(self, questions=(), *, author: str, lesson: str | None = None,
              collection: str | None = None) -> tuple[str, str]:
        """Start a class; returns its code and the teacher's key.

        Parameters
        ----------
        questions : sequence of Question
            The class's questions (a lesson being made); leave empty with ``lesson``.
        lesson : str, optional
            A saved lesson's id: its questions, and its collection, whose ``teach`` action the person needs.
        collection : str, optional
            The stored collection ``questions`` were made from (the ``teach`` action needed); None: none.
        """
        from workspace.schema import class_sessions, lessons

        author = self._author(author)
        questions = tuple(questions)
        if lesson is not None and (questions or collection is not None):
            raise WorkspaceError("a class starts from a saved lesson or from questions, not both")
        key = secrets.token_urlsafe(24)
        with self._tx() as conn:
            if lesson is not None:
                if not isinstance(lesson, str) or not ID.match(lesson):
                    raise WorkspaceError(f"unknown lesson id {str(lesson)[:40]!r}: expected 16 characters A-Z a-z "
                                         "0-9 _ -")
                saved = conn.execute(self._lessons(conn, lessons.c.id == lesson)).first()
                if saved is None:
                    raise WorkspaceError(f"unknown lesson id {lesson!r}: no such lesson in this workspace, or not "
                                         "yours to teach")
                questions, collection = self._lesson(saved).questions, saved.collection
            cid, lineage = self._collection(conn, collection)
            if not questions:
                raise WorkspaceError("a class needs at least one question")
            text = lesson_json.dumps(questions)
            dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
            for _ in range(20):  # 31^6 codes: a clash is rare, twenty in a row never happen
                code = "".join(secrets.choice(ALPHABET) for _ in range(6))
                done = conn.execute(dialect.insert(class_sessions).values(
                    code=code, teacher=_digest(key), lesson=lesson, questions=text, size=len(questions),
                    current=-1, phase="waiting", closed=False, revision=0, created_by=author, created_at=now(),
                    collection=cid, lineage=lineage).on_conflict_do_nothing().returning(class_sessions.c.code)).first()
                if done is not None:
                    return code, key
        raise WorkspaceError("no free class code was found: try again")  # pragma: no cover

    def status(self, code: str) -> ClassStatus:
        """Where the class is (one row read): what a student's page polls."""
        from workspace.schema import class_sessions as cs

        code = normal_code(code)
        with self._tx(read=True) as conn:
            row = conn.execute(select(cs.c.current, cs.c.phase, cs.c.closed, cs.c.revision, cs.c.created_at,
                                      cs.c.size).where(cs.c.code == code)).first()
        if row is None:
            raise UnknownClass(f"no class has the code {code}")
        return ClassStatus(code, row.current, row.phase, bool(row.closed) or _expired(row.created_at), row.revision,
                           row.size)

    def questions(self, code: str) -> tuple:
        """The class's questions (fixed when it started)."""
        from workspace.schema import class_sessions as cs

        code = normal_code(code)
        with self._tx(read=True) as conn:
            text = conn.execute(select(cs.c.questions).where(cs.c.code == code)).scalar()
        if text is None:
            raise UnknownClass(f"no class has the code {code}")
        return lesson_json.loads(text)

    def teaches(self, code: object, key: object) -> bool:
        """Whether ``key`` is the teacher's key of the running class ``code`` (a closed, expired or unknown class,
        or a code or key that cannot be one: False; so is one of a collection whose lessons the person may no
        longer teach). A teacher's page opened again asks this of the key its browser kept."""
        from workspace.schema import class_sessions as cs

        if not isinstance(key, str) or not isinstance(code, str) or not CODE.match(code):
            return False
        with self._tx(read=True) as conn:
            row = conn.execute(select(cs.c.teacher, cs.c.closed, cs.c.created_at, cs.c.collection)
                               .where(cs.c.code == code)).first()
            if (row is None or row.closed or _expired(row.created_at)
                    or not hmac.compare_digest(_digest(key), row.teacher)):
                return False
            try:
                self._collection(conn, row.collection)
            except WorkspaceError:  # no longer allowed to teach the collection's lessons
                return False
        return True

    def show(self, code: str, key: str, position: int) -> ClassStatus:
        """Open question ``position`` (0-based) for answers."""
        return self._teach(code, key, position=position)

    def reveal(self, code: str, key: str) -> ClassStatus:
        """Close the shown question to answers and reveal its answer."""
        return self._teach(code, key, phase="revealed")

    def close(self, code: str, key: str) -> ClassStatus:
        """End the class: no more answers; its answers stay."""
        return self._teach(code, key, closed=True)

    def _teach(self, code: str, key: str, *, position: int | None = None, phase: str | None = None,
               closed: bool = False) -> ClassStatus:
        from workspace.schema import class_sessions as cs

        code = normal_code(code)
        with self._tx() as conn:
            row = conn.execute(select(cs).where(cs.c.code == code)).first()
            if row is None:
                raise UnknownClass(f"no class has the code {code}")
            if not isinstance(key, str) or not hmac.compare_digest(_digest(key), row.teacher):
                raise WorkspaceError(f"class {code}: only the teacher who started it can change it")
            self._collection(conn, row.collection)  # the key, and the role on the collection now
            if row.closed and not closed:
                raise ClassClosed(f"class {code} is closed")
            count = row.size
            values = {"revision": row.revision + 1}
            if position is not None:
                if isinstance(position, bool) or not isinstance(position, int) or not 0 <= position < count:
                    raise WorkspaceError(f"class {code}: expected a question from 1 to {count}, found {position!r}")
                values.update(current=position, phase="open")
            if phase is not None:
                if row.current < 0:
                    raise WorkspaceError(f"class {code}: no question is shown yet")
                values["phase"] = phase
            if closed:
                values["closed"] = True
            conn.execute(cs.update().where(cs.c.code == code).values(**values))
        return self.status(code)

    # -- answers -------------------------------------------------------------------------------------------
    def answer(self, code: str, student: str, position: int, text: str, nickname: str | None = None) -> str:
        """A student's answer to the open question ``position``; returns it as stored.

        Raises
        ------
        UnknownClass
        ClassClosed
            The class is closed, or ``position`` is not the question open now.
        metrics.errors.ValidationError
            The answer cannot be read (:func:`metrics.teaching.reveal.parse_answer`).
        """
        from workspace.schema import class_answers as ca
        from workspace.schema import class_sessions as cs

        code = normal_code(code)
        if not isinstance(student, str) or not ID.match(student):
            raise WorkspaceError("a student: expected a token of 16 characters A-Z a-z 0-9 _ -")
        if nickname is not None:
            nickname = nickname.strip() or None if isinstance(nickname, str) else nickname
            if nickname is not None:
                line(nickname, "nickname", MAX_NICKNAME)
        with self._tx() as conn:
            row = conn.execute(select(cs.c.current, cs.c.phase, cs.c.closed, cs.c.created_at, cs.c.questions)
                               .where(cs.c.code == code)).first()
            if row is None:
                raise UnknownClass(f"no class has the code {code}")
            if row.closed or _expired(row.created_at):
                raise ClassClosed(f"class {code} is closed")
            if row.phase != "open" or position != row.current:
                raise ClassClosed(f"class {code}: question {position + 1} is not open for answers now")
            question = lesson_json.loads(row.questions)[row.current]
            stored = answer_text(question, parse_answer(question, text))
            dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
            values = {"code": code, "position": position, "student": student, "nickname": nickname,
                      "answer": stored, "answered_at": now()}
            conn.execute(dialect.insert(ca).values(**values).on_conflict_do_update(
                index_elements=[ca.c.code, ca.c.position, ca.c.student],
                set_={"answer": stored, "nickname": nickname, "answered_at": values["answered_at"]}))
        return stored

    def count(self, code: str, position: int) -> int:
        """How many students answered question ``position``."""
        from workspace.schema import class_answers as ca

        code = normal_code(code)
        with self._tx(read=True) as conn:
            return int(conn.execute(select(func.count()).select_from(ca)
                                    .where(ca.c.code == code, ca.c.position == position)).scalar_one())

    def answers(self, code: str, position: int | None = None) -> list[ClassAnswer]:
        """The answers of a class (of one question), by question, then time."""
        from workspace.schema import class_answers as ca

        code = normal_code(code)
        query = select(ca).where(ca.c.code == code)
        if position is not None:
            query = query.where(ca.c.position == position)
        with self._tx(read=True) as conn:
            rows = conn.execute(query.order_by(ca.c.position, ca.c.answered_at, ca.c.student)).all()
        return [ClassAnswer(r.position, r.student, r.nickname, r.answer, r.answered_at) for r in rows]
