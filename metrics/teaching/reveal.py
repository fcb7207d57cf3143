"""A class's answers read: each answer parsed, judged right or matched to a known mistake, and counted.

:func:`parse_answer` reads what a student typed or chose (numbers as decimals or fractions, ``0,25`` too;
letters; an order such as ``BAC`` or ``B > A > C``), raising a one-line
:class:`~metrics.errors.ValidationError` otherwise. :func:`reveal` judges every answer: right when
:func:`~metrics.teaching.questions.accepts` takes it; else the first mistake of
:mod:`metrics.teaching.mistakes` whose wrong answer it matches (within the same tolerance); else "other".
A mistake whose wrong answer is also right on this question cannot be told apart from knowing the measure:
it is listed in :attr:`Reveal.indistinct`, and no answer is put down to it.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from metrics.errors import ValidationError
from metrics.teaching.judging import Judging, grades_text, parse_grades
from metrics.teaching.mistakes import Mistake, applicable
from metrics.teaching.questions import (EQUAL, Question, Solution, accepts, labels, parse_measure_for_class, right,
                                        solve)

__all__ = ["MAX_ANSWER", "RIGHT", "OTHER", "Bar", "MistakeShare", "Reveal", "answer_text", "mistaken",
           "parse_answer", "reveal", "shown", "verdict"]

MAX_ANSWER = 32
"""Characters of a typed answer."""
RIGHT, OTHER = "right", "other"
_NUMBER = re.compile(r"[+-]?(\d{1,9}(\.\d{0,12})?|\.\d{1,12})\Z")
_FRACTION = re.compile(r"([+-]?\d{1,9})\s*/\s*(\d{1,9})\Z")
_LIMIT = 1000.0  # numbers beyond this are not an answer to any question here (RR taken as a rank: at most 50)


def parse_answer(question: Question, text: str):
    """What a student answered, as :func:`~metrics.teaching.questions.accepts` takes it.

    Parameters
    ----------
    question : Question
    text : str
        A number (``0.25``, ``0,25``, ``1/4``, ``-0.1``) for ``value`` and ``change`` questions; a letter
        or ``equal`` for ``compare``; the letters best first (``BAC``, ``B > A > C``) for ``order``.

        For documents to judge (:class:`~metrics.teaching.judging.Judging`), one grade or ``-`` per document
        (:func:`~metrics.teaching.judging.parse_grades`).

    Returns
    -------
    float, str or tuple of str (of grades, for documents to judge)

    Raises
    ------
    ValidationError
        One line naming what was expected and what was found.

    Examples
    --------
    >>> from metrics.teaching.questions import Question, Ranking
    >>> q = Question("value", "AP", (Ranking((1, 0, 1)),))
    >>> parse_answer(q, " 5/6 "), parse_answer(q, "0,83")
    (0.8333333333333334, 0.83)
    """
    if not isinstance(text, str) or not text.strip() or len(text) > MAX_ANSWER:
        raise ValidationError(f"an answer: expected 1 to {MAX_ANSWER} characters, found "
                              f"{len(text) if isinstance(text, str) else type(text).__name__}")
    if isinstance(question, Judging):
        return parse_grades(question, text)
    clean = text.strip()
    if question.numeric:
        if clean.count(",") == 1 and "." not in clean:
            clean = clean.replace(",", ".")
        fraction = _FRACTION.match(clean)
        if fraction and int(fraction.group(2)) != 0:
            value = int(fraction.group(1)) / int(fraction.group(2))
        elif _NUMBER.match(clean):
            value = float(clean)
        else:
            raise ValidationError(f'an answer: expected a number such as 0.25 or 1/4, found "{clean[:MAX_ANSWER]}"')
        if not math.isfinite(value) or abs(value) > _LIMIT:
            raise ValidationError(f"an answer: expected a number from -{_LIMIT:g} to {_LIMIT:g}, found {clean}")
        return value
    names = labels(question)
    if question.kind == "compare":
        chosen = clean.lower() if clean.lower() == EQUAL else clean.upper()
        if chosen not in (*names, EQUAL):
            raise ValidationError(f'an answer: expected {", ".join(names)} or "{EQUAL}", found "{clean}"')
        return chosen
    letters = tuple(re.sub(r"[\s>,]+", "", clean).upper())
    if sorted(letters) != sorted(names):
        raise ValidationError(f"an answer: expected each of {', '.join(names)} once, best first, found \"{clean}\"")
    return letters


def answer_text(question: Question, answer) -> str:
    """An answer as stored: a number to 6 significant digits, a letter, the letters of an order, or grades."""
    if isinstance(question, Judging):
        return grades_text(answer)
    if question.numeric:
        return f"{answer:.6g}"
    return "".join(answer) if question.kind == "order" else str(answer)


def shown(question: Question, answer) -> str:
    """An answer as the reveal shows it: a number to the tolerance's decimals, ``B > A > C``."""
    if question.numeric:
        digits = max(2, math.ceil(-math.log10(question.tolerance) - 1e-9))
        text = f"{answer:+.{digits}f}" if question.kind == "change" else f"{answer:.{digits}f}"
        zero = "0." + "0" * digits
        return text.replace("-" + zero, zero).replace("+" + zero, zero)
    return " > ".join(answer) if question.kind == "order" else str(answer)


