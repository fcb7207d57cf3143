"""The bad-input corpus (tests/data/bad/): each file's exact message or warnings, from the readers and the CLI.

``tests/data/bad/cases.json`` lists every file with what it must produce: the exact ``ParseError`` message,
or (legal input) the number of rows read and the lint warnings. The dashboard's upload tests read the same
list.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from metrics import ParseError, evaluate, lint, read_qrels, read_run
from rankscope.cli import main
from tests.paths import TESTS

BAD = TESTS / "data" / "bad"
MANIFEST = json.loads((BAD / "cases.json").read_text(encoding="utf-8"))
CASES = {case["file"]: case for case in MANIFEST["cases"]}
ERRORS = sorted(name for name, case in CASES.items() if "error" in case)
LEGAL = sorted(name for name, case in CASES.items() if "error" not in case)
REF_QRELS = BAD / MANIFEST["reference"]["qrels"]
REF_RUN = BAD / MANIFEST["reference"]["run"]


def reader(name: str):
    return read_qrels if CASES[name]["read_as"] == "qrels" else read_run


def test_every_corpus_file_has_one_entry():
    files = {p.name for p in BAD.iterdir()} - {"make.py", "cases.json", "sessions"}  # sessions: test_sessions.py
    assert files == set(CASES)
    assert len(MANIFEST["cases"]) == len(CASES)
    for case in MANIFEST["cases"]:
        assert case["read_as"] in ("run", "qrels") and case["case"]
        assert ("error" in case) != ("rows" in case and "warnings" in case), case["file"]


def test_corpus_files_are_small():
    assert all((BAD / name).stat().st_size < 300_000 for name in CASES)


@pytest.mark.parametrize("name", ERRORS)
def test_reader_message(name):
    with pytest.raises(ParseError) as info:
        reader(name)(BAD / name)
    assert str(info.value) == CASES[name]["error"]
    assert info.value.source == name


@pytest.mark.parametrize("name", ERRORS)
def test_reader_message_from_bytes_names_the_upload(name):
    with pytest.raises(ParseError) as info:
        reader(name)((BAD / name).read_bytes(), name=name)
    assert str(info.value) == CASES[name]["error"]


@pytest.mark.parametrize("name", LEGAL)
def test_legal_input_reads_with_its_warnings(name):
    case = CASES[name]
    loaded = reader(name)(BAD / name)
    assert len(loaded) == case["rows"]
    if case["read_as"] == "qrels":
        items = lint(loaded, [read_run(REF_RUN)])
    else:
        items = lint(read_qrels(REF_QRELS), [loaded])
    assert [{"code": i.code, "message": i.message} for i in items] == case["warnings"]


@pytest.mark.parametrize("name", ERRORS)
def test_cli_exits_2_with_one_line(name, capsys):
    pair = [str(BAD / name), str(REF_RUN)] if CASES[name]["read_as"] == "qrels" else [str(REF_QRELS), str(BAD / name)]
    assert main(["eval", *pair]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"rankscope eval: {CASES[name]['error']}\n"


@pytest.mark.parametrize("name", LEGAL)
def test_cli_evaluates_legal_input(name, capsys):
    pair = [str(BAD / name), str(REF_RUN)] if CASES[name]["read_as"] == "qrels" else [str(REF_QRELS), str(BAD / name)]
    if name == "disjoint_topics.run":  # legal to read, but a run that scores nothing is refused unless asked for
        assert main(["eval", "-m", "map", *pair]) == 2
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1
        assert "no topic of the run is in the qrels" in err and "--allow-no-common-topics" in err
        pair = ["--allow-no-common-topics", *pair]
    assert main(["eval", "-m", "map", "-m", "num_q", *pair]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert [line.split("\t")[0].strip() for line in out.splitlines()] == ["num_q", "map"]  # trec_eval's order


def test_cli_in_a_real_process_prints_no_traceback():
    proc = subprocess.run([sys.executable, "-m", "rankscope.cli", "eval", str(BAD / "duplicate_doc.qrels"),
                           str(REF_RUN)], capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr == f"rankscope eval: {CASES['duplicate_doc.qrels']['error']}\n"


def test_legal_oddities_evaluate_like_the_clean_file():
    clean = evaluate(REF_QRELS, {"s": REF_RUN}, ["map", "ndcg", "P_5"])
    for name in ("bom.run", "crlf.run", "cr_only.run", "tabs.run", "comments_and_blanks.run",
                 "gzip_not_named_gz.run"):
        other = evaluate(REF_QRELS, {"s": BAD / name}, ["map", "ndcg", "P_5"])
        assert other.equals(clean), name


def test_hostile_and_unicode_ids_are_kept_verbatim():
    assert read_run(BAD / "hostile_docids.run").table.column("docid").to_pylist() == [
        "<script>alert(1)</script>", '"quoted"', "$(rm${IFS}-rf)`id`;|&>", "'--><img/src=x>"]
    assert read_run(BAD / "unicode_docids.run").table.column("docid").to_pylist() == [
        "caf\u00e9", "\u65e5\u672c\u8a9e", "a\u00a0b", "\u202eexe.txt", "\U0001f600"]
    hostile = read_run(BAD / "hostile_names.run")
    assert hostile.tag == "<img/src=x/onerror=alert(1)>" and hostile.queries == ("302", "<b>301</b>")


def test_disjoint_topics_evaluate_to_nothing():
    assert evaluate(REF_QRELS, {"s": BAD / "disjoint_topics.run"}, ["map"]).empty


def test_ties_are_broken_by_docid_descending():
    ranked = evaluate("301 0 D99999 1\n301 0 D0 1\n", {"s": BAD / "ties_100k.run.gz"}, ["recip_rank", "num_ret"])
    # byte-wise descending: "D99999" comes first, "D0" last
    assert ranked["value"].tolist() == [1.0, 100_000.0]


def test_duplicate_policies_on_the_corpus():
    for policy, score in (("first", 12.5), ("last", 10.0), ("max", 12.5)):
        run = read_run(BAD / "duplicate_doc.run", duplicates=policy)
        assert len(run) == 2
        assert run.frame.set_index("docid").loc["FT934-5418", "score"] == score
    qrels = read_qrels(BAD / "duplicate_doc.qrels", duplicates="last")
    assert qrels.frame.set_index("docid").loc["FT934-5418", "relevance"] == 2


OPTIONS = MANIFEST["options"]


def _one_gigabyte() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def _rankscope(argv: list[str]) -> subprocess.CompletedProcess:
    """``python -m rankscope`` on ``argv`` ({qrels}, {run}, {run2}: reference files), in 1 GB of address space."""
    files = {"{qrels}": str(REF_QRELS), "{run}": str(REF_RUN), "{run2}": str(BAD / "tabs.run")}
    return subprocess.run([sys.executable, "-m", "rankscope", *(files.get(a, a) for a in argv)],
                          capture_output=True, text=True, preexec_fn=_one_gigabyte, timeout=120)


def _unlabelled(text: str) -> list[str]:
    """Output lines without trec_eval's first column (the measure's label); other lines as they are."""
    return [line.split("\t", 1)[-1] for line in text.splitlines()]


def test_every_option_case_has_one_outcome():
    for case in OPTIONS:
        assert case["case"] and case["argv"]
        assert ("error" in case) != ("same_as" in case), case["case"]


@pytest.mark.skipif(sys.platform == "win32", reason="address-space limits need resource.setrlimit")
@pytest.mark.parametrize("case", OPTIONS, ids=[c["case"] for c in OPTIONS])
def test_option_values_within_one_gigabyte(case):
    done = _rankscope(case["argv"])
    if "error" in case:
        assert (done.returncode, done.stdout, done.stderr) == (2, "", case["error"] + "\n")
        return
    assert done.returncode == 0, done.stderr
    same = _rankscope(case["same_as"])
    assert same.returncode == 0, same.stderr
    assert done.stdout and _unlabelled(done.stdout) == _unlabelled(same.stdout)
