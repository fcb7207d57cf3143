"""The command line with many runs: globs, directories, @FILE, --output, --input, --keep-going, progress."""

from __future__ import annotations

import io

import pandas as pd
import pytest

import metrics
from metrics.errors import ParseError, ValidationError
from rankscope.cli import main
from rankscope.progress import Progress
from rankscope.runs import expand_runs
from tests.metrics.scale.helpers import many_runs


@pytest.fixture
def collection(tmp_path):
    runs_dir = tmp_path / "runs"
    runs_dir.mkdir()
    qrels, runs = many_runs(31, 4, runs_dir)
    moved = tmp_path / "qrels.txt"
    qrels.rename(moved)
    return moved, runs


def test_globs_directories_and_listing_files_expand_in_order(tmp_path, collection):
    _, runs = collection
    directory = runs[0].parent
    (directory / ".hidden").write_text("x")
    names = sorted(str(p) for p in runs)
    assert expand_runs([str(directory / "*.run")]) == names
    assert expand_runs([str(directory)]) == names
    listing = tmp_path / "list.txt"
    listing.write_text(f"# the runs\n\n{runs[2]}\n  {directory / 'sys*.run'}  \n")
    assert expand_runs([f"@{listing}", str(runs[1])]) == [str(runs[2]), *names, str(runs[1])]
    assert expand_runs(["missing.run", "s3://bucket/a.run"]) == ["missing.run", "s3://bucket/a.run"]


def test_expansion_errors_name_what_was_expected(tmp_path):
    with pytest.raises(ValidationError, match=r"^run argument: expected run files matching '.*nothing\*', found none$"):
        expand_runs([str(tmp_path / "nothing*")])
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ValidationError, match=r"expected run files in directory .*empty, found none"):
        expand_runs([str(empty)])
    listing = tmp_path / "list.txt"
    listing.write_text("# nothing\n")
    with pytest.raises(ValidationError, match=r"list\.txt:1: expected run files, one per line, found none"):
        expand_runs([f"@{listing}"])
    listing.write_text(f"{tmp_path / 'zzz*'}\n")
    with pytest.raises(ValidationError, match=r"list\.txt:1: expected run files matching"):
        expand_runs([f"@{listing}"])
    with pytest.raises(ParseError, match=r"nope\.txt: expected a list of run files"):
        expand_runs([f"@{tmp_path / 'nope.txt'}"])


def test_eval_of_a_glob_prints_what_the_paths_print(capsys, collection):
    qrels, runs = collection
    paths = sorted(str(p) for p in runs)
    assert main(["eval", str(qrels), *paths, "-m", "map", "-m", "P.5"]) == 0
    by_paths = capsys.readouterr()
    assert main(["eval", str(qrels), str(runs[0].parent / "*.run"), "-m", "map", "-m", "P.5"]) == 0
    by_glob = capsys.readouterr()
    assert by_glob.out == by_paths.out and by_glob.out.count("runid") == 4
    assert by_glob.err == ""  # no progress bar when stderr is not a terminal


def test_output_then_input(tmp_path, capsys, collection):
    qrels, runs = collection
    out = tmp_path / "out"
    assert main(["eval", str(qrels), str(runs[0].parent), "-m", "map", "-m", "P_10", "-c", "--output",
                 str(out), "--jobs", "2"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""
    expected = metrics.evaluate_parallel(qrels, runs, ["map", "P_10"], complete=True)
    pd.testing.assert_frame_equal(metrics.read_dataset(out), expected, check_exact=True)
    assert main(["compare", "--input", str(out), "-m", "map", "--format", "csv"]) == 0
    from_dataset = capsys.readouterr().out
    assert main(["compare", str(qrels), *sorted(str(p) for p in runs), "-m", "map", "-c", "--format", "csv"]) == 0
    assert from_dataset == capsys.readouterr().out
    assert main(["compare", "--input", str(out), str(qrels)]) == 2
    assert "expected no qrels or runs beside it" in capsys.readouterr().err


@pytest.mark.parametrize("output", [False, True])
def test_keep_going_reports_the_broken_run_and_keeps_the_others(tmp_path, capsys, collection, output):
    qrels, runs = collection
    broken = tmp_path / "broken.run"
    broken.write_text("1 Q0 D1 1 2.0\n")
    extra = ["--output", str(tmp_path / "out")] if output else []
    status = main(["eval", str(qrels), str(runs[0]), str(broken), *map(str, runs[1:]), "-m", "map",
                   "--keep-going", *extra])
    captured = capsys.readouterr()
    assert status == 1
    assert captured.err == ('rankscope eval: broken.run:1: expected 6 fields "qid Q0 docid rank score tag", '
                            'found 5\n')
    if output:
        pd.testing.assert_frame_equal(metrics.read_dataset(tmp_path / "out"),
                                      metrics.evaluate_parallel(qrels, runs, ["map"]), check_exact=True)
    else:
        assert main(["eval", str(qrels), *map(str, runs), "-m", "map"]) == 0
        assert captured.out == capsys.readouterr().out


@pytest.mark.parametrize("output", [False, True])
def test_by_default_the_first_broken_run_stops_everything(tmp_path, capsys, collection, output):
    qrels, runs = collection
    broken = tmp_path / "broken.run"
    broken.write_text("1 Q0 D1 1 2.0\n")
    extra = ["--output", str(tmp_path / "out"), "--jobs", "1"] if output else []
    status = main(["eval", str(qrels), str(runs[0]), str(broken), str(runs[1]), "-m", "map", *extra])
    captured = capsys.readouterr()
    assert status == 2
    assert captured.err.count("\n") == 1 and "broken.run:1: expected 6 fields" in captured.err
    if output:
        assert captured.out == "" and not (tmp_path / "out" / "_manifest.json").exists()
    else:  # the runs before it are printed, as they would be alone
        assert main(["eval", str(qrels), str(runs[0]), str(runs[1]), "-m", "map"]) == 0
        both = capsys.readouterr().out
        first = both[:both.index("runid", 1)]
        assert first.startswith("runid") and captured.out == first


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_draws_only_on_a_terminal_and_not_when_quiet():
    silent = io.StringIO()
    with Progress(3, stream=silent) as bar:
        for _ in range(3):
            bar.advance()
    assert silent.getvalue() == ""
    quiet = FakeTerminal()
    with Progress(3, stream=quiet, quiet=True) as bar:
        bar.advance(3)
    assert quiet.getvalue() == ""
    terminal = FakeTerminal()
    with Progress(4, stream=terminal, interval=0.0) as bar:
        for _ in range(4):
            bar.advance()
    lines = terminal.getvalue().split("\r")
    assert lines[0] == "" and len(lines) == 5
    assert lines[-1].startswith("[" + "#" * 30 + "] 4/4 runs  ") and lines[-1].endswith(" runs/s\n")
    assert lines[1].startswith("[" + "#" * 8 + "." * 22 + "] 1/4 runs")  # 7.5 rounds to 8


def test_output_on_a_dask_scheduler(tmp_path, capsys, collection, dask_client):
    qrels, runs = collection
    out = tmp_path / "out"
    address = dask_client.scheduler.address
    assert main(["eval", str(qrels), str(runs[0].parent), "-m", "map", "--output", str(out),
                 "--scheduler", address]) == 0
    assert capsys.readouterr().err == ""
    pd.testing.assert_frame_equal(metrics.read_dataset(out), metrics.evaluate_parallel(qrels, runs, ["map"]),
                                  check_exact=True)