def mistaken(question: Question) -> tuple[tuple[Mistake, Solution], ...]:
    """Each mistake that applies to the question's measure, with the answer it leads to."""
    measure = parse_measure_for_class(question.measure)
    out = []
    for m in applicable(measure):
        solution = solve(question, lambda r, m=m: m.wrong(r, measure, question.rel))
        if solution is not None:
            out.append((m, solution))
    return tuple(out)


def verdict(question: Question, solution: Solution, wrong: Sequence[tuple[Mistake, Solution]], answer) -> str:
    """:data:`RIGHT`, the name of the first mistake ``answer`` matches, or :data:`OTHER`."""
    if accepts(question, solution, answer):
        return RIGHT
    for m, leads_to in wrong:
        if accepts(question, leads_to, answer):
            return m.name
    return OTHER


@dataclass(frozen=True)
class Bar:
    """One answer of the distribution (as :func:`shown`), how many gave it, and its verdict."""

    label: str
    count: int
    verdict: str


@dataclass(frozen=True)
class MistakeShare:
    """A mistake, the answer it leads to on this question (as :func:`shown`), and the answers matching it."""

    name: str
    title: str
    answer: str
    count: int
    share: float


@dataclass(frozen=True)
class Reveal:
    """What the teacher's screen shows on reveal.

    Attributes
    ----------
    answers : int
    right_answer : str
        As :func:`shown`.
    right_count : int
    bars : tuple of Bar
        The distribution: numbers in increasing order, choices in the order offered.
    mistakes : tuple of MistakeShare
        Every mistake that leads to a wrong answer on this question, with its share of the answers
        (0 when none gave it).
    indistinct : tuple of str
        The titles of the mistakes that lead to the right answer here.
    """

    answers: int
    right_answer: str
    right_count: int
    bars: tuple
    mistakes: tuple
    indistinct: tuple

    @property
    def right_share(self) -> float:
        return self.right_count / self.answers if self.answers else 0.0


def reveal(question: Question, answers: Sequence) -> Reveal:
    """The class's answers (each parsed by :func:`parse_answer`) judged and counted.

    Examples
    --------
    >>> from metrics.teaching.questions import Question, Ranking
    >>> q = Question("value", "AP", (Ranking((1, 0, 1, 0, 0), missing=(1, 1)),))
    >>> r = reveal(q, [0.4167, 0.42, 0.8333, 0.5])
    >>> r.right_answer, r.right_count, [(b.label, b.count, b.verdict) for b in r.bars]
    ('0.42', 2, [('0.42', 2, 'right'), ('0.50', 1, 'other'), ('0.83', 1, 'ap_over_retrieved_relevant')])
    """
    solution = right(question)
    wrong = mistaken(question)
    distinct = [(m, s) for m, s in wrong if not accepts(question, s, solution.answer)]
    judged = [(shown(question, a), verdict(question, solution, distinct, a), a) for a in answers]
    counts = Counter((label, v) for label, v, _ in judged)
    if question.numeric:
        order = sorted(counts, key=lambda key: (float(key[0]), key[1]))
    else:
        rank = {shown(question, a): i for i, a in enumerate(_choices(question))}
        order = sorted(counts, key=lambda key: (rank.get(key[0], len(rank)), key[0], key[1]))
    n = len(judged)
    by_verdict = Counter(v for _, v, _ in judged)
    shares = tuple(MistakeShare(m.name, m.title, shown(question, s.answer), by_verdict[m.name],
                                by_verdict[m.name] / n if n else 0.0) for m, s in distinct)
    return Reveal(answers=n, right_answer=shown(question, solution.answer), right_count=by_verdict[RIGHT],
                  bars=tuple(Bar(label, counts[(label, v)], v) for label, v in order), mistakes=shares,
                  indistinct=tuple(m.title for m, s in wrong if accepts(question, s, solution.answer)))


def _choices(question: Question) -> list:
    names = labels(question)
    if question.kind == "compare":
        return [*names, EQUAL]
    from itertools import permutations

    return [tuple(p) for p in permutations(names)] if len(names) <= 4 else []
