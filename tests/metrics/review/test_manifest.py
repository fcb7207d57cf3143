"""The manifest: digests, measures, conventions, seeds, and commands that really reproduce the numbers."""

from __future__ import annotations

import hashlib
import io
import json
import shlex
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pandas as pd
import pytest

import metrics
from metrics import Conventions, ValidationError
from metrics.review.manifest import Manifest, build_manifest, sha256_of
from rankscope.cli import main

QRELS = b"1 0 a 2\n1 0 b 0\n1 0 c 1\n2 0 d 1\n2 0 e 0\n3 0 f 1\n"
RUN_A = b"1 Q0 a 1 3.0 A\n1 Q0 b 2 2.0 A\n1 Q0 c 3 1.0 A\n2 Q0 e 1 2.0 A\n2 Q0 d 2 1.0 A\n"
RUN_B = b"1 Q0 c 1 3.0 B\n1 Q0 a 2 2.0 B\n1 Q0 x 3 1.0 B\n2 Q0 d 1 2.0 B\n3 Q0 f 1 5.0 B\n3 Q0 g 2 4.0 B\n"


@pytest.fixture()
def files(tmp_path: Path):
    """A tiny collection on disk, with awkward file names (spaces, %, quotes) the command must quote."""
    qrels = tmp_path / "my qrels.txt"
    qrels.write_bytes(QRELS)
    a = tmp_path / "bm25_rm3%.run"
    a.write_bytes(RUN_A)
    b = tmp_path / "it's b.run"
    b.write_bytes(RUN_B)
    return qrels, {"bm25_rm3%": a, "it's b": b}


def _eval_numbers(command: str, capsys) -> pd.DataFrame:
    argv = shlex.split(command)
    assert argv[:2] == ["rankscope", "eval"]
    capsys.readouterr()
    assert main(argv[1:]) == 0
    return pd.read_csv(io.StringIO(capsys.readouterr().out), dtype={"query": str})


def _expected(qrels, runs, measures, conventions=None) -> pd.DataFrame:
    per_query = metrics.evaluate(qrels, runs, measures, conventions=conventions)
    summary = metrics.aggregate(per_query).assign(query="all")[["system", "query", "measure", "value"]]
    return pd.concat([per_query, summary], ignore_index=True)


def _assert_same_numbers(got: pd.DataFrame, expected: pd.DataFrame) -> None:
    key = ["system", "query", "measure"]
    merged = expected.merge(got, on=key, how="outer", suffixes=("_api", "_cli"), indicator=True)
    assert (merged["_merge"] == "both").all(), merged[merged["_merge"] != "both"]
    assert (merged["value_api"] - merged["value_cli"]).abs().max() < 1e-12


def test_digests_are_sha256_of_the_file_bytes(files):
    qrels, runs = files
    m = build_manifest(qrels, runs, ["AP"])
    assert m.qrels.sha256 == hashlib.sha256(QRELS).hexdigest()
    assert m.qrels.size == len(QRELS) and m.qrels.name == "my qrels.txt"
    assert [r.sha256 for r in m.runs] == [hashlib.sha256(RUN_A).hexdigest(), hashlib.sha256(RUN_B).hexdigest()]
    assert [r.name for r in m.runs] == ["bm25_rm3%.run", "it's b.run"]
    assert m.systems == ("bm25_rm3%", "it's b")
    assert sha256_of(qrels) == sha256_of(QRELS)


def test_bytes_sources_are_hashed_and_named(files):
    m = build_manifest(QRELS, {"A": RUN_A}, ["AP"], qrels_name="q.txt", file_names={"A": "A.run"})
    assert m.qrels.name == "q.txt" and m.qrels.sha256 == hashlib.sha256(QRELS).hexdigest()
    assert m.runs[0].name == "A.run" and m.runs[0].system == "A"
    assert m.eval_command.endswith(" q.txt A.run")


