"""The topics a paired test compares: every system's value on every topic.

:func:`paired_conventions` is the one rule, read by the report, the dashboard's statistics pages and the
comparison of judgment sets alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from metrics.conventions import Conventions
from metrics.rankings import Rankings

__all__ = ["paired_conventions"]


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
