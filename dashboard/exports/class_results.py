"""A class's results as a CSV file: one row per answer, anonymous unless the student gave a nickname.

Every text cell that a spreadsheet would read as a formula (starting with ``=``, ``+``, ``-``, ``@``, a tab
or a carriage return) is written as text, with a leading apostrophe (:func:`spreadsheet_safe`), except a
plain number such as ``-0.25``, which no spreadsheet evaluates.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Sequence

from metrics.teaching import questions as q
from metrics.teaching.judging import Judging, grades_shown, parse_grades
from metrics.teaching.reveal import mistaken, parse_answer, shown, verdict

__all__ = ["COLUMNS", "class_csv", "spreadsheet_safe"]

COLUMNS = ("question", "kind", "measure", "prompt", "student", "answer", "right_answer", "verdict", "answered_at")
_FORMULA = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"[+-]?\d+(\.\d+)?([eE][+-]?\d+)?\Z")


def spreadsheet_safe(cell) -> str:
    """A cell as text that no spreadsheet evaluates: ``=1+1`` becomes ``'=1+1``; ``-0.25`` stays a number.

    Examples
    --------
    >>> [spreadsheet_safe(c) for c in ["=HYPERLINK(1)", "@x", "-0.25", "-1+2", "ok", 3]]
    ["'=HYPERLINK(1)", "'@x", '-0.25', "'-1+2", 'ok', '3']
    """
    text = str(cell)
    if text.startswith(_FORMULA) and not _PLAIN_NUMBER.match(text):
        return "'" + text
    return text


def class_csv(questions: Sequence, answers: Sequence) -> bytes:
    """The answers of a class (:class:`workspace.classroom.ClassAnswer`) with their questions
    (:class:`metrics.teaching.questions.Question`), judged as the reveal judges them, as UTF-8 CSV.

    Students without a nickname are numbered in the order they first answered ("student 1", ...); the
    token of their browser session is never written.
    """
    numbers: dict[str, int] = {}
    judged = {}
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for a in sorted(answers, key=lambda a: (a.answered_at, a.position, a.student)):
        numbers.setdefault(a.student, len(numbers) + 1)
    for a in sorted(answers, key=lambda a: (a.position, a.answered_at, a.student)):
        question = questions[a.position]
        who = a.nickname or f"student {numbers[a.student]}"
        if isinstance(question, Judging):  # a grade per document (? none); the reference's as the right answer
            writer.writerow([spreadsheet_safe(v) for v in (
                a.position + 1, question.kind, question.measure, question.prompt(), who,
                grades_shown(parse_grades(question, a.answer)), grades_shown(question.reference_grades()), "",
                a.answered_at)])
            continue
        if a.position not in judged:
            solution = q.right(question)
            wrong = [(m, s) for m, s in mistaken(question) if not q.accepts(question, s, solution.answer)]
            judged[a.position] = (solution, wrong)
        solution, wrong = judged[a.position]
        parsed = parse_answer(question, a.answer)
        writer.writerow([spreadsheet_safe(v) for v in (
            a.position + 1, question.kind, question.measure, q.prompt(question), who, a.answer,
            shown(question, solution.answer), verdict(question, solution, wrong, parsed), a.answered_at)])
    return out.getvalue().encode("utf-8")
