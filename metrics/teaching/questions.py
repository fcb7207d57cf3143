"""The questions of a live class, each answered by the measures themselves.

A question is about one or more rankings, each given as the grades of its documents, top first, with the
grades of the judged documents it does not retrieve (:class:`Ranking`). Four kinds (:data:`KINDS`):

``value``
    The value of a measure on one ranking (P@5, AP, RR, nDCG@k, R-precision, the 11-point average, ...).
``compare``
    Which of two rankings, A or B, scores higher under a measure (or whether they are equal).
``change``
    How a measure changes when a document moves to another rank or is given another grade: the value
    after the change minus the value before (its sign is the direction, its size the amount).
``order``
    The order of two to six rankings by a measure, best first (tied rankings in either order).

:func:`right` answers a question with :func:`measure_value`, which evaluates the ranking with
:func:`metrics.evaluate` under trec_eval's conventions (the ranking written as a qrels and a run by
:func:`metrics.teaching.worked.ranking_files`): the same code that evaluates full runs. :func:`accepts` is the
tolerance rule: a number is right when it is within :attr:`Question.tolerance` of the right one
(default :data:`TOLERANCE` = 0.01, "to two decimals"). :func:`worked_formulas` writes the measure's formula
with the ranking's numbers (:func:`metrics.teaching.worked.worked`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace

from metrics.checks import Integer, Number, Options, Text, check, refuse
from metrics.errors import RankscopeError, ValidationError

__all__ = ["EQUAL", "FAMILIES", "KINDS", "LABELS", "MAX_GRADE", "MAX_MISSING", "MAX_RANKS", "SUGGESTED",
           "TOLERANCE", "TOLERANCES", "Change", "Question", "Ranking", "Solution", "accepts", "labels",
           "measure_value", "options", "parse_measure_for_class", "prompt", "ranking_of_topic", "right", "solve",
           "table_of", "worked_formulas"]

KINDS = {"value": "compute a value", "compare": "which ranking scores higher", "change": "predict a change",
         "order": "order the rankings"}
"""The kinds of question, with what each asks."""
FAMILIES = ("P", "R", "AP", "RR", "nDCG", "Rprec", "IPrecAvg")
"""The measures (registry names) a question may ask about, with any cutoff."""
SUGGESTED = ("P@5", "P@10", "R@10", "AP", "RR", "nDCG@5", "nDCG@10", "Rprec", "IPrecAvg")
LABELS = "ABCDEF"
"""Students see the rankings of a question as A, B, C...: never a system's name."""
EQUAL = "equal"
MAX_RANKS = 50
"""Documents shown per ranking: a class reads them on a phone."""
MAX_MISSING = 1000
MAX_GRADE = 100
TOLERANCE = 0.01
TOLERANCES = (0.001, 0.1)
"""The tolerances a teacher may choose, from and to."""
_TIE = 1e-12  # two values closer than this are equal (they differ by rounding only)

GRADE = Integer(0, MAX_GRADE)
"""A document's grade in a ranking of a question."""
MISSING_GRADE = Integer(1, MAX_GRADE)
"""The grade of a judged document the ranking does not retrieve."""
RANK = Integer(1, MAX_RANKS)
"""A rank in a ranking of a question (the rank a change moves a document from, or to)."""
LEVEL = Integer(1, MAX_GRADE)
"""A question's relevance level."""
TOLERANCE_RULE = Number(*TOLERANCES)
"""A question's tolerance."""
NAME = Text(256, line=True)
"""A ranking's name (where it came from)."""
SOURCE = Text(300, line=True)
"""A question's source."""
WHAT = Options("move", "grade")
"""What a change does."""


