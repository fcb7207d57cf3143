"""Decisions drawn from the measures: compact letter groups of the corrected tests of every pair, power and
topic-set size, agreement between two measures' orderings of the systems, and Breuer et al.'s measures of
a reproduction among the loaded runs.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

import metrics

from dashboard.data.files import read_qrels, read_run
from dashboard.data.measures import per_query, tested_on_every_topic
from dashboard.data.significance import comparison
from dashboard.state import Loaded


# ---- decisions: letter groups, power, agreement between orderings, reproducibility -------------------------
def _labels(measures: tuple[str, ...]) -> list[str]:
    return [label for label, _ in metrics.resolve_measures(list(measures))]


@st.cache_data(max_entries=32, show_spinner="Grouping the systems…")
def _letter_groups(key: tuple, measures: tuple[str, ...], test: str, correction: str, alpha: float, family: str,
                   _loaded: Loaded) -> dict[str, pd.DataFrame]:
    from metrics.stats.significance import grouped_leaderboard

    tested = comparison(_loaded, measures, test, None, correction, alpha, family)
    return {m: grouped_leaderboard(tested, m, higher_is_better=type(metrics.parse_measure(m)).higher_is_better)
            for m in tested.measures}


def letter_groups(loaded: Loaded, measures: tuple[str, ...], test: str, correction: str, alpha: float,
                  family: str = "per_measure") -> dict[str, pd.DataFrame]:
    """Per tested measure, the compact letter display (system, mean, group) of the corrected tests of every
    pair (:func:`comparison` without a baseline; :func:`metrics.stats.significance.grouped_leaderboard`): two
    systems share a letter when their difference is not significant."""
    return _letter_groups(loaded.key, tuple(measures), test, correction, float(alpha), family, loaded)


@st.cache_data(max_entries=32, show_spinner="Weighing the power…")
def _power(key: tuple, measure: str, alpha: float, power: float, effect: float | None, _loaded: Loaded):
    from metrics.stats.power import power_analysis

    label = _labels((measure,))[0]
    return power_analysis(per_query(tested_on_every_topic(_loaded), (measure,)), label, alpha=alpha, power=power,
                          effect=effect)


def power(loaded: Loaded, measure: str, alpha: float, power: float, effect: float | None = None):
    """Minimum detectable effects, topics needed for ``effect`` (t-test and ANOVA) and each pair's achieved
    power, on the topics of :func:`tested_on_every_topic` (:func:`metrics.stats.power.power_analysis`)."""
    return _power(loaded.key, measure, float(alpha), float(power), None if effect is None else float(effect), loaded)


@st.cache_data(max_entries=32, show_spinner="Comparing the orderings…")
def _agreement(key: tuple, measures: tuple[str, ...], statistic: str, _loaded: Loaded) -> pd.DataFrame:
    from metrics.stats.agreement import agreement_matrix

    return agreement_matrix(per_query(_loaded, measures), _labels(measures), statistic=statistic)


def agreement(loaded: Loaded, measures: tuple[str, ...], statistic: str) -> pd.DataFrame:
    """Measures × measures agreement (``statistic`` of :data:`metrics.stats.agreement.STATISTICS`) of the systems'
    orderings by mean (:func:`metrics.stats.agreement.agreement_matrix`)."""
    return _agreement(loaded.key, tuple(measures), statistic, loaded)


def ordering(loaded: Loaded, x: str, y: str) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Two measures' orderings of the systems: the agreement row (tau, tau_AP both ways, swaps), the swapped
    pairs (:func:`metrics.stats.agreement.swapped_pairs`) and the systems' means (system, x, y)."""
    from metrics.stats.agreement import ordering_agreement, swapped_pairs, system_means

    lx, ly = _labels((x, y))
    means = system_means(per_query(loaded, (x, y)), list(dict.fromkeys([lx, ly])))
    a, b = means[lx], means[ly]
    return (ordering_agreement(a, b), swapped_pairs(a, b),
            pd.DataFrame({"system": means.index.astype(str), "x": a.to_numpy(), "y": b.to_numpy()}))


@st.cache_data(max_entries=16, show_spinner="Comparing the reproduction with the original…")
def _reproduction(key: tuple, systems: tuple[str, str, str, str], measures: tuple[str, ...], _loaded: Loaded):
    from metrics.stats.reproducibility import reproduce

    named = {name: read_run(up, name) for name, up in _loaded.runs}
    return reproduce(read_qrels(_loaded.qrels), *(named[s] for s in systems), list(measures),
                     conventions=_loaded.conventions)


def reproduction(loaded: Loaded, original_baseline: str, original_advanced: str, reproduced_baseline: str,
                 reproduced_advanced: str, measures: tuple[str, ...]):
    """Breuer et al.'s measures of a reproduction among the loaded runs: per-topic Kendall's tau union and
    RBO, RMSE, effect ratio, delta RI and p-values (:func:`metrics.stats.reproducibility.reproduce`)."""
    systems = (original_baseline, original_advanced, reproduced_baseline, reproduced_advanced)
    return _reproduction(loaded.key, systems, tuple(measures), loaded)
