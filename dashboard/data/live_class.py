"""The live class: questions made from the learn page's rankings, the class's state read from the workspace,
and each question's right answer, worked formulas and reveal (:mod:`metrics.teaching`), cached.

A class's state is shared through the workspace (:mod:`workspace.classroom`), so that every browser session
on every server process sees the same class. What the students' pages poll is bounded: the status of a class
is read at most once per :data:`STATUS_TTL` per server process, whatever the number of students, and a
class's questions (fixed when it starts) once. Right answers, formulas and reveals are computed from the
question's JSON, by :mod:`metrics.teaching` only.
"""

from __future__ import annotations

import streamlit as st

from metrics.teaching import lesson, questions, reveal
from metrics.teaching.questions import Question, Ranking

from dashboard.data.files import _of
from dashboard.session.state import Loaded
from dashboard.store import opened

STATUS_TTL = 1.0  # seconds a class's status is reused by every session of a server process
DRAFT = "class_draft"  # the session's lesson being made: a list of Question


def available() -> bool:
    """Whether a live class can run here: it needs the workspace (``rankscope dashboard`` has one)."""
    return opened.enabled()


def room():
    """The class store of this server's workspace (:class:`workspace.classroom.Classroom`)."""
    from workspace.classroom import Classroom

    return Classroom(opened.store())


@st.cache_data(ttl=STATUS_TTL, max_entries=256, show_spinner=False)
def status(code: str):
    """Where a class is (:meth:`workspace.classroom.Classroom.status`), read at most once a second."""
    return room().status(code)


def status_now(code: str):
    """The class's status read now (the teacher's own actions must show at once)."""
    status.clear()
    return room().status(code)


@st.cache_data(max_entries=64, show_spinner=False)
def class_questions(code: str) -> tuple[Question, ...]:
    """The questions of a class, fixed when it started: read once per server process."""
    return room().questions(code)


def _key(question: Question) -> str:
    return lesson.dumps([question])


@st.cache_data(max_entries=256, show_spinner=False)
def _right(text: str):
    q = lesson.loads(text)[0]
    return questions.right(q)


def right(question: Question):
    """The right answer (:func:`metrics.teaching.questions.right`)."""
    return _right(_key(question))


@st.cache_data(max_entries=256, show_spinner=False)
def _formulas(text: str):
    return questions.worked_formulas(lesson.loads(text)[0])


def worked_formulas(question: Question):
    """The measure's formula with each ranking's numbers."""
    return _formulas(_key(question))


@st.cache_data(max_entries=256, show_spinner=False)
def _reveal(text: str, answers: tuple[str, ...]):
    q = lesson.loads(text)[0]
    return reveal.reveal(q, [reveal.parse_answer(q, a) for a in answers])


def class_reveal(question: Question, answers: tuple[str, ...]):
    """The answers judged and counted (:func:`metrics.teaching.reveal.reveal`)."""
    return _reveal(_key(question), tuple(sorted(answers)))


@st.cache_data(max_entries=512, show_spinner=False)
def _verdict(text: str, answer: str) -> str:
    q = lesson.loads(text)[0]
    parsed = reveal.parse_answer(q, answer)
    solution = questions.right(q)
    wrong = [(m, s) for m, s in reveal.mistaken(q) if not questions.accepts(q, s, solution.answer)]
    return reveal.verdict(q, solution, wrong, parsed)


def verdict(question: Question, answer: str) -> str:
    """``right``, the name of the mistake one answer matches, or ``other``."""
    return _verdict(_key(question), answer)


def ranking_of_topic(loaded: Loaded, system: str, topic: str, depth: int) -> Ranking:
    """One system's ranking of a topic of the loaded collection, its first ``depth`` documents."""
    return questions.ranking_of_topic(_of(loaded, (system,))[0], topic, depth, name=f"{system}, topic {topic}")


def draft() -> list[Question]:
    """The lesson this session is making (questions added on the learn page)."""
    return st.session_state.setdefault(DRAFT, [])
