"""Paired tests between systems and what carries them: the corrected comparison (run in a worker for the
resampling tests), the results table with its markers, the tests' result in sentences, compact letter groups,
power and topic-set size, and the report, which tests the same measures on the same topics (one rule,
:mod:`metrics.review.report`), with the session file.
"""

from __future__ import annotations

import pandas as pd

from metrics.review import compare
from metrics.teaching import worked as worked_module
from metrics.review.report import compute_report
from metrics.stats.significance import TEST_REGISTRY, Comparison

from dashboard.data.cache import on_collection
from dashboard.data.constants import RESAMPLED, SEED
from dashboard.data.measures import labels, per_query, summary, tested_on_every_topic
from dashboard.server import guard
from dashboard.session.state import Loaded


@on_collection(max_entries=64, show_spinner="Testing…")
def comparison(loaded: Loaded, measures: tuple[str, ...], test: str, baseline: str | None, correction: str,
               alpha: float, family: str = "per_measure") -> Comparison:
    """Paired tests between systems (all pairs, or each against ``baseline``), corrected over each measure
    (``family="per_measure"``) or over all of them together (``"all"``, :data:`FAMILIES`).

    :func:`metrics.review.compare.results_comparison` (the notebook's too) chooses and runs the tests: the
    measures of :func:`metrics.review.compare.measures_tested` (means of per-topic values), on the topics of
    :func:`tested_on_every_topic`. Raises
    :class:`metrics.ValidationError` when there is nothing to test (one system, one topic, no measure
    averaged over topics).
    """
    compare.measures_tested(measures)  # nothing to test: said here, before any evaluation
    values = per_query(tested_on_every_topic(loaded), tuple(measures))
    return guard.call(f"the {TEST_REGISTRY.get(test).phrase}", compare.results_comparison, values, tuple(measures),
                      test=test, baseline=baseline, correction=correction, family=family, alpha=float(alpha),
                      seed=SEED, in_process=test not in RESAMPLED)


def results(loaded: Loaded, measures: tuple[str, ...], baseline: str | None, test: str, correction: str = "holm",
            alpha: float = 0.05) -> tuple[compare.SummaryTable, str | None]:
    """Systems × measures with their intervals and the markers of significant differences (metrics.review.compare).

    Against ``baseline``, or letters for all pairs when it is None; counts and sums carry no markers
    (:func:`metrics.review.compare.marked_results`, the notebook's rule too). Returns the table and, when
    nothing could be tested (one system, one topic, no measure averaged over topics), the reason instead of
    markers.
    """
    return compare.marked_results(summary(loaded, measures),
                                  lambda: comparison(loaded, measures, test, baseline, correction, alpha),
                                  baseline=baseline)


def reading(tested: Comparison) -> tuple[str, ...]:
    """The tests' result in plain sentences (metrics.teaching.worked.comparison_in_words)."""
    return worked_module.comparison_in_words(tested)


# ---- the report and its exports ---------------------------------------------------------------------------
@on_collection(max_entries=8, show_spinner="Preparing the report (every number recomputed from the files)…",
               resource=True)
def _report(loaded: Loaded, measures: tuple[str, ...], baseline: str | None, test: str, correction: str,
            alpha: float, notes_json: str, family: str):
    import json

    sources = {name: up.data for name, up in loaded.runs}
    what = f"the report on {loaded.qrels.name} and {len(sources)} run{'s' * (len(sources) != 1)}"
    return guard.call(what, compute_report, loaded.qrels.data, sources, list(measures), loaded.conventions,
                      baseline, test, correction, alpha, SEED, json.loads(notes_json), qrels_name=loaded.qrels.name,
                      file_names={name: up.name for name, up in loaded.runs}, family=family,
                      in_process=guard.small(loaded.qrels.data, *sources.values()) and test not in RESAMPLED)


def report(loaded: Loaded, measures: tuple[str, ...], baseline: str | None, test: str, correction: str, alpha: float,
           notes: dict, family: str = "per_measure"):
    """Everything the HTML report shows, with its manifest (:func:`metrics.review.report.compute_report`);
    shared between sessions, the notes in a canonical spelling."""
    import json

    return _report(loaded, tuple(measures), baseline, test, correction, float(alpha),
                   json.dumps(notes, sort_keys=True), family)


def session_file(loaded: Loaded, notes: dict, view: dict, manifest=None, judging=()) -> bytes:
    """This session as a JSON file: file names and digests, conventions, notes, view and manifest; with
    ``judging`` (:class:`dashboard.exports.judgments.TaskRecord`), the judging tasks' judgments."""
    from dashboard import exports
    from dashboard.exports.judgments import session_judging

    digests = {"qrels": loaded.qrels.digest, **{name: up.digest for name, up in loaded.runs}}
    return exports.session_to_json({name: up.name for name, up in loaded.runs}, loaded.conventions, notes, view,
                                   qrels_name=loaded.qrels.name, digests=digests, manifest=manifest,
                                   judging=session_judging(judging))


@on_collection(max_entries=32, show_spinner="Grouping the systems…")
def letter_groups(loaded: Loaded, measures: tuple[str, ...], test: str, correction: str, alpha: float,
                  family: str = "per_measure") -> dict[str, pd.DataFrame]:
    """Per tested measure, the compact letter display (system, mean, group) of the corrected tests of every
    pair (:func:`comparison` without a baseline; :func:`metrics.stats.significance.grouped_leaderboard`): two
    systems share a letter when their difference is not significant."""
    from metrics.stats.significance import grouped_leaderboard

    tested = comparison(loaded, tuple(measures), test, None, correction, float(alpha), family)
    return {m: grouped_leaderboard(tested, m) for m in tested.measures}  # best first as each measure declares


@on_collection(max_entries=32, show_spinner="Weighing the power…")
def power(loaded: Loaded, measure: str, alpha: float, power: float, effect: float | None = None):
    """Minimum detectable effects, topics needed for ``effect`` (t-test and ANOVA) and each pair's post hoc
    power, on the topics of :func:`tested_on_every_topic` (:func:`metrics.stats.power.power_analysis`)."""
    from metrics.stats.power import power_analysis

    label = labels((measure,))[0]
    return power_analysis(per_query(tested_on_every_topic(loaded), (measure,)), label, alpha=float(alpha),
                          power=float(power), effect=None if effect is None else float(effect))
