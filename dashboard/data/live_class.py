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

from metrics.errors import ValidationError
from metrics.teaching import judging, lesson, questions, reveal
from metrics.teaching.questions import Question, Ranking

from dashboard.data.files import _of, document_texts, read_qrels, topic_texts
from dashboard.server import config
from dashboard.server.flood import Flood
from dashboard.session.state import Loaded
from dashboard.store import opened

STATUS_TTL = 1.0  # seconds a class's status is reused by every session of a server process
DRAFT = "class_draft"  # the session's lesson being made: a list of Question
DRAFT_OF = "class_draft_of"  # the stored collection (a version's id) its questions were made from, if any


@st.cache_resource(show_spinner=False)
def flood() -> Flood:
    """The bounds of a live class on this server process (:mod:`dashboard.server.flood`), from its settings.

    Raises
    ------
    dashboard.server.config.SettingError
        A bound's setting holds no whole number from 1.
    """
    return Flood(config.class_bound("RANKSCOPE_CLASS_JOINS"), config.class_bound("RANKSCOPE_CLASS_ANSWERS"))


def changes_allowed() -> int:
    """How many times one student may send an answer to one question (``RANKSCOPE_CLASS_CHANGES``)."""
    return config.class_bound("RANKSCOPE_CLASS_CHANGES")


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


def draft_collection() -> str | None:
    """The stored collection the lesson being made comes from (its roles decide who teaches it); None: none."""
    return st.session_state.get(DRAFT_OF) if draft() else None


def add_to_draft(question: Question, collection: str | None) -> None:
    """Add a question made from ``collection`` (a stored version's id; None: a worked example, typed grades or
    files not stored) to the lesson being made. A lesson comes from one stored collection at most, whose roles
    decide who sees and teaches it: a question of another one is refused (a :class:`ValidationError`)."""
    now = draft_collection()
    if collection and now and collection != now:
        raise ValidationError(f"the lesson: expected questions of collection {now} (the lesson's), found one of "
                              f"{collection}: save or clear the lesson first")
    if not draft():
        st.session_state.pop(DRAFT_OF, None)  # a lesson cleared: its collection with it
    draft().append(question)
    if collection:
        st.session_state[DRAFT_OF] = collection


# ---- a class that judges ------------------------------------------------------------------------------------
def judging_question(loaded: Loaded, topic: str, systems: tuple[str, str], count: int, measure: str) -> judging.Judging:
    """Documents of one topic of the loaded collection for a class to judge: ``count`` of the two systems' first
    documents (:func:`metrics.teaching.judging.choose_documents`), with their texts, the collection's grade scale
    and what the reveal needs to measure both systems."""
    from metrics.judgments.assessors import scale_of

    texts = document_texts(loaded)
    if texts is None:
        raise ValidationError("documents to judge: expected the documents' texts (load them on the data page), "
                              "found none")
    tops = []
    for ranked in _of(loaded, tuple(systems)):
        one = ranked.select_queries([topic])
        start, stop = (int(one.offsets[0]), int(one.offsets[1])) if one.n_queries else (0, 0)
        rows = one.rows[start:min(stop, start + questions.MAX_RANKS)]
        tops.append(tuple(map(str, one.run.table["docid"].take(rows).to_pylist())))
    chosen = judging.choose_documents(tops, count, topic)
    qrels = read_qrels(loaded.qrels).frame
    judged = qrels[(qrels["query"] == topic) & (qrels["relevance"] >= 0)]
    grades = dict(zip(judged["docid"].astype(str), judged["relevance"].astype(int)))
    listed = {d for top in tops for d in top} | set(chosen)
    topics = topic_texts(loaded)
    shown = tuple(judging.Shown(d, texts[d].title if d in texts else "", judging.cut(texts[d].text) if d in texts else "")
                  for d in chosen)
    return judging.Judging(topic, (topics or {}).get(topic, "")[:judging.MAX_QUERY], shown,
                           scale_of(qrels["relevance"]).labels, tuple(zip(systems, tops)),
                           tuple((d, g) for d, g in grades.items() if d in listed),
                           tuple(g for d, g in grades.items() if d not in listed and g > 0),
                           measure, max(loaded.conventions.relevance_level, 1), f"topic {topic}")


@st.cache_data(max_entries=64, show_spinner=False)
def _judged(text: str, answers: tuple[tuple[str, str], ...]):
    from metrics.judgments.assessors import GradeScale, class_agreement, class_grades, grade_counts

    question = lesson.loads(text)[0]
    frame = judging.grades_frame(question, answers)
    if frame.empty:
        return None
    reference = {d: g for d, g in question.reference if d in {doc.docid for doc in question.documents}}
    return (grade_counts(frame, GradeScale(question.grades, question.labels)), reference,
            class_agreement(frame, reference or None), judging.systems_under(question, class_grades(frame)))


def class_judged(question: judging.Judging, answers: tuple[tuple[str, str], ...]):
    """What a judging class's reveal shows: the grades of each document (:func:`~metrics.judgments.assessors.grade_counts`),
    the reference's grades of those it judged, the agreement (:func:`~metrics.judgments.assessors.class_agreement`)
    and both systems under the reference and the class (:func:`metrics.teaching.judging.systems_under`); None
    before any grade."""
    return _judged(_key(question), tuple(sorted(answers)))
