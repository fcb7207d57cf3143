"""The methods that choose what to judge, declared once: their names, options, help and the one interface.

A method is a class registered with :func:`method`: the registry :data:`METHODS` gives the command line its
choices, flags and help, the README its table and the tests the methods to check. Every method is a
:class:`Proposer` made from the :class:`~metrics.judgments.candidates.Candidates` and its options; it
answers :meth:`Proposer.next` (the next documents to judge, in order, with why each was chosen) and takes
one judgment at a time with :meth:`Proposer.judge`, so that a judging task can ask for the next document,
record the judgment and ask again.

Most methods order each topic's documents on their own (:class:`PerTopic`); a budget is then shared among
the topics in rounds: each topic's first document, then each topic's second, and so on, a topic whose
documents have all been proposed dropping out. A topic's round counts the judgments made on it through the
method, so judging one document at a time goes round the topics in turn.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from metrics.checks import Integer, Number, Rule, check
from metrics.errors import ValidationError
from metrics.judgments.candidates import NOT_JUDGED, Candidates

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["METHODS", "Method", "Option", "PerTopic", "Proposer", "method", "proposals", "PROPOSAL_COLUMNS"]

PROPOSAL_COLUMNS = ("topic", "docid", "weight", "why")
"""The columns of :meth:`Proposer.next`'s table."""


@dataclass(frozen=True)
class Option:
    """One option of a method: its keyword, range, default and help (the command line's ``--name``).

    Attributes
    ----------
    name : str
        The keyword of the method's constructor.
    rule : Integer, Number, Options or None
        What it accepts (:mod:`metrics.checks`); None: text, which the method checks itself.
    default : object
    help : str
    spelling : str, optional
        The command line's flag (default ``--`` and the name with ``-`` for ``_``).
    metavar : str, optional
        The value's name in the usage line.
    """

    name: str
    rule: Rule | None
    default: Any
    help: str
    spelling: str | None = None
    metavar: str | None = None

    @property
    def flag(self) -> str:
        return self.spelling or "--" + self.name.replace("_", "-")

    @property
    def type(self) -> type:
        if isinstance(self.rule, Integer):
            return int
        return float if isinstance(self.rule, Number) else str


@dataclass(frozen=True)
class Method:
    """A registered method (see :func:`method`)."""

    name: str
    title: str
    help: str
    reference: str
    weight: str
    adaptive: bool
    whole_runs: bool
    options: tuple[Option, ...]
    make: Callable[..., "Proposer"]

    def settings(self, given: dict[str, Any]) -> dict[str, Any]:
        """The method's options: the defaults, overridden by ``given`` (keys of other methods ignored), each
        checked against its rule."""
        out = {}
        for option in self.options:
            value = given.get(option.name)
            if value is None:
                out[option.name] = option.default
            else:
                out[option.name] = value if option.rule is None else check(option.flag, value, option.rule)
        return out


METHODS: dict[str, Method] = {}
"""Every method by name, in the order registered."""


def method(name: str, *, title: str, help: str, reference: str, weight: str, adaptive: bool,
           whole_runs: bool = False, options: tuple[Option, ...] = ()):
    """Register the decorated :class:`Proposer` subclass as the method ``name``.

    Parameters
    ----------
    name : str
        What the method is chosen by (``--method``).
    title, help, reference : str
        Its name in words, what it does in one sentence, and where it comes from.
    weight : str
        What the ``weight`` column of its proposals holds.
    adaptive : bool
        Whether each judgment changes what comes next.
    whole_runs : bool, default=False
        Whether a pool of it reads the runs whole and keeps ``depth`` documents per topic (trectools' RBP and
        RRF pools), rather than reading each run to ``depth``.
    options : tuple of Option
    """
    def register(cls):
        if name in METHODS:
            raise TypeError(f"method name {name!r} is already taken by {METHODS[name].make.__name__}")
        METHODS[name] = Method(name, title, help, reference, weight, adaptive, whole_runs, options, cls)
        cls.name = name
        return cls
    return register


class Proposer:
    """What every method answers: the next documents to judge, and one judgment at a time.

    Parameters
    ----------
    candidates : Candidates
        The runs' documents and the judgments already made.
    """

    name = ""

    def __init__(self, candidates: Candidates) -> None:
        self.candidates = candidates
        self.grades = candidates.grades.copy()
        self.made = np.zeros(candidates.n_topics, dtype=np.int64)
        self.judgments = 0

    def next(self, n: int | None = None) -> "pd.DataFrame":
        """The next ``n`` documents to judge (None: every one the method would propose), in order.

        Returns
        -------
        pandas.DataFrame
            Columns ``topic``, ``docid``, ``weight`` (what it is: the method's declaration) and ``why``.
        """
        return proposals(self.candidates, *self.propose(n))

    def propose(self, n: int | None = None) -> tuple[np.ndarray, list[float], list[str]]:
        """:meth:`next` as the candidates' indices (into :class:`Candidates`), weights and reasons."""
        check("n", n, Integer(1, none=True))
        return self._next(n)

    def judge(self, topic: str, docid: str, grade: int) -> None:
        """Record one judgment: ``docid`` has ``grade`` for ``topic`` (a later judgment replaces an earlier one;
        a negative grade takes a judgment back).

        Raises
        ------
        ValidationError
            A grade that is not a whole number from -1000 to 1000, or a topic no run answers.
        """
        grade = check("grade", grade, Integer(-1000, 1000))
        t = self.candidates.topic_index(topic)
        self._record(t, self.candidates.find(topic, docid), str(docid), grade)

    def judge_candidate(self, index: int, grade: int) -> None:
        """:meth:`judge` of the candidate at ``index`` (into :class:`Candidates`)."""
        c = self.candidates
        self._record(int(c.topic_of[index]), int(index), str(c.docids[index]), int(grade))

    def _record(self, topic: int, index: int, docid: str, grade: int) -> None:
        self.made[topic] += 1
        self.judgments += 1
        before = int(self.grades[index]) if index >= 0 else None
        if index >= 0:
            self.grades[index] = grade if grade >= 0 else NOT_JUDGED
        self._judged(topic, index, docid, before, grade)

    # ---- what a method implements ------------------------------------------------------------------
    def _next(self, n: int | None) -> tuple[np.ndarray, list[float], list[str]]:
        raise NotImplementedError

    def _judged(self, topic: int, index: int, docid: str, before: int | None, grade: int) -> None:
        """React to a judgment (``index`` -1: a document no run retrieves within the depth)."""


