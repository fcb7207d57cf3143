"""metrics.review.report: every number of a report, computed without rendering, and the one rule of the paired tests
(which measures, on which topics)."""

from __future__ import annotations

import dataclasses
import gzip
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import metrics
from metrics import Conventions, ValidationError
from metrics.review.report import (
    GAIN_DEPTH,
    ReportData,
    compute_report,
    paired_conventions,
    paired_measures,
)
from metrics.stats.significance import compare_systems
from tests.metrics.review.report_cases import DIFFERENT, MEASURES, SAME, collection
from tests.paths import ROOT


def test_importing_the_report_leaves_plotly_and_streamlit_out():
    code = ("import sys, metrics.review.report; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'plotly', 'streamlit', 'dashboard', "
            "'rankscope', 'kaleido'}))")
    root = ROOT
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=root).stdout
    assert out.strip() == "[]"


# ---- the rule of the paired tests ---------------------------------------------------------------------------


def test_only_means_of_per_topic_values_are_tested():
    pairs = metrics.resolve_measures(["AP", "num_rel_ret", "P@5", "GMAP", "num_q", "RR"])
    assert [label for label, _ in paired_measures(pairs)] == ["AP", "P@5", "RR"]
    assert paired_measures([]) == []


def test_complete_topics_only_when_the_systems_answered_different_ones():
    qrels, runs = collection(DIFFERENT)
    ranked = metrics.rank_runs(qrels, runs)
    conventions = Conventions()
    assert paired_conventions(conventions, ranked) == dataclasses.replace(conventions, complete=True)
    assert paired_conventions(conventions, ranked[:1]) is conventions
    complete = Conventions(complete=True)
    assert paired_conventions(complete, metrics.rank_runs(qrels, runs, complete)) is complete
    qrels, runs = collection(SAME)
    assert paired_conventions(conventions, metrics.rank_runs(qrels, runs)) is conventions


# ---- the numbers ------------------------------------------------------------------------------------------


def test_the_numbers_are_those_of_evaluate_and_compare_systems():
    qrels, runs = collection(SAME)
    data = compute_report(qrels, runs, MEASURES, seed=2, test="permutation", n_resamples=500)
    assert isinstance(data, ReportData) and data.systems == ["a", "b", "c"] and data.baseline == "a"
    expected = metrics.evaluate(qrels, runs, MEASURES)
    pd.testing.assert_frame_equal(data.per_query, expected)
    pd.testing.assert_frame_equal(data.summary, metrics.summarise(expected))
    assert data.tested == ["AP", "nDCG@10", "P@5"] and not data.settings["complete"]
    tested = expected[expected["measure"].isin(data.tested)]
    for baseline, comparison in (("a", data.baseline_comparison), (None, data.pairwise_comparison)):
        direct = compare_systems(tested, measures=data.tested, test="permutation", baseline=baseline, seed=2,
                                 n_resamples=500)
        pd.testing.assert_frame_equal(comparison.frame, direct.frame)
    assert data.table.measures == data.labels
    tests = dict(data.manifest.tests)
    assert tests["measures"] == data.tested and tests["complete"] is False
    assert dict(data.manifest.seeds) == {"compare": 2}


def test_systems_on_different_topics_are_tested_with_complete_topics():
    qrels, runs = collection(DIFFERENT)
    data = compute_report(qrels, runs, MEASURES)
    assert data.settings["complete"] and dict(data.manifest.tests)["complete"] is True
    assert not data.conventions.complete  # the means leave unanswered topics out ...
    assert data.per_query.groupby("system")["query"].nunique().to_dict() == {"all": 12, "early": 9, "late": 9}
    complete = metrics.evaluate(qrels, runs, data.tested, conventions=Conventions(complete=True))
    direct = compare_systems(complete, measures=data.tested, baseline="all")  # ... the tests score them 0
    pd.testing.assert_frame_equal(data.baseline_comparison.frame, direct.frame)
    assert set(data.baseline_comparison.frame["n"]) == {12}


def test_one_system_tests_nothing_and_counts_alone_are_not_tested():
    qrels, runs = collection(SAME)
    one = compute_report(qrels, {"a": runs["a"]}, MEASURES)
    assert one.baseline is None and one.baseline_comparison is None and one.pairwise_comparison is None
    assert one.untestable == {} and dict(one.manifest.tests) == {} and dict(one.manifest.seeds) == {}
    counts = compute_report(qrels, runs, ["num_rel_ret", "GMAP"])
    assert counts.tested == [] and counts.baseline_comparison is None
    assert "counts and sums are not tested" in counts.untestable["the tests"]


def test_options_take_the_significance_aliases():
    qrels, runs = collection(SAME)
    data = compute_report(qrels, runs, ["AP"], test="Randomisation", correction="fdr_bh", n_resamples=200)
    assert data.settings["test"] == "permutation" and data.settings["correction"] == "bh"
    assert compute_report(qrels, runs, ["AP"], test="tukey").settings["correction"] == "none"


@pytest.mark.parametrize("correction, family", [("maxt", "per_measure"), ("Westfall-Young", "all"),
                                                ("by", "measure"), ("holm", "all")])
