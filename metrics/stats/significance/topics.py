"""What a paired test compares: means of per-topic values, and every system's value on every topic.

:func:`paired_measures` and :func:`paired_conventions` are the one rule, read by the report, the results
table's markers (:mod:`metrics.review.compare.marked`), the dashboard's statistics pages and the comparison
of judgment sets alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from metrics.conventions import Conventions
from metrics.measures import Measure
from metrics.rankings import Rankings

__all__ = ["paired_conventions", "paired_measures"]


def paired_measures(pairs: Sequence[tuple[str, Measure]]) -> list[tuple[str, Measure]]:
    """The measures a paired test compares: means of per-topic values; counts and sums are not tested.

    Parameters
    ----------
    pairs : sequence of (str, Measure)
        Resolved measures, as :func:`metrics.resolve_measures` returns them.

    Returns
    -------
    list of (str, Measure)
        The pairs whose measure is averaged with the arithmetic mean and is not a count, in order.

    Examples
    --------
    >>> from metrics import resolve_measures
    >>> [label for label, _ in paired_measures(resolve_measures(["AP", "num_rel_ret", "P@10"]))]
    ['AP', 'P@10']
    """
    return [(label, m) for label, m in pairs if m.aggregation == "mean" and not m.integer]


def paired_conventions(conventions: Conventions, rankings: Sequence[Rankings]) -> Conventions:
    """The conventions the paired tests evaluate under: complete topics when the systems answered different ones.

    A paired test needs every system's value on every topic. When the ranked runs do not all cover the same
    topics and ``conventions.complete`` is False, the tests evaluate with ``complete=True`` (trec_eval
    ``-c``): a judged topic a run did not answer scores 0 for it.

    Parameters
    ----------
    conventions : Conventions
        The conventions the runs were ranked under.
    rankings : sequence of Rankings
        The ranked runs (:func:`metrics.rank_runs`).

    Returns
    -------
    Conventions
        ``conventions`` itself when the systems answered the same topics or topics are already complete;
        otherwise a copy with ``complete=True``.
    """
    if conventions.complete or len({frozenset(r.queries.tolist()) for r in rankings}) <= 1:
        return conventions
    return replace(conventions, complete=True)
