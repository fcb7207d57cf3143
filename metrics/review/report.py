"""The numbers of a report: read the files, rank, evaluate, test, describe the collection, record the manifest.

:func:`compute_report` reads each file once and returns a :class:`ReportData` (frozen): the per-topic and
summary tables, the results table of :mod:`metrics.review.compare` (with its markers), the comparisons of
:mod:`metrics.stats.significance`, the curves, the lint findings and the manifest. Nothing here renders: the
dashboard draws a ``ReportData`` as one HTML page and writes its exports.

Which measures the paired tests compare, and on which topics, is decided once in
:mod:`metrics.stats.significance.topics` (re-exported here), for the report and for the dashboard's pages alike:

* :func:`paired_measures`: means of per-topic values are tested; counts and sums are not.
* :func:`paired_conventions`: a paired test needs every system's value on every topic, so when the systems
  answered different topics (and the conventions do not already ask for complete topics) the tests
  evaluate with ``complete=True`` (trec_eval ``-c``), where a topic a run did not answer scores 0.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Union

import numpy as np
import pandas as pd

from metrics.checks import COUNT, LEVEL, SEED, checked, refuse
from metrics.conventions import Conventions
from metrics.curves import eleven_point, gain_curves
from metrics.errors import ValidationError
from metrics.evaluate import DEFAULT_MEASURES, per_query_frame, rank_runs, resolve_measures, summarise
from metrics.io import Qrels, Run, read_qrels, read_run, system_name
from metrics.measures import Measure
from metrics.rankings import Rankings
from metrics.review.cautions import Caution, comparison_cautions
from metrics.review.collection import CollectionSummary, describe_collection
from metrics.review.compare import SummaryTable, summary_table
from metrics.review.lint import lint, lint_frame
from metrics.review.manifest import Manifest, build_manifest
from metrics.review.notes import normalise_notes
from metrics.review.provenance import Provenance, build_provenance, topic_counts
from metrics.stats.significance import (CORRECTION_ALIASES, CORRECTIONS, FAMILIES, FAMILY_ALIASES, MAXT, TEST_ALIASES,
                                        TESTS, Comparison, canonical, compare_systems)
from metrics.stats.significance._maxt import MAXT_ALIASES
from metrics.stats.significance.topics import paired_conventions, paired_measures  # the rule of the paired tests

__all__ = ["GAIN_DEPTH", "ReportData", "compute_report", "paired_conventions", "paired_measures"]

Source = Union[str, os.PathLike, bytes, bytearray]
GAIN_DEPTH = 100
"""Largest rank k of the DCG curves a report draws (shorter when no ranking is that long)."""


@dataclass(frozen=True)
class ReportData:
    """Everything a report shows, computed once (see :func:`compute_report`).

    Attributes
    ----------
    manifest : Manifest
    systems : list of str
    labels : list of str
        Measure labels, in the order asked.
    per_query : pandas.DataFrame
        Tidy per-query values (system, query, measure, value).
    summary : pandas.DataFrame
        :func:`metrics.summarise` of ``per_query`` (means with 95% confidence intervals).
    collection : metrics.review.collection.CollectionSummary
    lint : pandas.DataFrame
        :func:`metrics.lint_frame` of the findings.
    eleven_point, gain : pandas.DataFrame
        The averaged curves (columns system, recall, precision / system, k, dcg, idcg, ndcg).
    baseline : str or None
    baseline_comparison, pairwise_comparison : Comparison or None
        Paired tests against the baseline, and between every pair of systems (the same object with two
        systems; None with one system or when the tests could not run).
    table : SummaryTable
        The results table: values, 95% confidence intervals, markers against the baseline.
    tested : list of str
        The measures tested (:func:`paired_measures`).
    untestable : dict
        ``{which tests: reason}`` for comparisons the tests refused (the report says why).
    settings : dict
        test, correction, alpha, seed, n_resamples, family, complete (the tests evaluated with complete
        topics because the systems were not evaluated on the same topics, :func:`paired_conventions`).
    notes : dict
        Review notes (:func:`metrics.review.notes.normalise_notes`).
    conventions : Conventions
    provenance : Provenance or None
        The choices behind every number (:mod:`metrics.review.provenance`), shown beside each table and export.
    cautions : tuple of Caution
        What the numbers do not say (:func:`metrics.review.cautions.comparison_cautions`), never blocking.
    """

    manifest: Manifest
    systems: list[str]
    labels: list[str]
    per_query: pd.DataFrame
    summary: pd.DataFrame
    collection: CollectionSummary
    lint: pd.DataFrame
    eleven_point: pd.DataFrame
    gain: pd.DataFrame
    baseline: str | None
    baseline_comparison: Comparison | None
    pairwise_comparison: Comparison | None
    table: SummaryTable
    tested: list[str]
    untestable: dict[str, str]
    settings: dict[str, Any]
    notes: dict[str, dict[str, Any]]
    conventions: Conventions
    provenance: Provenance | None = None
    cautions: tuple[Caution, ...] = ()

    def grouped_leaderboard(self, measure: str) -> pd.DataFrame | None:
        """The compact letter display of one tested measure: ``system``, ``mean``, ``group`` (systems that
        share a letter are not significantly different; :func:`metrics.stats.significance.grouped_leaderboard`),
        best mean first; None without tests of every pair of systems."""
        if self.pairwise_comparison is None or measure not in self.pairwise_comparison.measures:
            return None
        from metrics.stats.significance import grouped_leaderboard

        return grouped_leaderboard(self.pairwise_comparison, measure)


# ---- the report, step by step --------------------------------------------------------------------------------


@checked(alpha=LEVEL, seed=SEED, n_resamples=COUNT, gain_depth=COUNT)
def compute_report(qrels: Source, runs: Mapping[str, Source] | Sequence[Source],
                   measures: Any = DEFAULT_MEASURES, conventions: Conventions | None = None,
                   baseline: str | None = None, test: str = "t", correction: str = "holm", alpha: float = 0.05,
                   seed: int = 0, notes: Mapping[str, Any] | None = None, *, command: Sequence[str] | None = None,
                   qrels_name: str | None = None, file_names: Mapping[str, str] | None = None,
                   n_resamples: int = 10_000, gain_depth: int = GAIN_DEPTH, family: str = "per_measure",
                   per_query: pd.DataFrame | None = None) -> ReportData:
    """Evaluate runs, test them, describe the collection and record the manifest: every number of a report.

    Parameters
    ----------
    qrels : path or bytes
        The qrels file (hashed as stored, then read).
    runs : mapping of str to path or bytes, or sequence of paths
        ``{system name: run file}``; a sequence of paths names each system after its file
        (``bm25.run.gz`` is ``bm25``).
    measures : str, Measure or a sequence of them, default=("AP", "nDCG@10", "P@10", "R@100", "RR")
        As for :func:`metrics.evaluate`.
    conventions : Conventions, optional
        Default ``Conventions()`` (trec_eval 9).
    baseline : str, optional
        The system the others are tested against (default: the first system).
    test : str, default="t"
        Paired test of :func:`metrics.stats.significance.compare_systems`.
    correction : str, default="holm"
        Multiple-comparison correction, any of :func:`metrics.stats.significance.compare_systems` (``maxt`` with
        ``test="permutation"`` only).
    alpha : float, default=0.05
    seed : int, default=0
        Seed of randomised tests (recorded in the manifest).
    notes : mapping, optional
        Review notes ``{topic: {"tags": [...], "comment": "..."}}`` (see
        :func:`metrics.review.notes.normalise_notes`).
    command : sequence of str, optional
        The command line that made the report, recorded in the manifest.
    qrels_name : str, optional
        The qrels file name when ``qrels`` is bytes.
    file_names : mapping of str to str, optional
        ``{system: file name}`` for runs given as bytes.
    n_resamples : int, default=10000
        Resamples of randomisation and bootstrap tests.
    gain_depth : int, default=100
        Largest rank k of the DCG curves.
    family : {"per_measure", "all"}, default="per_measure"
        The tests a correction counts together, as in :func:`metrics.stats.significance.compare_systems`.
    per_query : pandas.DataFrame, optional
        The per-topic values of these runs, measures and conventions computed elsewhere (on workers by
        :func:`metrics.scale.evaluate_parallel`, or read back with :func:`metrics.scale.read_dataset`),
        used instead of evaluating the rankings here. It must hold exactly the systems and the measure
        labels of the report; its rows are put in the report's order (systems as given, measures as asked).
        The runs are still read and ranked for the curves, the collection and the lint findings.

    Returns
    -------
    ReportData

    Raises
    ------
    RankscopeError
        Unreadable input (ParseError), a baseline that is not a system, a bad option or malformed notes
        (ValidationError), an unknown measure (UnknownMeasureError).

    Notes
    -----
    The tests compare :func:`paired_measures` only, on the topics :func:`paired_conventions` gives; a
    comparison the tests refuse (too few topics, say) is explained in ``untestable`` instead of stopping
    the report.
    """
    conventions = Conventions.coerce(conventions)
    settings = _test_settings(test, correction, alpha, seed, n_resamples, family)
    notes = normalise_notes(notes)
    sources = _run_sources(runs)
    pairs = resolve_measures(measures)

    judged, read = _read(qrels, sources, qrels_name)
    systems = [r.name for r in read]
    baseline = _baseline(baseline, systems)
    ranked = rank_runs(judged, read, conventions)
    per_query = _evaluate(ranked, pairs) if per_query is None else _given(per_query, ranked, pairs)
    summary = summarise(per_query)
    tests = _test(judged, read, ranked, per_query, pairs, conventions, baseline, settings)
    eleven, gain = _curves(ranked, gain_depth)
    collection = describe_collection(judged, read)
    findings = lint_frame(lint(judged, read, ranked))
    labels = [label for label, _ in pairs]
    manifest = build_manifest(qrels, sources, labels, conventions,
                              seeds={"compare": settings["seed"]} if tests.families else None, command=command,
                              qrels_name=qrels_name, file_names=file_names, tests=tests.manifest_record(),
                              ir_metadata={run.name: run.metadata for run in read})
    return ReportData(manifest=manifest, systems=systems, labels=labels, per_query=per_query, summary=summary,
                      collection=collection, lint=findings, eleven_point=eleven, gain=gain, baseline=baseline,
                      baseline_comparison=tests.against_baseline, pairwise_comparison=tests.every_pair,
                      table=summary_table(tests.against_baseline, summary, baseline=baseline),
                      tested=tests.measures, untestable=tests.untestable, settings=tests.settings, notes=notes,
                      conventions=conventions, **_card(conventions, pairs, per_query, tests))


# ---- options --------------------------------------------------------------------------------------------------


def _test_settings(test: Any, correction: Any, alpha: Any, seed: Any, n_resamples: Any,
                   family: Any = "per_measure") -> dict[str, Any]:
    """The tests' options named as :func:`metrics.stats.significance.compare_systems` names them (the same
    tests, corrections and families); the numbers are checked by :func:`compute_report`'s declaration."""
    test = canonical(test, TESTS, TEST_ALIASES, "test")
    correction = canonical(correction, CORRECTIONS + (MAXT,),
                           {**CORRECTION_ALIASES, **dict.fromkeys(MAXT_ALIASES, MAXT)}, "correction")
    if correction == MAXT and test != "permutation":
        raise ValidationError(f"the maxt correction resamples the permutation test's sign flips: use test "
                              f"'permutation', not {test!r}")
    family = canonical(family, FAMILIES, FAMILY_ALIASES, "family")
    return {"test": test, "correction": "none" if test == "tukey" else correction, "alpha": float(alpha),
            "seed": seed, "n_resamples": n_resamples, "family": family}


