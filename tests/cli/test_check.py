"""``rankscope check``: exit statuses 0, 1 and 2 as a program, the lines it prints, and its JUnit XML read back
by junitparser and by xml.etree."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET

import junitparser
import pytest

from tests.metrics.review.test_claims import MEANS, QRELS, RUNS
from tests.paths import ROOT

HOLDING = """\
name: nightly
qrels: data/qrels.txt
runs: {bm25: data/bm25.run, dense: data/dense.run, weak: data/weak.run}
expect:
  - {system: bm25, measure: AP, value: 0.7778, tolerance: 0.0005}
  - {system: dense, measure: map, at_least: 0.8}
  - {better: dense, than: weak, measure: AP}
  - {system: dense, measure: AP, rank_at_most: 1}
"""
# bm25's AP is 7/9 = 0.77778; dense's 5/6; weak's 5/12 (tests/metrics/review/test_claims.py works them out).
FAILING = """\
qrels: data/qrels.txt
runs:
  bm25: data/bm25.run
  dense: data/dense.run
expect:
  - {system: bm25, measure: AP, value: 0.2572, tolerance: 0.0005}
  - {better: bm25, than: dense, measure: AP}
  - {system: bm25, measure: AP, rank_at_most: 1}
  - {system: sparse, measure: AP, rank_at_most: 1}
  - {system: dense, measure: AP, value: 0.8333, tolerance: 0.0001}
