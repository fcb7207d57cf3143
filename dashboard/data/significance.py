"""Paired tests between systems and what carries them: the corrected comparison (run in a worker for the
resampling tests), the results table with its markers, the tests' result in sentences, and the report, which
tests the same measures on the same topics (one rule, :mod:`metrics.review.report`), with the session file.
"""

from __future__ import annotations

import streamlit as st

import metrics
from metrics.review import compare
from metrics.teaching import worked as worked_module
from metrics.review.report import compute_report, paired_measures
from metrics.stats.significance import Comparison, compare_systems

from dashboard import guard
from dashboard.data.constants import RESAMPLED, SEED, TESTS
from dashboard.data.measures import per_query, summary, tested_on_every_topic
from dashboard.state import Loaded


@st.cache_data(max_entries=64, show_spinner="Testing…")
def _comparison(key: tuple, measures: tuple[str, ...], test: str, baseline: str | None, correction: str,
                alpha: float, _loaded: Loaded, family: str = "per_measure") -> Comparison:
    tested = [label for label, _ in paired_measures(metrics.resolve_measures(list(measures)))]
    if not tested:
        raise metrics.ValidationError(f"{', '.join(measures)}: only means of per-topic values are tested "
                                      "(counts and sums are not)")
    values = per_query(tested_on_every_topic(_loaded), measures)
    return guard.call(f"the {TESTS.get(test, test)} test", compare_systems, values, measures=tested, test=test,
                      baseline=baseline, correction=correction, family=family, alpha=alpha, seed=SEED,
                      in_process=test not in RESAMPLED)


def comparison(loaded: Loaded, measures: tuple[str, ...], test: str, baseline: str | None, correction: str,
               alpha: float, family: str = "per_measure") -> Comparison:
    """Paired tests between systems (all pairs, or each against ``baseline``), corrected over each measure
    (``family="per_measure"``) or over all of them together (``"all"``, :data:`FAMILIES`).

    The report's rule chooses what is tested: the measures of :func:`metrics.review.report.paired_measures`
    (means of per-topic values), on the topics of :func:`tested_on_every_topic`. Raises
    :class:`metrics.ValidationError` when there is nothing to test (one system, one topic, no measure
    averaged over topics).
    """
    return _comparison(loaded.key, tuple(measures), test, baseline, correction, float(alpha), loaded, family)


def results(loaded: Loaded, measures: tuple[str, ...], baseline: str | None, test: str, correction: str = "holm",
            alpha: float = 0.05) -> tuple[compare.SummaryTable, str | None]:
    """Systems × measures with their intervals and the markers of significant differences (metrics.review.compare).

    Against ``baseline``, or letters for all pairs when it is None; counts and sums carry no markers
    (:func:`metrics.review.report.paired_measures`). Returns the table and, when nothing could be tested (one
    system, one topic, no measure averaged over topics), the reason instead of markers.
    """
    means = summary(loaded, measures)
    if len(loaded.systems) < 2:
        return compare.summary_table(None, means), "one system: nothing to compare"
    try:
        tested = comparison(loaded, measures, test, baseline, correction, alpha)
    except metrics.ValidationError as err:
        return compare.summary_table(None, means), str(err)
    return compare.summary_table(tested, means, baseline=baseline), None


def reading(tested: Comparison) -> tuple[str, ...]:
    """The tests' result in plain sentences (metrics.teaching.worked.comparison_in_words)."""
    return worked_module.comparison_in_words(tested)


# ---- the report and its exports ---------------------------------------------------------------------------
@st.cache_resource(max_entries=8, show_spinner="Preparing the report (every number recomputed from the files)…")
def _report(key: tuple, measures: tuple[str, ...], baseline: str | None, test: str, correction: str, alpha: float,
            notes_json: str, family: str, _loaded: Loaded):
    import json

    sources = {name: up.data for name, up in _loaded.runs}
    what = f"the report on {_loaded.qrels.name} and {len(sources)} run{'s' * (len(sources) != 1)}"
    return guard.call(what, compute_report, _loaded.qrels.data, sources, list(measures), _loaded.conventions,
                      baseline, test, correction, alpha, SEED, json.loads(notes_json), qrels_name=_loaded.qrels.name,
                      file_names={name: up.name for name, up in _loaded.runs}, family=family,
                      in_process=guard.small(_loaded.qrels.data, *sources.values()) and test not in RESAMPLED)


def report(loaded: Loaded, measures: tuple[str, ...], baseline: str | None, test: str, correction: str, alpha: float,
           notes: dict, family: str = "per_measure"):
    """Everything the HTML report shows, with its manifest (:func:`metrics.review.report.compute_report`)."""
    import json

    return _report(loaded.key, tuple(measures), baseline, test, correction, float(alpha),
                   json.dumps(notes, sort_keys=True), family, loaded)


def session_file(loaded: Loaded, notes: dict, view: dict, manifest=None) -> bytes:
    """This session as a JSON file: file names and digests, conventions, notes, view and manifest."""
    from dashboard import exports

    digests = {"qrels": loaded.qrels.digest, **{name: up.digest for name, up in loaded.runs}}
    return exports.session_to_json({name: up.name for name, up in loaded.runs}, loaded.conventions, notes, view,
                                   qrels_name=loaded.qrels.name, digests=digests, manifest=manifest)
