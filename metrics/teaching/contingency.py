"""The contingency table of set retrieval for one query: relevant or not, retrieved or not."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from metrics.checks import Integer, Number, checked, refuse
from metrics.errors import ValidationError

__all__ = ["Contingency", "contingency"]


@dataclass(frozen=True)
class Contingency:
    """Counts of one query's collection split by relevance and by retrieval.

    ============  ==========  ==============
    \\             relevant    not relevant
    ============  ==========  ==============
    retrieved     ``a``       ``b``
    not retrieved ``c``       ``d``
    ============  ==========  ==============

    Attributes
    ----------
    a, b, c, d : int
        Relevant retrieved, non-relevant retrieved, relevant not retrieved, non-relevant not retrieved.
    N : int
        Documents in the collection, ``a + b + c + d``.

    Notes
    -----
    A measure whose denominator is 0 is undefined and returned as NaN: precision with nothing retrieved,
    recall with no relevant document, fallout with no non-relevant document.
    """

    a: int
    b: int
    c: int
    d: int
    N: int

    def __post_init__(self) -> None:
        counts = (self.a, self.b, self.c, self.d, self.N)
        if any(int(x) != x or x < 0 for x in counts):
            raise refuse("contingency counts", "non-negative integers", list(counts))
        if self.a + self.b + self.c + self.d != self.N:
            raise ValidationError(f"a + b + c + d must equal N: {self.a} + {self.b} + {self.c} + {self.d} "
                                  f"!= {self.N}")

    @property
    def retrieved(self) -> int:
        """Documents retrieved, ``a + b``."""
        return self.a + self.b

    @property
    def relevant(self) -> int:
        """Relevant documents in the collection, ``a + c``."""
        return self.a + self.c

    @property
    def precision(self) -> float:
        """Fraction of the retrieved documents that are relevant, ``a / (a + b)``."""
        return _ratio(self.a, self.a + self.b)

    @property
    def recall(self) -> float:
        """Fraction of the relevant documents that are retrieved, ``a / (a + c)``."""
        return _ratio(self.a, self.a + self.c)

    @property
    def fallout(self) -> float:
        """Fraction of the non-relevant documents that are retrieved, ``b / (b + d)``."""
        return _ratio(self.b, self.b + self.d)

    @property
    def accuracy(self) -> float:
        """Fraction of all documents classified right (retrieved and relevant, or neither), ``(a + d) / N``.

        In a large collection ``d`` dwarfs everything else, so retrieving nothing scores close to 1: a
        poor measure of retrieval, shown for completeness.
        """
        return _ratio(self.a + self.d, self.N)

    @checked(beta=Number(0))
    def F(self, beta: float = 1.0) -> float:
        """Weighted harmonic mean of precision and recall, ``(1 + β²) P R / (β² P + R)``.

        ``beta > 1`` weighs recall more, ``beta < 1`` precision; ``beta = 1`` is F1. NaN when precision or
        recall is undefined, 0 when both are 0.
        """
        p, r = self.precision, self.recall
        if math.isnan(p) or math.isnan(r):
            return math.nan
        b2 = beta * beta
        return _ratio((1.0 + b2) * p * r, b2 * p + r, zero=0.0)

    @property
    def F1(self) -> float:
        """The balanced F-measure, ``2 P R / (P + R)``."""
        return self.F(1.0)


def _ratio(num: float, den: float, zero: float = math.nan) -> float:
    return float(num) / float(den) if den else zero


@checked(cutoff=Integer(1, none=True))
def contingency(rankings, query: str, N: int, cutoff: int | None = None, rel: int | None = None) -> Contingency:
    """The set-retrieval contingency table of one query of a ranked run.

    Parameters
    ----------
    rankings : Rankings
        One ranked run, e.g. an element of :func:`metrics.rank_runs`.
    query : str
        The query id.
    N : int
        Documents in the collection (the qrels do not say).
    cutoff : int, optional
        The retrieved set is the top ``cutoff`` documents; by default the whole ranking.
    rel : int, optional
        Minimum grade counted as relevant; by default the conventions' relevance level.

    Returns
    -------
    Contingency
        ``a`` relevant retrieved, ``b`` non-relevant retrieved, ``c`` relevant not retrieved, ``d``
        non-relevant not retrieved, and ``N``.

    Raises
    ------
    ValidationError
        For a query the rankings do not hold, or an ``N`` smaller than the retrieved and relevant
        documents together.

    Notes
    -----
    Relevant means judged with a grade >= the relevance level; every other document — judged
    non-relevant or never judged — counts as non-relevant, the usual assumption of pooled collections. So
    ``b`` includes retrieved documents without a judgment, and ``a + c`` is trec_eval's ``num_rel``.
    ``precision`` is then trec_eval's ``set_P`` (with a cutoff, precision of the top k documents actually
    retrieved, not P@k's division by k), ``recall`` its ``set_recall``, and ``fallout`` the ``Fallout``
    measure with the same ``N``.

    Examples
    --------
    >>> from metrics import rank_runs
    >>> qrels = "1 0 a 1\\n1 0 b 0\\n1 0 c 1\\n"
    >>> run = "1 Q0 a 1 3.0 x\\n1 Q0 b 2 2.0 x\\n1 Q0 d 3 1.0 x\\n"
    >>> table = contingency(rank_runs(qrels, run)[0], "1", N=10)
    >>> table
    Contingency(a=1, b=2, c=1, d=6, N=10)
    >>> table.precision, table.recall, round(table.fallout, 3)
    (0.3333333333333333, 0.5, 0.25)
    """
    where = np.flatnonzero(rankings.queries == query)
    if not len(where):
        raise ValidationError(f"query {query!r} is not among the evaluated queries of {rankings.system!r}")
    q = int(where[0])
    grades = rankings.rel[rankings.offsets[q]:rankings.offsets[q + 1]]
    if cutoff is not None:
        grades = grades[:cutoff]
    level = max(rankings.level(rel), 0)
    a = int((grades >= level).sum())
    b = int(len(grades)) - a
    c = int(rankings.num_rel(rel)[q]) - a
    d = int(N) - a - b - c
    if d < 0:
        raise ValidationError(f"N={N} is smaller than the {a + b + c} documents retrieved or relevant for query "
                              f"{query!r}")
    return Contingency(a=a, b=b, c=c, d=d, N=int(N))