@dataclass(frozen=True)
class Ranking:
    """One ranking of a question.

    Attributes
    ----------
    grades : tuple of int or None
        The grade of the document at each rank, top first (1 to :data:`MAX_RANKS` documents); None for a
        document without a judgment.
    missing : tuple of int
        The grades (>= 1) of the judged documents the ranking does not retrieve: they count in R (when at
        least the relevance level) and in the ideal ranking of nDCG.
    name : str
        Where the ranking came from (a system's name), shown to the teacher only.
    """

    grades: tuple
    missing: tuple = ()
    name: str = ""

    def __post_init__(self) -> None:
        if isinstance(self.grades, (str, bytes)) or not 1 <= len(self.grades) <= MAX_RANKS:
            raise ValidationError(f"a ranking: expected 1 to {MAX_RANKS} grades, found "
                                  f"{len(self.grades) if not isinstance(self.grades, (str, bytes)) else 'text'}")
        grades = tuple(None if g is None else check("a grade", g, GRADE) for g in self.grades)
        if isinstance(self.missing, (str, bytes)) or len(self.missing) > MAX_MISSING:
            raise ValidationError(f"relevant documents not retrieved: expected at most {MAX_MISSING} grades")
        missing = tuple(sorted((check("a missing document's grade", g, MISSING_GRADE) for g in self.missing),
                               reverse=True))
        if all(g is None for g in grades) and not missing:
            raise ValidationError("a ranking: expected at least one judged document, found none")
        check("a ranking's name", self.name, NAME)
        object.__setattr__(self, "grades", grades)
        object.__setattr__(self, "missing", missing)

    def num_rel(self, rel: int = 1) -> int:
        """R: the judged documents with a grade of at least ``rel``, retrieved or not."""
        return sum(g is not None and g >= rel for g in self.grades) + sum(g >= rel for g in self.missing)

    def text(self) -> str:
        """The ranking as students read it: ``1 0 ? 2`` (``?``: not judged)."""
        return " ".join("?" if g is None else str(g) for g in self.grades)


def ranking_of_topic(rankings, query: str, depth: int = 10, name: str = "") -> Ranking:
    """One topic of a ranked run as a question's :class:`Ranking`: the grades of its first ``depth``
    documents, and as missing every judged document with a positive grade ranked below them or not at all.

    Examples
    --------
    >>> from metrics import rank_runs
    >>> qrels = "1 0 a 1\\n1 0 b 0\\n1 0 c 2\\n1 0 d 1\\n"
    >>> r = rank_runs(qrels, {"x": "1 Q0 b 1 3 x\\n1 Q0 z 2 2 x\\n1 Q0 a 3 1 x\\n"})
    >>> ranking_of_topic(r[0], "1", depth=2)
    Ranking(grades=(0, None), missing=(2, 1, 1), name='')
    """
    from collections import Counter

    from metrics.rankings import Rankings

    if not isinstance(rankings, Rankings):
        raise refuse("rankings", "Rankings (from metrics.rank_runs)", rankings)
    check("ranks asked about", depth, RANK)
    one = rankings.select_queries([query])
    if not one.n_queries:
        raise ValidationError(f"query {query!r} was not evaluated for {rankings.system!r}")
    start, stop = int(one.offsets[0]), int(one.offsets[1])
    shown = [int(c) if c >= 0 else None for c in one.rel[start:min(stop, start + depth)]]
    if not shown:
        raise ValidationError(f"{rankings.system!r} retrieves nothing for topic {query!r}")
    ideal, offsets = one.ideal_grades()
    if offsets[1] - offsets[0] > MAX_MISSING + len(shown):
        raise ValidationError(f"topic {query!r} has {int(offsets[1] - offsets[0])} documents with a positive grade: "
                              f"a question takes at most {MAX_MISSING} beyond its ranking")
    pool = Counter(int(g) for g in ideal[offsets[0]:offsets[1]])
    pool.subtract(g for g in shown if g is not None and g > 0)
    return Ranking(tuple(shown), tuple(pool.elements()), name)