def _run_sources(runs: Mapping[str, Source] | Sequence[Source]) -> dict[str, Source]:
    """``{system: source}`` from a mapping, or from paths named after their files."""
    if isinstance(runs, Mapping):
        out = {}
        for name, src in runs.items():
            if not isinstance(name, str) or not name.strip():
                raise refuse("system names", "non-empty text", name)
            out[name] = src
    elif isinstance(runs, (str, bytes, bytearray)) or hasattr(runs, "__fspath__"):
        raise refuse("runs", "a mapping {system: path or bytes} or a list of paths", runs)
    else:
        out = {}
        for src in runs:
            if not isinstance(src, (str, os.PathLike)):
                raise ValidationError("a list of runs must hold paths; give bytes as a mapping {system: bytes}")
            name = system_name(Path(src).name)
            if name in out:
                raise ValidationError(f"two runs would both be called {name!r}; give a mapping {{system: path}}")
            out[name] = src
    if not out:
        raise ValidationError("no runs given")
    return out


def _baseline(baseline: str | None, systems: list[str]) -> str | None:
    """The system the others are tested against: the one named, else the first of several."""
    if baseline is not None and baseline not in systems:
        raise ValidationError(f"the baseline {baseline!r} is not one of the systems {systems}")
    if baseline is None and len(systems) > 1:
        return systems[0]
    return baseline


