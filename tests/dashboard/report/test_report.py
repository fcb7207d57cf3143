"""The HTML report: one file, offline, escaped, and with the numbers of ``rankscope eval``.

The browser tests open reports in Debian's Chromium through Playwright, abort and record every request that
is not file: or data:, and read what the page shows; they are skipped when Chromium or Playwright is
missing, except under CI=true, where that fails. The other exports are tested in test_exports.py and
test_report_files.py.
"""

from __future__ import annotations

import html
import io
import json
import os
import re
import shlex
import shutil
from pathlib import Path

import pandas as pd
import pytest

pytest.importorskip("plotly", reason="the dashboard extra (plotly) is not installed")

import metrics  # noqa: E402
from dashboard.report import build_report  # noqa: E402
from metrics import ValidationError  # noqa: E402
from metrics.stats.significance import compare_systems  # noqa: E402
from rankscope.cli import main  # noqa: E402
from tests.dashboard.report.report_cases import MEASURES, small_collection, parse
from tests.paths import ROOT  # noqa: E402

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
HOSTILE = '<img src=x onerror="alert(1)">&bm25_rm3%'


# ---- the collection -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def collection() -> tuple[Path, list[Path]]:
    """The bundled demo collection (graded qrels, six systems)."""
    from sample_data import demo_paths

    qrels, runs = demo_paths()
    assert qrels.is_file() and len(runs) == 6
    return qrels, runs


@pytest.fixture(scope="module")
def report_path(collection, tmp_path_factory) -> Path:
    """The report, written by ``rankscope report`` as a user would."""
    qrels, runs = collection
    out = tmp_path_factory.mktemp("report") / "report.html"
    argv = ["report", str(qrels), *map(str, runs), "-o", str(out), "--seed", "3"]
    for m in MEASURES:
        argv += ["-m", m]
    assert main(argv) == 0
    return out


@pytest.fixture(scope="module")
def report(report_path) -> str:
    return report_path.read_text(encoding="utf-8")


def run_eval(argv: list[str], capsys) -> pd.DataFrame:
    capsys.readouterr()
    assert main(argv) == 0
    return pd.read_csv(io.StringIO(capsys.readouterr().out), dtype={"query": str})


# ---- the report -----------------------------------------------------------------------------------------


def test_the_report_is_one_file_with_nothing_outside_it(report, report_path):
    from plotly.offline import get_plotlyjs

    plotly_js = get_plotlyjs()
    assert report.count(plotly_js) == 1  # plotly.js inlined exactly once
    rest = report.replace(plotly_js, "")  # the library's own string literals aside, the page itself:
    assert rest.startswith("<!DOCTYPE html>")
    assert rest.count("<script") == rest.count("</script>")
    assert re.findall(r"<script[^>]*\bsrc\s*=", rest) == []
    assert "<link" not in rest and "@import" not in rest and "@font-face" not in rest
    assert re.findall(r"https?://|//cdn|url\(", rest) == []
    assert rest.count("Plotly.newPlot(") >= 3
    assert "mathjax" not in rest.lower().replace("mathjaxconfig: 'local'", "")
    assert "Content-Security-Policy" in rest and "connect-src 'none'" in rest
    assert len(re.findall(r'"typesetMath":\s*false', rest)) == rest.count("Plotly.newPlot(")
    print(f"report size: {report_path.stat().st_size / 1024:.0f} KB")


def test_sections_are_all_there(report, collection):
    for section in ("manifest", "collection", "results", "curves", "significance", "topics"):
        assert f'<section id="{section}">' in report
    for figure in ("fig-eleven-point", "fig-gain", "fig-pvalues-0"):
        assert f'id="{figure}"' in report
    parsed = parse(report)
    assert "sha256" in report.lower() and "rankscope eval" in parsed.by_id["reproduce-eval"]
    # the markers the report shows are those of the tests, computed here through metrics directly
    qrels, runs = collection
    per_query = metrics.evaluate(str(qrels), [str(r) for r in runs], MEASURES, complete=True)  # a run misses topics
    tested = compare_systems(per_query, test="t", baseline=metrics.system_name(runs[0].name), correction="holm",
                             seed=3).frame
    significant = tested[tested["significant"]]
    assert ("†" in report) == bool((significant["mean_diff"] > 0).any())
    assert ("‡" in report) == bool((significant["mean_diff"] < 0).any())
    assert "significantly better / worse than the baseline" in report


