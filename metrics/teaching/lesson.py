"""A lesson: a list of questions, written as JSON to be kept (in the workspace) and read back, checked.

:func:`dumps` writes questions as a JSON array; :func:`loads` reads one back, refusing anything that is not
exactly such an array (unknown or duplicate fields, wrong types, too many questions, more than
:data:`MAX_BYTES`) with a one-line :class:`~metrics.errors.ValidationError` that names the question.
Nothing in the text sizes anything before it is checked against these limits.
"""

from __future__ import annotations

import json

from metrics.errors import RankscopeError, ValidationError
from metrics.teaching.questions import Change, Question, Ranking

__all__ = ["MAX_BYTES", "MAX_QUESTIONS", "dumps", "from_dict", "loads", "to_dict"]

MAX_QUESTIONS = 50
MAX_BYTES = 1_000_000
_QUESTION = {"kind", "measure", "rankings", "change", "rel", "tolerance", "source"}
_RANKING = {"grades", "missing", "name"}
_CHANGE = {"what", "rank", "to"}


def to_dict(question: Question) -> dict:
    """A question as plain JSON values."""
    change = question.change
    return {"kind": question.kind, "measure": question.measure,
            "rankings": [{"grades": list(r.grades), "missing": list(r.missing), "name": r.name}
                         for r in question.rankings],
            "change": None if change is None else {"what": change.what, "rank": change.rank, "to": change.to},
            "rel": question.rel, "tolerance": question.tolerance, "source": question.source}


def _fields(value, allowed: set, required: set, what: str) -> dict:
    if not isinstance(value, dict):
        raise ValidationError(f"{what}: expected an object, found {type(value).__name__}")
    unknown, absent = sorted(set(value) - allowed), sorted(required - set(value))
    if unknown or absent:
        raise ValidationError(f"{what}: " + (f"unknown field(s) {', '.join(unknown)}" if unknown
                                             else f"missing field(s) {', '.join(absent)}"))
    return value


def _list(value, what: str, limit: int) -> list:
    if not isinstance(value, list) or len(value) > limit:
        raise ValidationError(f"{what}: expected a list of at most {limit} items")
    return value


def from_dict(value, where: str = "a question") -> Question:
    """A question from :func:`to_dict`'s form, checked."""
    item = _fields(value, _QUESTION, {"kind", "measure", "rankings"}, where)
    try:
        rankings = []
        for i, r in enumerate(_list(item["rankings"], f"{where}: rankings", 6)):
            r = _fields(r, _RANKING, {"grades"}, f"{where}: ranking {i + 1}")
            rankings.append(Ranking(tuple(_list(r["grades"], f"{where}: grades", 50)),
                                    tuple(_list(r.get("missing", []), f"{where}: missing", 1000)), r.get("name", "")))
        change = item.get("change")
        if change is not None:
            change = _fields(change, _CHANGE, _CHANGE, f"{where}: change")
            change = Change(change["what"], change["rank"], change["to"])
        return Question(item["kind"], item["measure"], tuple(rankings), change, item.get("rel", 1),
                        item.get("tolerance", 0.01), item.get("source", ""))
    except ValidationError as err:
        if str(err).startswith(where):
            raise
        raise ValidationError(f"{where}: {err}") from None
    except RankscopeError as err:  # an unknown measure
        raise ValidationError(f"{where}: {err}") from None


def dumps(questions) -> str:
    """Questions as a JSON array (``to_dict`` of each)."""
    questions = list(questions)
    if len(questions) > MAX_QUESTIONS:
        raise ValidationError(f"a lesson: expected at most {MAX_QUESTIONS} questions, found {len(questions)}")
    return json.dumps([to_dict(q) for q in questions], separators=(",", ":"))


def _unique(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValidationError(f"a lesson: duplicate field(s) {sorted({k for k in keys if keys.count(k) > 1})}")
    return dict(pairs)


def loads(text: str) -> tuple[Question, ...]:
    """The questions of a JSON array written by :func:`dumps`.

    Examples
    --------
    >>> q = Question("value", "P@5", (Ranking((1, 0, 1)),))
    >>> loads(dumps([q])) == (q,)
    True
    """
    if not isinstance(text, str) or len(text) > MAX_BYTES:
        raise ValidationError(f"a lesson: expected JSON text of at most {MAX_BYTES} characters")
    try:
        items = json.loads(text, object_pairs_hook=_unique, parse_constant=_no_constant)
    except json.JSONDecodeError as err:
        raise ValidationError(f"a lesson: line {err.lineno}, column {err.colno}: {err.msg}") from None
    items = _list(items, "a lesson", MAX_QUESTIONS)
    return tuple(from_dict(item, f"question {i + 1}") for i, item in enumerate(items))


def _no_constant(name: str):
    raise ValidationError(f"a lesson: expected a finite number, found {name}")
