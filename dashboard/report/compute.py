"""The numbers of a report: evaluate the runs, test them, describe the collection, record the manifest.

:func:`compute_report` reads the files once and returns a :class:`ReportData` (frozen): the per-topic and
summary tables, the results table of :mod:`metrics.compare` (with its markers), the comparisons of
:mod:`metrics.significance`, the curves, the lint findings and the manifest. :func:`build_report` renders
it as one self-contained HTML page (:func:`dashboard.report.page.render_report`); the other exports read
the same object (:func:`dashboard.report.files.report_files`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Union

import numpy as np
import pandas as pd

import metrics
from metrics import Conventions, ValidationError
from metrics.collection import describe_collection
from metrics.compare import SummaryTable, summary_table
from metrics.evaluate import DEFAULT_MEASURES, per_query_frame, resolve_measures
from metrics.manifest import Manifest, build_manifest
from metrics.significance import Comparison

from dashboard.exports.notes import normalise_notes

__all__ = ["GAIN_DEPTH", "ReportData", "build_report", "compute_report", "write_report"]

Source = Union[str, os.PathLike, bytes, bytearray]
GAIN_DEPTH = 100
_TEST_ALIASES = {"randomization": "permutation", "randomisation": "permutation"}
_CORRECTION_ALIASES = {"fdr_bh": "bh", "fdr_by": "by"}


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
    collection : metrics.collection.CollectionSummary
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
        The measures tested (means of per-topic values; counts and sums are not tested).
    untestable : dict
        ``{which tests: reason}`` for comparisons the tests refused (the report says why).
    settings : dict
        test, correction, alpha, seed, n_resamples, family, complete (the tests evaluated with complete
        topics because the systems were not evaluated on the same topics).
    notes : dict
        Normalised review notes.
    conventions : Conventions
    """

    manifest: Manifest
    systems: list
    labels: list
    per_query: pd.DataFrame
    summary: pd.DataFrame
    collection: Any
    lint: pd.DataFrame
    eleven_point: pd.DataFrame
    gain: pd.DataFrame
    baseline: str | None
    baseline_comparison: Comparison | None
    pairwise_comparison: Comparison | None
    table: SummaryTable
    tested: list
    untestable: dict
    settings: dict
    notes: dict
    conventions: Conventions


