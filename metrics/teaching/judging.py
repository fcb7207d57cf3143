"""A class that judges: the documents of one topic that every student grades, their grades as answers, and two
systems measured under the reference judgments and under the class's.

A :class:`Judging` is a question of a lesson (kind ``"judge"``), kept in the lesson's JSON beside the others
(:data:`JUDGING`, read by :mod:`metrics.teaching.lesson`): the topic's id and text, the documents to judge with
their texts (each cut at :data:`MAX_TEXT` characters: a phone shows them), the labels of the grades 0, 1, ...,
and what the reveal needs to measure two systems on the topic: each one's first documents (at most
:data:`~metrics.teaching.questions.MAX_RANKS`), the reference grades of those documents, and the positive
grades of the topic's other judged documents. It is self-contained: a class runs on it with no collection
loaded.

:func:`choose_documents` picks the documents: the two systems' rankings interleaved from the top (A1, B1, A2,
B2, ...), each document once, as a depth pool of the two: the documents that decide their order at the top.
Students see them in an order fixed by a hash of their ids, never in a system's rank order.

A student's answer is one character per document (:func:`parse_grades`): the grade's digit, or
:data:`NOT_GRADED`; it is stored whole at each grade, replacing the last (the class's answer rule). The reveal
reads the answers as judgments (:func:`grades_frame`) and :func:`systems_under` measures both systems with
:func:`~metrics.teaching.questions.measure_value` (the same evaluation as every run) under the reference and
under the reference with the class's grade of each document in place of its own.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

import pandas as pd

from metrics.checks import Field, Integer, ListOf, Object, Options, Text, check, read
from metrics.errors import ValidationError
from metrics.teaching.questions import (LEVEL, MAX_GRADE, MAX_MISSING, MAX_RANKS, MISSING_GRADE, NAME, SOURCE,
                                        Ranking, measure_value, parse_measure_for_class)

__all__ = ["JUDGING", "KIND", "MAX_DOCUMENTS", "MAX_TEXT", "NOT_GRADED", "Judging", "Shown", "choose_documents",
           "first_under", "grades_frame", "grades_shown", "grades_text", "parse_grades", "systems_under"]

KIND = "judge"
MAX_DOCUMENTS = 20
"""Documents a class judges: one character each in an answer."""
MAX_TEXT = 5000
"""Characters of a document's text kept for the class (a phone reads it; the rest is cut, marked by an ellipsis)."""
MAX_QUERY = 2000
NOT_GRADED = "-"
_DOCID = Text(256, blank=False, line=True)

JUDGING = Object({
    "kind": Options(KIND),
    "topic": _DOCID,
    "query": Text(MAX_QUERY),
    "documents": ListOf(Object({"docid": _DOCID, "title": Text(300), "text": Text(MAX_TEXT + 1)},
                               what="a document (docid, title, text)"), MAX_DOCUMENTS, shortest=2),
    "labels": ListOf(Text(40, blank=False, line=True), 10, shortest=2),
    "systems": ListOf(Object({"name": NAME, "docids": ListOf(_DOCID, MAX_RANKS, shortest=1)},
                             what="a system (name, docids)"), 2, shortest=2),
    "reference": ListOf(Object({"docid": _DOCID, "grade": Integer(0, MAX_GRADE)}, what="a judgment (docid, grade)"),
                        2 * MAX_RANKS + MAX_DOCUMENTS),
    "beyond": ListOf(MISSING_GRADE, MAX_MISSING),
    "measure": Text(64, blank=False, line=True),
    "rel": Field(LEVEL, required=False),
    "source": Field(SOURCE, required=False),
}, what="documents to judge (kind \"judge\", topic, documents, ...)")
"""The fields of a judging question, declared once."""


@dataclass(frozen=True)
class Shown:
    """A document to judge: its id, title and text (plain strings, never markup)."""

    docid: str
    title: str = ""
    text: str = ""


