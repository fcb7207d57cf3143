"""The report page tests with every correction of compare_systems, max-T on the randomisation test included."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("streamlit", reason="the dashboard extra (streamlit) is not installed")

from tests.dashboard.test_statistics_pages import open_page, problems  # noqa: E402


def test_the_report_page_corrects_the_randomisation_test_by_max_t():
    at = open_page("report")
    assert problems(at) == []
    assert "report_maxt" not in [t.key for t in at.get("toggle")]  # max-T belongs to the randomisation test only
    at.selectbox(key="test").select("permutation").run()
    at.toggle(key="report_maxt").set_value(True).run()
    assert problems(at) == []
    command = " ".join(c.value for c in at.code)
    assert "--test permutation" in command and "--correction maxt" in command
    manifest = json.loads(at.json[0].proto.body)
    assert manifest["tests"]["test"] == "permutation" and manifest["tests"]["correction"] == "maxt"
    at.toggle(key="report_maxt").set_value(False).run()
    assert problems(at) == []
    assert "--correction maxt" not in " ".join(c.value for c in at.code)
