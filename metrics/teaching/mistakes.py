"""The usual mistakes with evaluation measures, each a function computing the wrong value it leads to.

When a class answers a question (:mod:`metrics.teaching.questions`), each mistake that applies to the
question's measure is run on the same rankings; an answer that matches the wrong answer, and not the right
one, is counted as that mistake, so that the reveal can name it ("12% divided AP by the relevant documents
retrieved only"). Each mistake is a :class:`Mistake` in :data:`MISTAKES`, registered by :func:`mistake`; its
function takes a ranking (:class:`~metrics.teaching.questions.Ranking`), the measure (a registry object)
and the relevance level, and returns the wrong value, or None where the mistake does not apply. Where it
can, it computes the wrong value with the measures' own code under another choice (a gain, a discount, an
ideal ranking, another measure), so that only the mistake differs.

Every function's docstring gives the wrong formula and a worked case.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from metrics.teaching.questions import Ranking, measure_value, table_of

__all__ = ["MISTAKES", "Mistake", "applicable", "mistake"]


@dataclass(frozen=True)
class Mistake:
    """A known mistake.

    Attributes
    ----------
    name : str
        Its identifier (the function's name).
    title : str
        What the student did, in a few words, as the reveal names it.
    families : tuple of str
        The measures (registry names) it applies to.
    formula : str
        The wrong formula, in LaTeX.
    wrong : callable
        ``wrong(ranking, measure, rel) -> float | None``.
    """

    name: str
    title: str
    families: tuple
    formula: str
    wrong: Callable


MISTAKES: dict[str, Mistake] = {}


def mistake(title: str, families: tuple, formula: str):
    """Register the decorated function as a :class:`Mistake` of the measures ``families``."""
    def register(func):
        MISTAKES[func.__name__] = Mistake(func.__name__, title, tuple(families), formula, func)
        return func
    return register


def applicable(measure) -> tuple[Mistake, ...]:
    """The mistakes that apply to a measure (a registry object)."""
    return tuple(m for m in MISTAKES.values() if type(measure).name in m.families)


def _cutoff(measure, ranking: Ranking) -> int:
    k = measure.values.get("cutoff")
    return len(ranking.grades) if k is None else int(k)


def _spec(measure, **changes) -> str:
    return str(measure(**changes))


# ---- AP --------------------------------------------------------------------------------------------------
@mistake("divided AP by the relevant documents retrieved, not by all relevant (R)", ("AP",),
         r"AP_{\text{wrong}} = \frac{1}{|\mathrm{Rel} \cap \mathrm{Ret}|}\sum_{d_i \in \mathrm{Rel}} P@i")
def ap_over_retrieved_relevant(ranking: Ranking, measure, rel: int) -> float | None:
    """AP averaged over the relevant documents the ranking retrieves only: unretrieved ones are forgotten.

    Worked case: relevant at ranks 1 and 3 of 5, two relevant documents not retrieved. Right:
    (1/1 + 2/3) / 4 = 0.4167. Wrong: (1/1 + 2/3) / 2 = 0.8333.

    >>> from metrics.measures import parse_measure
    >>> round(ap_over_retrieved_relevant(Ranking((1, 0, 1, 0, 0), (1, 1)), parse_measure("AP"), 1), 4)
    0.8333
    """
    table = table_of(ranking, rel).head(_cutoff(measure, ranking))
    return float(table["ap_found"].iloc[-1])


@mistake("averaged precision over every rank, not over the relevant documents", ("AP",),
         r"AP_{\text{wrong}} = \frac{1}{n}\sum_{i=1}^{n} P@i")
def ap_mean_precision_at_every_rank(ranking: Ranking, measure, rel: int) -> float | None:
    """The mean of P@i over every rank i, relevant or not.

    Worked case: relevant at ranks 1 and 3 of 4, nothing missed. Right: (1/1 + 2/3) / 2 = 0.8333. Wrong:
    (1 + 1/2 + 2/3 + 2/4) / 4 = 0.6667.

    >>> from metrics.measures import parse_measure
    >>> round(ap_mean_precision_at_every_rank(Ranking((1, 0, 1, 0)), parse_measure("AP"), 1), 4)
    0.6667
    """
    table = table_of(ranking, rel).head(_cutoff(measure, ranking))
    return float(table["precision"].mean())


# ---- P@k and R@k -----------------------------------------------------------------------------------------
@mistake("took P@k as recall: divided by R instead of k", ("P",),
         r"P@k_{\text{wrong}} = \frac{|\mathrm{Rel} \cap \mathrm{top}\ k|}{R}")
def precision_as_recall(ranking: Ranking, measure, rel: int) -> float | None:
    """P@k computed as recall at k: the relevant documents in the top k over R.

    Worked case: P@5 of relevant at ranks 1, 2, 4 with three more relevant not retrieved (R = 6). Right:
    3/5 = 0.6. Wrong: 3/6 = 0.5.

    >>> from metrics.measures import parse_measure
    >>> precision_as_recall(Ranking((1, 1, 0, 1, 0), (1, 1, 1)), parse_measure("P@5"), 1)
    0.5
    """
    k = measure.values.get("cutoff")
    return measure_value(ranking, "R" + (f"@{k}" if k is not None else ""), rel)


@mistake("took R@k as precision: divided by k instead of R", ("R",),
         r"R@k_{\text{wrong}} = \frac{|\mathrm{Rel} \cap \mathrm{top}\ k|}{k}")
def recall_as_precision(ranking: Ranking, measure, rel: int) -> float | None:
    """R@k computed as precision at k: the relevant documents in the top k over k.

    Worked case: R@4 of relevant at ranks 1 and 3, R = 5. Right: 2/5 = 0.4. Wrong: 2/4 = 0.5.

    >>> from metrics.measures import parse_measure
    >>> recall_as_precision(Ranking((1, 0, 1, 0), (1, 1, 1)), parse_measure("R@4"), 1)
    0.5
    """
    k = measure.values.get("cutoff")
    return measure_value(ranking, "P" + (f"@{k}" if k is not None else ""), rel)


@mistake("divided P@k by the documents retrieved when fewer than k were", ("P",),
         r"P@k_{\text{wrong}} = \frac{|\mathrm{Rel} \cap \mathrm{Ret}|}{|\mathrm{Ret}|}, \quad |\mathrm{Ret}| < k")
def precision_over_retrieved(ranking: Ranking, measure, rel: int) -> float | None:
    """P@k of a ranking shorter than k divided by its length n instead of k (trec_eval divides by k).

    Worked case: P@10 of 4 documents relevant at ranks 1 and 2. Right: 2/10 = 0.2. Wrong: 2/4 = 0.5. None
    when the ranking has k documents or more.

    >>> from metrics.measures import parse_measure
    >>> precision_over_retrieved(Ranking((1, 1, 0, 0)), parse_measure("P@10"), 1)
    0.5
    """
    n, k = len(ranking.grades), measure.values.get("cutoff")
    return None if k is None or k <= n else measure_value(ranking, f"P@{n}", rel)


# ---- nDCG ------------------------------------------------------------------------------------------------
@mistake("discounted from rank 0: log2(i) instead of log2(i + 1), the top undiscounted", ("nDCG",),
         r"DCG@k_{\text{wrong}} = g(d_1) + \sum_{i=2}^{k} \frac{g(d_i)}{\log_2 i}")
def discount_from_rank_0(ranking: Ranking, measure, rel: int) -> float | None:
    """nDCG with ranks counted from 0 in log2(i + 1): the divisor at rank i is log2(i), which is 0 at the
    top, so the top document is taken undiscounted. That is Järvelin and Kekäläinen's discount with base 2
    (``discount="jk"``), applied to DCG and IDCG alike: a mistake under trec_eval's log2(i + 1).

    Worked case: grades (0, 1, 1), nDCG@3. Right: (1/log2 3 + 1/log2 4) / (1 + 1/log2 3) = 0.6934. Wrong:
    (1/log2 2 + 1/log2 3) / (1 + 1/log2 2) = 0.8155.

    >>> from metrics.measures import parse_measure
    >>> round(discount_from_rank_0(Ranking((0, 1, 1)), parse_measure("nDCG@3"), 1), 4)
    0.8155
    """
    return measure_value(ranking, _spec(measure, discount="jk"), rel)


@mistake("made the ideal ranking from the retrieved documents only", ("nDCG",),
         r"nDCG@k_{\text{wrong}} = \frac{DCG@k}{DCG@k \text{ of the retrieved documents sorted by grade}}")
def ideal_from_retrieved(ranking: Ranking, measure, rel: int) -> float | None:
    """nDCG whose ideal ranking sorts the retrieved documents only, forgetting the relevant ones missed.

    Worked case: grades (1, 0) with one more document of grade 2 not retrieved, nDCG@2. Right:
    1 / (2 + 1/log2 3) = 0.3801. Wrong: 1 / 1 = 1.

    >>> from metrics.measures import parse_measure
    >>> ideal_from_retrieved(Ranking((1, 0), (2,)), parse_measure("nDCG@2"), 1)
    1.0
    """
    return measure_value(ranking, _spec(measure, ideal="retrieved"), rel)


@mistake("counted every relevant document as gain 1, ignoring the grades", ("nDCG",),
         r"g_{\text{wrong}}(d) = [\mathrm{grade}(d) \ge \mathrm{rel}]")
def grades_as_binary(ranking: Ranking, measure, rel: int) -> float | None:
    """nDCG with binary gains: each relevant document (grade >= the relevance level) gains 1, others 0.

    Worked case: grades (1, 2), nDCG@2. Right: (1 + 2/log2 3) / (2 + 1/log2 3) = 0.8597. Wrong: both gain
    1, so the ranking is ideal: 1.

    >>> from metrics.measures import parse_measure
    >>> grades_as_binary(Ranking((1, 2)), parse_measure("nDCG@2"), 1)
    1.0
    """
    binary = Ranking(tuple(None if g is None else int(g >= rel) for g in ranking.grades),
                     tuple(1 for g in ranking.missing if g >= rel))
    if all(g is None for g in binary.grades) and not binary.missing:
        return 0.0
    return measure_value(binary, str(measure), 1)


@mistake("used the gain 2^g - 1 where the gain is the grade", ("nDCG",),
         r"g_{\text{wrong}}(d) = 2^{\mathrm{grade}(d)} - 1")
def exponential_gain(ranking: Ranking, measure, rel: int) -> float | None:
    """nDCG with exponential gains 2^g - 1 instead of trec_eval's gain g (the same for grades 0 and 1).

    Worked case: grades (1, 2), nDCG@2. Right: (1 + 2/log2 3) / (2 + 1/log2 3) = 0.8597. Wrong:
    (1 + 3/log2 3) / (3 + 1/log2 3) = 0.7967.

    >>> from metrics.measures import parse_measure
    >>> round(exponential_gain(Ranking((1, 2)), parse_measure("nDCG@2"), 1), 4)
    0.7967
    """
    return measure_value(ranking, _spec(measure, gain="exp"), rel)


# ---- RR, R-precision, 11-point average ------------------------------------------------------------------
@mistake("gave the rank of the first relevant document, not its reciprocal", ("RR",),
         r"RR_{\text{wrong}} = \mathrm{rank}_{\text{first relevant}}")
def rank_instead_of_reciprocal(ranking: Ranking, measure, rel: int) -> float | None:
    """The rank of the first relevant document itself; None when none is retrieved (within the cutoff).

    Worked case: first relevant at rank 3. Right: 1/3 = 0.3333. Wrong: 3.

    >>> from metrics.measures import parse_measure
    >>> rank_instead_of_reciprocal(Ranking((0, 0, 1)), parse_measure("RR"), 1)
    3.0
    """
    value = measure_value(ranking, str(measure), rel)
    return 1.0 / value if value > 0 else None


@mistake("took R as the relevant documents retrieved, not all relevant", ("Rprec",),
         r"R\text{-}Prec_{\text{wrong}} = P@|\mathrm{Rel} \cap \mathrm{Ret}|")
def rprec_with_retrieved_relevant(ranking: Ranking, measure, rel: int) -> float | None:
    """R-precision cut at the number of relevant documents retrieved instead of R.

    Worked case: grades (1, 1, 0, 0) with two relevant documents not retrieved (R = 4). Right: P@4 = 2/4
    = 0.5. Wrong: two relevant retrieved, so P@2 = 2/2 = 1.

    >>> from metrics.measures import parse_measure
    >>> rprec_with_retrieved_relevant(Ranking((1, 1, 0, 0), (1, 1)), parse_measure("Rprec"), 1)
    1.0
    """
    found = sum(g is not None and g >= rel for g in ranking.grades)
    return measure_value(ranking, f"P@{found}", rel) if found else 0.0


@mistake("left out the point at recall 0: averaged 10 points, not 11", ("IPrecAvg",),
         r"11pt_{\text{wrong}} = \frac{1}{10}\sum_{x \in \{0.1, \dots, 1\}} IPrec@x")
def ten_points_not_eleven(ranking: Ranking, measure, rel: int) -> float | None:
    """The average of the interpolated precision at recall 0.1, ..., 1.0, without the point at 0.

    Worked case: relevant at ranks 1 and 4 (R = 2): the interpolated precision is 1 at recall 0 to 0.5
    (6 points), then 2/4 (5 points). Right: (6 + 5 * 0.5) / 11 = 0.7727. Wrong: (5 + 5 * 0.5) / 10 = 0.75.

    >>> from metrics.measures import parse_measure
    >>> round(ten_points_not_eleven(Ranking((1, 0, 0, 1)), parse_measure("IPrecAvg"), 1), 4)
    0.75
    """
    eleven = measure_value(ranking, "IPrecAvg", rel)
    first = measure_value(ranking, "IPrec(recall=0.0)", rel)
    return (11 * eleven - first) / 10
