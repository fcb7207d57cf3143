"""Many runs on workers in every command: what is printed is what one process prints, byte for byte."""

from __future__ import annotations

import argparse
import os
import re
import sys
import time

import numpy as np
import pandas as pd
import pytest

from metrics.conventions import Conventions
from metrics.errors import ValidationError
from metrics.review.report import compute_report
from metrics.scale import evaluate_parallel
from metrics.scale.pool import _drive
from metrics.scale.tasks import Outcome
from rankscope.cli import main
from rankscope.runs import TIMEOUT_ENV, per_query_for_report
from tests.dask_cluster import missing
from tests.metrics.scale.helpers import many_runs

EVAL_ARGS = [
    (41, ["-q", "-m", "all_trec"]),
    (42, ["-m", "official"]),
    (43, ["-q", "--format", "json", "-m", "official", "-m", "ndcg_cut.5,10"]),
    (44, ["-q", "--format", "csv", "-c", "-m", "map", "-m", "P.5", "-m", "relstring.4"]),
    (45, ["-q", "--ties", "range", "-m", "P.5", "-m", "recip_rank"]),
    (46, ["--ties", "range", "--format", "json", "-q", "-m", "P.5"]),
    (47, ["--ties", "range", "--format", "csv", "-m", "recip_rank", "-m", "map"]),
]


def need(module: str, reason: str) -> None:
    """Skip without ``module`` (a failure under ``CI=true``, as for a missing cluster)."""
    import importlib.util

    if importlib.util.find_spec(module) is None:
        missing(reason)


def printed(capsys, argv: list[str]) -> tuple[int, str, str]:
    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize("seed, args", EVAL_ARGS)
def test_eval_prints_the_same_bytes_on_workers(tmp_path, capsys, seed, args):
    qrels, runs = many_runs(seed, 5, tmp_path)
    argv = ["eval", *args, str(qrels), *map(str, runs)]
    status, one, err = printed(capsys, [*argv, "--jobs", "1"])
    assert status == 0 and err == "" and one.strip()
    assert printed(capsys, [*argv, "--jobs", "2"]) == (0, one, "")
    assert printed(capsys, [*argv]) == (0, one, "")  # the default: this process for a handful of runs


def test_the_default_spreads_only_where_the_model_gains(tmp_path, monkeypatch):
    from rankscope.runs import jobs_of

    default = argparse.Namespace(jobs=None)
    run = tmp_path / "r.run"
    run.write_bytes(b"1 Q0 d 1 1 x\n" * 700_000)  # 8.4 MB, a Robust04-size run
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    assert jobs_of(default, [str(run)] * 200) == 2  # 200 runs on two idle cores
    assert jobs_of(default, [str(run)] * 4) is None  # starting workers costs more than four runs gain
    monkeypatch.setattr(os, "getloadavg", lambda: (3.0, 3.0, 3.0))
    assert jobs_of(default, [str(run)] * 200) is None  # the cores are busy: one process
    assert jobs_of(argparse.Namespace(jobs=2), ["a", "b"]) == 2
    assert jobs_of(argparse.Namespace(jobs=2), ["a"]) is None


def test_eval_on_dask_prints_the_same_bytes(tmp_path, capsys, dask_client):
    qrels, runs = many_runs(48, 6, tmp_path)
    address = dask_client.scheduler.address
    for args in (["-q", "-m", "all_trec"], ["-q", "--format", "json", "-m", "official"],
                 ["--format", "csv", "-q", "-m", "map"], ["--ties", "range", "-q", "-m", "P.5"]):
        argv = ["eval", *args, str(qrels), *map(str, runs)]
        status, one, _ = printed(capsys, [*argv, "--jobs", "1"])
        assert status == 0
        assert printed(capsys, [*argv, "--scheduler", address]) == (0, one, "")


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_keep_going_on_workers_prints_the_error_and_the_others_unchanged(tmp_path, capsys, jobs):
    qrels, runs = many_runs(49, 4, tmp_path)
    broken = tmp_path / "broken.run"
    broken.write_text("1 Q0 D1 1 2.0\n")
    args = ["eval", "-q", "-m", "map", "-m", "P.5", str(qrels)]
    _, alone, _ = printed(capsys, [*args, *map(str, runs), "--jobs", "1"])
    status, out, err = printed(capsys, [*args, str(runs[0]), str(broken), *map(str, runs[1:]), "--jobs", jobs,
                                        "--keep-going"])
    assert status == 1 and out == alone
    assert err == 'rankscope eval: broken.run:1: expected 6 fields "qid Q0 docid rank score tag", found 5\n'
    status, out, err = printed(capsys, [*args, str(runs[0]), str(broken), str(runs[1]), "--jobs", jobs])
    assert status == 2 and err.count("\n") == 1 and "broken.run:1: expected 6 fields" in err
    assert out == alone[:alone.index("runid", 1)]  # the runs before it, then the stop


