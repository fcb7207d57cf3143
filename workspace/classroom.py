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

A lesson is a named list of questions (:mod:`metrics.teaching.lesson`), kept to be used again.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from sqlalchemy import func, select
from sqlalchemy.dialects import postgresql, sqlite

from metrics.errors import RankscopeError
from metrics.teaching import lesson as lesson_json
from metrics.teaching.reveal import answer_text, parse_answer
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
    """A saved lesson: ``questions`` as :class:`metrics.teaching.questions.Question` values."""

    id: str
    name: str
    created_by: str
    created_at: str
    questions: tuple


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
        self._engine, self._where = ws._engine, ws.location

    def _tx(self, read: bool = False):
        return transaction(self._engine, self._where, read=read)

    # -- lessons -----------------------------------------------------------------------------------------------
    def save_lesson(self, name: str, questions, *, author: str) -> LessonInfo:
        """Keep a list of questions under a name (a new lesson each time; the old ones stay)."""
        from workspace.schema import lessons

        line(name, "lesson name")
        line(author, "author")
        text = lesson_json.dumps(questions)
        row = {"id": new_id(), "name": name, "created_by": author, "created_at": now(), "questions": text}
        with self._tx() as conn:
            conn.execute(lessons.insert().values(**row))
        return LessonInfo(row["id"], name, author, row["created_at"], lesson_json.loads(text))

    def lessons(self) -> list[LessonInfo]:
        """The saved lessons, newest first (at most :data:`MAX_LESSONS`)."""
        from workspace.schema import lessons

        with self._tx(read=True) as conn:
            rows = conn.execute(select(lessons).order_by(lessons.c.created_at.desc(), lessons.c.id)
                                .limit(MAX_LESSONS)).all()
        return [self._lesson(row) for row in rows]

    def lesson(self, lid: str) -> LessonInfo:
        from workspace.schema import lessons

        if not isinstance(lid, str) or not ID.match(lid):
            raise WorkspaceError(f"unknown lesson id {str(lid)[:40]!r}: expected 16 characters A-Z a-z 0-9 _ -")
        with self._tx(read=True) as conn:
            row = conn.execute(select(lessons).where(lessons.c.id == lid)).first()
        if row is None:
            raise WorkspaceError(f"unknown lesson id {lid!r}: no such lesson in this workspace")
        return self._lesson(row)

    @staticmethod
    def _lesson(row) -> LessonInfo:
        try:
            questions = lesson_json.loads(row.questions)
        except RankscopeError as err:
            raise WorkspaceError(f"lesson {row.id}: {err}") from None
        return LessonInfo(row.id, row.name, row.created_by, row.created_at, questions)

    # -- classes -------------------------------------------------------------------------------------------
    def start(self, questions, *, author: str, lesson: str | None = None) -> tuple[str, str]:
        """Start a class on these questions; returns its code and the teacher's key."""
        from workspace.schema import class_sessions

        line(author, "author")
        questions = tuple(questions)
        if not questions:
            raise WorkspaceError("a class needs at least one question")
        text = lesson_json.dumps(questions)
        key = secrets.token_urlsafe(24)
        with self._tx() as conn:
            dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
            for _ in range(20):  # 31^6 codes: a clash is rare, twenty in a row never happen
                code = "".join(secrets.choice(ALPHABET) for _ in range(6))
                done = conn.execute(dialect.insert(class_sessions).values(
                    code=code, teacher=_digest(key), lesson=lesson, questions=text, size=len(questions),
                    current=-1, phase="waiting",
                    closed=False, revision=0, created_by=author, created_at=now())
                    .on_conflict_do_nothing().returning(class_sessions.c.code)).first()
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
        or a code or key that cannot be one: False). A teacher's page opened again asks this of the key its
        browser kept."""
        from workspace.schema import class_sessions as cs

        if not isinstance(key, str) or not isinstance(code, str) or not CODE.match(code):
            return False
        with self._tx(read=True) as conn:
            row = conn.execute(select(cs.c.teacher, cs.c.closed, cs.c.created_at).where(cs.c.code == code)).first()
        return (row is not None and not row.closed and not _expired(row.created_at)
                and hmac.compare_digest(_digest(key), row.teacher))

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
