"""Comparing very many runs: every pair of 100,000 runs is refused in one line before any run is read; each
against a baseline is compared with the memory of its rows (tests/metrics/scale/test_many_runs.py)."""

from __future__ import annotations

import pytest

from metrics.stats.significance import MAX_DIFFERENCES, check_comparison_size, compare_systems
from metrics.errors import ValidationError
from tests.cli.program import run_rankscope

PEAK_MB = 400  # the command's peak resident memory: the interpreter, its libraries and the list of names


def test_every_pair_of_100000_runs_is_refused_before_any_run_is_read(tmp_path):
    (tmp_path / "q.qrels").write_text("1 0 d1 1\n2 0 d1 1\n")
    (tmp_path / "runs.txt").write_text("".join(f"absent/r{i}.run\n" for i in range(100_000)))
    status, stderr, peak = run_rankscope(tmp_path, "compare", "q.qrels", "@runs.txt")
    assert status == 2 and stderr.count("\n") == 1, stderr
    assert stderr == ("rankscope compare: comparing 100,000 systems (every pair): expected at most 50,000,000 "
                      "paired differences, found 4,999,950,000 pairs x at least 2 queries x 2 measure(s) = at "
                      "least 19,999,800,000; compare each with a baseline, or fewer systems\n")
    assert peak < PEAK_MB, f"{peak} MB"


def test_the_bound_counts_pairs_queries_and_measures():
    check_comparison_size(100_000, True, 250, 2)  # each against a baseline: 49,999,500
    check_comparison_size(317, False, 250, 2)  # 50,086 pairs x 500: 25,043,000
    with pytest.raises(ValidationError, match="found 50,000 pairs x 1,001 queries x 1 measure"):
        check_comparison_size(50_001, True, 1_001, 1)
    assert MAX_DIFFERENCES == 50_000_000


def test_a_table_past_the_bound_is_refused_by_compare_systems_before_its_pairs_are_built():
    import pandas as pd

    systems = 10_001  # every pair: 50,005,000 x 2 queries, past the bound; a baseline: 10,000 x 2, within it
    frame = pd.DataFrame({"system": [f"s{i}" for i in range(systems) for _ in range(2)],
                          "query": ["1", "2"] * systems, "measure": "AP",
                          "value": [((i * 7) % 11) / 10 for i in range(2 * systems)]})
    with pytest.raises(ValidationError, match=r"comparing 10,001 systems \(every pair\)"):
        compare_systems(frame, test="t")
    assert len(compare_systems(frame, test="t", baseline="s0", correction="none").frame) == 10_000