@dataclass(frozen=True)
class Change:
    """A change to a ranking: the document at ``rank`` moves to rank ``to`` (``what="move"``), or is given
    the grade ``to`` (``what="grade"``). Ranks count from 1."""

    what: str
    rank: int
    to: int

    def __post_init__(self) -> None:
        check("a change", self.what, WHAT)
        check("the changed rank", self.rank, RANK)
        check("the new rank" if self.what == "move" else "the new grade", self.to, RANK if self.what == "move" else GRADE)

    def check(self, ranking: Ranking) -> None:
        n = len(ranking.grades)
        if self.rank > n or (self.what == "move" and (self.to > n or self.to == self.rank)):
            raise ValidationError(f"a change of a ranking of {n} documents: expected ranks from 1 to {n}"
                                  + (" and a new rank other than the old" if self.what == "move" else "")
                                  + f", found {self.rank} -> {self.to}")
        if self.what == "grade" and ranking.grades[self.rank - 1] == self.to:
            raise ValidationError(f"a change of grade at rank {self.rank}: the document has grade {self.to} already")

    def apply(self, ranking: Ranking) -> Ranking:
        """The ranking after the change."""
        self.check(ranking)
        grades = list(ranking.grades)
        if self.what == "move":
            grades.insert(self.to - 1, grades.pop(self.rank - 1))
        else:
            grades[self.rank - 1] = self.to
        return replace(ranking, grades=tuple(grades))

    def describe(self, ranking: Ranking) -> str:
        grade = ranking.grades[self.rank - 1]
        shown = "not judged" if grade is None else f"grade {grade}"
        if self.what == "move":
            return (f"The document at rank {self.rank} ({shown}) moves to rank {self.to}; "
                    "the others keep their order.")
        return f"The document at rank {self.rank} ({shown}) is judged grade {self.to} instead."


def parse_measure_for_class(spec: str):
    """The registry's measure named ``spec``, checked to be one a question may ask about."""
    from metrics.measures import parse_measure

    if not isinstance(spec, str) or not spec.strip() or len(spec) > 64:
        raise ValidationError("a question's measure: expected a measure's name of at most 64 characters")
    measure = parse_measure(spec.strip())
    if type(measure).name not in FAMILIES:
        raise ValidationError(f"a question's measure: expected one of {', '.join(SUGGESTED)} (any cutoff), "
                              f"found {spec!r}")
    extra = {k for k, v in measure.values.items() if k != "cutoff" and v is not None
             and v != {p.name: p.default for p in type(measure).params}[k]}
    if extra:
        raise ValidationError(f"a question's measure: expected no options other than the cutoff, found "
                              f"{', '.join(sorted(extra))} in {spec!r}")
    return measure


@dataclass(frozen=True)
class Question:
    """One question of a lesson.

    Attributes
    ----------
    kind : str
        One of :data:`KINDS`.
    measure : str
        The measure, as the registry spells it (``P@5``, ``AP``, ``nDCG@10``...; :data:`FAMILIES`).
    rankings : tuple of Ranking
        One for ``value`` and ``change``, two for ``compare``, two to six for ``order``.
    change : Change or None
        For ``change`` questions only.
    rel : int, default=1
        The relevance level: grades from it on are relevant (nDCG uses the grades as gains).
    tolerance : float, default=0.01
        Numbers within this of the right one are right (from 0.001 to 0.1).
    source : str
        Where the rankings came from, for the teacher ("worked example ...", "topic 401").
    """

    kind: str
    measure: str
    rankings: tuple
    change: Change | None = None
    rel: int = 1
    tolerance: float = TOLERANCE
    source: str = ""

    def __post_init__(self) -> None:
        check("a question's kind", self.kind, Options(*KINDS))
        object.__setattr__(self, "measure", str(parse_measure_for_class(self.measure)))
        rankings = tuple(self.rankings)
        low, high = {"value": (1, 1), "change": (1, 1), "compare": (2, 2), "order": (2, len(LABELS))}[self.kind]
        if not low <= len(rankings) <= high or not all(isinstance(r, Ranking) for r in rankings):
            raise ValidationError(f"a {self.kind} question: expected {low}" + (f" to {high}" if high > low else "")
                                  + f" rankings, found {len(rankings)}")
        object.__setattr__(self, "rankings", rankings)
        if (self.kind == "change") != isinstance(self.change, Change):
            raise ValidationError("a change question needs a change, and only a change question has one")
        if self.change is not None:
            self.change.check(rankings[0])
        check("the relevance level", self.rel, LEVEL)
        object.__setattr__(self, "tolerance", check("a question's tolerance", self.tolerance, TOLERANCE_RULE))
        check("a question's source", self.source, SOURCE)

    @property
    def numeric(self) -> bool:
        """Whether the answer is a number (``value`` and ``change``)."""
        return self.kind in ("value", "change")


