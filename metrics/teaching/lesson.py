"""A lesson: a list of questions, written as JSON to be kept (in the workspace) and read back, checked.

:func:`dumps` writes questions as a JSON array; :func:`loads` reads one back, checked against its
declaration (:data:`LESSON`: every field's rule, at most :data:`MAX_QUESTIONS` questions, no unknown or
duplicate field, no text past :data:`MAX_BYTES`), refusing anything else with a one-line
:class:`~metrics.errors.ValidationError` that names the field's path (``lesson[2].rankings[0].grades[3]``).
Nothing in the text sizes anything before it is checked against these limits.
"""

from __future__ import annotations

import json
from dataclasses import replace

from metrics.checks import Field, Integer, ListOf, Object, Options, Text, load_json, read, refuse
from metrics.errors import RankscopeError, ValidationError
from metrics.teaching.judging import KIND, Judging
from metrics.teaching.questions import (GRADE, KINDS, LABELS, LEVEL, MAX_GRADE, MAX_MISSING, MAX_RANKS, MISSING_GRADE,
                                        NAME, RANK, SOURCE, TOLERANCE_RULE, WHAT, Change, Question, Ranking)

__all__ = ["LESSON", "MAX_BYTES", "MAX_QUESTIONS", "QUESTION", "dumps", "from_dict", "loads", "to_dict"]

MAX_QUESTIONS = 50
MAX_BYTES = 1_000_000

_RANKING = Object({
    "grades": ListOf(replace(GRADE, none=True), MAX_RANKS, shortest=1,
                     what=f"a list of 1 to {MAX_RANKS} grades (null: not judged)"),
    "missing": Field(ListOf(MISSING_GRADE, MAX_MISSING, what=f"a list of at most {MAX_MISSING} grades"),
                     required=False),
    "name": Field(NAME, required=False),
}, what="a ranking (grades, missing, name)")
QUESTION = Object({
    "kind": Options(*KINDS),
    "measure": Text(64, blank=False, line=True),
    "rankings": ListOf(_RANKING, len(LABELS), shortest=1),
    "change": Field(Object({"what": WHAT, "rank": RANK, "to": Integer(0, max(MAX_RANKS, MAX_GRADE))},
                           what="a change (what, rank, to)", none=True), required=False),
    "rel": Field(LEVEL, required=False),
    "tolerance": Field(TOLERANCE_RULE, required=False),
    "source": Field(SOURCE, required=False),
}, what="a question (kind, measure, rankings, ...)")
"""The fields of a question, declared once; :class:`~metrics.teaching.questions.Question` checks what depends
on several of them (the number of rankings a kind takes, a change that fits its ranking, the measure)."""
LESSON = ListOf(QUESTION, MAX_QUESTIONS, what=f"a list of at most {MAX_QUESTIONS} questions")
"""A lesson as JSON: a list of questions. An item whose kind is ``"judge"`` is documents to judge instead, read
against :data:`metrics.teaching.judging.JUDGING`."""


def to_dict(question: Question | Judging) -> dict:
    """A question as plain JSON values."""
    if isinstance(question, Judging):
        return question.to_dict()
    change = question.change
    return {"kind": question.kind, "measure": question.measure,
            "rankings": [{"grades": list(r.grades), "missing": list(r.missing), "name": r.name}
                         for r in question.rankings],
            "change": None if change is None else {"what": change.what, "rank": change.rank, "to": change.to},
            "rel": question.rel, "tolerance": question.tolerance, "source": question.source}


def from_dict(value, where: str = "a question") -> Question | Judging:
    """A question from :func:`to_dict`'s form, checked against :data:`QUESTION` (or
    :data:`metrics.teaching.judging.JUDGING`), then as a
    question."""
    if isinstance(value, dict) and value.get("kind") == KIND:
        return Judging.from_dict(value, where)
    return _question(read(value, QUESTION, at=where), where)


def _question(item: dict, where: str) -> Question:
    """The question of a checked entry; what depends on several fields is checked by the question itself."""
    rankings = tuple(Ranking(tuple(r["grades"]), tuple(r.get("missing", ())), r.get("name", ""))
                     for r in item["rankings"])
    change = item.get("change")
    try:
        return Question(item["kind"], item["measure"], rankings,
                        None if change is None else Change(change["what"], change["rank"], change["to"]),
                        item.get("rel", 1), item.get("tolerance", 0.01), item.get("source", ""))
    except RankscopeError as err:  # what depends on several fields, or an unknown measure
        raise ValidationError(f"{where}: {err}") from None


def dumps(questions) -> str:
    """Questions as a JSON array (``to_dict`` of each)."""
    questions = list(questions)
    if len(questions) > MAX_QUESTIONS:
        raise refuse("lesson", f"at most {MAX_QUESTIONS} questions", questions)
    return json.dumps([to_dict(q) for q in questions], separators=(",", ":"))


def loads(text: str) -> tuple[Question, ...]:
    """The questions of a JSON array written by :func:`dumps`.

    Examples
    --------
    >>> q = Question("value", "P@5", (Ranking((1, 0, 1)),))
    >>> loads(dumps([q])) == (q,)
    True
    """
    if not isinstance(text, str) or len(text) > MAX_BYTES:
        raise refuse("lesson", f"JSON text of at most {MAX_BYTES} characters", text)
    try:
        items = load_json(text)
    except ValidationError as err:
        raise ValidationError(f"lesson: {err}") from None
    if isinstance(items, list) and any(_judging(item) for item in items[:MAX_QUESTIONS + 1]):
        if len(items) > MAX_QUESTIONS:
            raise refuse("lesson", f"at most {MAX_QUESTIONS} questions", items)
        return tuple(from_dict(item, f"lesson[{i}]") for i, item in enumerate(items))
    return tuple(_question(item, f"lesson[{i}]") for i, item in enumerate(read(items, LESSON, at="lesson")))


def _judging(item) -> bool:
    return isinstance(item, dict) and item.get("kind") == KIND
