"""``rankscope pool``: every method end to end, its formats, the replay, and one line with status 2 for bad input."""

from __future__ import annotations

import json

import pytest

from metrics.io import read_run
from metrics.judgments.pooling import METHODS
from rankscope.cli import main
from tests.metrics.judgments.pool_cases import random_case


@pytest.fixture()
def files(tmp_path):
    case = random_case(11, n_runs=3)
    runs = []
    for name, text in case.runs.items():
        path = tmp_path / f"{name}.run"
        path.write_text(text)
        runs.append(path)
    qrels = tmp_path / "judged.qrels"
    qrels.write_text(case.qrels)
    complete = tmp_path / "complete.qrels"
    retrieved = sorted({tuple(line.split()[0:3:2]) for text in case.runs.values() for line in text.splitlines()})
    complete.write_text("".join(f"{q} 0 {d} {int(d[-1]) % 2}\n" for q, d in retrieved))
    return runs, qrels, complete


def pool(capsys, *argv):
    code = main(["pool", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("method", list(METHODS))
def test_every_method_writes_its_documents_in_order(files, capsys, method):
    runs, qrels, _ = files
    code, out, err = pool(capsys, *runs, "--qrels", qrels, "--method", method, "--depth", 8, "--budget", 12)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "order\ttopic\tdocid\tweight\twhy"
    rows = [line.split("\t") for line in lines[1:]]
    assert [int(r[0]) for r in rows] == list(range(1, len(rows) + 1)) and 0 < len(rows) <= 12
    judged = {(q, d) for q, _, d, g in (line.split() for line in qrels.read_text().splitlines()) if int(g) >= 0}
    assert not judged & {(r[1], r[2]) for r in rows}
    assert all(r[4] for r in rows)
    assert f"{method} (" in err and "Judged@10 now" in err


def test_trec_and_json_hold_the_same_documents(files, capsys):
    runs, qrels, _ = files
    _, tsv, _ = pool(capsys, *runs, "--qrels", qrels, "--method", "rbp", "--rbp-p", 0.6)
    _, trec, _ = pool(capsys, *runs, "--qrels", qrels, "--method", "rbp", "--rbp-p", 0.6, "--format", "trec")
    code, text, err = pool(capsys, *runs, "--qrels", qrels, "--method", "rbp", "--rbp-p", 0.6, "--format", "json")
    assert code == 0 and err == ""
    doc = json.loads(text)
    expected = [tuple(line.split("\t")[1:3]) for line in tsv.splitlines()[1:]]
    assert [(r["topic"], r["docid"]) for r in doc["documents"]] == expected
    assert [tuple(line.split()[0:3:2]) for line in trec.splitlines()] == expected
    assert doc["settings"] == {"rbp_p": 0.6, "rbp_strategy": "sum"}
    assert {"topics", "runs"} <= doc.keys()
    read_run(trec, name="order")  # the trec lines read as a run


def test_decide_gives_every_pair_with_its_model(files, capsys):
    runs, qrels, _ = files
    code, out, err = pool(capsys, *runs, "--qrels", qrels, "--method", "decide", "-m", "P@5", "--prior", 0.3,
                          "--pairs", "r0:r1,r2:r0", "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert [{p["better"], p["worse"]} for p in doc["pairs"]] == [{"r0", "r1"}, {"r0", "r2"}]
    assert "normal approximation" in doc["model"] and "probability 0.3" in doc["model"]
    assert all(0 <= p["probability"] <= 1 and p["method"] in ("exact", "normal") for p in doc["pairs"])
    code, _, err = pool(capsys, *runs, "--qrels", qrels, "--method", "decide")
    assert code == 0 and "P(order holds)" in err and "model: an unjudged document" in err


def test_the_replay_prints_one_row_per_method(files, capsys):
    runs, _, complete = files
    code, out, err = pool(capsys, *runs, "--simulate", complete, "--method", "depth", "--method", "decide",
                          "--depth", 6, "--step", 2)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("Replay: 3 runs (3 pairs)")
    assert [line.split()[0] for line in lines[2:]] == ["depth", "decide"]
    code, out, _ = pool(capsys, *runs, "--simulate", complete, "--depth", 6, "--format", "json")
    doc = json.loads(out)
    assert [r["method"] for r in doc["summary"]] == list(METHODS)
    assert doc["checks"][0]["judgments"] == 0


def one_line(capsys, *argv) -> str:
    code, out, err = pool(capsys, *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    return err


def test_an_unknown_pair(files, capsys):
    runs, qrels, _ = files
    err = one_line(capsys, *runs, "--method", "decide", "--pairs", "r0:bm25")
    assert err == "rankscope pool: unknown run 'bm25' in the pair r0:bm25; the runs are r0, r1, r2\n"


def test_a_budget_of_zero(files, capsys):
    runs, _, _ = files
    err = one_line(capsys, *runs, "--budget", 0)
    assert err == "rankscope pool: --budget: expected an integer from 1 to 1000000000, found 0\n"


def test_runs_without_common_topics(tmp_path, capsys):
    a, b = tmp_path / "a.run", tmp_path / "b.run"
    a.write_text("1 Q0 x 1 2 a\n2 Q0 y 1 2 a\n")
    b.write_text("301 Q0 x 1 2 b\n302 Q0 y 1 2 b\n")
    err = one_line(capsys, a, b)
    assert err == "rankscope pool: the runs share no topic: a answers 1, 2 (2 topics), b answers 301, 302 (2 topics)\n"


def test_a_qrels_file_of_another_collection(files, tmp_path, capsys):
    runs, _, _ = files
    other = tmp_path / "other.qrels"
    other.write_text("".join(f"{t} 0 FR94-{t}-{i} 1\n" for t in range(301, 303) for i in range(3)))
    err = one_line(capsys, *runs, "--qrels", other)
    assert err.startswith("rankscope pool: other.qrels: the judgments are of other topics (301, 302 (2 topics)) than "
                          "the runs answer (")
    topics = sorted({line.split()[0] for path in runs for line in path.read_text().splitlines()})
    same_topics = tmp_path / "same.qrels"
    same_topics.write_text("".join(f"{t} 0 FR94-{i} 1\n" for t in topics for i in range(10)))
    err = one_line(capsys, *runs, "--qrels", same_topics)
    assert "none of the" in err and "is retrieved by any run: judgments of another collection?" in err


def test_an_option_of_another_method_is_refused(files, capsys):
    runs, _, _ = files
    err = one_line(capsys, *runs, "--method", "depth", "--rbp-p", 0.5)
    assert err == "rankscope pool: --rbp-p: applies to --method rbp, not depth\n"
    err = one_line(capsys, *runs, "--method", "rbp", "--rbp-p", 1.5)
    assert err == "rankscope pool: --rbp-p must be between 0 and 1, got 1.5\n"


def test_the_flags_and_help_come_from_the_declarations():
    import argparse

    from rankscope.cli import build_parser

    (action,) = [a for a in build_parser("pool")._actions if isinstance(a, argparse._SubParsersAction)]
    parser = action.choices["pool"]
    flags = {s: a for a in parser._actions for s in a.option_strings}
    assert flags["--method"].choices == list(METHODS)
    for method in METHODS.values():
        assert method.help.split(";")[0] in parser.description
        for option in method.options:
            assert method.name in flags[option.flag].help and option.help in flags[option.flag].help