@dataclass(frozen=True)
class Judging:
    """Documents of one topic that every student of a class grades.

    Attributes
    ----------
    topic, query : str
        The topic's id and text.
    documents : tuple of Shown
        In the order students see them (2 to :data:`MAX_DOCUMENTS`).
    labels : tuple of str
        The label of grade 0, 1, ... (2 to 10 grades: one key each).
    systems : tuple of (str, tuple of str)
        Two systems' names and first documents, top first.
    reference : tuple of (str, int)
        The reference grades of the systems' documents and of the documents judged (those the reference judged).
    beyond : tuple of int
        The positive grades of the topic's other judged documents (they count in R and nDCG's ideal).
    measure : str
        What the reveal measures both systems by (:data:`~metrics.teaching.questions.FAMILIES`).
    rel : int
        The relevance level.
    """

    topic: str
    query: str
    documents: tuple
    labels: tuple
    systems: tuple
    reference: tuple = ()
    beyond: tuple = ()
    measure: str = "nDCG@10"
    rel: int = 1
    source: str = ""
    kind: ClassVar[str] = KIND

    def __post_init__(self) -> None:
        object.__setattr__(self, "measure", str(parse_measure_for_class(self.measure)))
        if not 2 <= len(self.documents) <= MAX_DOCUMENTS:
            raise ValidationError(f"a judging question: expected 2 to {MAX_DOCUMENTS} documents, found "
                                  f"{len(self.documents)}")
        ids = [d.docid for d in self.documents]
        if len(set(ids)) != len(ids):
            raise ValidationError("a judging question: expected each document once, found one twice")
        if not 2 <= len(self.labels) <= 10:
            raise ValidationError(f"a judging question: expected 2 to 10 grades, found {len(self.labels)}")
        check("a judging question's relevance level", self.rel, LEVEL)

    @property
    def grades(self) -> tuple[int, ...]:
        return tuple(range(len(self.labels)))

    def prompt(self) -> str:
        """What the class is asked, as the teacher's lesson lists it."""
        return (f"Judge {len(self.documents)} documents for topic {self.topic}: how relevant is each? "
                f"(then {self.systems[0][0]} and {self.systems[1][0]} by {self.measure})")

    def reference_grades(self) -> tuple[int | None, ...]:
        """The reference's grade of each document, in the order shown (None: not judged there)."""
        known = dict(self.reference)
        return tuple(known.get(d.docid) for d in self.documents)

    def to_dict(self) -> dict:
        """The question as plain JSON values (:data:`JUDGING`)."""
        return {"kind": KIND, "topic": self.topic, "query": self.query,
                "documents": [{"docid": d.docid, "title": d.title, "text": d.text} for d in self.documents],
                "labels": list(self.labels),
                "systems": [{"name": name, "docids": list(ids)} for name, ids in self.systems],
                "reference": [{"docid": d, "grade": g} for d, g in self.reference], "beyond": list(self.beyond),
                "measure": self.measure, "rel": self.rel, "source": self.source}

    @classmethod
    def from_dict(cls, item: Mapping, where: str = "a judging question") -> "Judging":
        """A question read from :meth:`to_dict`'s form, checked against :data:`JUDGING`."""
        item = read(item, JUDGING, at=where)
        try:
            return cls(item["topic"], item["query"], tuple(Shown(**d) for d in item["documents"]),
                       tuple(item["labels"]), tuple((s["name"], tuple(s["docids"])) for s in item["systems"]),
                       tuple((r["docid"], r["grade"]) for r in item["reference"]), tuple(item["beyond"]),
                       item["measure"], item.get("rel", 1), item.get("source", ""))
        except ValidationError as err:
            raise ValidationError(f"{where}: {err}") from None


def _shuffled(docids: Iterable[str], topic: str) -> list[str]:
    return sorted(docids, key=lambda d: hashlib.sha256(f"{topic}\x1f{d}".encode()).digest())


def choose_documents(tops: Sequence[Sequence[str]], count: int, topic: str = "") -> list[str]:
    """``count`` documents of the rankings ``tops``, interleaved from the top, each once; in the order shown.

    Examples
    --------
    >>> sorted(choose_documents([["a", "b", "c"], ["b", "d"]], 3))
    ['a', 'b', 'd']
    """
    check("documents to judge", count, Integer(2, MAX_DOCUMENTS))
    chosen: dict[str, None] = {}
    for rank in range(max((len(t) for t in tops), default=0)):
        for top in tops:
            if rank < len(top) and len(chosen) < count:
                chosen.setdefault(top[rank])
    if len(chosen) < 2:
        raise ValidationError(f"documents to judge: expected the systems to retrieve 2 or more, found {len(chosen)}")
    return _shuffled(chosen, topic)


def cut(text: str) -> str:
    """A document's text as a class keeps it: at most :data:`MAX_TEXT` characters, an ellipsis where cut."""
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + "…"