def compute_report(qrels: Source, runs: Mapping[str, Source] | Sequence[Source],
                   measures: Any = DEFAULT_MEASURES, conventions: Conventions | None = None,
                   baseline: str | None = None, test: str = "t", correction: str = "holm", alpha: float = 0.05,
                   seed: int = 0, notes: Mapping[str, Any] | None = None, *, command: Sequence[str] | None = None,
                   qrels_name: str | None = None, file_names: Mapping[str, str] | None = None,
                   n_resamples: int = 10_000, gain_depth: int = GAIN_DEPTH) -> ReportData:
    """Evaluate, test and describe a collection: the numbers of :func:`build_report`, without the HTML.

    Parameters are those of :func:`build_report`.
    """
    from metrics.curves import eleven_point, gain_curves
    from metrics.significance import CORRECTIONS, TESTS

    conventions = Conventions.coerce(conventions)
    if not isinstance(alpha, (int, float)) or isinstance(alpha, bool) or not 0.0 < float(alpha) < 1.0:
        raise ValidationError(f"alpha must be between 0 and 1, got {alpha!r}")
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValidationError(f"seed must be a non-negative integer, got {seed!r}")
    if not isinstance(gain_depth, int) or isinstance(gain_depth, bool) or gain_depth < 1:
        raise ValidationError(f"gain_depth must be a positive integer, got {gain_depth!r}")
    test = _TEST_ALIASES.get(str(test).lower(), str(test).lower()) if isinstance(test, str) else test
    correction = _CORRECTION_ALIASES.get(str(correction).lower(), str(correction).lower()) \
        if isinstance(correction, str) else correction
    if test not in TESTS:
        raise ValidationError(f"test must be one of {list(TESTS)}, got {test!r}")
    if correction not in CORRECTIONS:
        raise ValidationError(f"correction must be one of {list(CORRECTIONS)}, got {correction!r}")
    sources = _run_sources(runs)
    pairs = resolve_measures(measures)
    labels = [label for label, _ in pairs]
    qrels_obj = metrics.read_qrels(qrels, name=qrels_name) if qrels_name else metrics.read_qrels(qrels)
    run_objs = [metrics.read_run(src, name=system) for system, src in sources.items()]
    systems = [r.name for r in run_objs]
    if baseline is not None and baseline not in systems:
        raise ValidationError(f"the baseline {baseline!r} is not one of the systems {systems}")
    if baseline is None and len(systems) > 1:
        baseline = systems[0]
    rankings = metrics.rank_runs(qrels_obj, run_objs, conventions)
    per_query = pd.concat([per_query_frame(r, pairs) for r in rankings], ignore_index=True)
    summary = metrics.summarise(per_query)
    findings = metrics.lint_frame(metrics.lint(qrels_obj, run_objs, rankings))
    collection = describe_collection(qrels_obj, run_objs)

    points = eleven_point(rankings)
    points = points[points["query"] == "all"].rename(columns={"iprec": "precision"})
    points = points[["system", "recall", "precision"]].reset_index(drop=True)
    longest = max((int(np.max(np.diff(r.offsets))) if r.n_queries else 1) for r in rankings)
    gain = gain_curves(rankings, depth=max(1, min(gain_depth, longest)))
    gain = gain[gain["query"] == "all"][["system", "k", "dcg", "idcg", "ndcg"]].reset_index(drop=True)

    tested = [label for label, m in pairs if m.aggregation == "mean" and not m.integer]
    answered = per_query.groupby("system", sort=False)["query"].agg(frozenset)
    complete_tests = not conventions.complete and answered.nunique() > 1
    settings = {"test": test, "correction": "none" if test == "tukey" else correction, "alpha": float(alpha),
                "seed": seed, "n_resamples": n_resamples, "family": "per_measure", "complete": complete_tests}
    baseline_comparison = pairwise_comparison = None
    untestable: dict[str, str] = {}
    if len(systems) > 1 and tested:
        tested_pairs = [(label, m) for label, m in pairs if label in tested]
        if complete_tests:  # paired tests need every system on every topic: score unanswered topics 0 (-c)
            ranked = metrics.rank_runs(qrels_obj, run_objs, replace(conventions, complete=True))
            test_values = pd.concat([per_query_frame(r, tested_pairs) for r in ranked], ignore_index=True)
        else:
            test_values = per_query[per_query["measure"].isin(tested)]
        baseline_comparison = _compare(test_values, tested, baseline, settings, untestable, "against the baseline")
        pairwise_comparison = _compare(test_values, tested, None, settings, untestable, "between every pair") \
            if len(systems) > 2 else baseline_comparison
    table = summary_table(baseline_comparison, summary, baseline=baseline)

    tests = None
    families = [b for b, c in ((baseline, baseline_comparison), (None, pairwise_comparison))
                if c is not None and (b is not None or c is not baseline_comparison)]
    if families:
        tests = {"test": test, "correction": settings["correction"], "alpha": float(alpha),
                 "n_resamples": n_resamples, "family": settings["family"], "complete": complete_tests,
                 "measures": tested, "seed": seed, "baselines": families}
    manifest = build_manifest(qrels, sources, labels, conventions,
                              seeds={"compare": seed} if tests else None, command=command,
                              qrels_name=qrels_name, file_names=file_names, tests=tests)
    return ReportData(manifest=manifest, systems=systems, labels=labels, per_query=per_query, summary=summary,
                      collection=collection, lint=findings, eleven_point=points, gain=gain, baseline=baseline,
                      baseline_comparison=baseline_comparison, pairwise_comparison=pairwise_comparison,
                      table=table, tested=tested, untestable=untestable, settings=settings,
                      notes=normalise_notes(notes),
                      conventions=conventions)