def test_every_correction_and_family_of_compare_systems_gives_its_adjusted_p_values(correction, family):
    qrels, runs = collection({**SAME, "d": range(1, 13)}, seed=11)
    data = compute_report(qrels, runs, MEASURES, test="permutation", correction=correction, family=family, seed=4,
                          n_resamples=400)
    tested = metrics.evaluate(qrels, runs, MEASURES)
    tested = tested[tested["measure"].isin(data.tested)]
    for baseline, comparison in (("a", data.baseline_comparison), (None, data.pairwise_comparison)):
        direct = compare_systems(tested, measures=data.tested, test="permutation", baseline=baseline, seed=4,
                                 n_resamples=400, correction=correction, family=family)
        assert comparison.correction == direct.correction and comparison.family == direct.family
        np.testing.assert_array_equal(comparison.frame["p_adjusted"], direct.frame["p_adjusted"])
        pd.testing.assert_frame_equal(comparison.frame, direct.frame)
        raw, adjusted = direct.frame["p_value"].to_numpy(), direct.frame["p_adjusted"].to_numpy()
        assert np.all(adjusted >= raw - 1e-12) and np.any(adjusted > raw)  # a correction, not the raw p-values
    assert data.settings["correction"] == direct.correction and data.settings["family"] == direct.family
    assert dict(data.manifest.tests)["correction"] == direct.correction


def test_a_list_of_paths_names_the_systems_after_their_files(tmp_path):
    qrels, runs = collection(SAME)
    (tmp_path / "q.txt").write_bytes(qrels)
    paths = [tmp_path / f"{name}.run.gz" for name in runs]
    for path, content in zip(paths, runs.values()):
        path.write_bytes(gzip.compress(content))
    data = compute_report(tmp_path / "q.txt", paths, ["AP"], gain_depth=5)
    assert data.systems == ["a", "b", "c"] and [r.system for r in data.manifest.runs] == ["a", "b", "c"]
    assert data.gain["k"].max() == 5 and set(data.eleven_point.columns) == {"system", "recall", "precision"}
    assert GAIN_DEPTH == 100


def test_notes_are_normalised():
    qrels, runs = collection(SAME)
    data = compute_report(qrels, runs, ["AP"], notes={4: {"tags": "hard, ties", "comment": " check "}, "5": ""})
    assert data.notes == {"4": {"tags": ["hard", "ties"], "comment": "check"}}


def test_the_report_is_a_value():
    qrels, runs = collection(SAME)
    data = compute_report(qrels, runs, ["AP"])
    with pytest.raises(dataclasses.FrozenInstanceError):
        data.baseline = "b"


@pytest.mark.parametrize("kwargs, message", [
    ({"alpha": 1.5}, "alpha"), ({"alpha": True}, "alpha"), ({"seed": -1}, "seed"), ({"seed": 1.5}, "seed"),
    ({"n_resamples": 0}, "n_resamples"), ({"gain_depth": 0}, "gain_depth"), ({"test": "z"}, "test"),
    ({"correction": "sidak"}, "correction"),
    ({"correction": "maxt"}, r"test: expected 'permutation' \(the maxt correction resamples a test's sign flips\), found 't'"),
    ({"family": "each"}, "unknown family"), ({"baseline": "nobody"}, "baseline"),
    ({"notes": {"1": {"stars": 5}}}, "notes.1.stars: expected one of the fields tags, comment"),
    ({"notes": ["1"]}, r"notes: expected a mapping of at most 100000 topics to notes, found \['1'\]"),
])
def test_bad_options_are_validation_errors(kwargs, message):
    qrels, runs = collection(SAME)
    with pytest.raises(ValidationError, match=message):
        compute_report(qrels, runs, ["AP"], **kwargs)


@pytest.mark.parametrize("runs, message", [
    ({}, "no runs"), (b"1 Q0 a 1 1 x\n", "mapping"), ([b"1 Q0 a 1 1 x\n"], "paths"), ({"": b"x"}, "non-empty"),
    (["x/a.run", "y/a.run"], "both be called 'a'"),
])
def test_bad_runs_are_validation_errors(runs, message):
    with pytest.raises(ValidationError, match=message):
        compute_report(b"1 0 a 1\n", runs, ["AP"])


def test_unreadable_files_and_unknown_measures_are_rankscope_errors():
    qrels, runs = collection(SAME)
    with pytest.raises(metrics.ParseError):
        compute_report(b"not a qrels file\n", runs, ["AP"])
    with pytest.raises(metrics.UnknownMeasureError):
        compute_report(qrels, runs, ["NoSuchMeasure@3"])


# ---- the provenance card and the cautions ----------------------------------------------------------------------


def test_the_report_carries_its_provenance_card():
    qrels, runs = collection(DIFFERENT)
    conventions = Conventions(relevance_level=2, depth=10)
    data = compute_report(qrels, runs, ["AP", 'nDCG(gain="exp")@5', "P@5"], conventions, correction="bh")
    card = data.provenance
    assert card.conventions == conventions and card.ties == "docid"
    assert (card.gain, card.discount, card.ideal) == (("exp",), ("log2",), ("judged",))
    assert (card.test, card.correction, card.family) == ("t", "bh", "per_measure")
    assert dict(card.topics) == {"AP": 12, 'nDCG(gain="exp")@5': 12, "P@5": 12}  # "all" answers all 12
    assert card.compact().startswith("trec_eval-9 · rel ≥ 2 · -M 10 · gain exp ·") and "topics 12" in card.compact()
    one = compute_report(qrels, {"early": runs["early"]}, ["P@5"])
    assert one.provenance.test is None and dict(one.provenance.topics) == {"P@5": 9}


def test_the_report_cautions_only_where_due():
    qrels, runs = collection(SAME)
    due = compute_report(qrels, runs, ["RR", "nDCG@10"], test="t", correction="none")
    assert [c.code for c in due.cautions] == ["parametric-ordinal", "uncorrected"]  # the card states nDCG's gain
    assert "6 tests" in due.cautions[1].sentence  # 3 pairs x 2 measures
    clean = compute_report(qrels, runs, ["RR", "nDCG@10"], test="permutation", correction="holm", n_resamples=200)
    assert clean.cautions == ()