def parse_grades(question: Judging, text: str) -> tuple[int | None, ...]:
    """A student's grades as stored (``"20-1"``: one character per document, :data:`NOT_GRADED` for none).

    Examples
    --------
    >>> q = Judging("1", "wings", (Shown("a"), Shown("b")), ("not relevant", "relevant"), (("x", ("a",)), ("y", ("b",))))
    >>> parse_grades(q, "1-")
    (1, None)
    """
    n = len(question.documents)
    if not isinstance(text, str) or len(text) != n:
        raise ValidationError(f"grades: expected {n} characters, one per document, found "
                              f"{len(text) if isinstance(text, str) else type(text).__name__}")
    top = len(question.labels) - 1
    out = []
    for c in text:
        if c == NOT_GRADED:
            out.append(None)
        elif c.isascii() and c.isdigit() and int(c) <= top:
            out.append(int(c))
        else:
            raise ValidationError(f"grades: expected a grade from 0 to {top} or {NOT_GRADED!r} per document, found "
                                  f"{text!r}")
    return tuple(out)


def grades_text(grades: Sequence[int | None]) -> str:
    """Grades as stored: the inverse of :func:`parse_grades`."""
    return "".join(NOT_GRADED if g is None else str(int(g)) for g in grades)


def grades_shown(grades: Sequence[int | None]) -> str:
    """Grades as a reader (and a spreadsheet) reads them: ``1 0 ?``, never a number.

    >>> grades_shown((1, 0, None))
    '1 0 ?'
    """
    return " ".join("?" if g is None else str(int(g)) for g in grades)


def grades_frame(question: Judging, answers: Iterable[tuple[str, str]]) -> pd.DataFrame:
    """Every grade the students gave: ``topic``, ``docid``, ``assessor`` (the student), ``grade``, documents in
    the order shown, from ``(student, stored answer)`` pairs."""
    rows = [(question.topic, doc.docid, student, grade)
            for student, text in answers
            for doc, grade in zip(question.documents, parse_grades(question, text)) if grade is not None]
    return pd.DataFrame(rows, columns=["topic", "docid", "assessor", "grade"]).astype({"grade": "int64"})


def _ranking(question: Judging, name: str, docids: Sequence[str], grades: Mapping[str, int]) -> Ranking | None:
    listed = set(docids)
    elsewhere = {d for _, ids in question.systems for d in ids} | {d.docid for d in question.documents}
    missing = [g for d, g in grades.items() if d not in listed and d in elsewhere and g >= 1]
    shown = tuple(grades.get(d) for d in docids)
    if all(g is None for g in shown) and not missing and not question.beyond:
        return None
    return Ranking(shown, (*missing, *question.beyond), name)


def systems_under(question: Judging, class_grades: Mapping[str, int]) -> pd.DataFrame:
    """Both systems measured under the reference judgments and under the class's: ``judgments`` (``reference``,
    ``class``), ``system``, ``value`` (NaN where nothing it ranks is judged), ``rank`` (1: the better; equal
    values share the better rank). Under the class's judgments, each document judged takes the class's grade
    (``class_grades``: docid -> grade, e.g. :func:`metrics.judgments.assessors.class_grades`), every other
    keeps the reference's."""
    reference = dict(question.reference)
    taken = {**reference, **{str(d): int(g) for d, g in class_grades.items()}}
    rows = []
    for judgments, grades in (("reference", reference), ("class", taken)):
        for name, docids in question.systems:
            ranking = _ranking(question, name, docids, grades)
            value = float("nan") if ranking is None else measure_value(ranking, question.measure, question.rel)
            rows.append((judgments, name, value))
    out = pd.DataFrame(rows, columns=["judgments", "system", "value"])
    out["rank"] = out.groupby("judgments")["value"].rank(method="min", ascending=False)
    return out


def first_under(systems: pd.DataFrame) -> dict[str, str | None]:
    """The better system under each judgments of :func:`systems_under`'s table (None: they tie, or one has no
    value).

    Examples
    --------
    >>> first_under(pd.DataFrame({"judgments": ["reference", "reference", "class", "class"],
    ...                           "system": ["x", "y", "x", "y"], "value": [0.5, 0.2, 0.3, 0.3]}))
    {'reference': 'x', 'class': None}
    """
    out = {}
    for judgments in dict.fromkeys(systems["judgments"]):
        part = systems[systems["judgments"] == judgments]
        values = part["value"].to_numpy()
        single = not pd.isna(values).any() and values.max() > values.min()
        out[judgments] = str(part["system"].iloc[int(values.argmax())]) if single else None
    return out