def test_the_results_table_equals_rankscope_eval(report, collection, capsys):
    qrels, runs = collection
    argv = ["eval", "--format", "csv", *sum((["-m", m] for m in MEASURES), []), str(qrels), *map(str, runs)]
    cli = run_eval(argv, capsys)
    cli = cli[cli["query"] == "all"].set_index(["system", "measure"])["value"]
    cells = [c for c in parse(report).cells if "data-query" not in c]
    assert len(cells) == len(runs) * len(MEASURES)
    for cell in cells:
        expected = cli[(cell["data-system"], cell["data-measure"])]
        assert float(cell["data-value"]) == pytest.approx(expected, abs=1e-12)
        assert cell["text"].split()[0] == f"{expected:.4f}"  # what is shown, as trec_eval prints it
    # and the text trec_eval prints, for one run
    capsys.readouterr()
    assert main(["eval", "-m", "map", str(qrels), str(runs[0])]) == 0
    line = capsys.readouterr().out.strip().split("\t")
    shown = next(c for c in cells if c["data-measure"] == "AP" and c["data-system"] == cells[0]["data-system"])
    assert line[0].strip() == "map" and shown["text"].split()[0] == line[2]


def test_the_per_topic_appendix_equals_rankscope_eval_q(report, collection, capsys):
    qrels, runs = collection
    cli = run_eval(["eval", "-q", "--format", "csv", "-m", "AP", "-m", "P@10", str(qrels), *map(str, runs)], capsys)
    cli = cli[cli["query"] != "all"].set_index(["system", "query", "measure"])["value"]
    cells = [c for c in parse(report).cells if "data-query" in c and c["data-measure"] in ("AP", "P@10")]
    assert len(cells) == len(cli)
    for cell in cells:
        assert float(cell["data-value"]) == pytest.approx(cli[(cell["data-system"], cell["data-query"],
                                                                cell["data-measure"])], abs=1e-12)


def test_the_manifest_command_reproduces_the_report(report, collection, capsys):
    parsed = parse(report)
    command = parsed.by_id["reproduce-eval"].strip()
    assert command == html.unescape(command)  # the parser already unescaped it
    numbers = run_eval(shlex.split(command)[1:], capsys)
    means = numbers[numbers["query"] == "all"].set_index(["system", "measure"])["value"]
    for cell in (c for c in parsed.cells if "data-query" not in c):
        assert means[(cell["data-system"], cell["data-measure"])] == pytest.approx(float(cell["data-value"]), abs=1e-12)
    manifest = json.loads(parsed.by_id["manifest-json"])
    qrels, runs = collection
    import hashlib

    assert manifest["qrels"]["sha256"] == hashlib.sha256(qrels.read_bytes()).hexdigest()
    assert [r["sha256"] for r in manifest["runs"]] == [hashlib.sha256(p.read_bytes()).hexdigest() for p in runs]
    assert manifest["seeds"] == {"compare": 3} and manifest["tests"]["seed"] == 3
    assert manifest["invocation"].startswith("rankscope report -o ")
    assert [m["label"] for m in manifest["measures"]] == MEASURES
    assert manifest["commands"]["compare"] and all(c.startswith("rankscope compare ") for c in
                                                   manifest["commands"]["compare"])


