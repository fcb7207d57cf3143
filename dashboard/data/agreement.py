"""The agreement page's computations: agreement between measures' orderings of the systems, and one measure's
ordering under two sets of conventions.
"""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

import metrics

from dashboard.data.cache import on_collection
from dashboard.data.measures import labels, per_query
from dashboard.session.state import Loaded


@on_collection(max_entries=32, show_spinner="Comparing the orderings…")
def agreement(loaded: Loaded, measures: tuple[str, ...], statistic: str) -> pd.DataFrame:
    """Measures × measures agreement (``statistic`` of :data:`metrics.stats.agreement.STATISTICS`) of the systems'
    orderings by mean (:func:`metrics.stats.agreement.agreement_matrix`)."""
    from metrics.stats.agreement import agreement_matrix

    return agreement_matrix(per_query(loaded, tuple(measures)), labels(tuple(measures)), statistic=statistic)


def _ordering(a: pd.Series, b: pd.Series, measures: tuple[str, str]) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The agreement row, the swapped pairs and the means (system, x, y) of two orderings of the systems, by the
    measures ``a`` and ``b`` are values of (their declarations say which way each is better)."""
    from metrics.stats.agreement import ordering_agreement, swapped_pairs

    means = pd.DataFrame({"system": a.index.astype(str), "x": a.to_numpy(), "y": b.reindex(a.index).to_numpy()})
    return ordering_agreement(a, b, measures=measures), swapped_pairs(a, b, measures=measures), means


@on_collection(max_entries=32, show_spinner="Comparing the orderings…")
def ordering(loaded: Loaded, x: str, y: str) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Two measures' orderings of the systems: the agreement row (tau, tau_AP both ways, swaps), the swapped
    pairs (:func:`metrics.stats.agreement.swapped_pairs`) and the systems' means (system, x, y)."""
    from metrics.stats.agreement import system_means

    lx, ly = labels((x, y))
    means = system_means(per_query(loaded, (x, y)), list(dict.fromkeys([lx, ly])))
    return _ordering(means[lx], means[ly], (lx, ly))


def convention_ordering(loaded: Loaded, measure: str, other: metrics.Conventions):
    """One measure's orderings of the systems under the collection's conventions and under ``other``: the
    agreement row, the swapped pairs and the means (system, x under the first, y under the second)."""
    from metrics.stats.agreement import system_means

    a, b = (system_means(per_query(chosen, (measure,))).iloc[:, 0]
            for chosen in (loaded, replace(loaded, conventions=other)))
    return _ordering(a, b, (measure, measure))