def labels(question: Question) -> tuple[str, ...]:
    """The rankings' letters, A first."""
    return tuple(LABELS[: len(question.rankings)])


def options(question: Question) -> tuple[str, ...]:
    """The answers to choose from: A, B or equal (``compare``), the letters (``order``); empty for numbers."""
    if question.kind == "compare":
        return (*labels(question), EQUAL)
    return labels(question) if question.kind == "order" else ()


def prompt(question: Question) -> str:
    """The question as students read it (plain text)."""
    m = question.measure
    if question.kind == "value":
        return f"What is {m} of this ranking?"
    if question.kind == "compare":
        return f"Which ranking has the higher {m}: A or B (or are they equal)?"
    if question.kind == "change":
        return (f"{question.change.describe(question.rankings[0])} How much does {m} change "
                "(new value minus old: negative when it drops)?")
    return f"Order the rankings by {m}, best first (tied rankings in either order)."


@dataclass(frozen=True)
class Solution:
    """A question answered by some way of computing a measure.

    Attributes
    ----------
    values : tuple of float
        The measure of each ranking (for ``change``: before, after).
    answer : float, str or tuple of str
        The value (``value``), the difference after minus before (``change``), the letter of the higher
        ranking or :data:`EQUAL` (``compare``), the letters best first (``order``).
    """

    values: tuple
    answer: object


def solve(question: Question, value: Callable[[Ranking], float | None]) -> Solution | None:
    """The answer a way of computing the measure (``value`` of a ranking) leads to; None where it gives none."""
    if question.kind == "change":
        rankings = (question.rankings[0], question.change.apply(question.rankings[0]))
    else:
        rankings = question.rankings
    values = tuple(value(r) for r in rankings)
    if any(v is None or not math.isfinite(v) for v in values):
        return None
    values = tuple(float(v) for v in values)
    if question.kind == "value":
        return Solution(values, values[0])
    if question.kind == "change":
        return Solution(values, values[1] - values[0])
    names = labels(question)
    if question.kind == "compare":
        a, b = values
        return Solution(values, EQUAL if abs(a - b) <= _TIE else names[0] if a > b else names[1])
    order = sorted(range(len(values)), key=lambda i: (-values[i], i))
    return Solution(values, tuple(names[i] for i in order))


def measure_value(ranking: Ranking, measure: str, rel: int = 1) -> float:
    """The measure of one ranking, by :func:`metrics.evaluate` under trec_eval's conventions.

    Examples
    --------
    Relevant at ranks 1 and 3, two relevant documents not retrieved: AP = (1/1 + 2/3) / 4.

    >>> round(measure_value(Ranking((1, 0, 1, 0, 0), missing=(1, 1)), "AP"), 4)
    0.4167
    """
    from metrics.evaluate import evaluate
    from metrics.teaching.worked import ranking_files

    qrels, run = ranking_files(list(ranking.grades), list(ranking.missing))
    frame = evaluate(qrels, {"x": run}, [measure], relevance_level=rel)
    return float(frame["value"].iloc[0])


def right(question: Question) -> Solution:
    """The right answer, computed by the measure itself (:func:`measure_value`)."""
    return solve(question, lambda r: measure_value(r, question.measure, question.rel))