def test_the_compare_command_reproduces_the_tests(report, capsys):
    parsed = parse(report)
    command = parsed.by_id["reproduce-compare-0"].strip()
    argv = shlex.split(command)
    assert argv[:2] == ["rankscope", "compare"] and argv[argv.index("--seed") + 1] == "3"
    tests = run_eval(argv[1:], capsys).set_index(["measure", "system_a", "system_b"])
    rows = [r for r in parsed.rows["baseline-tests"] if r]
    assert len(rows) == len(tests) > 0
    for row in rows:
        expected = tests.loc[(row["data-measure"], row["data-system-a"], row["data-system-b"])]
        assert float(row["data-p-value"]) == pytest.approx(expected["p_value"], rel=1e-12, abs=1e-300)
        assert float(row["data-p-adjusted"]) == pytest.approx(expected["p_adjusted"], rel=1e-12, abs=1e-300)
    shown = {(r["data-system"], r["data-measure"]): c for r, c in
             ((c, c["text"]) for c in parsed.cells if "data-query" not in c)}
    baseline = rows[0]["data-system-a"]
    for (measure, a, b), t in tests.iterrows():
        text = shown[(b, measure)]
        assert (("†" in text) or ("‡" in text)) == bool(t["significant"]), (b, measure, text)
        assert baseline == a


def test_user_text_is_escaped(tmp_path):
    qrels = b"1 0 a 1\n1 0 b 0\n2 0 c 2\n2 0 d 1\n3 0 e 1\n"
    run_a = b"1 Q0 a 1 2 x\n1 Q0 b 2 1 x\n2 Q0 c 1 2 x\n2 Q0 d 2 1 x\n3 Q0 e 1 1 x\n"
    run_b = b"1 Q0 b 1 2 y\n1 Q0 a 2 1 y\n2 Q0 d 1 2 y\n2 Q0 c 2 1 y\n3 Q0 z 1 1 y\n"
    notes = {"2": {"tags": ["<b>hard</b>", "ties"], "comment": "</script><script>alert('x')</script> & more"}}
    text = build_report(qrels, {HOSTILE: run_a, "plain": run_b}, ["AP", "P@1"], notes=notes,
                        title="<i>title</i>", qrels_name="<q>.txt")
    assert HOSTILE not in text and "<b>hard</b>" not in text and "<i>title</i>" not in text
    assert "alert('x')</script>" not in text and "<q>.txt" not in text
    assert html.escape(HOSTILE) in text and "&lt;b&gt;hard&lt;/b&gt;" in text
    parsed = parse(text)
    assert "</script><script>alert('x')</script> & more" in parsed.by_id["review-notes"]
    assert {c["data-system"] for c in parsed.cells} == {HOSTILE, "plain"}


def test_bad_input_raises_rankscope_errors(collection):
    qrels, runs = collection
    with pytest.raises(ValidationError, match="baseline"):
        build_report(qrels, runs[:2], ["AP"], baseline="nobody")
    with pytest.raises(ValidationError, match="alpha"):
        build_report(qrels, runs[:2], ["AP"], alpha=1.5)
    with pytest.raises(metrics.UnknownMeasureError):
        build_report(qrels, runs[:2], ["NoSuchMeasure@3"])
    with pytest.raises(metrics.ParseError):
        build_report(b"not a qrels file\n", {"x": runs[0]}, ["AP"])


def test_the_report_and_exports_leave_streamlit_out():
    import subprocess
    import sys

    code = ("import sys, dashboard.report, dashboard.exports, rankscope.commands.report; "
            "print(sorted({m.split('.')[0] for m in sys.modules if m.split('.')[0] == 'streamlit'}))")
    root = ROOT
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=root).stdout
    assert out.strip() == "[]"


def test_the_cli_needs_plotly(monkeypatch, collection, tmp_path, capsys):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "plotly" else real(name, *a))
    qrels, runs = collection
    assert main(["report", str(qrels), str(runs[0]), "-o", str(tmp_path / "r.html")]) == 2
    assert "the report needs the dashboard extra: pip install 'rankscope[dashboard]'" in capsys.readouterr().err
    assert not (tmp_path / "r.html").exists()


# ---- in a real browser ----------------------------------------------------------------------------------


