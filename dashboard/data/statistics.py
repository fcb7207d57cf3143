"""Decisions drawn from the measures: compact letter groups of the corrected tests of every pair, power and
topic-set size, agreement between two measures' orderings of the systems, and Breuer et al.'s measures of
a reproduction among the loaded runs.
"""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

import metrics

from dashboard.data.cache import on_collection
from dashboard.data.files import read_qrels, read_run
from dashboard.data.measures import per_query, tested_on_every_topic
from dashboard.data.significance import comparison
from dashboard.state import Loaded


# ---- decisions: letter groups, power, agreement between orderings, reproducibility -------------------------
def _labels(measures: tuple[str, ...]) -> list[str]:
    return [label for label, _ in metrics.resolve_measures(list(measures))]


@on_collection(max_entries=32, show_spinner="Grouping the systems…")
def letter_groups(loaded: Loaded, measures: tuple[str, ...], test: str, correction: str, alpha: float,
                  family: str = "per_measure") -> dict[str, pd.DataFrame]:
    """Per tested measure, the compact letter display (system, mean, group) of the corrected tests of every
    pair (:func:`comparison` without a baseline; :func:`metrics.stats.significance.grouped_leaderboard`): two
    systems share a letter when their difference is not significant."""
    from metrics.stats.significance import grouped_leaderboard

    tested = comparison(loaded, tuple(measures), test, None, correction, float(alpha), family)
    return {m: grouped_leaderboard(tested, m, higher_is_better=type(metrics.parse_measure(m)).higher_is_better)
            for m in tested.measures}


@on_collection(max_entries=32, show_spinner="Weighing the power…")
def power(loaded: Loaded, measure: str, alpha: float, power: float, effect: float | None = None):
    """Minimum detectable effects, topics needed for ``effect`` (t-test and ANOVA) and each pair's post hoc
    power, on the topics of :func:`tested_on_every_topic` (:func:`metrics.stats.power.power_analysis`)."""
    from metrics.stats.power import power_analysis

    label = _labels((measure,))[0]
    return power_analysis(per_query(tested_on_every_topic(loaded), (measure,)), label, alpha=float(alpha),
                          power=float(power), effect=None if effect is None else float(effect))


@on_collection(max_entries=32, show_spinner="Comparing the orderings…")
def agreement(loaded: Loaded, measures: tuple[str, ...], statistic: str) -> pd.DataFrame:
    """Measures × measures agreement (``statistic`` of :data:`metrics.stats.agreement.STATISTICS`) of the systems'
    orderings by mean (:func:`metrics.stats.agreement.agreement_matrix`)."""
    from metrics.stats.agreement import agreement_matrix

    return agreement_matrix(per_query(loaded, tuple(measures)), _labels(tuple(measures)), statistic=statistic)


def _ordering(a: pd.Series, b: pd.Series) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The agreement row, the swapped pairs and the means (system, x, y) of two orderings of the systems."""
    from metrics.stats.agreement import ordering_agreement, swapped_pairs

    means = pd.DataFrame({"system": a.index.astype(str), "x": a.to_numpy(), "y": b.reindex(a.index).to_numpy()})
    return ordering_agreement(a, b), swapped_pairs(a, b), means


@on_collection(max_entries=32, show_spinner="Comparing the orderings…")
def ordering(loaded: Loaded, x: str, y: str) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Two measures' orderings of the systems: the agreement row (tau, tau_AP both ways, swaps), the swapped
    pairs (:func:`metrics.stats.agreement.swapped_pairs`) and the systems' means (system, x, y)."""
    from metrics.stats.agreement import system_means

    lx, ly = _labels((x, y))
    means = system_means(per_query(loaded, (x, y)), list(dict.fromkeys([lx, ly])))
    return _ordering(means[lx], means[ly])


def convention_ordering(loaded: Loaded, measure: str, other: metrics.Conventions):
    """One measure's orderings of the systems under the collection's conventions and under ``other``: the
    agreement row, the swapped pairs and the means (system, x under the first, y under the second)."""
    from metrics.stats.agreement import system_means

    a, b = (system_means(per_query(chosen, (measure,))).iloc[:, 0]
            for chosen in (loaded, replace(loaded, conventions=other)))
    return _ordering(a, b)


@on_collection(max_entries=16, show_spinner="Comparing the reproduction with the original…")
def reproduction(loaded: Loaded, original_baseline: str, original_advanced: str, reproduced_baseline: str,
                 reproduced_advanced: str, measures: tuple[str, ...]):
    """Breuer et al.'s measures of a reproduction among the loaded runs: per-topic Kendall's tau union and
    RBO, RMSE, effect ratio, delta RI and p-values (:func:`metrics.stats.reproducibility.reproduce`)."""
    from metrics.stats.reproducibility import reproduce

    systems = (original_baseline, original_advanced, reproduced_baseline, reproduced_advanced)
    named = {name: read_run(up, name) for name, up in loaded.runs}
    return reproduce(read_qrels(loaded.qrels), *(named[s] for s in systems), list(measures),
                     conventions=loaded.conventions)