def test_records_measures_conventions_version_seeds_and_time(files):
    qrels, runs = files
    when = datetime(2024, 5, 1, 14, 30, 5, 123, tzinfo=timezone(timedelta(hours=2)))
    conventions = Conventions(preset="trec_eval-10", relevance_level=2, depth=100, judged_only=True, complete=True)
    m = build_manifest(qrels, runs, ["map", "nDCG@10", "P.5,10", "RBP(p=0.5)", "ERR@10"], conventions,
                       seeds={"compare": 7}, command=["rankscope", "report", "x y"], created=when)
    assert m.rankscope_version == metrics.__version__
    assert m.created_utc == "2024-05-01T12:30:05Z"
    records = {r.label: r for r in m.measures}
    assert list(records) == ["map", "nDCG@10", "P_5", "P_10", "RBP(p=0.5)", "ERR@10"]
    assert records["map"].name == "AP" and records["map"].trec_label == "map"
    assert records["nDCG@10"].trec_label == "ndcg_cut_10"
    assert dict(records["nDCG@10"].params)["cutoff"] == 10 and dict(records["nDCG@10"].params)["gain"] == "linear"
    assert records["RBP(p=0.5)"].trec_label == "rbp_p=0.5" and dict(records["RBP(p=0.5)"].params)["p"] == 0.5
    assert records["ERR@10"].trec_label is None  # trec_eval has no ERR
    assert dict(m.conventions) == conventions.as_dict()
    assert dict(m.seeds) == {"compare": 7}
    assert m.invocation == ("rankscope", "report", "x y")
    d = json.loads(m.to_json())
    assert d == m.to_dict()
    assert d["invocation"] == "rankscope report 'x y'"
    assert d["conventions"]["relevance_level"] == 2 and d["seeds"] == {"compare": 7}
    assert d["measures"][1] == {"label": "nDCG@10", "name": "nDCG@10", "trec_label": "ndcg_cut_10",
                                "params": d["measures"][1]["params"]}
    for flag in ("--compat trec_eval-10", "-l 2", "-M 100", "-J", "-c"):
        assert f" {flag} " in f" {m.eval_command} "
    assert m.caveats == ()


def test_the_eval_command_reproduces_the_numbers(files, capsys):
    qrels, runs = files
    measures = ["AP", "nDCG@10", "P@5", "RR", "num_rel_ret"]
    m = build_manifest(qrels, runs, measures)
    command = m.reproduce_command()
    assert command.startswith("rankscope eval ")
    assert shlex.split(command)[-3:] == [str(qrels), str(runs["bm25_rm3%"]), str(runs["it's b"])]
    _assert_same_numbers(_eval_numbers(command, capsys), _expected(qrels, runs, measures))


@pytest.mark.parametrize("conventions", [
    Conventions(complete=True),
    Conventions(preset="trec_eval-10", relevance_level=2, complete=True),  # without -c, 10.0 stops at a missing topic
    Conventions(depth=2, judged_only=True),
])
def test_the_command_carries_the_conventions(files, capsys, conventions):
    qrels, runs = files
    measures = ["map", "P_5", "ndcg", "iprec_at_recall_0.50", "num_q"]
    m = build_manifest(qrels, runs, measures, conventions)
    assert m.caveats == ()
    _assert_same_numbers(_eval_numbers(m.reproduce_command(), capsys),
                         _expected(qrels, runs, measures, conventions))


def test_on_the_demo_collection(capsys):
    demo = pytest.importorskip("sample_data")
    qrels, runs = demo.demo_paths()
    if not qrels.exists() or not runs:
        pytest.skip("the demo collection has not been generated (python -m sample_data.generate)")
    named = {p.name.split(".")[0]: p for p in runs}
    m = build_manifest(qrels, named, ["AP", "nDCG@10", "P@10"])
    _assert_same_numbers(_eval_numbers(m.reproduce_command(), capsys),
                         _expected(qrels, named, ["AP", "nDCG@10", "P@10"]))


def test_what_the_command_cannot_say_is_a_caveat(files):
    qrels, runs = files
    textbook = build_manifest(qrels, runs, ["AP"], Conventions(preset="textbook"))
    assert any("preset='textbook'" in c for c in textbook.caveats)
    renamed = build_manifest(qrels, {"other name": runs["bm25_rm3%"]}, ["AP"])
    assert any("'other name'" in c and "'bm25_rm3%'" in c for c in renamed.caveats)


def test_tests_add_a_compare_command_with_the_seed(files):
    qrels, runs = files
    m = build_manifest(qrels, runs, ["AP", "P@5"], seeds={"compare": 3},
                       tests={"test": "randomization", "correction": "holm", "alpha": 0.01, "baseline": "bm25_rm3%",
                              "n_resamples": 999})
    command = m.reproduce_command("compare")
    argv = shlex.split(command)
    assert argv[:2] == ["rankscope", "compare"]
    assert argv[argv.index("--seed") + 1] == "3" and argv[argv.index("--test") + 1] == "randomization"
    assert argv[argv.index("--baseline") + 1] == "bm25_rm3%"
    assert argv[argv.index("--alpha") + 1] == "0.01"
    assert argv[-3:] == [str(qrels), *(str(p) for p in runs.values())]
    assert dict(m.tests)["seed"] == 3 and dict(m.tests)["n_resamples"] == 999
    assert m.reproduce_command("all").splitlines() == [m.eval_command, command]
    assert m.to_dict()["commands"]["compare"] == [command]