# ---- read, rank, evaluate --------------------------------------------------------------------------------------


def _read(qrels: Source, sources: Mapping[str, Source], qrels_name: str | None) -> tuple[Qrels, list[Run]]:
    judged = read_qrels(qrels, name=qrels_name) if qrels_name else read_qrels(qrels)
    return judged, [read_run(src, name=system) for system, src in sources.items()]


def _evaluate(ranked: Sequence[Rankings], pairs: Sequence[tuple[str, Measure]]) -> pd.DataFrame:
    return pd.concat([per_query_frame(r, pairs) for r in ranked], ignore_index=True)


def _given(per_query: pd.DataFrame, ranked: Sequence[Rankings], pairs: Sequence[tuple[str, Measure]]) -> pd.DataFrame:
    """A per-query table computed elsewhere, checked against the report's systems, topics and measures and put in
    the order :func:`_evaluate` gives (systems as given, each run's topics in its order, measures as asked)."""
    labels = [label for label, _ in pairs]
    systems = [r.system for r in ranked]
    found_systems, found_labels = set(per_query["system"]), set(per_query["measure"])
    if found_systems != set(systems) or found_labels != set(labels):
        raise ValidationError(f"per_query: expected systems {sorted(systems)} and measures {sorted(labels)}, found "
                              f"{sorted(found_systems)} and {sorted(found_labels)}")
    parts = []
    for r in ranked:
        part = per_query[per_query["system"] == r.system]
        if len(part) != r.n_queries * len(labels) or set(part["query"]) != set(r.queries.tolist()):
            raise ValidationError(f"per_query: expected the {r.n_queries} topics of system {r.system!r} for each "
                                  f"measure, found {len(part)} rows on {part['query'].nunique()} topics")
        query_rank = {q: i for i, q in enumerate(r.queries.tolist())}
        measure_rank = {label: i for i, label in enumerate(labels)}
        keys = part["query"].map(query_rank).to_numpy() * len(labels) + part["measure"].map(measure_rank).to_numpy()
        parts.append(part.iloc[np.argsort(keys, kind="stable")])
    return pd.concat(parts, ignore_index=True)[["system", "query", "measure", "value"]]