def build_report(qrels: Source, runs: Mapping[str, Source] | Sequence[Source], measures: Any = DEFAULT_MEASURES,
                 conventions: Conventions | None = None, baseline: str | None = None, test: str = "t",
                 correction: str = "holm", alpha: float = 0.05, seed: int = 0,
                 notes: Mapping[str, Any] | None = None, *, title: str = "rankscope report",
                 command: Sequence[str] | None = None, qrels_name: str | None = None,
                 file_names: Mapping[str, str] | None = None, n_resamples: int = 10_000,
                 gain_depth: int = GAIN_DEPTH) -> str:
    """Evaluate runs and return one self-contained HTML report.

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
        Paired test of :func:`metrics.significance.compare_systems`.
    correction : str, default="holm"
        Multiple-comparison correction.
    alpha : float, default=0.05
    seed : int, default=0
        Seed of randomised tests (recorded in the manifest).
    notes : mapping, optional
        Review notes ``{topic: {"tags": [...], "comment": "..."}}`` (see
        :func:`dashboard.exports.notes.normalise_notes`).
    title : str, default="rankscope report"
    command : sequence of str, optional
        The command line that made the report, recorded in the manifest.
    qrels_name : str, optional
        The qrels file name when ``qrels`` is bytes.
    file_names : mapping of str to str, optional
        ``{system: file name}`` for runs given as bytes.
    n_resamples : int, default=10000
        Resamples of randomisation and bootstrap tests.
    gain_depth : int, default=100
        Largest rank k drawn in the DCG figure.

    Returns
    -------
    str
        The HTML document (UTF-8 text; write it with ``encoding="utf-8"``).

    Raises
    ------
    RankscopeError
        Unreadable input (ParseError), a baseline that is not a system, a bad option (ValidationError),
        an unknown measure.
    """
    from dashboard.report.page import render_report

    data = compute_report(qrels, runs, measures, conventions, baseline, test, correction, alpha, seed, notes,
                          command=command, qrels_name=qrels_name, file_names=file_names,
                          n_resamples=n_resamples, gain_depth=gain_depth)
    return render_report(data, title=title)


def write_report(path: str | os.PathLike, *args: Any, **kwargs: Any) -> int:
    """Write :func:`build_report`'s HTML to ``path`` (UTF-8); returns the size in bytes."""
    text = build_report(*args, **kwargs).encode("utf-8")
    Path(path).write_bytes(text)
    return len(text)


# ---- significance ---------------------------------------------------------------------------------------


def _compare(per_query: pd.DataFrame, tested: list[str], baseline: str | None, settings: dict,
             untestable: dict[str, str], what: str) -> Comparison | None:
    """Paired tests through :func:`metrics.significance.compare_systems`.

    A comparison the tests refuse is reported in ``untestable`` instead of stopping the report.
    """
    from metrics.significance import compare_systems

    try:
        result = compare_systems(per_query, measures=tested, test=settings["test"], baseline=baseline,
                                 correction=settings["correction"], family=settings["family"],
                                 alpha=settings["alpha"], seed=settings["seed"], n_resamples=settings["n_resamples"])
    except ValidationError as err:
        untestable.setdefault(f"the tests {what}", f"not run: {err}")
        return None
    return result


# ---- inputs ---------------------------------------------------------------------------------------------


def _run_sources(runs: Mapping[str, Source] | Sequence[Source]) -> dict[str, Source]:
    """``{system: source}`` from a mapping, or from paths named after their files."""
    from metrics.io import _system_name

    if isinstance(runs, Mapping):
        out = {}
        for name, src in runs.items():
            if not isinstance(name, str) or not name.strip():
                raise ValidationError(f"system names must be non-empty text, got {name!r}")
            out[name] = src
    elif isinstance(runs, (str, bytes, bytearray)) or hasattr(runs, "__fspath__"):
        raise ValidationError("runs must be a mapping {system: path or bytes} or a list of paths")
    else:
        out = {}
        for src in runs:
            if not isinstance(src, (str, os.PathLike)):
                raise ValidationError("a list of runs must hold paths; give bytes as a mapping {system: bytes}")
            name = _system_name(Path(src).name)
            if name in out:
                raise ValidationError(f"two runs would both be called {name!r}; give a mapping {{system: path}}")
            out[name] = src
    if not out:
        raise ValidationError("no runs given")
    return out