def test_the_compare_command_reproduces_the_tests(files, capsys):
    from metrics.stats.significance import compare_systems

    qrels, runs = files
    m = build_manifest(qrels, runs, ["AP", "P@5", "RR"], seeds={"compare": 5},
                       tests={"test": "permutation", "correction": "bonferroni", "alpha": 0.1, "complete": True,
                              "n_resamples": 500, "measures": ["AP", "RR"]})
    assert m.caveats == ()
    argv = shlex.split(m.reproduce_command("compare"))
    assert "-c" in argv and argv.count("-m") == 2 and "--baseline" not in argv
    capsys.readouterr()
    assert main(argv[1:]) == 0
    got = pd.read_csv(io.StringIO(capsys.readouterr().out))
    per_query = metrics.evaluate(qrels, runs, ["AP", "RR"], complete=True)
    expected = compare_systems(per_query, test="permutation", correction="bonferroni", alpha=0.1, seed=5,
                               n_resamples=500).frame
    assert got[["measure", "system_a", "system_b"]].values.tolist() == \
        expected[["measure", "system_a", "system_b"]].values.tolist()
    assert (got["p_adjusted"] - expected["p_adjusted"]).abs().max() < 1e-12


@pytest.mark.parametrize("conventions, tests", [
    (Conventions(), {"test": "t"}),
    (Conventions(preset="trec_eval-10", relevance_level=2, depth=7, judged_only=True),
     {"test": "randomisation", "correction": "bh", "alpha": 0.1, "family": "all", "n_resamples": 250,
      "zero_method": "pratt", "ci": "percentile", "tie_tolerance": 0.01, "baselines": [None, "-odd"]}),
    (Conventions(complete=True), {"test": "wilcoxon", "family": "measure", "complete": True, "seed": 11}),
])
def test_the_commands_parse_back_to_the_conventions_and_settings(files, conventions, tests):
    from metrics.review.flags import settings_from
    from rankscope.cli import build_parser
    from rankscope.commands import conventions_of, significance_settings_of

    qrels, runs = files
    m = build_manifest(qrels, runs, ["AP"], conventions, tests=tests)
    assert m.caveats == ()
    args = build_parser("eval").parse_args(shlex.split(m.eval_command)[1:])
    assert conventions_of(args) == conventions
    recorded = dict(m.tests)
    for command, baseline in zip(m.compare_commands, recorded["baselines"]):
        args = build_parser("compare").parse_args(shlex.split(command)[1:])
        assert conventions_of(args) == (conventions if not tests.get("complete") else Conventions(complete=True))
        given = {k: v for k, v in recorded.items() if k not in ("measures", "baselines", "complete")}
        settings = significance_settings_of(args)
        assert settings_from({**given, "baseline": baseline}).items() <= settings.items()
        assert settings["seed"] == tests.get("seed", 0)