def test_a_trec_eval_stop_on_workers_prints_what_one_process_prints(tmp_path, capsys):
    qrels, runs = many_runs(50, 3, tmp_path)
    stranger = tmp_path / "stranger.run"
    stranger.write_text("99999 Q0 D1 1 2.0 x\n")
    argv = ["eval", "-q", "-m", "map", str(qrels), str(runs[0]), str(stranger), str(runs[1])]
    one = printed(capsys, [*argv, "--jobs", "1"])
    assert one[0] == 2 and "stranger.run: no topic of the run is in the qrels" in one[2]
    assert printed(capsys, [*argv, "--jobs", "2"]) == one


@pytest.mark.parametrize("seed", [3, 17])
def test_ordered_outcomes_keep_the_order_and_the_window_whatever_finishes_first(seed):
    rng = np.random.default_rng(seed)
    items = [(int(i), f"run{i}", None) for i in rng.permutation(40)]
    for window in (1, 2, 5):
        out: list = []
        finished: list = []
        yielded: list[int] = []
        held = []

        def next_done(out=out, finished=finished) -> Outcome:
            item = out.pop(int(rng.integers(len(out))))  # any outstanding task may finish first
            finished.append(item[0])
            return Outcome(item[0], item[1], item[1], None)

        for outcome in _drive(items, window, out.append, next_done, True):
            held.append(len(out) + len(finished) - len(yielded))  # out, held, and this one
            yielded.append(outcome.index)
        assert yielded == [i for i, _, _ in items]
        assert max(held) <= window and out == []
        assert max(held) == window  # the workers are kept busy up to the window


def test_compare_on_workers_prints_what_one_process_prints(tmp_path, capsys, dask_client):
    qrels, runs = many_runs(51, 4, tmp_path)
    for fmt in ("table", "json", "csv"):
        argv = ["compare", "-c", "--format", fmt, "-m", "map", "-m", "P.10", str(qrels), *map(str, runs[::-1])]
        one = printed(capsys, [*argv, "--jobs", "1"])
        assert one[0] == 0 and one[1].strip()
        assert printed(capsys, [*argv, "--jobs", "2"]) == one
        assert printed(capsys, [*argv, "--scheduler", dask_client.scheduler.address]) == one


def assert_same_report(got, expected) -> None:
    for name in ("per_query", "summary", "lint", "eleven_point", "gain"):
        pd.testing.assert_frame_equal(getattr(got, name), getattr(expected, name), check_exact=True)
    assert got.systems == expected.systems and got.labels == expected.labels
    for name in ("baseline_comparison", "pairwise_comparison"):
        pd.testing.assert_frame_equal(getattr(got, name).frame, getattr(expected, name).frame, check_exact=True)
    for name in ("values", "markers"):
        pd.testing.assert_frame_equal(getattr(got.table, name), getattr(expected.table, name), check_exact=True)


@pytest.mark.parametrize("complete", [False, True])
def test_a_report_from_workers_or_from_a_dataset_has_the_same_numbers(tmp_path, capsys, complete):
    qrels, runs = many_runs(52, 4, tmp_path)
    paths = [str(p) for p in runs]
    measures = ["AP", "nDCG@10", "P@10", "num_rel_ret", "RR"]
    flags = ["-c"] if complete else []
    conventions = Conventions(complete=complete)
    expected = compute_report(qrels, paths, measures, conventions)
    spread = evaluate_parallel(qrels, paths, measures, conventions=conventions, jobs=2)
    assert list(dict.fromkeys(spread["system"])) == sorted(expected.systems)  # sorted by name, not as given
    assert_same_report(compute_report(qrels, paths, measures, conventions, per_query=spread), expected)

    out = tmp_path / "dataset"
    assert main(["eval", *flags, "-m", "map", "-m", "ndcg_cut.10", "-m", "P.10", "-m", "num_rel_ret",
                 "-m", "recip_rank", str(qrels), *paths, "--output", str(out), "--jobs", "2"]) == 0
    stored = per_query_for_report(str(out), measures, conventions)
    assert_same_report(compute_report(qrels, paths, measures, conventions, per_query=stored), expected)
    capsys.readouterr()


