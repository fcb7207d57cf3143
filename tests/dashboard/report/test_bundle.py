"""Every export of a report (``rankscope report --exports DIR``): the numbers of ``rankscope eval``, the same
manifest in each file, sound LaTeX, valid images; and reports with nothing or too little to test."""

from __future__ import annotations

import hashlib
import io
import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pandas as pd
import pytest

pytest.importorskip("plotly", reason="the dashboard extra (plotly) is not installed")

from dashboard import exports  # noqa: E402
from dashboard.report import build_report, report_files  # noqa: E402
from metrics.review.manifest import Manifest  # noqa: E402
from metrics.review.report import compute_report  # noqa: E402
from rankscope.cli import main  # noqa: E402
from tests.dashboard.exports.chromium import chromium_or_skip  # noqa: E402
from tests.dashboard.report.report_cases import MEASURES, small_collection, parse  # noqa: E402
from tests.metrics.review.latex import assert_sound_latex  # noqa: E402

TABLES = {"manifest.json", "per_query.csv", "per_query.parquet", "summary.csv", "summary.parquet", "results.tex",
          "results.md", "results.csv", "tests.csv", "session.json"}


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """A small collection, its report and every export, written by the command a user would type."""
    root = tmp_path_factory.mktemp("exports")
    qrels, runs = small_collection(root)
    images = exports.browser_path() is not None or os.environ.get("CI") == "true"
    argv = ["report", str(qrels), *map(str, runs), "-o", str(root / "report.html"), "--exports", str(root / "out"),
            "--seed", "3", *sum((["-m", m] for m in MEASURES), [])] + ([] if images else ["--no-images"])
    assert main(argv) == 0
    return qrels, runs, root / "report.html", root / "out", images


def _eval(argv, capsys) -> pd.DataFrame:
    capsys.readouterr()
    assert main(argv) == 0
    return pd.read_csv(io.StringIO(capsys.readouterr().out), dtype={"query": str})


def test_every_file_is_there(exported):
    _, _, _, out, images = exported
    names = {str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()}
    figures = {n for n in names if n.startswith("figures/")}
    assert names - figures == TABLES
    if not images:
        chromium_or_skip()
    else:
        stems = {Path(n).stem for n in figures}
        assert {"eleven-point", "gain"} <= stems and any(s.startswith("pvalues-0-") for s in stems)
        assert figures == {f"figures/{s}.{ext}" for s in stems for ext in ("png", "svg")}
        for name in figures:
            data = (out / name).read_bytes()
            if name.endswith(".png"):
                assert data.startswith(b"\x89PNG\r\n\x1a\n")
            else:
                assert ET.fromstring(data).tag == "{http://www.w3.org/2000/svg}svg"


def test_the_tables_hold_the_numbers_of_rankscope_eval(exported, capsys):
    qrels, runs, _, out, _ = exported
    cli = _eval(["eval", "-q", "--format", "csv", *sum((["-m", m] for m in MEASURES), []), str(qrels),
                 *map(str, runs)], capsys)
    per_query = pd.read_csv(out / "per_query.csv", dtype={"query": str})
    key = ["system", "query", "measure"]
    merged = cli[cli["query"] != "all"].merge(per_query, on=key, suffixes=("_cli", "_export"), validate="1:1")
    assert len(merged) == len(per_query) and (merged["value_cli"] - merged["value_export"]).abs().max() < 1e-12
    parquet = pd.read_parquet(out / "per_query.parquet")
    pd.testing.assert_frame_equal(parquet, per_query, check_dtype=False)
    means = cli[cli["query"] == "all"].set_index(["system", "measure"])["value"]
    summary = pd.read_csv(out / "summary.csv").set_index(["system", "measure"])["value"]
    assert (summary - means.loc[summary.index]).abs().max() < 1e-12
    results = pd.read_csv(out / "results.csv", keep_default_na=False).set_index("system")
    for (system, measure), value in means.items():
        assert results.loc[system, measure] == pytest.approx(value, abs=1e-12)
    tests = pd.read_csv(out / "tests.csv")
    assert set(tests["family"]) == {"baseline", "all pairs"} and set(tests["measure"]) <= set(MEASURES)