def test_the_manifest_knows_the_flags_without_the_command_line():
    code = ("import sys, metrics.review.manifest as m\n"
            "m.build_manifest(b'1 0 a 1\\n', {'x': b'1 Q0 a 1 1 x\\n', 'y': b'1 Q0 a 1 2 y\\n'}, ['AP'],"
            " tests={'test': 'permutation', 'family': 'all'})\n"
            "print(sorted(n for n in sys.modules if n.split('.')[0] in ('rankscope', 'dashboard')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_without_tests_there_is_no_compare_command(files):
    qrels, runs = files
    m = build_manifest(qrels, runs, ["AP"])
    assert m.compare_commands == () and m.tests == ()
    with pytest.raises(ValidationError, match="no significance test"):
        m.reproduce_command("compare")
    with pytest.raises(ValidationError, match="kind"):
        m.reproduce_command("latex")


def test_the_manifest_is_frozen(files):
    qrels, runs = files
    m = build_manifest(qrels, runs, ["AP"])
    assert isinstance(m, Manifest)
    with pytest.raises(AttributeError):
        m.eval_command = "rm -rf /"  # type: ignore[misc]


@pytest.mark.parametrize("call, message", [
    (lambda q, r: build_manifest(q, {}, ["AP"]), "non-empty mapping"),
    (lambda q, r: build_manifest(q, [r["it's b"]], ["AP"]), "mapping"),
    (lambda q, r: build_manifest(q.with_name("missing.txt"), r, ["AP"]), "cannot read"),
    (lambda q, r: build_manifest(12, r, ["AP"]), "path or bytes"),
    (lambda q, r: build_manifest(q, r, ["AP"], seeds={"compare": "zero"}), "integer"),
    (lambda q, r: build_manifest(q, r, ["AP"], tests={"test": "t", "colour": "red"}),
     "^colour: expected a test setting \\(.*\\), found an unknown setting$"),
    (lambda q, r: build_manifest(q, r, ["AP"], created=datetime(2024, 1, 1)), "timezone"),
    (lambda q, r: build_manifest(q, r, [], conventions=None), "no measures"),
])
def test_bad_arguments_raise_validation_errors(files, call, message):
    qrels, runs = files
    with pytest.raises(ValidationError, match=message):
        call(qrels, runs)


def test_the_manifest_module_leaves_streamlit_and_plotly_out():
    code = ("import sys, metrics.review.manifest, rankscope.commands.report; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('streamlit', 'plotly', 'dashboard')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


# ---- reading a manifest back --------------------------------------------------------------------------------


def test_a_manifest_reads_back_from_its_json(files):
    from metrics.review.manifest import comment_lines

    qrels, runs = files
    m = build_manifest(qrels, runs, ["AP", "nDCG@10", "RBP(p=0.5)"], Conventions(preset="trec_eval-10", depth=5),
                       seeds={"compare": 4}, command=["rankscope", "report", "-o", "a b.html"],
                       tests={"test": "permutation", "baseline": "it's b", "n_resamples": 99})
    assert Manifest.from_dict(json.loads(m.to_json())) == m
    lines = comment_lines(m, "% ").splitlines()
    assert all(line.startswith("% ") for line in lines)
    assert json.loads("\n".join(line[2:] for line in lines[1:])) == m.to_dict()
    assert comment_lines(m.to_dict(), "") == comment_lines(m, "")


def _broken(**changes):
    document = build_manifest(QRELS, {"A": RUN_A}, ["AP"], qrels_name="q.txt").to_dict()
    for path, value in changes.items():
        target, keys = document, path.split("__")
        for key in keys[:-1]:
            target = target[int(key)] if isinstance(target, list) else target[key]
        if value is KeyError:
            del target[keys[-1]]
        else:
            target[keys[-1]] = value
    return document


@pytest.mark.parametrize("document, message", [
    ([1, 2], "manifest: expected a manifest (a mapping), found [1, 2]"),
    (_broken(extra=1), "manifest.extra: expected one of the fields rankscope_version, "),
    (_broken(qrels=KeyError), "manifest.qrels: expected a file's record (role, name, path, sha256, size), found no such "
                              "field"),
    (_broken(qrels__sha256="abc"), "manifest.qrels.sha256: expected a SHA-256 in lower-case hex, found 'abc'"),
    (_broken(qrels__size=-1), "manifest.qrels.size: expected a non-negative integer, found -1"),
    (_broken(qrels__role="judge"), "manifest.qrels.role: expected one of 'qrels', 'run', found 'judge'"),
    (_broken(runs={"A": 1}), "manifest.runs: expected a list of at most 10000 items, found a mapping of 1 key"),
    (_broken(runs__0__name=3), "manifest.runs[0].name: expected text of at most 100000 characters, found 3"),
    (_broken(measures__0__params={"cutoff": {"x": 1}}), "manifest.measures[0].params.cutoff: expected text, a number, "
                                                        "true or false, or a list of them or null, found a mapping"),
    (_broken(seeds={"compare": "0"}), "manifest.seeds.compare: expected an integer, found '0'"),
    (_broken(commands={"compare": []}), "manifest.commands.eval: expected text of at most 100000 characters, found no "
                                        "such field"),
    (_broken(invocation="rankscope 'unclosed"), "manifest.invocation: expected a shell command line, found "
                                                "\"rankscope 'unclosed\" (No closing quotation)"),
    (_broken(caveats=["x" * 200_000]), "manifest.caveats[0]: expected text of at most 100000 characters, found "
                                       "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...' (200000 characters)"),
])
def test_a_bad_manifest_is_a_clear_error(document, message):
    with pytest.raises(ValidationError) as caught:
        Manifest.from_dict(document)
    assert str(caught.value).startswith(message)
