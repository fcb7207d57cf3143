"""Everything the judgment sets say about the runs, in one call: what ``rankscope judges`` prints.

:func:`compare_judges` evaluates every run under every set (:func:`~metrics.judgments.systems.evaluate_sets`)
and gathers the label agreement, the agreement of the systems' orders, the pairwise conclusions, the judged
documents each measure rests on, the topics the sets disagree on, and, where the reference judged fewer
topics than another set, the prediction-powered means. :meth:`JudgesComparison.as_dict` is its JSON.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from metrics.conventions import Conventions
from metrics.errors import ValidationError
from metrics.evaluate import resolve_measures
from metrics.judgments import conclusions as concluded
from metrics.judgments import disagreement, labels, ppi, support, systems
from metrics.judgments.sets import JudgmentSets

__all__ = ["JudgesComparison", "compare_judges"]

DEFAULT_TOP_K = 5


@dataclass(frozen=True, eq=False)
class JudgesComparison:
    """What several judgment sets say about a set of runs (made by :func:`compare_judges`).

    Attributes
    ----------
    sets : JudgmentSets
    measures : tuple of str
        The measures' labels.
    topics : str
        The topic rule (:data:`~metrics.judgments.systems.TOPIC_RULES`).
    per_query : pandas.DataFrame
        Every set on all its topics (``judges, system, query, measure, value``), the measures and their
        judged counts.
    labels : pandas.DataFrame
        :func:`~metrics.judgments.labels.label_agreement` of every pair.
    alpha : float
        Krippendorff's alpha (ordinal) over all sets.
    orders, agreement, changes, tests, conclusions : pandas.DataFrame
        On the compared topics: :func:`~metrics.judgments.systems.system_orders`,
        :func:`~metrics.judgments.systems.order_agreement`, :func:`~metrics.judgments.systems.rank_changes`,
        :func:`~metrics.judgments.conclusions.set_tests`, :func:`~metrics.judgments.conclusions.conclusions`.
    unanswered : pandas.DataFrame
        :func:`~metrics.judgments.systems.unanswered` on the compared topics: the runs with topics they have
        no ranked document for, which score 0 there (complete topics, trec_eval ``-c``).
    judged : pandas.DataFrame
        :func:`~metrics.judgments.support.judged_support` on the compared topics.
    disagreement : pandas.DataFrame
        :func:`~metrics.judgments.disagreement.topic_disagreement` of all sets.
    ppi : dict
        ``{automatic set: frame of ppi_systems}`` for each set that judged topics the reference did not
        (and shares two or more with it).
    settings : dict
        The test settings, ``top_k``, ``confidence`` and ``lam``.
    conventions : Conventions
    """

    sets: JudgmentSets
    measures: tuple[str, ...]
    topics: str
    per_query: pd.DataFrame
    labels: pd.DataFrame
    alpha: float
    orders: pd.DataFrame
    agreement: pd.DataFrame
    changes: pd.DataFrame
    tests: pd.DataFrame
    conclusions: pd.DataFrame
    unanswered: pd.DataFrame
    judged: pd.DataFrame
    disagreement: pd.DataFrame
    ppi: dict[str, pd.DataFrame]
    settings: dict[str, Any] = field(default_factory=dict)
    conventions: Conventions = Conventions()

    @property
    def compared_topics(self) -> tuple[str, ...]:
        """The topics the orders and tests are over: those every set judged (``topics="common"``; without
        complete topics, those of them the runs answered), or every topic of any set (``"each"``)."""
        held = set(self.per_query["query"].astype(str))
        if self.topics == "common":
            return tuple(t for t in self.sets.common_topics() if t in held)
        return tuple(sorted(held))

    def as_dict(self) -> dict[str, Any]:
        """The comparison as JSON-ready data: ``sets``, ``settings``, ``labels``, ``alpha``, ``systems``,
        ``orders``, ``conclusions``, ``rank_changes``, ``unanswered``, ``judged``, ``disagreement``, ``ppi``.

        ``settings`` names the topics compared (``topics``, ``compared``: in words, ``compared_topics``: how
        many) and whether a topic a run did not answer scores 0 (``complete``). ``labels`` and ``systems`` are
        keyed by pair (``"first|second"``); ``systems[measure][pair]`` holds ``tau_b``, ``tau_ap`` (the first
        set the reference, the second's order walked), ``top_k``, ``top_k_overlap``, ``swaps`` and the
        ``conclusions`` of those two sets alone, the first the reference; ``conclusions[measure]`` lists them
        over all sets: ``better``, ``worse``, ``reference`` (what the reference found) and ``other_sets``
        (the other sets by what they find of it: ``found``, ``reversed``, ``not_found``, ``differs``).
        """
        judged_counts = {name: int(len(self.sets.judged(name))) for name in self.sets}
        out: dict[str, Any] = {
            "sets": [{"name": name, "file": q.name, "topics": len(self.sets.topics(name)),
                      "judgments": judged_counts[name], "reference": name == self.sets.reference}
                     for name, q in self.sets.items()],
            "settings": {"measures": list(self.measures), "topics": self.topics,
                         "compared": systems.TOPIC_WORDS[self.topics],
                         "compared_topics": len(self.compared_topics), "complete": bool(self.conventions.complete),
                         **self.settings, "conventions": self.conventions.as_dict()},
            "labels": {key: {k: _scalar(row[k]) for k in ("kappa", "kappa_binary", "kappa_linear", "kappa_quadratic",
                                                          "both_judged", "only_first", "only_second",
                                                          "mean_grade_shift", "agreement", "alpha")}
                       for key, row in self.labels.iterrows()},
            "alpha": _scalar(self.alpha),
            "systems": {}, "orders": {}, "conclusions": {},
        }
        for measure in self.measures:
            found = self.conclusions[self.conclusions["measure"] == measure]
            out["conclusions"][measure] = _conclusion_records(found, with_p=True)
            pairs = {}
            tests = self.tests[self.tests["measure"] == measure]
            for row in self.agreement[self.agreement["measure"] == measure].itertuples(index=False):
                seen = concluded.pair_conclusions(tests, self.orders, row.first, row.second)
                pairs[row.pair] = {"tau_b": _scalar(row.tau_b), "tau_ap": _scalar(row.tau_ap), "top_k": int(row.top_k),
                                   "top_k_overlap": _scalar(row.top_k_overlap), "swaps": int(row.swaps),
                                   "conclusions": _conclusion_records(seen, with_p=False)}
            out["systems"][measure] = pairs
            orders = self.orders[self.orders["measure"] == measure]
            out["orders"][measure] = {name: [{"system": r.system, "value": _scalar(r.value), "rank": int(r.rank)}
                                             for r in part.itertuples(index=False)]
                                      for name, part in orders.groupby("judges", sort=False)}
        out["rank_changes"] = _records(self.changes)
        out["unanswered"] = _records(self.unanswered)
        out["judged"] = _records(self.judged)
        out["disagreement"] = _records(self.disagreement)
        out["ppi"] = {name: _records(frame) for name, frame in self.ppi.items()}
        return out


def _scalar(value: Any) -> Any:
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and not np.isfinite(value):
        return None
    return value


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    return [{k: _scalar(v) for k, v in row.items()} for row in frame.to_dict("records")]


def _conclusion_records(found: pd.DataFrame, *, with_p: bool) -> list[dict[str, Any]]:
    rows = []
    for r in found.itertuples(index=False):
        row = {"better": r.better, "worse": r.worse, "reference": r.reference,
               "other_sets": {column[:-len("_under")]: list(getattr(r, column))
                              for column in concluded.VERDICTS.values()}}
        if with_p:
            row["p_adjusted"] = {k: _scalar(v) for k, v in r.p_adjusted.items()}
        rows.append(row)
    return rows


def compare_judges(sets: JudgmentSets, runs: Any, measures: Sequence[str] | str, *,
                   conventions: Conventions | None = None, topics: str = "common", top_k: int = DEFAULT_TOP_K,
                   settings: Mapping[str, Any] | None = None, confidence: float | None = None,
                   lam: float | None = None, distance: str = "grade") -> JudgesComparison:
    """Compare what several judgment sets say about the runs.

    Parameters
    ----------
    sets : JudgmentSets
    runs : Run, path, or a sequence or mapping of them
    measures : str or sequence of str
    conventions : Conventions, optional
        The relevance level is also that of binary kappa and of the topics' disagreement. Without
        ``complete``, runs evaluated on different topics under a set are refused (as by
        :func:`metrics.stats.significance.compare_systems`); with it, a topic a set judged scores 0 for a run
        that did not answer it (trec_eval ``-c``), and :attr:`JudgesComparison.unanswered` counts those.
    topics : {"common", "each"}, default="common"
        The topics the orders, tests and judged counts are over: those every set judged, one topic set for
        every pair of sets, or each set's own (see :mod:`metrics.judgments.systems`).
    top_k : int, default=5
    settings : mapping, optional
        Keywords of :func:`metrics.stats.significance.compare_systems` for the tests under each set.
    confidence : float, optional
        Of the prediction-powered intervals; default ``1 - alpha`` of the tests (0.95).
    lam : float, optional
        The prediction-powered power-tuning weight (:func:`~metrics.judgments.ppi.ppi_mean`).
    distance : {"grade", "position"}, default="grade"
        The scale of weighted kappa (:mod:`metrics.judgments.labels`).

    Returns
    -------
    JudgesComparison

    Raises
    ------
    MissingTopicsError
        Under some set, the runs were evaluated on different topics, and ``conventions.complete`` is off.
    """
    if topics not in systems.TOPIC_RULES:
        raise ValidationError(f"topics: expected one of {', '.join(map(repr, systems.TOPIC_RULES))}, found {topics!r}")
    conventions = Conventions.coerce(conventions)
    settings = dict(settings or {})
    labelled = [label for label, _ in resolve_measures(measures)]
    per_query = systems.evaluate_sets(sets, runs, [*labelled, *support.support_measures(labelled)],
                                      conventions=conventions, topics="each")
    if not conventions.complete:
        systems.check_answered(per_query)
    compared = systems.on_topics(per_query, sets.common_topics()) if topics == "common" else per_query
    measured = compared[compared["measure"].isin(labelled)]
    orders = systems.system_orders(measured, labelled)
    tests = concluded.set_tests(measured, labelled, **settings)
    level = conventions.relevance_level
    if confidence is None:
        confidence = 1.0 - float(settings.get("alpha", 0.05))
    reference, found_ppi = sets.reference, {}
    own = set(sets.topics(reference))
    for name in sets.names[1:]:
        theirs = set(sets.topics(name))
        if len(theirs - own) >= 1 and len(theirs & own) >= 2:
            found_ppi[name] = ppi.ppi_systems(per_query, reference, name, labelled, confidence=confidence, lam=lam)
    return JudgesComparison(
        sets=sets, measures=tuple(labelled), topics=topics, per_query=per_query,
        labels=labels.label_agreement(sets, relevance_level=level, distance=distance),
        alpha=labels.alpha_of_sets(sets), orders=orders,
        agreement=systems.order_agreement(orders, sets.pairs(), top_k=top_k),
        changes=systems.rank_changes(orders, reference), tests=tests,
        conclusions=concluded.conclusions(tests, orders, reference),
        unanswered=systems.unanswered(compared),
        judged=support.judged_support(compared, labelled),
        disagreement=disagreement.topic_disagreement(sets, relevance_level=level),
        ppi=found_ppi,
        settings={**settings, "top_k": int(top_k), "confidence": confidence, "lam": lam, "distance": distance},
        conventions=conventions)