"""


@pytest.fixture()
def folder(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "qrels.txt").write_text(QRELS)
    for name, text in RUNS.items():
        (tmp_path / "data" / f"{name}.run").write_text(text)
    return tmp_path


def check(*argv, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rankscope", "check", *map(str, argv)], capture_output=True,
                          text=True, timeout=120, cwd=cwd)


def test_claims_that_hold_exit_0(folder):
    (folder / "exp.yaml").write_text(HOLDING)
    done = check(folder / "exp.yaml", cwd="/")  # paths are relative to the file, not to where it runs
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 5 and all(line.startswith("HOLDS ") for line in lines[:4])
    assert lines[0] == ("HOLDS              bm25 scores AP = 0.7778 +/- 0.0005 "
                        f"(value {MEANS['bm25']:.6g}; off {MEANS['bm25'] - 0.7778:+.6g})")
    assert lines[-1] == "4 claims: 4 held, 0 failed, 0 could not be checked"
    assert done.stderr == ""


def test_a_claim_that_fails_or_cannot_be_checked_exits_1(folder):
    (folder / "exp.yaml").write_text(FAILING)
    done = check(folder / "exp.yaml")
    assert done.returncode == 1 and done.stderr == ""
    statuses = [line.split("  ")[0] for line in done.stdout.splitlines()[:-1]]
    assert statuses == ["FAILS", "FAILS", "FAILS", "CANNOT BE CHECKED", "HOLDS"]
    assert done.stdout.splitlines()[-1] == "5 claims: 1 held, 3 failed, 1 could not be checked"
    only_missing = HOLDING.replace("rank_at_most: 1}", "rank_at_most: 1}\n  - {system: sparse, measure: AP, "
                                                       "at_least: 0}")
    (folder / "exp.yaml").write_text(only_missing)
    done = check(folder / "exp.yaml")
    assert done.returncode == 1 and "4 held, 0 failed, 1 could not be checked" in done.stdout


def test_junit_xml_read_back_by_junitparser_and_by_etree(folder):
    (folder / "exp.yaml").write_text(FAILING)
    report = folder / "reports" / "claims.xml"
    report.parent.mkdir()
    done = check(folder / "exp.yaml", "--junit", report)
    assert done.returncode == 1 and "wrote" in done.stderr

    xml = junitparser.JUnitXml.fromfile(str(report))
    suites = list(xml) if isinstance(xml, junitparser.JUnitXml) else [xml]
    assert len(suites) == 1
    suite = suites[0]
    assert (suite.name, suite.tests, suite.failures, suite.errors, suite.skipped) == ("exp.yaml", 5, 3, 1, 0)
    cases = list(suite)
    assert [case.name for case in cases] == [
        "bm25 scores AP = 0.2572 +/- 0.0005", "bm25 is better than dense on AP", "bm25 ranks first on AP",
        "sparse ranks first on AP", "dense scores AP = 0.8333 +/- 0.0001"]
    kinds = [[type(r).__name__ for r in case.result] for case in cases]
    assert kinds == [["Failure"], ["Failure"], ["Failure"], ["Error"], []]
    assert cases[3].result[0].message == "cannot be checked: sparse ranks first on AP"
    assert "no system sparse" in cases[3].result[0].text
    assert cases[0].result[0].message == "fails: bm25 scores AP = 0.2572 +/- 0.0005"
    assert cases[0].is_passed is False and cases[4].is_passed is True

    root = ET.parse(report).getroot()
    assert root.tag == "testsuites" and root.get("tests") == "5"
    testcases = root.findall("./testsuite/testcase")
    assert [c.get("line") for c in testcases] == ["6", "7", "8", "9", "10"]
    assert [c.get("classname") for c in testcases] == ["threshold", "better", "rank", "rank", "threshold"]
    assert testcases[2].find("failure").text == "rank 2; systems 2; value 0.777778"


def test_junit_xml_holds_names_xml_cannot_hold(folder):
    odd = 'qrels: data/qrels.txt\nruns: {"b\\x01m25": data/bm25.run}\nexpect:\n' \
          '  - {system: "b\\x01m25", measure: AP, at_least: 0.5}\n  - {system: "<&>", measure: AP, at_least: 0.5}\n'
    (folder / "exp.yaml").write_text(odd)
    done = check(folder / "exp.yaml", "--junit", folder / "out.xml")
    assert done.returncode == 1, done.stderr
    names = [c.get("name") for c in ET.parse(folder / "out.xml").getroot().iter("testcase")]
    assert names == ["b\ufffdm25 scores AP >= 0.5", "<&> scores AP >= 0.5"]


@pytest.mark.parametrize(("text", "message"), [
    ("- qrels: data/qrels.txt\n", "exp.yaml:1: expected a mapping with the keys qrels, runs and expect, found a list"),
    (HOLDING.replace("value: 0.7778", "value: high"),
     "exp.yaml:5: expect[0].value: expected a finite number, found 'high'"),
    (HOLDING.replace("data/dense.run", "data/gone.run"), "exp.yaml:3: runs.dense: expected a file, found no file at"),
    (HOLDING.replace("qrels: data/qrels.txt", "qrels: nowhere.txt"), "exp.yaml:2: qrels: expected a file, found no "
                                                                     "file at"),
    (HOLDING.replace("measure: map", "measure: FOO@3"), "exp.yaml:6: expect[1]: unknown measure 'FOO'"),
    (HOLDING.replace("tolerance: 0.0005}", "tolerance: 0.0005, tolerance: 0}"),
     "exp.yaml:5: expect[0]: expected each key once, found 'tolerance' twice"),
    (HOLDING.replace("expect:", "expect: [\n"), "exp.yaml:"),
    (HOLDING.replace("rank_at_most: 1", "rank_at_most: first"), "exp.yaml:8: expect[3].rank_at_most: expected a "
                                                                "positive integer, found 'first'"),
    (HOLDING + "colour: blue\n", "exp.yaml:9: colour: expected one of the fields name, qrels, runs, conventions, "
                                 "tolerance, expect, found an unknown field"),
    ("", "exp.yaml:1: expected a mapping with the keys qrels, runs and expect, found null"),
    ("a: !!python/object/apply:os.system [echo hi]\n", "exp.yaml:1: expected YAML, found an error: could not "
                                                       "determine a constructor"),
])
def test_bad_input_exits_2_with_one_line(folder, text, message):
    (folder / "exp.yaml").write_text(text)
    done = check("exp.yaml", "--junit", "out.xml", cwd=folder)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(f"rankscope check: {message}"), done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert not (folder / "out.xml").exists()  # bad input writes no report


def test_a_file_that_is_not_there_or_not_a_file_exits_2(folder):
    done = check(folder / "missing.yaml")
    assert done.returncode == 2 and "missing.yaml: expected a readable file, found No such file" in done.stderr
    done = check(folder)
    assert done.returncode == 2 and "expected a regular file" in done.stderr


def test_a_file_past_the_limit_or_not_utf8_exits_2(folder):
    from rankscope.commands.check import MAX_BYTES

    (folder / "big.yaml").write_text("#" * (MAX_BYTES + 1))
    done = check(folder / "big.yaml")
    assert done.returncode == 2 and f"expected at most {MAX_BYTES} bytes" in done.stderr
    (folder / "latin.yaml").write_bytes(b"qrels: q.txt\nname: caf\xe9\n")
    done = check(folder / "latin.yaml")
    assert done.returncode == 2 and "latin.yaml:2: expected UTF-8 text, found the byte 0xe9" in done.stderr


def test_a_bad_run_named_by_the_file_exits_2(folder):
    (folder / "data" / "dense.run").write_text("q1 Q0 c 1 r\n")  # five fields, not six
    (folder / "exp.yaml").write_text(HOLDING)
    done = check(folder / "exp.yaml")
    assert done.returncode == 2 and "dense.run:1:" in done.stderr and "Traceback" not in done.stderr


def test_conventions_from_the_file_change_the_numbers(folder):
    # -l 2: no document of grade 2, so every AP is 0 and dense no longer ranks alone at the top
    text = HOLDING.replace("expect:", "conventions: {relevance_level: 2}\nexpect:")
    (folder / "exp.yaml").write_text(text)
    done = check(folder / "exp.yaml")
    assert done.returncode == 1
    assert "(value 0; off -0.7778)" in done.stdout and "rank 1; systems 3; value 0; tied with 2 others" in done.stdout


def test_the_command_is_listed_with_its_exit_statuses():
    done = subprocess.run([sys.executable, "-m", "rankscope", "check", "--help"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0
    text = " ".join(done.stdout.split())
    assert "exit status: 0 when every claim holds; 1 when a claim fails or cannot be checked" in text
    listing = subprocess.run([sys.executable, "-m", "rankscope", "--help"], capture_output=True, text=True, timeout=60)
    assert "check the claims of an expectations file" in listing.stdout


def _readme_section() -> str:
    """The section of the documentation on regression checks (docs/guides/organisers.md)."""
    from pathlib import Path

    text = (ROOT / "docs" / "guides" / "organisers.md").read_text()
    return text.split("## Regression checks in CI", 1)[1].split("\n## ", 1)[0]


def test_the_readme_example_is_a_file_check_accepts():
    import yaml

    from metrics.review.claims import Better, Rank, Threshold, read_expectations

    section = _readme_section()
    example = section.split("```yaml\n", 1)[1].split("```", 1)[0]
    spec = read_expectations(yaml.safe_load(example), source="readme.yaml")
    assert [type(c) for c in spec.claims] == [Threshold, Threshold, Better, Better, Rank]
    assert spec.claims[3].test == "t" and spec.claims[3].correction == "holm" and spec.claims[3].alpha == 0.05
    assert spec.conventions.complete and spec.name == "nightly"


def test_the_readme_states_each_exit_status_as_the_help_does():
    from rankscope.commands.check import EXIT_CODES

    rows = {line.split("|")[1].strip(): line.split("|")[2].strip() for line in _readme_section().splitlines()
            if line.startswith("| ") and line.split("|")[1].strip().isdigit()}
    assert sorted(rows) == ["0", "1", "2"]
    for code, text in EXIT_CODES:
        assert rows[str(code)].startswith(text)



def _aliases(levels: int = 14) -> str:
    """A flow list of lists through YAML aliases: one line that stands for 10**levels items."""
    items = ["&a0 [x, x, x, x, x, x, x, x, x, x]"] + [f"&a{i} [{', '.join([f'*a{i - 1}'] * 10)}]"
                                                      for i in range(1, levels)]
    return "[" + ", ".join(items) + "]"


@pytest.mark.parametrize(("part", "message"), [
    ("expect:\n  - {{extra: {big}, system: bm25, measure: AP, value: 0.5}}\n",
     "exp.yaml:4: expect[0].extra: expected one of the fields system, measure, value, at_least, at_most, tolerance, "
     "found an unknown field"),
    ("conventions: {{depth: {big}}}\nexpect:\n  - {{system: bm25, measure: AP, value: 0.5}}\n",
     "exp.yaml:3: conventions.depth: expected an integer from 1 to 1000000000 or null, found a list of 14 items"),
])
def test_aliases_that_stand_for_a_huge_structure_are_refused_without_writing_it_out(folder, part, message):
    text = "qrels: data/qrels.txt\nruns: {bm25: data/bm25.run}\n" + part.format(big=_aliases())
    (folder / "exp.yaml").write_text(text)
    done = check("exp.yaml", cwd=folder)
    assert done.returncode == 2 and done.stderr == f"rankscope check: {message}\n"


def test_lists_nested_too_deep_are_refused(folder):
    (folder / "exp.yaml").write_text("qrels: " + "[" * 3000 + "]" * 3000 + "\n")
    done = check("exp.yaml", cwd=folder)
    assert done.returncode == 2
    assert done.stderr == "rankscope check: exp.yaml: expected YAML, found lists or mappings nested too deep\n"


def test_a_report_that_cannot_be_written_exits_2(folder):
    (folder / "exp.yaml").write_text(HOLDING)
    done = check("exp.yaml", "--junit", "no/such/folder/out.xml", cwd=folder)
    assert done.returncode == 2 and done.stderr.startswith("rankscope check: cannot write no/such/folder/out.xml")


def _trec(path) -> dict[str, dict[str, float]]:
    """A run or qrels file as pytrec_eval's nested dict, read here with a plain loop (gzip or text)."""
    import gzip

    opener = gzip.open if str(path).endswith(".gz") else open
    out: dict[str, dict] = {}
    with opener(path, "rt") as f:
        for line in f:
            fields = line.split()
            if len(fields) == 6:  # qid Q0 docid rank score tag
                out.setdefault(fields[0], {})[fields[2]] = float(fields[4])
            elif len(fields) == 4:  # qid iter docid rel
                out.setdefault(fields[0], {})[fields[2]] = int(fields[3])
    return out


