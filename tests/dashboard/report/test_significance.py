"""The dashboard's pages and the report test the same measures on the same topics, to the same p-values
(one rule, :mod:`metrics.review.report`), here on runs that answered different topics."""

from __future__ import annotations

import pandas as pd
import pytest

pytest.importorskip("streamlit", reason="the dashboard extra (streamlit) is not installed")

from dashboard import data  # noqa: E402
from dashboard.session.state import Loaded, Upload  # noqa: E402
from metrics import ValidationError  # noqa: E402
from metrics.review.compare import summary_table  # noqa: E402
from metrics.review.report import compute_report  # noqa: E402
from tests.metrics.review.report_cases import DIFFERENT, MEASURES, SAME, collection  # noqa: E402


def loaded_of(topics: dict[str, range]) -> tuple[Loaded, bytes, dict[str, bytes]]:
    qrels, runs = collection(topics)
    loaded = Loaded(qrels=Upload.of("qrels.txt", qrels),
                    runs=tuple((name, Upload.of(f"{name}.run", content)) for name, content in runs.items()),
                    source="uploads")
    return loaded, qrels, runs


@pytest.mark.parametrize("baseline", ["all", None])
def test_the_pages_and_the_report_test_the_same_measures_to_the_same_p_values(baseline):
    loaded, qrels, runs = loaded_of(DIFFERENT)
    report = compute_report(qrels, runs, MEASURES, baseline=baseline)
    assert report.settings["complete"] and report.tested == ["AP", "nDCG@10", "P@5"]
    assert data.tested_on_every_topic(loaded).conventions.complete

    page = data.comparison(loaded, tuple(MEASURES), "t", baseline, "holm", 0.05)
    assert list(page.measures) == report.tested
    shown = report.baseline_comparison if baseline else report.pairwise_comparison
    pd.testing.assert_frame_equal(page.frame, shown.frame)

    table, untested = data.results(loaded, tuple(MEASURES), baseline, "t")
    expected = report.table if baseline else summary_table(report.pairwise_comparison, report.summary)
    assert untested is None
    pd.testing.assert_frame_equal(table.markers, expected.markers)


def test_the_dashboards_report_is_metrics_report():
    loaded, qrels, runs = loaded_of(DIFFERENT)
    made = data.report(loaded, tuple(MEASURES), "all", "t", "holm", 0.05, {"3": "check"})
    direct = compute_report(qrels, runs, MEASURES, baseline="all", notes={"3": "check"}, qrels_name="qrels.txt",
                            file_names={name: f"{name}.run" for name in runs})
    assert made.tested == direct.tested and made.settings == direct.settings and made.notes == direct.notes
    pd.testing.assert_frame_equal(made.baseline_comparison.frame, direct.baseline_comparison.frame)
    assert made.manifest.to_dict()["runs"] == direct.manifest.to_dict()["runs"]


def test_systems_on_the_same_topics_keep_the_conventions():
    loaded, _, _ = loaded_of(SAME)
    assert data.tested_on_every_topic(loaded) is loaded


def test_a_page_asking_to_test_only_counts_says_why():
    loaded, _, _ = loaded_of(SAME)
    with pytest.raises(ValidationError, match="counts and sums are not"):
        data.comparison(loaded, ("num_rel_ret",), "t", None, "holm", 0.05)
    table, untested = data.results(loaded, ("num_rel_ret", "GMAP"), "a", "t")
    assert "counts and sums are not" in untested and (table.markers == "").all().all()