# ---- test ------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Tests:
    """The paired tests of a report and the settings they ran with."""

    measures: list[str]
    settings: dict[str, Any]
    baseline: str | None
    untestable: dict[str, str]
    against_baseline: Comparison | None = None
    every_pair: Comparison | None = None

    @property
    def families(self) -> list[str | None]:
        """The baselines of the comparisons made (None: every pair), each once."""
        made = ((self.baseline, self.against_baseline), (None, self.every_pair))
        return [b for b, c in made if c is not None and (b is not None or c is not self.against_baseline)]

    def manifest_record(self) -> dict[str, Any] | None:
        """The ``tests`` of :func:`metrics.review.manifest.build_manifest` (None when nothing was tested)."""
        if not self.families:
            return None
        return {**{k: self.settings[k] for k in ("test", "correction", "alpha", "n_resamples", "family",
                                                 "complete")},
                "measures": self.measures, "seed": self.settings["seed"], "baselines": self.families}


def _test(judged: Qrels, read: Sequence[Run], ranked: Sequence[Rankings], per_query: pd.DataFrame,
          pairs: Sequence[tuple[str, Measure]], conventions: Conventions, baseline: str | None,
          settings: dict[str, Any]) -> _Tests:
    """Paired tests against the baseline and between every pair, on the testable measures and topics."""
    tested = paired_measures(pairs)
    labels = [label for label, _ in tested]
    paired = paired_conventions(conventions, ranked)
    settings = {**settings, "complete": paired.complete and not conventions.complete}
    untestable: dict[str, str] = {}
    if len(ranked) < 2:
        return _Tests(labels, settings, baseline, untestable)
    if not tested:
        untestable["the tests"] = "not run: no measure asked is a mean of per-topic values (counts and sums " \
                                  "are not tested)"
        return _Tests(labels, settings, baseline, untestable)
    if settings["complete"]:
        values = _evaluate(rank_runs(judged, read, paired), tested)
    else:
        values = per_query[per_query["measure"].isin(labels)]
    against = _compare(values, labels, baseline, settings, untestable, "against the baseline")
    every = _compare(values, labels, None, settings, untestable, "between every pair") if len(ranked) > 2 \
        else against
    return _Tests(labels, settings, baseline, untestable, against, every)