def test_the_same_manifest_travels_in_every_file(exported):
    qrels, runs, report, out, _ = exported
    manifest = Manifest.from_dict(json.loads((out / "manifest.json").read_text(encoding="utf-8")))
    assert manifest.qrels.sha256 == hashlib.sha256(qrels.read_bytes()).hexdigest()
    assert [r.sha256 for r in manifest.runs] == [hashlib.sha256(p.read_bytes()).hexdigest() for p in runs]
    assert dict(manifest.seeds) == {"compare": 3} and "--exports" in manifest.invocation
    assert Manifest.from_dict(json.loads(parse(report.read_text(encoding="utf-8")).by_id["manifest-json"])) == manifest
    for name in ("per_query.parquet", "summary.parquet"):
        assert Manifest.from_dict(exports.parquet_metadata((out / name).read_bytes())) == manifest
    latex = (out / "results.tex").read_text(encoding="utf-8")
    assert_sound_latex(latex, columns=1 + len(MEASURES))
    comment = [line[2:] for line in latex.splitlines() if line.startswith("% ")][2:]
    assert Manifest.from_dict(json.loads("\n".join(comment))) == manifest
    markdown = (out / "results.md").read_text(encoding="utf-8")
    inner = markdown[len("<!--\n"):markdown.index("-->")].splitlines()[1:]
    assert Manifest.from_dict(json.loads("\n".join(inner))) == manifest
    session = exports.session_from_json((out / "session.json").read_bytes())
    assert session.manifest == manifest and session.systems == manifest.systems
    assert session.digests == {"qrels": manifest.qrels.sha256, **{r.system: r.sha256 for r in manifest.runs}}


def test_the_report_drawn_from_figures_already_built_is_the_same_page(tmp_path):
    from dashboard.report import render_report
    from dashboard.report.sections import report_figures

    qrels, runs = small_collection(tmp_path)
    data = compute_report(qrels, runs, MEASURES, seed=3)
    figures = report_figures(data)
    before = {name: fig.to_json() for name, fig in figures.items()}
    assert render_report(data, figures=figures) == render_report(data)
    assert {name: fig.to_json() for name, fig in figures.items()} == before  # read, never changed
    assert report_files(data, images=False)["report.html"] == render_report(data).encode("utf-8")


def test_a_report_of_one_system_tests_nothing(tmp_path):
    qrels, runs = small_collection(tmp_path)
    data = compute_report(qrels, runs[:1], ["AP", "P@10"])
    assert data.baseline is None and data.baseline_comparison is None and data.pairwise_comparison is None
    assert not data.table.best.to_numpy().any() and (data.table.markers == "").all().all()
    html = build_report(qrels, runs[:1], ["AP", "P@10"])
    assert "One system: nothing to compare." in html and 'id="baseline-tests"' not in html
    files = report_files(data, images=False)
    assert "tests.csv" not in files and "report.html" in files
    assert dict(Manifest.from_dict(json.loads(files["manifest.json"])).tests) == {}


def test_a_report_says_why_it_could_not_test(tmp_path):
    qrels = b"1 0 a 1\n1 0 b 0\n"
    runs = {"x": b"1 Q0 a 1 2 x\n1 Q0 b 2 1 x\n", "y": b"1 Q0 b 1 2 y\n1 Q0 a 2 1 y\n"}
    data = compute_report(qrels, runs, ["AP"])
    assert data.baseline_comparison is None
    assert "at least two queries" in " ".join(data.untestable.values())
    html = build_report(qrels, runs, ["AP"])
    assert "not run: a paired test needs at least two queries" in parse(html).by_id["results-caption"]
    assert "rankscope compare" not in html


def test_the_report_shows_metrics_compare_and_significance_as_they_are(tmp_path):
    import numpy as np

    from dashboard.report import render_report, report_figures
    from metrics.review.compare import to_latex, to_markdown

    qrels, runs = small_collection(tmp_path)
    data = compute_report(qrels, runs, ["AP", "P@10"], seed=1)
    parsed = parse(render_report(data))
    assert parsed.by_id["results-latex"] == to_latex(data.table, ci=True)
    assert parsed.by_id["results-markdown"] == to_markdown(data.table, ci=True)
    assert parsed.by_id["results-caption"].startswith(data.table.caption("text", ci=True))
    shown = {(c["data-system"], c["data-measure"]): c["text"] for c in parsed.cells if "data-query" not in c}
    for cell in data.table.cells().itertuples(index=False):
        assert "".join(shown[(cell.system, cell.measure)].split()) == cell.text + cell.marker + \
            cell.interval.replace(" ", "")
    figs = report_figures(data)
    for i, measure in enumerate(data.pairwise_comparison.measures):
        heatmap = next(f for name, f in figs.items() if name.startswith(f"pvalues-{i}-"))
        np.testing.assert_array_equal(np.asarray(heatmap.data[0].z, dtype=float),
                                      data.pairwise_comparison.pvalue_matrix(measure).to_numpy())
