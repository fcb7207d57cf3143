"""Does another judge order the systems alike, and do the conclusions survive it?

Every run is evaluated under every judgment set by the one pipeline (:func:`metrics.rank_runs` and
:func:`metrics.evaluate.per_query_frame`, as :func:`metrics.evaluate`); the tidy per-query table gains a
``judges`` column naming the set. From it:

* **orders** (:func:`system_orders`): each system's summary of each measure under each set (the measure's
  own aggregation, trec_eval's ``all`` line) and its rank, 1 the best, ties broken by system name
  (ascending), as :mod:`metrics.stats.agreement` breaks them;
* **agreement of the orders** (:func:`order_agreement`), for each pair of sets ``first|second``: Kendall's
  tau-b (:func:`metrics.stats.agreement.kendall_tau`), tau_AP with the *first* set the reference
  (:func:`metrics.stats.agreement.tau_ap`, ``symmetric=False``: Yilmaz et al.'s definition, a swap near the
  top of the first set's order costs most), the share of the first set's top ``k`` systems also in the
  second's top ``k``, and the number of pairs of systems put the other way round;
* **rank changes** (:func:`rank_changes`): each system's rank under each set against its rank under the
  reference, the largest moves first;
* **conclusions** (:func:`conclusions`): every pair of systems tested under every set with
  :func:`metrics.stats.significance.compare_systems` and its correction; the claim "``better`` beats
  ``worse``" (``better`` the system with the better summary under the reference) *holds* under a set
  where the difference is significant after correction in that direction, and is *reversed* where it is
  significant the other way. It holds under all sets, some, or none.

Topics. A set that judged other topics than the reference would change the orders by its topics as well as
by its grades. :func:`evaluate_sets` with ``topics="common"`` keeps only the topics every set judged, so a
difference is the judges'; ``topics="each"`` evaluates each set on all its topics. The paired tests need
every system's value on every topic: as in the report (:func:`metrics.stats.significance.topics.paired_conventions`), a set
under which the runs answered different topics is evaluated with complete topics (trec_eval ``-c``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from metrics.stats.agreement import kendall_tau, swapped_pairs, tau_ap
from metrics.conventions import Conventions
from metrics.errors import ValidationError
from metrics.evaluate import aggregate, per_query_frame, rank_runs, resolve_measures
from metrics.judgments.sets import JudgmentSets, pair_key

__all__ = ["HOLDS", "TOPIC_RULES", "conclusions", "evaluate_sets", "on_topics", "order_agreement",
           "pair_conclusions", "rank_changes", "set_names", "set_tests", "system_orders"]

TOPIC_RULES = ("common", "each")
"""The topics each set is evaluated on: those every set judged, or all its own."""
HOLDS = ("all", "some", "none")
"""Under how many sets a conclusion holds."""


def _higher_is_better(label: str) -> bool:
    return bool(type(resolve_measures([label])[0][1]).higher_is_better)


def evaluate_sets(sets: JudgmentSets, runs: Any, measures: Any, *, conventions: Conventions | None = None,
                  topics: str = "common", **options: Any) -> pd.DataFrame:
    """Per-query values of every run under every judgment set.

    Parameters
    ----------
    sets : JudgmentSets
    runs : Run, path, or a sequence or mapping of them
        As :func:`metrics.evaluate` takes them; each is read once.
    measures : str or sequence of str
        As :func:`metrics.evaluate` takes them.
    conventions : Conventions, optional
    topics : {"common", "each"}, default="common"
        Keep only the topics every set judged, or evaluate each set on all of its topics.
    **options
        Fields of :class:`~metrics.conventions.Conventions`.

    Returns
    -------
    pandas.DataFrame
        Columns ``judges``, ``system``, ``query``, ``measure``, ``value``: the sets in order, then as
        :func:`metrics.evaluate` orders its rows.
    """
    from metrics.stats.significance.topics import paired_conventions

    if topics not in TOPIC_RULES:
        raise ValidationError(f"topics: expected one of {', '.join(map(repr, TOPIC_RULES))}, found {topics!r}")
    pairs = resolve_measures(measures)
    conventions = Conventions.coerce(conventions, **options)
    frames, read = [], runs
    for name, qrels in sets.items():
        rankings = rank_runs(qrels, read, conventions)
        read = [ranked.run for ranked in rankings]  # each run read once, for the first set
        paired = paired_conventions(conventions, rankings)
        if paired != conventions:
            rankings = rank_runs(qrels, read, paired)
        for ranked in rankings:
            frames.append(per_query_frame(ranked, pairs).assign(judges=name))
    frame = pd.concat(frames, ignore_index=True)[["judges", "system", "query", "measure", "value"]]
    return on_topics(frame, sets.common_topics()) if topics == "common" else frame


def on_topics(per_query: pd.DataFrame, topics: Sequence[str]) -> pd.DataFrame:
    """The rows of a per-query table on the given topics only (compared as text)."""
    keep = per_query["query"].astype(str).isin({str(t) for t in topics}).to_numpy()
    return per_query[keep].reset_index(drop=True)


def set_names(per_query: pd.DataFrame) -> list[str]:
    """The sets of a per-query table of :func:`evaluate_sets`, in the order they appear."""
    if "judges" not in per_query.columns:
        raise ValidationError("expected a per-query table with a 'judges' column (evaluate_sets)")
    return list(pd.unique(per_query["judges"]))


def system_orders(per_query: pd.DataFrame, measures: Sequence[str] | None = None) -> pd.DataFrame:
    """Each system's summary of each measure under each set, and its rank.

    Parameters
    ----------
    per_query : pandas.DataFrame
        As :func:`evaluate_sets` returns it.
    measures : sequence of str, optional
        Default: every measure of the table.

    Returns
    -------
    pandas.DataFrame
        Columns ``judges``, ``measure``, ``system``, ``value`` (the measure's summary over the topics),
        ``n_queries``, ``rank`` (1 the best; equal values in order of system name).
    """
    measures = list(pd.unique(per_query["measure"])) if measures is None else list(measures)
    frames = []
    for name in set_names(per_query):
        rows = per_query[(per_query["judges"] == name) & per_query["measure"].isin(measures)]
        summary = aggregate(rows[["system", "query", "measure", "value"]])
        for measure in measures:
            part = summary[summary["measure"] == measure]
            if part.empty:
                continue
            values, systems = part["value"].to_numpy(dtype=np.float64), part["system"].astype(str).to_numpy()
            key = -values if _higher_is_better(measure) else values
            order = np.lexsort((systems, key))
            rank = np.empty(len(order), dtype=np.int64)
            rank[order] = np.arange(1, len(order) + 1)
            frames.append(pd.DataFrame({"judges": name, "measure": measure, "system": systems, "value": values,
                                        "n_queries": part["n_queries"].to_numpy(), "rank": rank}).iloc[order])
    columns = ["judges", "measure", "system", "value", "n_queries", "rank"]
    return pd.concat(frames, ignore_index=True)[columns] if frames else pd.DataFrame(columns=columns)


def _scores(orders: pd.DataFrame, name: str, measure: str) -> pd.Series:
    part = orders[(orders["judges"] == name) & (orders["measure"] == measure)]
    return pd.Series(part["value"].to_numpy(dtype=np.float64), index=part["system"].astype(str).to_numpy())


def order_agreement(orders: pd.DataFrame, pairs: Sequence[tuple[str, str]], *, top_k: int = 5) -> pd.DataFrame:
    """How alike two sets order the systems, for each measure and pair of sets.

    Parameters
    ----------
    orders : pandas.DataFrame
        As :func:`system_orders` returns it.
    pairs : sequence of (str, str)
        The pairs of sets (the first of each is tau_AP's reference).
    top_k : int, default=5
        The k of the top-k agreement (at most the number of systems).

    Returns
    -------
    pandas.DataFrame
        Columns ``measure``, ``pair`` (``"first|second"``), ``first``, ``second``, ``systems``, ``tau_b``,
        ``tau_ap``, ``top_k`` (the k used), ``top_k_overlap`` (share of the first's top k in the second's),
        ``swaps``. A measure with fewer than two systems gives NaN statistics.
    """
    if not isinstance(top_k, (int, np.integer)) or isinstance(top_k, bool) or top_k < 1:
        raise ValidationError(f"top_k: expected a positive integer, found {top_k!r}")
    rows = []
    for measure in pd.unique(orders["measure"]):
        better_high = _higher_is_better(measure)
        for first, second in pairs:
            x, y = _scores(orders, first, measure), _scores(orders, second, measure)
            shared = sorted(set(x.index) & set(y.index))
            x, y = x.reindex(shared), y.reindex(shared)
            k = min(int(top_k), len(shared))
            row = {"measure": measure, "pair": pair_key(first, second), "first": first, "second": second,
                   "systems": len(shared), "tau_b": np.nan, "tau_ap": np.nan, "top_k": k,
                   "top_k_overlap": np.nan, "swaps": 0}
            if len(shared) >= 2:
                names = np.asarray(shared, dtype=object)
                top = [set(names[np.lexsort((names.astype(str), -s if better_high else s))][:k])
                       for s in (x.to_numpy(), y.to_numpy())]
                row.update(tau_b=kendall_tau(x, y), tau_ap=tau_ap(x, y, symmetric=False, higher_is_better=better_high),
                           top_k_overlap=len(top[0] & top[1]) / k, swaps=len(swapped_pairs(x, y)))
            rows.append(row)
    return pd.DataFrame(rows, columns=["measure", "pair", "first", "second", "systems", "tau_b", "tau_ap", "top_k",
                                       "top_k_overlap", "swaps"])


def rank_changes(orders: pd.DataFrame, reference: str) -> pd.DataFrame:
    """Each system's rank under each other set against its rank under the reference, largest moves first.

    Returns
    -------
    pandas.DataFrame
        Columns ``measure``, ``system``, ``judges``, ``reference_rank``, ``rank``, ``change`` (rank minus
        the reference's: above 0, the system falls under that set); sorted by ``|change|`` descending,
        then measure, set and system as they come.
    """
    ref = orders[orders["judges"] == reference][["measure", "system", "rank"]].rename(columns={"rank": "reference_rank"})
    other = orders[orders["judges"] != reference][["measure", "system", "judges", "rank"]]
    merged = other.merge(ref, on=["measure", "system"], how="inner", sort=False)
    merged["change"] = merged["rank"] - merged["reference_rank"]
    merged = merged.iloc[np.argsort(-np.abs(merged["change"].to_numpy()), kind="stable")]
    return merged[["measure", "system", "judges", "reference_rank", "rank", "change"]].reset_index(drop=True)


def set_tests(per_query: pd.DataFrame, measures: Sequence[str] | None = None, **settings: Any) -> pd.DataFrame:
    """Every pair of systems tested under every set, corrected within each set as ``settings`` say.

    Parameters
    ----------
    per_query : pandas.DataFrame
        As :func:`evaluate_sets` returns it.
    measures : sequence of str, optional
    **settings
        Keywords of :func:`metrics.stats.significance.compare_systems` (``test``, ``correction``, ``alpha``,
        ``family``, ``seed``, ...).

    Returns
    -------
    pandas.DataFrame
        ``judges`` then the columns of :attr:`metrics.stats.significance.Comparison.frame`.
    """
    from metrics.stats.significance import compare_systems

    frames = []
    for name in set_names(per_query):
        rows = per_query[per_query["judges"] == name][["system", "query", "measure", "value"]]
        systems = list(pd.unique(rows["system"]))
        tested = compare_systems(rows, measures=measures, systems=systems, **settings)
        frames.append(tested.frame.assign(judges=name))
    frame = pd.concat(frames, ignore_index=True)
    return frame[["judges", *[c for c in frame.columns if c != "judges"]]]


def _direction(tests: pd.DataFrame) -> pd.Series:
    """+1 where ``system_b`` is significantly better, -1 where ``system_a`` is, 0 elsewhere."""
    higher = np.array([_higher_is_better(m) for m in tests["measure"]], dtype=bool)
    sign = np.sign(tests["mean_diff"].to_numpy(dtype=np.float64)) * np.where(higher, 1, -1)
    return pd.Series(np.where(tests["significant"].to_numpy(dtype=bool), sign, 0).astype(np.int64), index=tests.index)


def conclusions(tests: pd.DataFrame, orders: pd.DataFrame, reference: str) -> pd.DataFrame:
    """Every pairwise conclusion, and the sets under which it holds.

    Parameters
    ----------
    tests : pandas.DataFrame
        As :func:`set_tests` returns it.
    orders : pandas.DataFrame
        As :func:`system_orders` returns it (the reference's summaries say which system is ``better``).
    reference : str

    Returns
    -------
    pandas.DataFrame
        One row per measure and pair of systems: ``measure``, ``better`` and ``worse`` (by the reference's
        summary; equal summaries in the order tested), ``holds_under`` and ``reversed_under`` (tuples of set
        names: significantly better, or significantly worse, there), ``holds`` (:data:`HOLDS`: under every
        set, some, or none), and ``p_adjusted`` (a dict of each set's corrected p-value).
    """
    names = list(pd.unique(tests["judges"]))
    if reference not in names:
        raise ValidationError(f"the reference {reference!r} has no tests; the sets are {names}")
    tests = tests.assign(direction=_direction(tests))
    rank = {(m, s): r for m, s, r in orders[orders["judges"] == reference][["measure", "system", "rank"]]
            .itertuples(index=False)}
    rows = []
    for (measure, a, b), group in tests.groupby(["measure", "system_a", "system_b"], sort=False):
        b_first = rank.get((measure, b), np.inf) < rank.get((measure, a), np.inf)
        better, worse, toward = (b, a, 1) if b_first else (a, b, -1)
        by_set = dict(zip(group["judges"], group["direction"]))
        holds_under = tuple(n for n in names if by_set.get(n, 0) == toward)
        reversed_under = tuple(n for n in names if by_set.get(n, 0) == -toward)
        holds = "all" if len(holds_under) == len(names) else "some" if holds_under else "none"
        rows.append({"measure": measure, "better": better, "worse": worse, "holds_under": holds_under,
                     "reversed_under": reversed_under, "holds": holds,
                     "p_adjusted": dict(zip(group["judges"], group["p_adjusted"].astype(float)))})
    return pd.DataFrame(rows, columns=["measure", "better", "worse", "holds_under", "reversed_under", "holds",
                                       "p_adjusted"])


def pair_conclusions(found: pd.DataFrame, first: str, second: str) -> pd.DataFrame:
    """The conclusions of :func:`conclusions` seen from two sets only: under both, one, or neither.

    Returns
    -------
    pandas.DataFrame
        The same columns, ``holds_under`` and ``reversed_under`` restricted to ``first`` and ``second`` and
        ``holds`` read over those two.
    """
    two = (first, second)
    out = found.copy()
    out["holds_under"] = [tuple(n for n in under if n in two) for under in found["holds_under"]]
    out["reversed_under"] = [tuple(n for n in under if n in two) for under in found["reversed_under"]]
    out["holds"] = ["all" if len(u) == 2 else "some" if u else "none" for u in out["holds_under"]]
    out["p_adjusted"] = [{n: p[n] for n in two if n in p} for p in found["p_adjusted"]]
    return out
