"""A judging task's judgments as files: each judgment set as TREC qrels (the merged one, the adjudicated one,
each assessor's) and a table of every judgment with its assessor, grade, label and time.

The files are named after the task and the set (``judgments/<set>.qrels``), the characters a file name should
not hold made ``-``; the table's cells that a spreadsheet would run as a formula are written as text
(:func:`dashboard.exports.tables.csv_bytes`). Nothing here draws on screen, so the report, the session file
and the command line use it too.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import pandas as pd

from dashboard.exports.tables import csv_bytes

__all__ = ["TABLE_COLUMNS", "file_name", "judgment_files", "judgments_table"]

TABLE_COLUMNS = ("topic", "docid", "assessor", "grade", "label", "skipped", "judged_at")
FOLDER = "judgments"
_UNSAFE = re.compile(r"[^A-Za-z0-9._@+-]+")


def file_name(name: str, suffix: str) -> str:
    """``judgments/<name><suffix>``, the name's characters outside ``A-Z a-z 0-9 . _ @ + -`` made ``-``.

    >>> file_name("week 1:ana@x", ".qrels")
    'judgments/week-1-ana@x.qrels'
    """
    return f"{FOLDER}/{_UNSAFE.sub('-', name).strip('.-') or 'judgments'}{suffix}"


def judgments_table(judgments: pd.DataFrame, scale) -> pd.DataFrame:
    """Every judgment as a row of :data:`TABLE_COLUMNS` (a skipped document has no grade), by time."""
    frame = judgments.sort_values(["judged_at", "topic", "docid", "assessor"], kind="stable")
    grades = frame["grade"]
    labels = [scale.label(int(g)) if g == g and int(g) in scale.grades else "" for g in grades]
    return pd.DataFrame({"topic": frame["topic"].astype(str), "docid": frame["docid"].astype(str),
                         "assessor": frame["assessor"].astype(str),
                         "grade": pd.array([None if g != g else int(g) for g in grades], dtype="Int64"),
                         "label": labels, "skipped": frame["skipped"].astype(bool),
                         "judged_at": frame["judged_at"].astype(str)}, columns=list(TABLE_COLUMNS))


def judgment_files(task: str, sets: Mapping[str, object], table: pd.DataFrame) -> dict[str, bytes]:
    """``{file name: bytes}``: each set's qrels (``sets``: ``{name: Qrels}``) and the table
    (:func:`judgments_table`) as ``judgments/<task>.csv``."""
    from metrics.io.writers import qrels_bytes

    files = {file_name(name, ".qrels"): qrels_bytes(qrels) for name, qrels in sets.items()}
    files[file_name(task, ".csv")] = csv_bytes(table)
    return files