def _browser_or_skip():
    missing = []
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sync_playwright = None
        missing.append("playwright (pip install playwright)")
    if not Path(CHROMIUM).exists():
        missing.append("Debian's chromium (apt-get install chromium)")
    if missing:
        if os.environ.get("CI") == "true":
            pytest.fail(f"the browser test must run in CI; missing: {', '.join(missing)}", pytrace=False)
        pytest.skip(f"missing: {', '.join(missing)}")
    return sync_playwright


def _open_offline(path: Path, script: str) -> dict:
    """Open ``path`` in Chromium with every request that is not file: or data: aborted and recorded.

    Returns what ``script`` (a JavaScript function) evaluates to once the charts are drawn, with the
    blocked requests, every request seen, page errors and dialogs.
    """
    sync_playwright = _browser_or_skip()
    blocked, seen, problems, dialogs = [], [], [], []

    def guard(route):
        url = route.request.url
        if url.split(":", 1)[0] in ("file", "data"):
            route.continue_()
        else:
            blocked.append(url)
            route.abort()

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            context.route("**/*", guard)
            page = context.new_page()
            page.on("request", lambda r: seen.append(r.url))
            page.on("pageerror", lambda err: problems.append(f"page error: {err}"))
            page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            page.goto(path.as_uri(), wait_until="load")
            page.wait_for_selector(".js-plotly-plot .main-svg", timeout=30_000)
            page.wait_for_function("() => [...document.querySelectorAll('.js-plotly-plot')].every(d => "
                                   "d.querySelector('.main-svg'))", timeout=30_000)
            result = page.evaluate(script)
        finally:
            browser.close()
    return {"result": result, "blocked": blocked, "seen": seen, "problems": problems, "dialogs": dialogs}


_DRAWN = """() => {
  const plots = [...document.querySelectorAll('.js-plotly-plot')];
  const drawn = plots.filter(d => d.querySelector('.main-svg') && d._fullData && d._fullData.length
      && d.querySelectorAll('.trace, .hm').length >= d._fullData.length
      && d.getBoundingClientRect().height > 100).length;
  const cells = [...document.querySelectorAll('#results-table td[data-value]')].map(td => ({
      system: td.dataset.system, measure: td.dataset.measure, value: td.dataset.value, text: td.innerText}));
  return {plots: plots.length, drawn, cells};
}"""


@pytest.mark.browser
def test_the_report_renders_offline_in_chromium(report_path, collection, capsys):
    seen = _open_offline(report_path, _DRAWN)
    assert seen["seen"], "no request recorded at all: the listener did not work"
    assert seen["blocked"] == []
    assert all(url.split(":", 1)[0] in ("file", "data") for url in seen["seen"]), seen["seen"]
    assert seen["problems"] == [] and seen["dialogs"] == []
    shown = seen["result"]
    assert shown["plots"] >= 3 and shown["drawn"] == shown["plots"]
    # the numbers the browser shows are those of `rankscope eval --format json`
    qrels, runs = collection
    capsys.readouterr()
    assert main(["eval", "--format", "json", *sum((["-m", m] for m in MEASURES), []), str(qrels),
                 *map(str, runs)]) == 0
    cli = {(r["system"], r["measure"]): r["value"] for r in json.loads(capsys.readouterr().out) if r["query"] == "all"}
    assert len(shown["cells"]) == len(cli) == len(runs) * len(MEASURES)
    for cell in shown["cells"]:
        expected = cli[(cell["system"], cell["measure"])]
        assert float(cell["value"]) == pytest.approx(expected, abs=1e-12)
        assert cell["text"].split()[0] == f"{expected:.4f}"


