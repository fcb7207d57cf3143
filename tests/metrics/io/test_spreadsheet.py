"""Every CSV export is safe to open in a spreadsheet: no text cell begins like a formula, numbers stay numbers.

Systems are named like formulas (``=HYPERLINK(...)``, ``+cmd``, ``@SUM(1)``, a leading ``-``, tab or carriage
return), a topic id is ``-1`` (a number as written) and a note is tagged ``=1+1``. Each CSV the report writes
(per_query, summary, results, tests, notes), the dashboard's CSV bytes and the commands' ``--format csv`` are
read back with pandas: every such text comes back after a ``'``, exactly, and the numeric columns as numbers.
"""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from tests.paths import ROOT

FORMULA_STARTS, PREFIX = ("=", "+", "-", "@", "\t", "\r"), "'"  # as documented in metrics.io.spreadsheet
SYSTEMS = ['=HYPERLINK("http://127.0.0.1:9/x","x")', "+cmd|' /C calc'!A0", "@SUM(1+1)", "-2+3", "\tTAB", "\rCR"]
QRELS = b"1 0 a 1\n1 0 b 0\n1 0 c 2\n-1 0 a 1\n-1 0 d 1\n2 0 b 1\n"
NOTES = {"-1": {"tags": ["=1+1", "ok"], "comment": "@me look"}, "2": {"tags": [], "comment": "-- fine"}}
NAMED = SYSTEMS[:4]  # a report's session file refuses control characters in system names


def _run(k: int) -> bytes:
    docs = ["a", "b", "c", "d"]
    lines = [f"{q} Q0 {d} {r} {10 - r - (k * r) % 3} x\n" for q in ("1", "-1", "2")
             for r, d in enumerate(docs[k % 4:] + docs[:k % 4], 1)]
    return "".join(lines).encode()


def _risky(text: object) -> bool:
    return isinstance(text, str) and text.startswith(FORMULA_STARTS)


def _check(frame: pd.DataFrame, where: str, numbers=()) -> None:
    """No text cell begins like a formula unless it is a number as written; the named columns are numbers."""
    for column in frame.columns:
        assert not _risky(column) or column.startswith(PREFIX), (where, column)
        for value in frame[column]:
            if _risky(value):
                float(value)  # only a number as written may begin with + or -
    for column in numbers:
        assert pd.api.types.is_numeric_dtype(frame[column]), (where, column, frame[column].dtype)


def _read(data: bytes | str, skip: int = 0) -> pd.DataFrame:
    text = data.decode("utf-8") if isinstance(data, bytes) else data
    return pd.read_csv(io.StringIO(text), skiprows=skip, keep_default_na=False, dtype={"query": str, "topic": str})


def test_the_rule_one_cell_at_a_time():
    from metrics.io import spreadsheet
    from metrics.io.spreadsheet import csv_text, neutralise

    assert (spreadsheet.FORMULA_STARTS, spreadsheet.PREFIX) == (FORMULA_STARTS, PREFIX)
    for text in SYSTEMS + ["=1+1", "-a", "+", "@", "-1e3x"]:
        assert neutralise(text) == PREFIX + text
    for kept in ["-1", "+0.5", "-2e-3", ".5", "bm25", "a=b", "", "'=quoted"]:
        assert neutralise(kept) == kept
    for number in (-1, -0.5, float("-inf"), None, True):
        assert neutralise(number) is number or neutralise(number) == number
    frame = pd.DataFrame({"system": SYSTEMS, "value": [-1.5] * len(SYSTEMS), "=col": ["x"] * len(SYSTEMS)})
    back = _read(csv_text(frame))
    assert list(back["system"]) == [PREFIX + s for s in SYSTEMS]  # the same text, after the quote
    assert list(back.columns) == ["system", "value", "'=col"] and list(back["value"]) == [-1.5] * len(SYSTEMS)


@pytest.fixture(scope="module")
def report_files():
    pytest.importorskip("plotly", reason="the report needs the dashboard extra (plotly)")
    from dashboard.report import report_files
    from metrics.review.report import compute_report

    runs = {name: _run(k) for k, name in enumerate(NAMED)}
    data = compute_report(QRELS, runs, ["AP", "P@2"], baseline=NAMED[0], notes=NOTES)
    return report_files(data, html=False, images=False)


@pytest.mark.parametrize("name, numbers", [("per_query.csv", ["value"]), ("summary.csv", ["value", "std"]),
                                           ("results.csv", ["AP", "P@2"]), ("tests.csv", ["p_value", "mean_diff"]),
                                           ("notes.csv", [])])
def test_every_csv_of_the_report(report_files, name, numbers):
    frame = _read(report_files[name])
    _check(frame, name, numbers)
    texts = {str(v) for column in frame.columns for v in frame[column]}
    if name != "notes.csv":
        assert {PREFIX + s for s in NAMED} <= texts, name  # every system, quoted, not dropped
        assert not texts & set(NAMED)
    else:
        assert {"'=1+1, ok", "'@me look", "'-- fine"} <= texts and "-1" in texts  # the topic id stays a number
    if "query" in frame.columns:
        assert "-1" in set(frame["query"])


def test_the_dashboards_csv_bytes_and_the_summary_export():
    pytest.importorskip("plotly", reason="the dashboard extra (plotly) is not installed")
    import metrics
    from dashboard.exports import csv_bytes, summary_csv

    per_query = metrics.evaluate(QRELS, {name: _run(k) for k, name in enumerate(SYSTEMS)}, ["AP"])
    _check(_read(csv_bytes(per_query)), "csv_bytes", ["value"])
    _check(_read(summary_csv(metrics.summarise(per_query))), "summary_csv", ["value"])


@pytest.mark.parametrize("command", [["eval", "-q", "--format", "csv", "-m", "map"],
                                     ["compare", "--format", "csv", "-m", "map"],
                                     ["curves", "--kind", "11pt", "--format", "csv"]])
def test_the_commands_csv(tmp_path, command):
    (tmp_path / "q.txt").write_bytes(QRELS)
    names = []
    for k, system in enumerate(SYSTEMS[:3]):  # names a file can hold: "=...", "+...", "@..."
        path = tmp_path / f"{system.replace('/', '_')}.run"
        path.write_bytes(_run(k))
        names.append(f"./{path.name}")  # "./": an argument beginning with @ is a list of runs
    done = subprocess.run([sys.executable, "-m", "rankscope", *command, "q.txt", *names], cwd=tmp_path,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    frame = _read(done.stdout)
    _check(frame, " ".join(command))
    texts = {str(v) for column in frame.columns for v in frame[column]}
    assert any(t.startswith(PREFIX + "=HYPERLINK") for t in texts), texts
