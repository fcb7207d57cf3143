"""The report page tests with every correction of compare_systems, max-T on the randomisation test included."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("streamlit", reason="the dashboard extra (streamlit) is not installed")

from tests.dashboard.conftest import errors as problems  # noqa: E402
from tests.dashboard.conftest import open_page  # noqa: E402


def test_the_report_page_corrects_the_randomisation_test_by_max_t():
    at = open_page("report", timeout=180)
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


def test_the_report_command_corrects_over_the_family_it_is_given(tmp_path):
    """`rankscope report --family all` adjusts over every measure's pairs at once, as compare_systems does,
    and says so in the report and in the command that reproduces it."""
    import re

    from metrics import evaluate, read_qrels, read_run
    from metrics.review.report import compute_report
    from metrics.stats.significance import compare_systems
    from rankscope.cli import main
    from sample_data import DEMO_DIR

    qrels, runs = DEMO_DIR / "qrels.txt", [DEMO_DIR / "runs" / f"{n}.run.gz" for n in ("bm25", "bm25_rm3", "dense_precise")]
    out = tmp_path / "r.html"
    argv = ["report", str(qrels), *map(str, runs), "--test", "permutation", "--correction", "maxt",
            "--family", "all", "--seed", "7", "-o", str(out)]
    assert main(argv) == 0
    html = out.read_text(encoding="utf-8")
    report = compute_report(qrels, runs, test="permutation", correction="maxt", family="all", seed=7)
    tested = len(report.pairwise_comparison.measures)
    assert f"max-T-adjusted over the {3 * tested} comparisons between the systems on all measures together" in html
    assert re.search(r"--correction maxt[^<]*--family all|--family all[^<]*--correction maxt", html)
    per_query = evaluate(read_qrels(qrels), [read_run(r) for r in runs], list(report.pairwise_comparison.measures))
    oracle = compare_systems(per_query, test="permutation", correction="maxt", family="all", seed=7)
    got = report.pairwise_comparison.frame.sort_values(["measure", "system_a", "system_b"]).reset_index(drop=True)
    want = oracle.frame.sort_values(["measure", "system_a", "system_b"]).reset_index(drop=True)
    assert got["p_adjusted"].tolist() == want["p_adjusted"].tolist()


def test_the_report_page_corrects_over_the_family_chosen():
    at = open_page("report", timeout=180)
    at.selectbox(key="family").select("all").run()
    assert problems(at) == []
    assert "--family all" in " ".join(c.value for c in at.code)
    manifest = json.loads(at.json[0].proto.body)
    assert manifest["tests"]["family"] == "all"
