"""Runs and qrels written back as TREC files, so that a run held in memory (a frame) can be stored as one.

The text reads back to the same table: every score is written in the shortest form that parses to the same
float64 (Python's ``repr``), each query's documents in the order :mod:`metrics.rankings` ranks them (score
descending, then document id descending, as trec_eval) with ranks from 1. An id that a TREC file cannot
hold (empty, or with a space, tab or line break in it) raises one line naming it.

Examples
--------
>>> from metrics.io import read_run
>>> run = read_run("2 Q0 b 1 0.5 x\\n1 Q0 a 1 0.1 x\\n1 Q0 c 2 0.3 x\\n", name="x")
>>> print(run_bytes(run).decode(), end="")
1 Q0 c 1 0.3 x
1 Q0 a 2 0.1 x
2 Q0 b 1 0.5 x
"""

from __future__ import annotations

import re

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from metrics.errors import ValidationError
from metrics.io.readers import Qrels, Run

__all__ = ["qrels_bytes", "run_bytes"]

_BAD_ID = r"(^$|\s)"  # what a whitespace-separated field cannot hold
_BAD_TAG = re.compile(r"\s")


def run_bytes(run: Run, tag: str | None = None) -> bytes:
    """The run as the text of a TREC run file (``qid Q0 docid rank score tag``), UTF-8.

    Parameters
    ----------
    run : Run
    tag : str, optional
        The last field of every line; default the run's name (whitespace in it replaced by ``_``).

    Returns
    -------
    bytes

    Raises
    ------
    ValidationError
        A query or document id is empty or holds whitespace.
    """
    table = run.table
    _check_ids(table, run.name)
    order = pc.sort_indices(table, sort_keys=[("query", "ascending"), ("score", "descending"),
                                              ("docid", "descending")])
    table = table.take(order)
    queries = table.column("query").to_pylist()
    ranks = _ranks(np.asarray(pc.not_equal(table.column("query")[1:], table.column("query")[:-1])
                              if len(queries) > 1 else np.zeros(0, dtype=bool)), len(queries))
    tag = _BAD_TAG.sub("_", run.name if tag is None else tag) or "run"
    lines = [f"{q} Q0 {d} {r} {s!r} {tag}\n" for q, d, r, s in
             zip(queries, table.column("docid").to_pylist(), ranks.tolist(), table.column("score").to_pylist())]
    return "".join(lines).encode("utf-8")


def qrels_bytes(qrels: Qrels) -> bytes:
    """The judgments as the text of a TREC qrels file (``qid 0 docid grade``), UTF-8, in their order.

    Raises
    ------
    ValidationError
        A query or document id is empty or holds whitespace.
    """
    table = qrels.table
    _check_ids(table, qrels.name)
    return "".join(f"{q} 0 {d} {g}\n" for q, d, g in zip(table.column("query").to_pylist(),
                                                          table.column("docid").to_pylist(),
                                                          table.column("relevance").to_pylist())).encode("utf-8")


def _check_ids(table: pa.Table, label: str) -> None:
    for column, what in (("query", "query id"), ("docid", "document id")):
        bad = pc.match_substring_regex(table.column(column), _BAD_ID)
        if pc.any(bad).as_py():
            found = table.column(column)[int(np.flatnonzero(np.asarray(bad))[0])].as_py()
            raise ValidationError(f"{label}: a {what} cannot be written in a TREC file: expected no space, tab or "
                                  f"line break and at least one character, found {found!r}")


def _ranks(starts: np.ndarray, n: int) -> np.ndarray:
    """1, 2, ... within each run of equal queries; ``starts[i]``: row i + 1 begins a new query."""
    position = np.arange(n)
    first = np.zeros(n, dtype=np.int64)
    first[1:] = np.where(starts, position[1:], 0)
    return position - np.maximum.accumulate(first) + 1