def accepts(question: Question, solution: Solution, answer) -> bool:
    """Whether ``answer`` (a number, a letter or :data:`EQUAL`, or a tuple of letters) is the answer of
    ``solution``: a number within the question's tolerance; an order in which no ranking stands before a
    better one."""
    if question.numeric:
        return isinstance(answer, float) and abs(answer - solution.answer) <= question.tolerance + 1e-9
    if question.kind == "compare":
        return answer == solution.answer
    names = labels(question)
    if not isinstance(answer, tuple) or sorted(answer) != sorted(names):
        return False
    values = [solution.values[names.index(a)] for a in answer]
    return all(values[i] >= values[i + 1] - _TIE for i in range(len(values) - 1))


def table_of(ranking: Ranking, rel: int = 1, pad_to: int = 0, **options):
    """The anatomy table of a ranking (:func:`metrics.teaching.anatomy.anatomy_of_ranking`), with R and the ideal
    ranking taken from its judged documents, retrieved or not; padded with unjudged documents up to
    ``pad_to`` ranks (so that its row k holds the measures at a cutoff past its end)."""
    from metrics.teaching.anatomy import anatomy_of_ranking

    grades = list(ranking.grades) + [None] * max(0, pad_to - len(ranking.grades))
    ideal = [g for g in ranking.grades if g is not None] + list(ranking.missing)
    return anatomy_of_ranking(grades, ranking.num_rel(rel), ideal=ideal, rel=rel, **options)


_WORKED = {"P": 0, "R": 1, "AP": 3, "RR": 4, "nDCG": 6}  # the place of each in metrics.teaching.worked.worked's tuple


def worked_formulas(question: Question) -> tuple[tuple[str, str], ...]:
    """The measure's formula with each ranking's numbers: ``(title, LaTeX)`` per ranking (``change``: the
    ranking before and after), each ending ``= value``, the value :func:`measure_value` gives."""
    from metrics.teaching.worked import worked

    measure = parse_measure_for_class(question.measure)
    family, k = type(measure).name, measure.values.get("cutoff")
    if question.kind == "change":
        shown = (("before", question.rankings[0]), ("after", question.change.apply(question.rankings[0])))
    else:
        shown = tuple((f"ranking {name}", r) for name, r in zip(labels(question), question.rankings))
    out = []
    for title, ranking in shown:
        num_rel, n = ranking.num_rel(question.rel), len(ranking.grades)
        if family == "IPrecAvg":
            out.append((title, _eleven_point_formula(ranking, question.rel)))
            continue
        cut = num_rel if family == "Rprec" else k
        if family == "nDCG" and k is None:  # nDCG without a cutoff: the whole ideal ranking counts
            cut = max(n, sum(g is not None and g > 0 for g in ranking.grades) + len(ranking.missing))
        table = table_of(ranking, question.rel, pad_to=cut or 0)
        if cut is not None:
            table = table.head(max(cut, 1))
        items = worked(table, num_rel, complete=cut is None or cut >= n)
        if family == "Rprec":
            text = items[0].substituted.replace(f"P@{max(cut, 1)} =", "R\\text{-}Prec = P@R =", 1) if num_rel \
                else r"R\text{-}Prec = 0 \quad (\text{no relevant documents})"
        else:
            text = items[_WORKED[family]].substituted
        out.append((title, text))
    return tuple(out)


def _eleven_point_formula(ranking: Ranking, rel: int) -> str:
    from metrics.curves import eleven_point
    from metrics.evaluate import rank_runs
    from metrics.teaching.worked import ranking_files

    qrels, run = ranking_files(list(ranking.grades), list(ranking.missing))
    points = eleven_point(rank_runs(qrels, {"x": run}, relevance_level=rel), average=False)["iprec"].tolist()
    shown = " + ".join(f"{p:.4g}" for p in points)
    try:
        total = measure_value(ranking, "IPrecAvg", rel)
    except RankscopeError:  # pragma: no cover - the same ranking was evaluated above
        total = sum(points) / 11
    return rf"11pt = \frac{{1}}{{11}}\left({shown}\right) = {total:.4g}"
