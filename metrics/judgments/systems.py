"""Does another judge order the systems alike, and do the conclusions survive it?

Every run is evaluated under every judgment set by the one pipeline (:func:`metrics.rank_runs` and
:func:`metrics.evaluate.per_query_frame`, as :func:`metrics.evaluate`); the tidy per-query table gains a
``judges`` column naming the set. From it:

* **orders** (:func:`system_orders`): each system's summary of each measure under each set (the measure's
  own aggregation, trec_eval's ``all`` line) and its rank, 1 the best. Equal summaries are a tie and share
  the best rank of their group (1, 2, 2, 4): no rank, and so no rank change, depends on a system's name
  or on the order the runs were given in;
* **agreement of the orders** (:func:`order_agreement`), for each pair of sets ``first|second``: Kendall's
  tau-b (:func:`metrics.stats.agreement.kendall_tau`); tau_AP with the *first* set the reference
  (:func:`metrics.stats.agreement.tau_ap`, ``symmetric=False``: Yilmaz et al.'s definition walks the
  *second* set's order, so a system the second set puts too high near the top of its own order costs
  most, and the reference's best put last costs less than its worst put first); the share of the top
  ``k`` systems the two sets have in common, ties at the cut counted by :func:`top_k_shares` (the mean
  over every order of the tied systems); and the number of pairs of systems put the other way round;
* **rank changes** (:func:`rank_changes`): each system's rank under each set against its rank under the
  reference, the largest moves first;
* **conclusions** (:mod:`metrics.judgments.conclusions`): every pair of systems tested under every set,
  and what each set finds of the reference's conclusion.

Topics. A set that judged other topics than the reference would change the orders by its topics as well as
by its grades. With ``topics="common"`` (:data:`TOPIC_RULES`) the orders, agreements and tests are over the
topics *every* set judged, one topic set for every pair and every conclusion, so a difference is the
judges' and not the topics'; adding a set that judged fewer topics therefore changes the numbers of every
pair. ``topics="each"`` evaluates each set on all its own topics.

A run's missing topics. :func:`evaluate_sets` evaluates as :func:`metrics.evaluate` does: a topic a run did
not answer has no value unless the conventions complete the topics (``complete=True``, trec_eval ``-c``:
it then scores 0). The orders and tests need every system on the same topics: :func:`check_answered`
refuses runs that answered different topics without ``complete``, and :func:`unanswered` counts, under each
set, the compared topics a run has no ranked document for (with ``complete``, they score 0).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from metrics.stats.agreement import kendall_tau, swapped_pairs, tau_ap
from metrics.conventions import Conventions
from metrics.errors import MissingTopicsError, ValidationError
from metrics.evaluate import aggregate, per_query_frame, rank_runs, resolve_measures
from metrics.judgments.sets import JudgmentSets, pair_key

__all__ = ["TOPIC_RULES", "TOPIC_WORDS", "check_answered", "evaluate_sets", "higher_is_better", "on_topics",
           "order_agreement", "rank_changes", "set_names", "system_orders", "top_k_shares", "unanswered"]

TOPIC_RULES = ("common", "each")
"""The topics each set is evaluated on: those every set judged, or all its own."""
TOPIC_WORDS = {"common": "the topics every set judged", "each": "each set's own topics"}
"""Each topic rule in words, for the command line and the page."""
RETRIEVED = "NumRet"
"""The measure whose 0 says a run has no ranked document for a topic (:func:`unanswered`)."""


def higher_is_better(label: str) -> bool:
    """Whether a larger value of the measure ``label`` is better."""
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
        As for :func:`metrics.evaluate`: without ``complete``, a topic a run did not answer has no row;
        with it, a topic the set judged scores 0 for a run that did not answer it (trec_eval ``-c``).
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
    if topics not in TOPIC_RULES:
        raise ValidationError(f"topics: expected one of {', '.join(map(repr, TOPIC_RULES))}, found {topics!r}")
    pairs = resolve_measures(measures)
    conventions = Conventions.coerce(conventions, **options)
    frames, read = [], runs
    for name, qrels in sets.items():
        rankings = rank_runs(qrels, read, conventions)
        read = [ranked.run for ranked in rankings]  # each run read once, for the first set
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


def check_answered(per_query: pd.DataFrame) -> None:
    """Refuse a per-query table in which, under some set, the systems were evaluated on different topics.

    The orders, their agreement and the paired tests compare every system on the same topics; a run that
    did not answer a topic others answered would be averaged over fewer topics. Evaluating with complete
    topics (trec_eval ``-c``) scores such a topic 0 and passes.

    Raises
    ------
    MissingTopicsError
        Naming the set, the first system short of topics, how many of them and the first few.
    """
    for name in set_names(per_query):
        rows = per_query[per_query["judges"] == name]
        topics = rows.groupby("system", sort=False)["query"].agg(lambda q: frozenset(q.astype(str)))
        every = frozenset().union(*topics)
        for system, answered in topics.items():
            missing = sorted(every - answered)
            if missing:
                shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
                raise MissingTopicsError(f"under {name}, {system} has no value for {len(missing)} of the "
                                         f"{len(every)} topics the other runs are evaluated on ({shown})")


def unanswered(per_query: pd.DataFrame) -> pd.DataFrame:
    """Under each set, how many of its compared topics each run has no ranked document for.

    Parameters
    ----------
    per_query : pandas.DataFrame
        As :func:`evaluate_sets` returns it, holding :data:`RETRIEVED` (``NumRet``; the judged support's
        measures include it).

    Returns
    -------
    pandas.DataFrame
        Columns ``judges``, ``system``, ``topics`` (its topics in the table), ``unanswered`` (of them, those
        with no ranked document: with complete topics, trec_eval ``-c``, each scores 0 on every measure);
        only the runs with one or more.
    """
    rows = per_query[per_query["measure"] == RETRIEVED]
    empty = rows["value"].to_numpy(dtype=np.float64) == 0
    counted = rows.assign(unanswered=empty).groupby(["judges", "system"], sort=False).agg(
        topics=("query", "size"), unanswered=("unanswered", "sum")).reset_index()
    counted = counted.astype({"topics": np.int64, "unanswered": np.int64})
    return counted[counted["unanswered"] > 0].reset_index(drop=True)


def _competition_ranks(key: np.ndarray) -> np.ndarray:
    """1 + the number of strictly smaller keys: equal keys share the best rank of their group (1, 2, 2, 4)."""
    return np.searchsorted(np.sort(key), key, side="left") + 1


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
        ``n_queries``, ``rank`` (1 the best; equal values share the best rank of their group, 1, 2, 2, 4).
        Rows best first, equal values in order of system name (for reading only: the rank is theirs).
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
            key = -values if higher_is_better(measure) else values
            order = np.lexsort((systems, key))
            frames.append(pd.DataFrame({"judges": name, "measure": measure, "system": systems, "value": values,
                                        "n_queries": part["n_queries"].to_numpy(),
                                        "rank": _competition_ranks(key)}).iloc[order])
    columns = ["judges", "measure", "system", "value", "n_queries", "rank"]
    return pd.concat(frames, ignore_index=True)[columns] if frames else pd.DataFrame(columns=columns)


def _scores(orders: pd.DataFrame, name: str, measure: str) -> pd.Series:
    part = orders[(orders["judges"] == name) & (orders["measure"] == measure)]
    return pd.Series(part["value"].to_numpy(dtype=np.float64), index=part["system"].astype(str).to_numpy())


def top_k_shares(values: Any, k: int, *, higher_is_better: bool = True) -> np.ndarray:
    """Each system's share of a place among the top ``k``: 1 above the cut, 0 below it, and for a group of
    tied systems that straddles the cut, the places left divided among them.

    It is the chance that the system is among the top ``k`` when its ties are put in a random order, so it
    never depends on the systems' names or order, and the shares sum to ``k`` (or to the number of systems,
    if fewer).

    Examples
    --------
    >>> top_k_shares([0.5, 0.5, 0.3], 1).tolist()
    [0.5, 0.5, 0.0]
    >>> top_k_shares([0.5, 0.4, 0.4, 0.4], 2).tolist()
    [1.0, 0.3333333333333333, 0.3333333333333333, 0.3333333333333333]
    """
    key = np.asarray(values, dtype=np.float64)
    key = -key if higher_is_better else key
    ordered = np.sort(key)
    above = np.searchsorted(ordered, key, side="left")
    tied = np.searchsorted(ordered, key, side="right") - above
    return np.clip((k - above) / tied, 0.0, 1.0)


def order_agreement(orders: pd.DataFrame, pairs: Sequence[tuple[str, str]], *, top_k: int = 5) -> pd.DataFrame:
    """How alike two sets order the systems, for each measure and pair of sets.

    Parameters
    ----------
    orders : pandas.DataFrame
        As :func:`system_orders` returns it.
    pairs : sequence of (str, str)
        The pairs of sets (the first of each is tau_AP's reference; tau_AP walks the second's order).
    top_k : int, default=5
        The k of the top-k agreement (at most the number of systems).

    Returns
    -------
    pandas.DataFrame
        Columns ``measure``, ``pair`` (``"first|second"``), ``first``, ``second``, ``systems``, ``tau_b``,
        ``tau_ap``, ``top_k`` (the k used), ``top_k_overlap`` (the systems the two top ``k`` have in
        common, over ``k``; systems tied at either cut count by :func:`top_k_shares`, so the value is the
        mean over every order of the ties), ``swaps``. A measure with fewer than two systems gives NaN
        statistics.
    """
    if not isinstance(top_k, (int, np.integer)) or isinstance(top_k, bool) or top_k < 1:
        raise ValidationError(f"top_k: expected a positive integer, found {top_k!r}")
    rows = []
    for measure in pd.unique(orders["measure"]):
        better_high = higher_is_better(measure)
        for first, second in pairs:
            x, y = _scores(orders, first, measure), _scores(orders, second, measure)
            shared = sorted(set(x.index) & set(y.index))
            x, y = x.reindex(shared), y.reindex(shared)
            k = min(int(top_k), len(shared))
            row = {"measure": measure, "pair": pair_key(first, second), "first": first, "second": second,
                   "systems": len(shared), "tau_b": np.nan, "tau_ap": np.nan, "top_k": k,
                   "top_k_overlap": np.nan, "swaps": 0}
            if len(shared) >= 2:
                shares = [top_k_shares(s.to_numpy(), k, higher_is_better=better_high) for s in (x, y)]
                row.update(tau_b=kendall_tau(x, y), tau_ap=tau_ap(x, y, symmetric=False, higher_is_better=better_high),
                           top_k_overlap=float(np.dot(*shares)) / k, swaps=len(swapped_pairs(x, y)))
            rows.append(row)
    return pd.DataFrame(rows, columns=["measure", "pair", "first", "second", "systems", "tau_b", "tau_ap", "top_k",
                                       "top_k_overlap", "swaps"])


def rank_changes(orders: pd.DataFrame, reference: str) -> pd.DataFrame:
    """Each system's rank under each other set against its rank under the reference, largest moves first.

    Returns
    -------
    pandas.DataFrame
        Columns ``measure``, ``system``, ``judges``, ``reference_rank``, ``rank``, ``change`` (rank minus
        the reference's: above 0, the system falls under that set; tied systems share a rank, see
        :func:`system_orders`); sorted by ``|change|`` descending, then measure, set and system as they come.
    """
    ref = orders[orders["judges"] == reference][["measure", "system", "rank"]].rename(columns={"rank": "reference_rank"})
    other = orders[orders["judges"] != reference][["measure", "system", "judges", "rank"]]
    merged = other.merge(ref, on=["measure", "system"], how="inner", sort=False)
    merged["change"] = merged["rank"] - merged["reference_rank"]
    merged = merged.iloc[np.argsort(-np.abs(merged["change"].to_numpy()), kind="stable")]
    return merged[["measure", "system", "judges", "reference_rank", "rank", "change"]].reset_index(drop=True)
