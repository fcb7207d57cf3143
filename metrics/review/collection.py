"""A loaded collection at a glance: topics, judgments per grade, and what each run covers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from metrics.io import Qrels, Run

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
    judged_topics = set(qf["query"].unique())
    judged_pairs = pd.MultiIndex.from_frame(qf[["query", "docid"]])
    rows = []
    for run in runs:
        rf = run.frame
        depth = rf.groupby("query").size()
        hit = pd.MultiIndex.from_frame(rf[["query", "docid"]]).isin(judged_pairs)
        rows.append({
            "system": run.name,
            "topics": int(depth.size),
            "judged_topics_answered": len(judged_topics & set(depth.index)),
            "documents": int(len(rf)),
            "min_depth": int(depth.min()) if depth.size else 0,
            "max_depth": int(depth.max()) if depth.size else 0,
            "judged_share": float(np.mean(hit)) if len(rf) else 0.0,
        })
    return CollectionSummary(n_topics=len(judged_topics), n_judged=int(len(qf)), grades=grades,
                             systems=pd.DataFrame(rows, columns=["system", "topics", "judged_topics_answered",
                                                                 "documents", "min_depth", "max_depth",
                                                                 "judged_share"]))
