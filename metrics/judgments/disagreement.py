"""Where the judges disagree: topics ranked by how much the sets disagree, and the documents judged differently.

A document is *judged differently* when two or more sets judged it and their grades are not all the same;
it *changes relevance* when they also disagree on whether it is relevant (grade >= the relevance level,
trec_eval ``-l``). A topic's disagreement is the share of its documents judged by two or more sets that
change relevance (the binary view is what moves P@k, AP and the other binary measures); ties are ordered by
the share judged differently at all, then by Krippendorff's alpha (ordinal, lowest first), then by topic id.
With a per-query table, a topic also says how far apart the sets put its measure's values
(``measure_spread``: over the systems, the mean of the largest minus the smallest value across the sets).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from metrics.errors import ValidationError
from metrics.judgments.labels import krippendorff_alpha
from metrics.judgments.sets import JudgmentSets

__all__ = ["documents_judged_differently", "topic_disagreement"]

TOPIC_COLUMNS = ["query", "documents", "judged_by_several", "judged_by_one", "judged_differently",
                 "relevance_changes", "disagreement", "differ_share", "alpha", "measure_spread"]


def _long(sets: JudgmentSets, names: Sequence[str]) -> pd.DataFrame:
    parts = [sets.judged(name).assign(set=i) for i, name in enumerate(names)]
    return pd.concat(parts, ignore_index=True)


def topic_disagreement(sets: JudgmentSets, names: Sequence[str] | None = None, *, relevance_level: int = 1,
                       per_query: pd.DataFrame | None = None, measure: str | None = None) -> pd.DataFrame:
    """The topics, the one the sets disagree on most first.

    Parameters
    ----------
    sets : JudgmentSets
    names : sequence of str, optional
        The sets compared (default: all; two or more).
    relevance_level : int, default=1
    per_query : pandas.DataFrame, optional
        As :func:`metrics.judgments.systems.evaluate_sets` returns it; with ``measure``, adds
        ``measure_spread``.
    measure : str, optional

    Returns
    -------
    pandas.DataFrame
        One row per topic any of the sets judged: ``query``, ``documents`` (judged by any set),
        ``judged_by_several``, ``judged_by_one``, ``judged_differently``, ``relevance_changes``,
        ``disagreement`` (``relevance_changes / judged_by_several``), ``differ_share``
        (``judged_differently / judged_by_several``), ``alpha`` (ordinal, of the topic's documents) and
        ``measure_spread`` (NaN without a per-query table).
    """
    names = list(sets.names if names is None else names)
    if len(names) < 2:
        raise ValidationError(f"disagreement: expected two or more judgment sets, found {names}")
    long = _long(sets, names)
    long["relevant"] = long["grade"].to_numpy() >= relevance_level
    docs = long.groupby(["query", "docid"], sort=False).agg(
        sets=("set", "size"), low=("grade", "min"), high=("grade", "max"), any_rel=("relevant", "max"),
        all_rel=("relevant", "min")).reset_index()
    several = docs["sets"].to_numpy() >= 2
    docs["several"] = several
    docs["differ"] = several & (docs["low"].to_numpy() != docs["high"].to_numpy())
    docs["changes"] = several & (docs["any_rel"].to_numpy() != docs["all_rel"].to_numpy())
    topics = docs.groupby("query", sort=False).agg(
        documents=("sets", "size"), judged_by_several=("several", "sum"), judged_differently=("differ", "sum"),
        relevance_changes=("changes", "sum")).reset_index()
    topics["judged_by_one"] = topics["documents"] - topics["judged_by_several"]
    with np.errstate(invalid="ignore", divide="ignore"):
        several_n = topics["judged_by_several"].to_numpy(dtype=np.float64)
        topics["disagreement"] = np.where(several_n > 0, topics["relevance_changes"] / several_n, np.nan)
        topics["differ_share"] = np.where(several_n > 0, topics["judged_differently"] / several_n, np.nan)
    long = long.sort_values(["query"], kind="stable")
    alphas = {}
    for query, part in long.groupby("query", sort=False):
        units = part["docid"].astype(str).to_numpy()
        alphas[query] = krippendorff_alpha(units, part["grade"].to_numpy(), level="ordinal")
    topics["alpha"] = topics["query"].map(alphas).astype(np.float64)
    topics["measure_spread"] = np.nan
    if per_query is not None and measure is not None:
        rows = per_query[(per_query["measure"] == measure) & per_query["judges"].isin(names)]
        spread = rows.groupby(["query", "system"], sort=False)["value"].agg(lambda v: v.max() - v.min())
        topics["measure_spread"] = topics["query"].map(spread.groupby(level="query").mean()).astype(np.float64)
    key = [topics[c].fillna(-1.0).to_numpy() for c in ("disagreement", "differ_share")]
    order = np.lexsort((topics["query"].astype(str).to_numpy(), topics["alpha"].fillna(2.0).to_numpy(),
                        -key[1], -key[0]))
    return topics.iloc[order][TOPIC_COLUMNS].reset_index(drop=True)


def documents_judged_differently(sets: JudgmentSets, topic: str, names: Sequence[str] | None = None, *,
                                 relevance_level: int = 1, only_different: bool = True) -> pd.DataFrame:
    """The documents of one topic with each set's grade, those judged differently first.

    Parameters
    ----------
    sets : JudgmentSets
    topic : str
    names : sequence of str, optional
        The sets shown (default: all).
    relevance_level : int, default=1
    only_different : bool, default=True
        Only the documents two or more sets judged differently; False: every document any set judged
        (a document one set alone judged included).

    Returns
    -------
    pandas.DataFrame
        ``docid``, one column per set (its grade, ``<NA>`` where it did not judge the document; nullable
        integers), ``spread`` (highest minus lowest grade), ``relevance_changes`` (bool); the largest spread
        first, then document id.
    """
    names = list(sets.names if names is None else names)
    taken = sorted({"docid", "spread", "relevance_changes"} & set(names))
    if taken:
        raise ValidationError(f"a judgment set named {taken[0]!r} would hide a column of the table; rename it")
    long = _long(sets, names)
    long = long[long["query"].astype(str) == str(topic)]
    wide = long.pivot_table(index="docid", columns="set", values="grade", aggfunc="first", sort=False)
    wide = wide.reindex(columns=range(len(names)))
    grades = wide.to_numpy(dtype=np.float64)
    judged = ~np.isnan(grades)
    with np.errstate(invalid="ignore"):
        high, low = np.nanmax(np.where(judged, grades, -np.inf), axis=1), np.nanmin(np.where(judged, grades, np.inf), axis=1)
        relevant = np.where(judged, grades >= relevance_level, False)
        any_rel, all_rel = relevant.any(axis=1), (relevant | ~judged).all(axis=1)
    several = judged.sum(axis=1) >= 2
    out = pd.DataFrame({"docid": wide.index.astype(str).to_numpy()})
    for i, name in enumerate(names):
        out[name] = pd.array(np.where(judged[:, i], grades[:, i], np.nan), dtype="Float64").astype("Int64")
    out["spread"] = np.where(several, high - low, 0).astype(np.int64)
    out["relevance_changes"] = several & (any_rel != all_rel)
    if only_different:
        out = out[several & (high != low)]
    order = np.lexsort((out["docid"].to_numpy().astype(str), -out["spread"].to_numpy()))
    return out.iloc[order].reset_index(drop=True)
