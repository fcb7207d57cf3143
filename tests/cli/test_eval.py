"""``rankscope eval`` and ``rankscope measures``: every output format, several runs, errors."""

from __future__ import annotations

import csv
import io
import json

import pytest

from metrics import aggregate, evaluate, list_measures
from rankscope.cli import main

QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 d 1\n2 0 e 1\n"
RUN_A = "1 Q0 a 1 3.0 alpha\n1 Q0 b 2 2.0 alpha\n1 Q0 c 3 1.0 alpha\n2 Q0 x 1 5.0 alpha\n2 Q0 e 2 4.0 alpha\n"
RUN_B = "1 Q0 c 1 3.0 beta\n1 Q0 a 2 2.0 beta\n2 Q0 d 1 5.0 beta\n"


@pytest.fixture()
def files(tmp_path):
    paths = {}
    for name, text in (("q.qrels", QRELS), ("a.run", RUN_A), ("b.run", RUN_B)):
        paths[name] = tmp_path / name
        paths[name].write_text(text)
    return paths


def run_cli(capsys, *argv):
    code = main(["eval", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def test_trec_format_by_hand(files, capsys):
    # run a: query 1 AP = (1/1 + 2/3) / 2, query 2 AP = (1/2) / 2; P_5 = 2/5 and 1/5
    code, out, err = run_cli(capsys, "-q", "-m", "map", "-m", "P.5", "-m", "num_rel_ret", files["q.qrels"],
                             files["a.run"])
    assert code == 0 and err == ""
    assert out == ("num_rel_ret           \t1\t2\n"
                   "map                   \t1\t0.8333\n"
                   "P_5                   \t1\t0.4000\n"
                   "num_rel_ret           \t2\t1\n"
                   "map                   \t2\t0.2500\n"
                   "P_5                   \t2\t0.2000\n"
                   "num_rel_ret           \tall\t3\n"
                   "map                   \tall\t0.5417\n"
                   "P_5                   \tall\t0.3000\n")


def test_several_runs_print_one_block_each(files, capsys):
    code, out, _ = run_cli(capsys, "-m", "runid", "-m", "map", files["q.qrels"], files["a.run"], files["b.run"])
    assert code == 0
    assert out.splitlines() == ["runid                 \tall\talpha", "map                   \tall\t0.5417",
                                "runid                 \tall\tbeta", "map                   \tall\t0.7500"]


def test_several_runs_are_labelled_by_their_runid_without_asking(files, capsys):
    code, out, _ = run_cli(capsys, "-q", "-m", "map", files["q.qrels"], files["a.run"], files["b.run"])
    assert code == 0
    assert out.splitlines() == [
        "runid                 \tall\talpha", "map                   \t1\t0.8333", "map                   \t2\t0.2500",
        "map                   \tall\t0.5417",
        "runid                 \tall\tbeta", "map                   \t1\t1.0000", "map                   \t2\t0.5000",
        "map                   \tall\t0.7500"]


def test_several_runs_with_official_measures_print_runid_once_per_block(files, capsys):
    code, out, _ = run_cli(capsys, files["q.qrels"], files["a.run"], files["b.run"])
    assert code == 0
    lines = out.splitlines()
    runids = [i for i, line in enumerate(lines) if line.startswith("runid ")]
    assert [lines[i] for i in runids] == ["runid                 \tall\talpha", "runid                 \tall\tbeta"]
    assert runids[0] == 0 and runids[1] == len(lines) // 2


def test_one_run_prints_no_runid_unless_asked(files, capsys):
    code, out, _ = run_cli(capsys, "-m", "map", files["q.qrels"], files["a.run"])
    assert code == 0 and out == "map                   \tall\t0.5417\n"


def test_json_records_at_full_precision(files, capsys):
    code, out, _ = run_cli(capsys, "-q", "--format", "json", "-m", "map", "-m", "P_10", "-m", "nDCG@2",
                           "-m", "iprec_at_recall.0.1", "-m", "num_ret", files["q.qrels"], files["a.run"],
                           files["b.run"])
    assert code == 0
    records = json.loads(out)
    assert set(records[0]) == {"system", "query", "measure", "value"}
    labels = ["map", "P_10", "nDCG@2", "iprec_at_recall_0.10", "num_ret"]
    assert list(dict.fromkeys(r["measure"] for r in records)) == labels  # trec names keep their spelling
    expected = evaluate(QRELS, {"a": RUN_A, "b": RUN_B}, labels)
    per_query = [r for r in records if r["query"] != "all"]
    assert [(r["system"], r["query"], r["measure"]) for r in per_query] == \
        list(zip(expected["system"], expected["query"], expected["measure"]))
    assert [r["value"] for r in per_query] == expected["value"].tolist()  # bit for bit
    summary = {(r["system"], r["measure"]): r["value"] for r in records if r["query"] == "all"}
    for row in aggregate(expected).itertuples():
        assert summary[(row.system, row.measure)] == row.value
    assert isinstance(summary[("a", "num_ret")], int) and summary[("a", "num_ret")] == 5
    assert all(isinstance(r["value"], int) for r in records if r["measure"] == "num_ret")


def test_csv_is_the_same_records(files, capsys):
    _, out_json, _ = run_cli(capsys, "-q", "--format", "json", "-m", "map", "-m", "recip_rank", files["q.qrels"],
                             files["a.run"])
    _, out_csv, _ = run_cli(capsys, "-q", "--format", "csv", "-m", "map", "-m", "recip_rank", files["q.qrels"],
                            files["a.run"])
    rows = list(csv.DictReader(io.StringIO(out_csv)))
    records = json.loads(out_json)
    assert [(r["system"], r["query"], r["measure"]) for r in rows] == \
        [(r["system"], r["query"], r["measure"]) for r in records]
    assert [float(r["value"]) for r in rows] == [r["value"] for r in records]


def test_options_reach_the_conventions(files, capsys):
    _, plain, _ = run_cli(capsys, "--format", "json", "-m", "P_5", files["q.qrels"], files["a.run"])
    _, level2, _ = run_cli(capsys, "--format", "json", "-l", "2", "-m", "P_5", files["q.qrels"], files["a.run"])
    _, depth, _ = run_cli(capsys, "--format", "json", "-M", "1", "-m", "num_ret", files["q.qrels"], files["a.run"])
    _, complete, _ = run_cli(capsys, "--format", "json", "-c", "-m", "num_q", files["q.qrels"], files["b.run"])
    assert json.loads(plain)[0]["value"] == pytest.approx(0.3)
    assert json.loads(level2)[0]["value"] == pytest.approx(0.1)  # only "c" (grade 2) is relevant
    assert json.loads(depth)[0]["value"] == 2
    assert json.loads(complete)[0]["value"] == 2


def test_unknown_measure_is_one_line_and_status_2(files, capsys):
    code, out, err = run_cli(capsys, "-m", "nDGC@10", files["q.qrels"], files["a.run"])
    assert code == 2 and out == ""
    assert err == "rankscope eval: unknown measure 'nDGC'; did you mean nDCG, RnDCG?\n"


def test_measures_json_lists_the_registry(capsys):
    assert main(["measures", "--format", "json"]) == 0
    described = json.loads(capsys.readouterr().out)
    assert [d["name"] for d in described] == [cls.name for cls in list_measures()]
    ndcg = next(d for d in described if d["name"] == "nDCG")
    assert ndcg["trec_eval"] == ["ndcg", "ndcg_cut"] and ndcg["latex"] and ndcg["higher_is_better"] is True
    assert {p["name"] for p in ndcg["params"]} >= {"cutoff", "gain", "discount"}
    assert next(p for p in ndcg["params"] if p["name"] == "gain")["choices"] == ["linear", "exp"]


def test_measures_table_names_every_measure(capsys):
    assert main(["measures"]) == 0
    out = capsys.readouterr().out
    for cls in list_measures():
        assert f"\n{cls.name}" in "\n" + out, cls.name
        assert cls.description in out