def test_report_command_with_jobs_and_input(tmp_path, capsys):
    need("plotly", "plotly (the dashboard extra) is not installed")
    qrels, runs = many_runs(53, 3, tmp_path)
    paths = [str(p) for p in runs]
    out = tmp_path / "dataset"
    assert main(["eval", "-m", "map", "-m", "P.10", str(qrels), *paths, "--output", str(out)]) == 0
    cells = {}
    for name, extra in (("one", ["--jobs", "1"]), ("two", ["--jobs", "2"]), ("input", ["--input", str(out)])):
        html = tmp_path / f"{name}.html"
        assert main(["report", "-m", "AP", "-m", "P@10", str(qrels), *paths, "-o", str(html), *extra]) == 0
        # every number the page shows, at full precision: the results table and every per-topic table
        cells[name] = re.findall(r'data-system="[^"]*"(?: data-query="[^"]*")? data-measure="[^"]*" '
                                 r'data-value="[^"]*"', html.read_text())
    capsys.readouterr()
    assert len(cells["one"]) > 3 * 2  # the results table (3 systems, 2 measures) and the per-topic values
    assert cells["two"] == cells["one"] and cells["input"] == cells["one"]
    # a dataset evaluated under other conventions, a measure it lacks: one line each, exit 2
    assert main(["report", "-c", "-m", "AP", str(qrels), *paths, "-o", str(tmp_path / "x.html"),
                 "--input", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "expected a dataset evaluated with the report's conventions" in err
    assert main(["report", "-m", "RR", str(qrels), *paths, "-o", str(tmp_path / "x.html"), "--input", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "expected measure(s) ['RR'] in the dataset" in err


def test_an_unreachable_scheduler_is_one_line_and_exit_2(tmp_path, capsys, monkeypatch):
    need("distributed", "the 'distributed' package is not installed")
    from tests.processes import free_port

    qrels, runs = many_runs(54, 2, tmp_path)
    monkeypatch.setenv(TIMEOUT_ENV, "0.5")
    address = f"tcp://127.0.0.1:{free_port()}"
    for command in (["eval", "-m", "map"], ["compare"]):
        started = time.monotonic()
        status, out, err = printed(capsys, [*command, str(qrels), *map(str, runs), "--scheduler", address])
        assert time.monotonic() - started < 3.0
        assert status == 2 and out == "" and err.count("\n") == 1
        assert err.startswith(f"rankscope {command[0]}: --scheduler {address}: expected a Dask scheduler "
                              "answering within 0.5 s, found none")
    monkeypatch.setenv(TIMEOUT_ENV, "soon")
    status, _, err = printed(capsys, ["eval", str(qrels), *map(str, runs), "--scheduler", address])
    assert status == 2 and f"${TIMEOUT_ENV}: expected a number of seconds > 0, found 'soon'" in err


def _stderr_of(argv: list[str], terminal: bool) -> tuple[int, bytes, bytes]:
    """Run the command line in its own process group, stderr on a pseudo-terminal or a pipe."""
    import pty
    import select
    import subprocess

    from tests.processes import start, stop

    env = {**os.environ, "COLUMNS": "120"}
    if not terminal:
        proc = start([sys.executable, "-m", "rankscope", *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                     env=env)
        try:
            out, err = proc.communicate(timeout=120)
        finally:
            stop(proc)
        return proc.returncode, out, err
    master, slave = pty.openpty()
    proc = start([sys.executable, "-m", "rankscope", *argv], stdout=subprocess.PIPE, stderr=slave, env=env)
    os.close(slave)
    chunks, out = [], b""
    try:
        while True:
            ready, _, _ = select.select([master], [], [], 120)
            if not ready:
                break
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the other end closed
                break
            if not chunk:
                break
            chunks.append(chunk)
        out = proc.stdout.read()
        proc.wait(timeout=60)
    finally:
        os.close(master)
        stop(proc)
    return proc.returncode, out, b"".join(chunks)


@pytest.mark.parametrize("command", ["eval", "compare"])
def test_progress_bar_on_a_terminal_only(tmp_path, command):
    qrels, runs = many_runs(55, 6, tmp_path)
    argv = [command, "-c", "-m", "map", str(qrels), *map(str, runs), "--jobs", "2"]
    status, out, err = _stderr_of(argv, terminal=True)
    assert status == 0 and out.strip()
    assert err.startswith(b"\r[") and b"] 6/6 runs" in err
    assert err.endswith((b"\r\n", b"\r\x1b[K"))  # the bar's line ended, or erased (the pty turns \n into \r\n)
    lines = [line for line in err.replace(b"\x1b[K", b"").replace(b"\n", b"").split(b"\r") if line]
    assert [int(line.split(b"] ")[1].split(b"/")[0]) for line in lines] == sorted(
        int(line.split(b"] ")[1].split(b"/")[0]) for line in lines)
    assert all(line.startswith(b"[") and line.endswith(b" runs/s") for line in lines)
    status, quiet_out, quiet_err = _stderr_of([*argv, "--quiet"], terminal=True)
    assert (status, quiet_out, quiet_err) == (0, out, b"")
    status, piped_out, piped_err = _stderr_of(argv, terminal=False)
    assert (status, piped_out, piped_err) == (0, out, b"")


def test_eval_in_one_process_draws_the_bar_too(tmp_path):
    qrels, runs = many_runs(56, 3, tmp_path)
    status, out, err = _stderr_of(["eval", "-m", "map", str(qrels), *map(str, runs), "--jobs", "1"], terminal=True)
    assert status == 0 and out.count(b"runid") == 3
    assert b"] 3/3 runs" in err


def test_bad_jobs_is_one_line(tmp_path, capsys):
    qrels, runs = many_runs(57, 2, tmp_path)
    status, out, err = printed(capsys, ["eval", str(qrels), *map(str, runs), "--jobs", "0"])
    assert status == 2 and out == "" and err == "rankscope eval: --jobs: expected a whole number >= 1, found 0\n"
    with pytest.raises(ValidationError):
        per_query_for_report(str(tmp_path), ["AP"], None)