def _compare(values: pd.DataFrame, labels: list[str], baseline: str | None, settings: dict[str, Any],
             untestable: dict[str, str], what: str) -> Comparison | None:
    """One family of tests; a comparison the tests refuse is recorded in ``untestable`` instead."""
    try:
        return compare_systems(values, measures=labels, test=settings["test"], baseline=baseline,
                               correction=settings["correction"], family=settings["family"], alpha=settings["alpha"],
                               seed=settings["seed"], n_resamples=settings["n_resamples"])
    except ValidationError as err:
        untestable.setdefault(f"the tests {what}", f"not run: {err}")
        return None


def _card(conventions: Conventions, pairs: Sequence[tuple[str, Measure]], per_query: pd.DataFrame,
          tests: _Tests) -> dict[str, Any]:
    """The provenance card and the cautions of a report (the report shows its card, so nDCG's gain is stated)."""
    topics = topic_counts(per_query)
    made = [c for c in (tests.against_baseline, tests.every_pair) if c is not None]
    test = tests.settings["test"] if made else None
    card = build_provenance(conventions, pairs, topics=topics, test=test, correction=tests.settings["correction"],
                            family=tests.settings["family"])
    cautions = comparison_cautions(pairs, test=test, correction=tests.settings["correction"],
                                   tests=max((len(c.frame) for c in made), default=0),
                                   topics=max(topics.values(), default=0), gain_stated=True)
    return {"provenance": card, "cautions": tuple(cautions)}


# ---- describe ----------------------------------------------------------------------------------------------------


def _curves(ranked: Sequence[Rankings], gain_depth: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The 11-point interpolated precision-recall curves and the DCG / ideal DCG curves, averaged over topics."""
    points = eleven_point(ranked)
    points = points[points["query"] == "all"].rename(columns={"iprec": "precision"})
    points = points[["system", "recall", "precision"]].reset_index(drop=True)
    longest = max((int(np.max(np.diff(r.offsets))) if r.n_queries else 1) for r in ranked)
    gain = gain_curves(ranked, depth=max(1, min(gain_depth, longest)))
    gain = gain[gain["query"] == "all"][["system", "k", "dcg", "idcg", "ndcg"]].reset_index(drop=True)
    return points, gain
