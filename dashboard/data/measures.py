"""The measures of every loaded run: tidy per-query values (kept in the store for a stored collection),
their means with confidence intervals, the systems ordered by a mean, and the topics the paired tests
use (the report's rule, :func:`metrics.stats.significance.topics.paired_conventions`).
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import replace

import pandas as pd

import metrics
from metrics.evaluate import per_query_frame
from metrics.stats.significance.topics import paired_conventions

from dashboard.data.cache import on_collection
from dashboard.data.files import _ranked_run
from dashboard.data.leaderboard import in_order
from dashboard.session.state import Loaded
from dashboard.store import parsed


# ---- measures ---------------------------------------------------------------------------------------------
@on_collection(max_entries=64, show_spinner="Computing the measures…")
def per_query(loaded: Loaded, measures: tuple[str, ...]) -> pd.DataFrame:
    """Tidy per-query values (system, query, measure, value)."""
    pairs = metrics.resolve_measures(list(measures))
    return pd.concat([parsed.run_table("per_query", loaded, name, up, {"measures": list(measures)},
                                     lambda name=name, up=up: per_query_frame(_ranked_run(loaded, name, up),
                                                                              pairs))
                      for name, up in loaded.runs], ignore_index=True)  # a stored run's table: kept in the store


@on_collection(max_entries=64)
def summary(loaded: Loaded, measures: tuple[str, ...]) -> pd.DataFrame:
    """Means over queries with 95% confidence intervals (system, measure, value, ci_low, ci_high, ...)."""
    return metrics.summarise(per_query(loaded, measures))


def by_mean(loaded: Loaded, measure: str) -> tuple[str, ...]:
    """The systems, the best mean of ``measure`` first in the direction its declaration gives (the lowest first
    for MR or Fallout); equal means by name, missing values last (:func:`dashboard.data.leaderboard.in_order`,
    the leaderboard's order)."""
    means = summary(loaded, (measure,))
    return tuple(in_order(means[means["measure"] == measure].set_index("system")["value"]
                          .reindex(list(loaded.systems)), measure))


def tested_on_every_topic(loaded: Loaded) -> Loaded:
    """The collection the paired tests use: with complete topics when the systems answered different ones.

    The rule is :func:`metrics.stats.significance.topics.paired_conventions`, the report's: a paired test needs every system's
    value on every topic, so a topic a run does not answer then scores as trec_eval ``-c`` scores it.
    """
    conventions = paired_conventions(loaded.conventions, _answered(loaded))
    return loaded if conventions == loaded.conventions else replace(loaded, conventions=conventions)


_Answered = namedtuple("_Answered", "queries")  # what paired_conventions reads of each ranked run


def _answered(loaded: Loaded) -> list[_Answered]:
    """Each run's evaluated topics (for a stored collection, kept in the store: nothing ranked again)."""
    return [_Answered(parsed.run_table("queries", loaded, name, up, {}, lambda name=name, up=up: pd.DataFrame(
        {"system": name, "query": _ranked_run(loaded, name, up).queries.astype(object)}))["query"].to_numpy())
        for name, up in loaded.runs]


# ---- systems of several runs ------------------------------------------------------------------------------
SeedView = namedtuple("SeedView", "groups spread tests")


@on_collection(max_entries=16)
def seeds(loaded: Loaded, measures: tuple[str, ...]) -> SeedView | None:
    """The runs grouped by the naming rule (``name.seed1``; :data:`metrics.stats.seeds.SEED_RULE`), each
    system's mean over its runs with their spread, and the mixed-model tests between systems; None when no
    system has two runs or the names do not group cleanly."""
    from metrics.errors import ValidationError
    from metrics.stats.seeds import compare_seeded, seed_spread

    groups = _seed_groups(loaded)
    if groups is None:
        return None
    table = per_query(loaded, measures)
    try:
        tests = compare_seeded(table, groups)
    except ValidationError:
        tests = None
    return SeedView(groups, seed_spread(metrics.summarise(table), groups), tests)


@on_collection(max_entries=16)
def seed_ranges(loaded: Loaded, measure: str) -> pd.DataFrame | None:
    """Topic by topic, each system of several runs' mean, lowest and highest run on ``measure``
    (:func:`metrics.stats.seeds.seed_ranges`: ``system, query, measure, runs, value, low, high``); None
    when the runs do not form such systems (as :func:`seeds`)."""
    from metrics.stats.seeds import seed_ranges as ranges

    groups = _seed_groups(loaded)
    return None if groups is None else ranges(per_query(loaded, (measure,)), groups)


def _seed_groups(loaded: Loaded) -> dict | None:
    """The runs grouped into systems by the naming rule, or None when they do not group cleanly or no
    system has two runs."""
    from metrics.errors import ValidationError
    from metrics.stats.seeds import group_runs

    try:
        groups = group_runs(loaded.systems)
    except ValidationError:
        return None
    if len(groups) < 2 or max(len(runs) for runs in groups.values()) < 2:
        return None
    return groups


def labels(measures: tuple[str, ...]) -> list[str]:
    """The labels the tables give ``measures`` (:func:`metrics.resolve_measures`)."""
    return [label for label, _ in metrics.resolve_measures(list(measures))]