@pytest.mark.browser
def test_hostile_names_stay_text_in_chromium(tmp_path):
    evil = "</script><script>alert('system')</script>"
    topic = "</script><img/src=x/onerror=alert('topic')>"
    qrels = f"1 0 a 1\n1 0 b 0\n{topic} 0 c 1\n{topic} 0 </script>d 1\n3 0 e 1\n".encode()
    run_a = f"1 Q0 a 1 2 x\n1 Q0 b 2 1 x\n{topic} Q0 c 1 2 x\n{topic} Q0 </script>d 2 1 x\n3 Q0 e 1 1 x\n".encode()
    run_b = f"1 Q0 b 1 2 y\n1 Q0 a 2 1 y\n{topic} Q0 </script>d 1 2 y\n{topic} Q0 c 2 1 y\n3 Q0 z 1 1 y\n".encode()
    path = tmp_path / "hostile.html"
    path.write_text(build_report(qrels, {evil: run_a, "plain": run_b}, ["AP", "P@1"],
                                 notes={topic: {"tags": [evil], "comment": evil}}), encoding="utf-8")
    seen = _open_offline(path, """() => ({
        scripts: document.querySelectorAll('script').length,
        legend: [...document.querySelectorAll('#fig-eleven-point .legendtext')].map(t => t.textContent),
        systems: [...document.querySelectorAll('#results-table td[data-system]')].map(td => td.dataset.system),
        topics: [...document.querySelectorAll('td[data-query]')].map(td => td.dataset.query),
        images: document.querySelectorAll('img').length})""")
    assert seen["dialogs"] == [] and seen["problems"] == [] and seen["blocked"] == []
    shown = seen["result"]
    # a legend shortens a long name (figures.short): the start of it, shown as text
    from dashboard.figures import short

    assert short(evil) in [html.escape(t, quote=False) for t in shown["legend"]]
    assert evil in shown["systems"] and topic in shown["topics"]
    assert shown["images"] == 0
    text = path.read_text(encoding="utf-8")
    from plotly.offline import get_plotlyjs

    page = text.replace(get_plotlyjs(), "")
    assert shown["scripts"] == page.count("<script") == page.count("</script>")


def test_the_report_shows_its_provenance_and_cautions_as_text(report, collection):
    from metrics.review.provenance import build_provenance, topic_counts

    qrels, runs = collection
    parsed = parse(report)
    per_query = metrics.evaluate(str(qrels), [str(r) for r in runs], MEASURES)
    card = build_provenance(metrics.Conventions(), metrics.resolve_measures(MEASURES), topics=topic_counts(per_query),
                            test="t", correction="holm", family="per_measure")
    assert parsed.by_id["provenance"] == "Provenance: " + card.compact()
    cautions = parsed.by_id["cautions"]
    assert "The mean of AP, RR is compared with a parametric test (paired t-test)" in cautions  # MEASURES under the t-test
    assert "uncorrected" not in report and "without its gain" not in cautions


def test_a_clean_report_has_no_cautions_and_escapes_its_card(tmp_path):
    qrels = b"1 0 a 1\n1 0 b 0\n2 0 c 2\n2 0 d 1\n3 0 e 1\n"
    run_a = b"1 Q0 a 1 2 x\n1 Q0 b 2 1 x\n2 Q0 c 1 2 x\n2 Q0 d 2 1 x\n3 Q0 e 1 1 x\n"
    run_b = b"1 Q0 b 1 2 y\n1 Q0 a 2 1 y\n2 Q0 d 1 2 y\n2 Q0 c 2 1 y\n3 Q0 z 1 1 y\n"
    text = build_report(qrels, {HOSTILE: run_a, "plain": run_b}, ["P@1", "R@5"], test="sign")
    parsed = parse(text)
    assert 'id="cautions"' not in text
    assert parsed.by_id["provenance"].endswith("test sign, holm per measure · topics 3")


def test_the_exported_tables_carry_the_card(tmp_path):
    from dashboard.report import report_files
    from metrics.review.report import compute_report

    qrels, runs = small_collection(tmp_path)
    data = compute_report(qrels, runs, ["AP", "P@10"])
    files = report_files(data, html=False, images=False)
    assert f"\n%% provenance: {data.provenance.compact()}\n" in files["results.tex"].decode("utf-8")
    assert f"<!-- provenance: {data.provenance.compact()} -->" in files["results.md"].decode("utf-8")
