"""The results table's markers as the overview decides them: what is tested, how, and when nothing is.

One rule serves the dashboard's overview and the notebook (:class:`rankscope.notebook.Collection`):

* :func:`measures_tested`: only means of per-topic values are tested
  (:func:`metrics.stats.significance.topics.paired_measures`, the report's rule); a list of counts and sums
  alone is refused with the sentence the overview shows;
* :func:`results_comparison`: the paired tests of those measures, each against the baseline or between every
  pair, corrected within each measure, randomised tests seeded with :data:`SEED`;
* :func:`marked_results`: the results table (:func:`metrics.review.compare.summary_table`) with the
  comparison's markers, or without markers and with the reason when there is nothing to compare.

The per-topic values handed to :func:`results_comparison` are those of every system on every topic: the
conventions of :func:`metrics.stats.significance.topics.paired_conventions`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pandas as pd

from metrics.checks import LEVEL, check
from metrics.errors import ValidationError
from metrics.evaluate import resolve_measures
from metrics.review.compare.table import SummaryTable, summary_table
from metrics.stats.significance import (CORRECTION_ALIASES, CORRECTIONS, TEST_ALIASES, TESTS, Comparison, canonical,
                                        compare_systems)
from metrics.stats.significance.topics import paired_measures

__all__ = ["FAMILY", "ONE_SYSTEM", "SEED", "marked_results", "results_comparison", "results_options",
           "measures_tested"]

SEED = 0
"""The seed of the results table's randomised tests (permutation, bootstrap)."""
FAMILY = "per_measure"
"""What the results table's correction counts together: the tests of each measure."""
ONE_SYSTEM = "one system: nothing to compare"
"""Why a table of one system carries no markers."""


def results_options(test: str = "t", correction: str = "holm", alpha: float = 0.05) -> tuple[str, str, float]:
    """A results table's test, correction and level, checked before any test runs.

    :func:`marked_results` turns a refusal of the tests into the reason a table has no markers; an option
    mistyped by a caller is refused here instead, with its choices.

    Parameters
    ----------
    test : str, default="t"
        One of :data:`metrics.stats.significance.TESTS` (any case; ``randomisation`` is ``permutation``).
    correction : str, default="holm"
        One of :data:`metrics.stats.significance.CORRECTIONS` (``fdr_bh`` is ``bh``).
    alpha : float, default=0.05
        Strictly between 0 and 1.

    Returns
    -------
    (str, str, float)
        The canonical names and the level.

    Raises
    ------
    ValidationError
        An unknown test or correction, a level outside (0, 1).

    Examples
    --------
    >>> results_options("T", "fdr_bh", 0.05)
    ('t', 'bh', 0.05)
    """
    return (canonical(test, TESTS, TEST_ALIASES, "test"),
            canonical(correction, CORRECTIONS, CORRECTION_ALIASES, "correction"), float(check("alpha", alpha, LEVEL)))


def measures_tested(measures: Sequence[str]) -> list[str]:
    """The measures of a results table that its paired tests compare, in order.

    Parameters
    ----------
    measures : sequence of str
        Measure names, as :func:`metrics.resolve_measures` reads them.

    Returns
    -------
    list of str
        The labels of the means of per-topic values (:func:`~metrics.stats.significance.topics.paired_measures`).

    Raises
    ------
    ValidationError
        No measure asked is a mean of per-topic values (the sentence names the measures).

    Examples
    --------
    >>> measures_tested(["AP", "num_rel_ret", "P@10"])
    ['AP', 'P@10']
    """
    tested = [label for label, _ in paired_measures(resolve_measures(list(measures)))]
    if not tested:
        raise ValidationError(f"{', '.join(map(str, measures))}: only means of per-topic values are tested "
                              "(counts and sums are not)")
    return tested


def results_comparison(per_query: pd.DataFrame, measures: Sequence[str], *, test: str = "t",
                       baseline: str | None = None, correction: str = "holm", alpha: float = 0.05,
                       family: str = FAMILY, seed: int = SEED) -> Comparison:
    """The paired tests behind a results table's markers.

    Parameters
    ----------
    per_query : pandas.DataFrame
        Tidy per-topic values (``system, query, measure, value``) of every system on every topic (evaluated
        under :func:`~metrics.stats.significance.topics.paired_conventions`).
    measures : sequence of str
        The table's measures; those of :func:`measures_tested` are tested.
    test : str, default="t"
        A test of :func:`metrics.stats.significance.compare_systems`.
    baseline : str, optional
        Test each system against it; None tests every pair.
    correction : str, default="holm"
        A correction of :func:`~metrics.stats.significance.compare_systems`.
    alpha : float, default=0.05
    family : {"per_measure", "all"}, default="per_measure"
        What a correction counts together.
    seed : int, default=SEED
        Of randomised tests.

    Returns
    -------
    Comparison

    Raises
    ------
    ValidationError
        Nothing to test (:func:`measures_tested`), or the tests refuse the values (one topic, say).
    """
    return compare_systems(per_query, measures=measures_tested(measures), test=test, baseline=baseline,
                           correction=correction, family=family, alpha=float(alpha), seed=seed)


def marked_results(means: pd.DataFrame, comparison: Callable[[], Comparison], *,
                   baseline: str | None = None) -> tuple[SummaryTable, str | None]:
    """The results table with its markers, or without them and the reason there are none.

    Parameters
    ----------
    means : pandas.DataFrame
        Each system's value of each measure (:func:`metrics.summarise`); its order sets the table's.
    comparison : callable
        Called with no argument when there are two systems or more: the tests
        (:func:`results_comparison`, or a caller's cached copy of it). A
        :class:`~metrics.errors.ValidationError` it raises becomes the reason.
    baseline : str, optional
        Daggers against this system (``†`` better, ``‡`` worse); None: letters for all pairs.

    Returns
    -------
    (SummaryTable, str or None)
        The table (:func:`~metrics.review.compare.summary_table`) and None, or the table without markers and
        why (:data:`ONE_SYSTEM`, or the tests' refusal).

    Examples
    --------
    >>> per_query = pd.DataFrame({"system": ["b"] * 6 + ["x"] * 6, "query": list("123456") * 2,
    ...                           "measure": "AP", "value": [0.1, 0.2, 0.3, 0.2, 0.1, 0.2,
    ...                                                      0.5, 0.6, 0.7, 0.6, 0.6, 0.5]})
    >>> from metrics import summarise
    >>> table, reason = marked_results(summarise(per_query),
    ...                                lambda: results_comparison(per_query, ["AP"], baseline="b"), baseline="b")
    >>> table.markers["AP"].to_dict(), reason
    ({'b': '', 'x': '†'}, None)
    """
    if means["system"].nunique() < 2:
        return summary_table(None, means), ONE_SYSTEM
    try:
        tested = comparison()
    except ValidationError as err:
        return summary_table(None, means), str(err)
    return summary_table(tested, means, baseline=baseline), None
