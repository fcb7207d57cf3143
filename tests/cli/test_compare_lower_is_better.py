"""``rankscope compare``: where lower values are better, its letter display lists the lowest mean first and its
table bolds the lowest value; over every measure the registry declares lower-is-better."""

from __future__ import annotations

import contextlib
import io
import re

import pytest

from rankscope.cli import main
from tests.lower_is_better import LOWER_IS_BETTER
from tests.paths import ROOT

DEMO = ROOT / "sample_data" / "demo"
RUNS = [str(DEMO / "runs" / f"{name}.run.gz") for name in ("bm25", "dense_precise", "weak_tfidf")]


@pytest.fixture(scope="module")
def latex() -> str:
    """One comparison of every lower-is-better measure, as LaTeX: the results table, then a letter display each."""
    with contextlib.redirect_stdout(io.StringIO()) as out:
        measures = [arg for label in LOWER_IS_BETTER for arg in ("-m", label)]
        assert main(["compare", str(DEMO / "qrels.txt"), *RUNS, "-c", *measures, "--format", "latex"]) == 0
    return out.getvalue()


def _escaped(label: str) -> str:
    return label.replace("_", r"\_")


@pytest.mark.parametrize("label", LOWER_IS_BETTER)
def test_the_letter_display_lists_the_lowest_mean_first(latex, label):
    board = latex[latex.index(f"\\caption{{{_escaped(label)}: systems that share a letter"):]
    board = board[:board.index(r"\end{tabular}")]
    means = [float(value) for value in re.findall(r"^\S+ & ([0-9.]+) & [a-z]+ \\\\$", board, flags=re.M)]
    assert len(means) == 3 and means == sorted(means)


@pytest.mark.parametrize("label", LOWER_IS_BETTER)
def test_the_results_table_bolds_the_lowest_value(latex, label):
    table = latex[:latex.index(r"\end{tabular}")]
    header = re.search(r"^System & (.+) \\\\$", table, flags=re.M).group(1).split(" & ")
    column = header.index(_escaped(label))
    rows = [line.split(" & ") for line in re.findall(r"^\(\w\) .+ \\\\$", table, flags=re.M)]
    cells = [row[column + 1].rstrip(" \\") for row in rows]
    values = [float(re.search(r"[0-9.]+", cell).group(0)) for cell in cells]
    assert len(values) == 3
    assert [cell.startswith(r"\textbf{") for cell in cells] == [v == min(values) for v in values]
