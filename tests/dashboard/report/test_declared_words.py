"""The report and the pickers name every declared test and correction in its declaration's words: a new test or
correction is named on the pages and in the report without editing them."""

from __future__ import annotations

import pytest

pytest.importorskip("streamlit", reason="the dashboard extra (streamlit) is not installed")

from dashboard import data  # noqa: E402
from dashboard.report.sections import _family_words  # noqa: E402
from metrics.stats.significance import CORRECTION_REGISTRY, TEST_REGISTRY  # noqa: E402


@pytest.mark.parametrize("correction", list(CORRECTION_REGISTRY), ids=lambda c: c.name)
def test_the_report_names_each_correction_in_its_declared_words(correction):
    words = _family_words({"test": "permutation", "correction": correction.name, "family": "per_measure"}, 6)
    if correction.corrects:
        assert words == f"{correction.adjusted} over the 6 comparisons between the systems on each measure"
    else:
        assert words == "without correction for multiple comparisons"
    assert correction.label in data.TEST_CORRECTIONS.values() and f"**{correction.label}**" in data.CORRECTION_HELP


@pytest.mark.parametrize("test", list(TEST_REGISTRY), ids=lambda t: t.name)
def test_a_test_that_adjusts_itself_is_said_to_and_every_test_is_offered(test):
    words = _family_words({"test": test.name, "correction": "holm"}, 6)
    assert ("by construction (no further correction)" in words) == test.adjusts_itself
    assert data.TESTS[test.name] == test.label and f"**{test.label}**: {test.help}" in data.TEST_HELP
    assert (test.name in data.RESAMPLED) == test.resampled
