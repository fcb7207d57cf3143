"""A judging task's judgments as files: each judgment set as TREC qrels (the merged one, the adjudicated one,
each assessor's) and a table of every judgment with its assessor, grade, label and time; and a task as the report
and the session file keep it (:class:`TaskRecord`).

The files are named after the task and the set (``judgments/<set>.qrels``), the characters a file name should
not hold made ``-``; the table's cells that a spreadsheet would run as a formula are written as text
(:func:`dashboard.exports.tables.csv_bytes`). Nothing here draws on screen, so the report, the session file
and the command line use it too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import pandas as pd

from dashboard.exports.tables import csv_bytes

__all__ = ["TABLE_COLUMNS", "TaskRecord", "file_name", "judgment_files", "judgments_table", "record_files",
           "session_judging", "task_record"]

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


@dataclass(frozen=True)
class TaskRecord:
    """A judging task as the report and the session file show it: what it is, how far it went, how far its
    assessors agree, and the conclusion under its judgments so far.

    Attributes
    ----------
    name, method, created_by, created_at : str
    closed : bool
    assessors : tuple of str
        As the task names them (none: whoever may judge).
    settings : dict
        The budget, depth, overlap, topics, options and rule, as stored.
    scale : GradeScale
    counts : dict
        ``dealt``, ``documents`` (with a grade) and ``judgments`` (grades; a document judged twice counts twice).
    agreement : dict
        :func:`metrics.judgments.assessors.task_agreement`: ``twice`` and ``alpha``.
    conclusion : dict
        :func:`workspace.dealing.conclusion`'s: ``pairs``, ``needed``, ``runs``, ``model``, ``measure``,
        ``confidence``, ``judged_now``.
    table : pandas.DataFrame
        :func:`judgments_table` of every judgment.
    adjudications : pandas.DataFrame
        ``topic``, ``docid``, ``grade``, ``decided_by``, ``decided_at``.
    sets : dict
        ``{set name: Qrels}``: merged, adjudicated, one per assessor.
    """

    name: str
    method: str
    created_by: str
    created_at: str
    closed: bool
    assessors: tuple[str, ...]
    settings: dict
    scale: object
    counts: dict
    agreement: dict
    conclusion: dict = field(repr=False)
    table: pd.DataFrame = field(repr=False)
    adjudications: pd.DataFrame = field(repr=False)
    sets: dict = field(repr=False)


def task_record(store, info, conclusion: Mapping) -> TaskRecord:
    """The :class:`TaskRecord` of task ``info`` from the judging store ``store``
    (:class:`workspace.judging.Judging`), with its ``conclusion`` (:func:`workspace.dealing.conclusion`)."""
    from metrics.judgments.assessors import task_agreement

    judged = store.judgments(info.id)
    return TaskRecord(info.name, info.method, info.created_by, info.created_at, info.closed, info.assessors,
                      {k: v for k, v in info.settings.items() if k not in ("scale", "seed")}, info.scale,
                      store.counts(info.id), task_agreement(judged), dict(conclusion),
                      judgments_table(judged, info.scale), store.adjudications(info.id), store.sets(info.id))


def record_files(records: Iterable[TaskRecord]) -> dict[str, bytes]:
    """Every task's files (:func:`judgment_files`), for the report's zip."""
    files: dict[str, bytes] = {}
    for record in records:
        files.update(judgment_files(record.name, record.sets, record.table))
    return files


def session_judging(records: Iterable[TaskRecord]) -> list[dict]:
    """The tasks as a session file holds them (:data:`dashboard.exports.session_file.JUDGING`): each task's name,
    method, scale, every judgment with its assessor and time, and the adjudications. The newest
    :data:`~dashboard.exports.session_file.MAX_TASKS` tasks at most; a task of more judgments or adjudications
    than :data:`~dashboard.exports.session_file.MAX_JUDGMENTS` is left out (its files hold it)."""
    from dashboard.exports.session_file import MAX_JUDGMENTS, MAX_TASKS

    out = []
    for r in records:
        if len(out) == MAX_TASKS:
            break
        if max(len(r.table), len(r.adjudications)) > MAX_JUDGMENTS:
            continue
        rows = [{"topic": t, "docid": d, "assessor": a, "grade": None if pd.isna(g) else int(g), "skipped": bool(s),
                 "judged_at": at} for t, d, a, g, s, at in r.table[["topic", "docid", "assessor", "grade", "skipped",
                                                                   "judged_at"]].itertuples(index=False)]
        decided = [{"topic": str(t), "docid": str(d), "grade": int(g), "decided_by": str(b), "decided_at": str(at)}
                   for t, d, g, b, at in r.adjudications[["topic", "docid", "grade", "decided_by", "decided_at"]]
                   .itertuples(index=False)]
        out.append({"task": r.name, "method": r.method,
                    "scale": [{"grade": g, "label": label} for g, label in zip(r.scale.grades, r.scale.labels)],
                    "judgments": rows, "adjudications": decided})
    return out
