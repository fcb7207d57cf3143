"""Systems made of several runs (random seeds, folds, repeated training): grouping, spread, and tests.

* :func:`group_runs` names the runs of each system: by a naming rule (``bm25.seed1``, ``bm25.seed2`` ->
  ``bm25``; :data:`SEED_RULE`), by an explicit mapping, or both; a run no rule groups is a system of one run.
* :func:`seed_spread` gives each system's mean over its runs of the runs' means, with the between-run
  standard deviation, lowest and highest run mean.
* :func:`seed_ranges` gives, topic by topic, the mean over a system's runs and the lowest and highest run.
* :func:`compare_seeded` compares systems pair by pair on each measure with the mixed model of
  :mod:`metrics.stats.mixed` (topics and seeds random), on the topics every run of the pair answers.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from metrics.checks import Number, checked
from metrics.errors import ValidationError
from metrics.stats.mixed import mixed_model_test
from metrics.stats.significance import adjust_pvalues

__all__ = ["SEED_COLUMNS", "SEED_RULE", "compare_seeded", "group_runs", "seed_ranges", "seed_spread"]

SEED_RULE = r"(?P<system>.+?)[._-](?P<member>(?:seed|fold|rep)[_-]?\d+)"
"""The naming rule: a run named ``<system>.seed<N>`` (``.``, ``_`` or ``-`` before; ``seed``, ``fold`` or
``rep``, any case, then the number, with an optional ``_`` or ``-``) is run ``seed<N>`` of ``<system>``.
``run<N>`` is left out on purpose: TREC submissions ``team-run1``, ``team-run2`` are different systems."""

SEED_COLUMNS = ("measure", "system_a", "system_b", "runs_a", "runs_b", "topics", "mean_a", "mean_b", "difference",
                "se", "statistic", "p_value", "p_adjusted", "significant", "var_topic", "var_topic_system",
                "var_seed", "var_residual")
"""The columns of :func:`compare_seeded`, in order."""


def group_runs(runs: Iterable[str], *, rule: str | None = SEED_RULE,
               groups: Mapping[str, Sequence[str]] | None = None) -> dict[str, tuple[str, ...]]:
    """The systems of a set of runs: ``{system: (run, ...)}``.

    Parameters
    ----------
    runs : iterable of str
        The run (system) names, in order.
    rule : str or None, default=SEED_RULE
        A regular expression with a named group ``system``, matched against each whole name (any case); a
        run it matches belongs to that system. None: no rule.
    groups : mapping of str to sequence of str, optional
        Explicit systems: ``{system: [run, ...]}``; they take precedence over the rule.

    Returns
    -------
    dict
        In the order of each system's first run; a run that no rule or mapping groups is a system of its own.

    Raises
    ------
    ValidationError
        Run names that repeat, a run named twice in ``groups`` or not among the runs, a system of no runs, a
        system name that is also the name of a run of another system, or a rule that is not a regular
        expression with a ``system`` group.

    Examples
    --------
    >>> group_runs(["bm25", "dense.seed1", "dense.seed2", "dense.seed3"])
    {'bm25': ('bm25',), 'dense': ('dense.seed1', 'dense.seed2', 'dense.seed3')}
    >>> group_runs(["a1", "a2", "b"], rule=None, groups={"a": ["a1", "a2"]})
    {'a': ('a1', 'a2'), 'b': ('b',)}
    """
    names = [str(r) for r in runs]
    if len(set(names)) != len(names):
        raise ValidationError("group_runs: expected each run name once, found one twice")
    explicit: dict[str, str] = {}
    for system, members in (groups or {}).items():
        if isinstance(members, str):
            raise ValidationError(f"group_runs: the runs of {system!r}: expected a list of names, found a string")
        if not members:
            raise ValidationError(f"group_runs: {system!r} names no runs")
        for run in members:
            if run not in names:
                raise ValidationError(f"group_runs: {system!r} names run {run!r}, which is not among the runs")
            if run in explicit:
                raise ValidationError(f"group_runs: run {run!r} is in both {explicit[run]!r} and {system!r}")
            explicit[run] = str(system)
    pattern = None
    if rule is not None:
        try:
            pattern = re.compile(rule, re.IGNORECASE)
        except re.error as err:
            raise ValidationError(f"group_runs: the rule is not a regular expression: {err}") from None
        if "system" not in pattern.groupindex:
            raise ValidationError("group_runs: the rule needs a named group (?P<system>...)")
    out: dict[str, list[str]] = {}
    for name in names:
        system = explicit.get(name)
        if system is None and pattern is not None:
            found = pattern.fullmatch(name)
            system = found.group("system") if found else None
        out.setdefault(system or name, []).append(name)
    for system, members in out.items():
        if system in names and members != [system]:
            raise ValidationError(f"group_runs: {system!r} is both a run and the system of runs "
                                  f"{', '.join(m for m in members if m != system)}")
    return {system: tuple(members) for system, members in out.items()}


def _runs_of(groups: Mapping[str, Sequence[str]]) -> dict[str, str]:
    return {run: system for system, members in groups.items() for run in members}


def seed_spread(means: pd.DataFrame, groups: Mapping[str, Sequence[str]]) -> pd.DataFrame:
    """Each system's mean over its runs, with the spread between runs.

    Parameters
    ----------
    means : pandas.DataFrame
        One value per run and measure: columns ``system`` (the run), ``measure``, ``value`` (as
        :func:`metrics.summarise` or :func:`metrics.aggregate` return).
    groups : mapping
        :func:`group_runs`.

    Returns
    -------
    pandas.DataFrame
        ``system, measure, runs, value, sd, low, high``: the mean of the runs' values, their standard
        deviation (n - 1 in the divisor; NaN for one run), the lowest and the highest; systems in the order of
        ``groups``, measures in order of first appearance.
    """
    owner = _runs_of(groups)
    frame = means.loc[means["system"].astype(str).isin(owner), ["system", "measure", "value"]].copy()
    frame["group"] = pd.Categorical(frame["system"].astype(str).map(owner), categories=list(groups))
    frame["measure"] = pd.Categorical(frame["measure"], categories=list(dict.fromkeys(frame["measure"])))
    values = frame.groupby(["group", "measure"], observed=True)["value"]
    out = values.agg(runs="count", value="mean", sd="std", low="min", high="max").reset_index()
    out = out.rename(columns={"group": "system"})
    for column in ("system", "measure"):
        out[column] = out[column].astype(str)
    return out[["system", "measure", "runs", "value", "sd", "low", "high"]]


def seed_ranges(per_query: pd.DataFrame, groups: Mapping[str, Sequence[str]]) -> pd.DataFrame:
    """Topic by topic, each system's mean over its runs and its lowest and highest run.

    Parameters
    ----------
    per_query : pandas.DataFrame
        ``system`` (the run), ``query``, ``measure``, ``value``, as :func:`metrics.evaluate` returns.
    groups : mapping
        :func:`group_runs`.

    Returns
    -------
    pandas.DataFrame
        ``system, query, measure, runs, value, low, high``: ``runs`` counts the runs with a value for
        the topic.
    """
    owner = _runs_of(groups)
    frame = per_query.loc[per_query["system"].astype(str).isin(owner)].copy()
    frame["group"] = pd.Categorical(frame["system"].astype(str).map(owner), categories=list(groups))
    values = frame.groupby(["group", "measure", "query"], observed=True, sort=False)["value"]
    out = values.agg(runs="count", value="mean", low="min", high="max").reset_index()
    out = out.rename(columns={"group": "system"})
    out["system"] = out["system"].astype(str)
    return out[["system", "query", "measure", "runs", "value", "low", "high"]]


@checked(alpha=Number(0, 1, closed="neither"))
def compare_seeded(per_query: pd.DataFrame, groups: Mapping[str, Sequence[str]], *,
                   measures: str | Sequence[str] | None = None, baseline: str | None = None,
                   correction: str = "holm", alpha: float = 0.05) -> pd.DataFrame:
    """The mixed-model test (:func:`mixed_model_test`) between systems of several runs, per measure.

    Parameters
    ----------
    per_query : pandas.DataFrame
        ``system`` (the run), ``query``, ``measure``, ``value``, as :func:`metrics.evaluate` returns.
    groups : mapping
        ``{system: (run, ...)}`` (:func:`group_runs`); the systems compared, in this order.
    measures : str or sequence of str, optional
        Default: every measure of the table, in order of first appearance.
    baseline : str, optional
        Compare each other system with this one (``system_a``); default every pair in the order of ``groups``.
    correction : {"holm", "bonferroni", "bh", "by", "none"}, default="holm"
        Over the pairs of each measure (:func:`metrics.stats.significance.adjust_pvalues`).
    alpha : float, default=0.05
        ``significant`` is ``p_adjusted < alpha``.

    Returns
    -------
    pandas.DataFrame
        The columns of :data:`SEED_COLUMNS`, one row per measure and pair. Each pair is tested on the topics
        every run of both systems answers. A pair where neither system has two runs is left out.

    Raises
    ------
    ValidationError
        An unknown baseline or measure, fewer than two systems, or no pair with a system of two runs.
    """
    systems = list(groups)
    if len(systems) < 2:
        raise ValidationError(f"comparing systems of several runs needs two systems, found {len(systems)}")
    if baseline is not None and baseline not in groups:
        raise ValidationError(f"unknown baseline {baseline!r}: expected one of {', '.join(systems)}")
    table = per_query.assign(system=per_query["system"].astype(str), query=per_query["query"].astype(str),
                             measure=per_query["measure"].astype(str))
    known = list(dict.fromkeys(table["measure"]))
    wanted = known if measures is None else [measures] if isinstance(measures, str) else list(measures)
    unknown = [m for m in wanted if m not in known]
    if unknown:
        raise ValidationError(f"unknown measure(s) {', '.join(unknown)}: expected one of {', '.join(known)}")
    pairs = ([(baseline, s) for s in systems if s != baseline] if baseline is not None
             else [(systems[i], systems[j]) for i in range(len(systems)) for j in range(i + 1, len(systems))])
    pairs = [(x, y) for x, y in pairs if max(len(groups[x]), len(groups[y])) >= 2]
    if not pairs:
        raise ValidationError("no pair of systems has a system of two or more runs: use the paired tests")
    rows = []
    for measure in wanted:
        wide = table[table["measure"] == measure].pivot_table(index="system", columns="query", values="value",
                                                              aggfunc="first")
        found = []
        for x, y in pairs:
            runs = [*groups[x], *groups[y]]
            missing = [r for r in runs if r not in wide.index]
            if missing:
                raise ValidationError(f"{measure}: no values for run(s) {', '.join(missing)}")
            block = wide.loc[runs].dropna(axis=1)
            try:
                result = mixed_model_test(block.loc[list(groups[x])].to_numpy(),
                                          block.loc[list(groups[y])].to_numpy())
            except ValidationError as err:
                raise ValidationError(f"{measure}, {x} vs {y}: {err}") from None
            found.append({"measure": measure, "system_a": x, "system_b": y, **dataclasses.asdict(result)})
        adjusted = adjust_pvalues(np.nan_to_num([r["p_value"] for r in found], nan=1.0), correction)
        for row, p in zip(found, adjusted):
            row["p_adjusted"] = float(p) if np.isfinite(row["p_value"]) else float("nan")
            row["significant"] = bool(row["p_adjusted"] < alpha)
        rows.extend(found)
    return pd.DataFrame(rows, columns=list(SEED_COLUMNS))

