"""A grade read from a file never sizes an array or a loop: grades are kept as the distinct values present."""

from __future__ import annotations

import resource
import subprocess
import sys

import numpy as np
import pytest

from metrics import rank_runs
from metrics.teaching.worked import convention_effects

HUGE_QRELS = "401 0 d1 999999999\n401 0 d2 1\n401 0 d3 0\n402 0 d1 2147483648\n402 0 d4 3\n"
HUGE_RUN = "401 Q0 d1 1 3 t\n401 Q0 d3 2 2 t\n401 Q0 d2 3 1 t\n402 Q0 d4 1 2 t\n402 Q0 d1 2 1 t\n"


def _one_gigabyte() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def test_huge_grades_evaluate_within_one_gigabyte(tmp_path):
    """A dense grade range would need 16 GB here (2 topics x 10^9 grades x 8 bytes); the address space is 1 GB."""
    qrels, run = tmp_path / "huge.qrels", tmp_path / "huge.run"
    qrels.write_text(HUGE_QRELS)
    run.write_text(HUGE_RUN)
    done = subprocess.run([sys.executable, "-m", "rankscope", "eval", "-q", "-m", "all_trec", "-l", "3", str(qrels),
                           str(run)], capture_output=True, text=True, preexec_fn=_one_gigabyte, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = {tuple(line.split()[:2]): line.split()[2] for line in done.stdout.splitlines()}
    # -l 3: relevant are d1 of 401 (grade 999999999) and d1, d4 of 402
    assert lines[("num_rel", "401")] == "1"
    assert lines[("num_rel", "402")] == "2"
    assert lines[("num_rel_ret", "all")] == "3"
    assert lines[("map", "401")] == "1.0000"
    assert lines[("map", "402")] == "1.0000"
    dcg = 3 / np.log2(2) + 2147483648 / np.log2(3)  # d4 (grade 3) first, d1 second
    ideal = 2147483648 / np.log2(2) + 3 / np.log2(3)
    assert lines[("ndcg", "402")] == f"{dcg / ideal:.4f}"


def test_grades_are_the_distinct_values_present():
    r = rank_runs(HUGE_QRELS, {"s": HUGE_RUN})[0]
    assert r.grade_values.tolist() == [0, 1, 3, 999999999, 2147483648]
    assert r.rel_levels.shape == (2, 5)
    assert r.rel_levels.tolist() == [[1, 1, 0, 1, 0], [0, 0, 1, 0, 1]]
    assert r.num_rel(3).tolist() == [1, 2]
    assert r.num_below(3).tolist() == [2, 0]
    assert r.max_grade == 2147483648
    assert r.top_grades().tolist() == [999999999, 2147483648]
    grades, offsets = r.ideal_grades()
    assert grades.tolist() == [999999999, 1, 2147483648, 3]
    assert offsets.tolist() == [0, 2, 4]


def test_the_convention_table_lists_the_grades_present_not_a_range():
    r = rank_runs(HUGE_QRELS, {"s": HUGE_RUN})[0]
    table = convention_effects(r, "402", 5)
    levels = table[table["convention"] == "relevance level"]["choice"].tolist()
    assert levels == ["grade ≥ 1 (as loaded)", "grade ≥ 3", "grade ≥ 2147483648"]


def test_the_rankings_chart_has_one_band_per_grade_present():
    pd = pytest.importorskip("pandas")
    figures = pytest.importorskip("dashboard.figures", reason="the dashboard extra (plotly) is not installed")
    frame = pd.DataFrame({"system": ["s", "s", "s"], "rank": [1, 2, 3], "docid": ["a", "b", "c"],
                          "grade": [2147483648.0, np.nan, 0.0]})
    fig = figures.rankings_chart(frame, 3)
    assert list(fig.data[0].colorbar.ticktext) == ["unjudged", "0", "1", "2147483648"]
    assert len(fig.data[0].colorscale) == 2 * 4