class PerTopic(Proposer):
    """A method that orders each topic's documents on its own; the topics share a budget in rounds."""

    def __init__(self, candidates: Candidates) -> None:
        super().__init__(candidates)
        self.done = np.zeros(candidates.n_topics, dtype=bool)  # topics found with nothing left to propose

    def _judged(self, topic: int, index: int, docid: str, before: int | None, grade: int) -> None:
        self.done[topic] = False  # (a judgment taken back may give a topic a document again)

    def plan(self, topic: int, n: int | None) -> tuple[list[int], list[float], list[str]]:
        """The topic's next ``n`` unjudged candidates (None: all), in order, with weights and reasons."""
        raise NotImplementedError

    def _next(self, n: int | None) -> tuple[np.ndarray, list[float], list[str]]:
        if n == 1:  # one document: only the topics whose turn it is need planning
            for t in np.lexsort((np.arange(len(self.done)), self.made)):
                if self.done[t]:
                    continue
                plan = self.plan(int(t), 1)
                if plan[0]:
                    return np.array(plan[0], dtype=np.int64), plan[1], plan[2]
                self.done[t] = True
            return np.zeros(0, dtype=np.int64), [], []
        topics = range(self.candidates.n_topics)
        need = None if n is None else max(1, math.ceil(n / max(self.candidates.n_topics, 1)))
        while True:
            plans = {t: self.plan(t, need) for t in topics}
            rounds = sorted((int(self.made[t]) + k, t, k) for t, plan in plans.items() for k in range(len(plan[0])))
            if n is None:
                break
            # a topic cut at `need` may hold a document whose round comes before the n-th of those planned
            last = rounds[n - 1][:2] if len(rounds) >= n else (math.inf, math.inf)
            if not any(len(plans[t][0]) == need and (int(self.made[t]) + need, t) < last for t in topics):
                rounds = rounds[:n]
                break
            need *= 2
        index = np.array([plans[t][0][k] for _, t, k in rounds], dtype=np.int64)
        return index, [plans[t][1][k] for _, t, k in rounds], [plans[t][2][k] for _, t, k in rounds]


def proposals(candidates: Candidates, index: np.ndarray, weight, why) -> "pd.DataFrame":
    """The table of :meth:`Proposer.next` for the candidates at ``index``."""
    import pandas as pd

    c = candidates
    return pd.DataFrame({"topic": c.topics[c.topic_of[index]] if len(index) else np.empty(0, dtype=object),
                         "docid": c.docids[index], "weight": np.asarray(weight, dtype=np.float64),
                         "why": np.asarray(why, dtype=object)}, columns=list(PROPOSAL_COLUMNS))


def runs_text(names: list[str], most: int = 3) -> str:
    """Run names for a reason: ``'bm25, tfidf and 3 more'``."""
    if len(names) <= most:
        return ", ".join(names)
    return ", ".join(names[:most]) + f" and {len(names) - most} more"


def check_pairs(pairs: Any, systems: tuple[str, ...]) -> list[tuple[int, int]] | None:
    """Pairs of systems given by name (``[("bm25", "tfidf"), ...]`` or ``"bm25:tfidf,bm25:lm"``) as index pairs;
    None for every pair.

    Raises
    ------
    ValidationError
        A pair that is not two names joined by ``:``, a name that is not a run, or a run paired with itself.
    """
    if pairs is None:
        return None
    if isinstance(pairs, str):
        pairs = [tuple(p.split(":")) for p in pairs.split(",") if p.strip()]
    out = []
    for pair in pairs:
        if len(pair) != 2:
            raise ValidationError(f"expected a pair of runs A:B, found {':'.join(map(str, pair))!r}")
        a, b = (str(x).strip() for x in pair)
        unknown = [x for x in (a, b) if x not in systems]
        if unknown:
            raise ValidationError(f"unknown run {unknown[0]!r} in the pair {a}:{b}; the runs are {', '.join(systems)}")
        if a == b:
            raise ValidationError(f"a pair needs two different runs, found {a}:{b}")
        out.append((systems.index(a), systems.index(b)))
    if not out:
        raise ValidationError("expected at least one pair of runs A:B, found none")
    return list(dict.fromkeys(out))

