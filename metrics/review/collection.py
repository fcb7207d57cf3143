"""A loaded collection at a glance: topics, judgments per grade, and what each run covers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow.compute as pc

from metrics.io import Qrels, Run
from metrics.io.arrays import take_rows, to_numpy
from metrics.io.ids import codes_in
from metrics.rankings import NONPOOL, Judgments

__all__ = ["CollectionSummary", "describe_collection"]


@dataclass(frozen=True)
class CollectionSummary:
    """What a qrels file and a set of runs hold.

    Attributes
    ----------
    n_topics : int
        Topics in the qrels.
    n_judged : int
        Judgments (qrels lines).
    grades : pandas.DataFrame
        Columns ``grade``, ``documents`` (judged documents with that grade, all topics), ``topics``
        (topics with at least one such document).
    systems : pandas.DataFrame
        One row per run: ``system``, ``topics`` (topics it answers), ``judged_topics_answered`` (of the
        qrels' topics), ``documents`` (ranked documents), ``min_depth``, ``max_depth``, ``judged_share``
        (fraction of its documents that carry a judgment).
    """

    n_topics: int
    n_judged: int
    grades: pd.DataFrame
    systems: pd.DataFrame


def describe_collection(qrels: Qrels, runs: Sequence[Run]) -> CollectionSummary:
    """Summarise judgments and runs (counts only; nothing is evaluated).

    Examples
    --------
    >>> from metrics import read_qrels, read_run
    >>> q = read_qrels("1 0 a 1\\n1 0 b 0\\n2 0 c 2\\n", name="q")
    >>> r = read_run("1 Q0 a 1 2.0 x\\n1 Q0 z 2 1.0 x\\n", name="x")
    >>> s = describe_collection(q, [r])
    >>> s.n_topics, s.grades["documents"].tolist(), s.systems["judged_share"].tolist()
    (2, [1, 1, 1], [0.5])
    """
    qf = qrels.frame
    grades = (qf.groupby("relevance").agg(documents=("docid", "size"), topics=("query", "nunique"))
              .reset_index().rename(columns={"relevance": "grade"}))
    judgments = Judgments.from_qrels(qrels)
    rows = [_coverage(run, judgments) for run in runs]
    return CollectionSummary(n_topics=len(judgments.queries), n_judged=int(len(qf)), grades=grades,
                             systems=pd.DataFrame(rows, columns=["system", "topics", "judged_topics_answered",
                                                                 "documents", "min_depth", "max_depth",
                                                                 "judged_share"]))


def _coverage(run: Run, judgments: Judgments) -> dict:
    """One run's row of :attr:`CollectionSummary.systems`: its topics and depths from its blocks of query
    lines, the judged share from the codes of its (query, document) pairs among the judged ones."""
    table, starts = run.table, run.query_starts
    lengths = np.diff(np.append(starts, len(table)))
    block_query = take_rows(table["query"], starts)
    topics = pc.unique(block_query)
    depth = np.bincount(to_numpy(pc.index_in(block_query, value_set=topics)), weights=lengths,
                        minlength=len(topics)).astype(np.int64)
    judged = to_numpy(pc.index_in(block_query, value_set=judgments.queries), null=-1)
    qcode = np.repeat(judged, lengths)
    dcode = codes_in(table["docid"], judgments.docids)
    found = np.zeros(len(table), dtype=bool)
    asked = qcode >= 0  # a topic without judgments has no judged pair
    found[asked] = judgments.grade_of(qcode[asked], dcode[asked]) != NONPOOL
    return {"system": run.name,
            "topics": len(topics),
            "judged_topics_answered": int(np.count_nonzero(to_numpy(pc.is_in(topics, value_set=judgments.queries)))),
            "documents": len(table),
            "min_depth": int(depth.min()) if len(depth) else 0,
            "max_depth": int(depth.max()) if len(depth) else 0,
            "judged_share": float(found.mean()) if len(table) else 0.0}