def test_the_demo_example_prints_what_the_readme_shows_and_pytrec_eval_and_scipy_agree(tmp_path):
    import re
    from pathlib import Path

    pytrec_eval = pytest.importorskip("pytrec_eval", reason="pytrec-eval-terrier (the oracle) is not installed")
    import numpy as np
    from scipy import stats
    from statsmodels.stats.multitest import multipletests

    import shutil

    root = ROOT
    section = _readme_section()  # the page's expectations file, checked in a copy of the demo collection
    shutil.copytree(root / "sample_data" / "demo", tmp_path, dirs_exist_ok=True)
    (tmp_path / "expectations.yaml").write_text(section.split("% file: expectations.yaml\n```yaml\n", 1)[1]
                                                .split("```", 1)[0])
    done = check(tmp_path / "expectations.yaml", "--junit", tmp_path / "demo.xml", cwd=tmp_path)
    assert done.returncode == 1
    shown = section.split("$ rankscope check expectations.yaml --junit claims.xml\n", 1)[1].split("```", 1)[0]
    assert done.stdout == shown

    demo = root / "sample_data" / "demo"
    qrels = _trec(demo / "qrels.txt")
    files = {"bm25": "bm25", "bm25_rm3": "bm25_rm3", "dense": "dense_precise"}
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut_10"})
    per_query = {name: evaluator.evaluate(_trec(demo / "runs" / f"{file}.run.gz")) for name, file in files.items()}
    queries = sorted(per_query["bm25"])
    assert all(sorted(v) == queries for v in per_query.values())
    vectors = {(name, m): np.array([per_query[name][q][m] for q in queries]) for name in files
               for m in ("map", "ndcg_cut_10")}
    lines = done.stdout.splitlines()

    def number(line: str, key: str) -> float:
        return float(re.search(rf"\b{key} ([-+0-9.e]+)", line).group(1))

    assert number(lines[0], "value") == pytest.approx(vectors["bm25", "map"].mean(), rel=1e-5)
    assert abs(vectors["bm25", "map"].mean() - 0.2064) <= 0.00005
    assert number(lines[1], "value") == pytest.approx(vectors["dense", "ndcg_cut_10"].mean(), rel=1e-5)
    assert number(lines[4], "value") == pytest.approx(vectors["dense", "map"].mean(), rel=1e-5)
    assert max(files, key=lambda s: vectors[s, "map"].mean()) == "dense"
    for line, measure, than in ((lines[2], "ndcg_cut_10", "bm25"), (lines[3], "map", "bm25_rm3")):
        pairs = [("bm25", "bm25_rm3"), ("bm25", "dense"), ("bm25_rm3", "dense")]
        raw = [stats.ttest_rel(vectors[b, measure], vectors[a, measure]).pvalue for a, b in pairs]
        adjusted = multipletests(raw, method="holm")[1]
        k = pairs.index((than, "dense")) if (than, "dense") in pairs else pairs.index(("dense", than))
        assert number(line, "p_value") == pytest.approx(raw[k], rel=1e-5)
        assert number(line, "p_adjusted") == pytest.approx(adjusted[k], rel=1e-5)
        assert line.startswith("HOLDS" if adjusted[k] < 0.05 else "FAILS")
