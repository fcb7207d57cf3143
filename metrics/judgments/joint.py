"""The judgments of the compared runs only: the qrels restricted to what at least one of them retrieved.

A transformation of qrels (judgments in, judgments out), for an nDCG whose ideal ranking is shared by the
compared systems (:class:`~metrics.measures.ndcg.nDCG`'s ``ideal``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from metrics.evaluate import rank_runs
from metrics.io.readers import Qrels, Source, as_qrels

__all__ = ["joint_ideal_qrels"]


def joint_ideal_qrels(qrels: Qrels | Source, runs: Any, *, depth: int | None = None, **options: Any) -> Qrels:
    """The judgments restricted to the documents retrieved by at least one of the compared runs.

    When several systems are compared, the ideal ranking of nDCG is often formed from the *joint*
    judgments of those systems: the judged documents that at least one of them retrieved, rather than every
    document in the qrels (which may come from a larger pool) or each run's own documents (``ideal=
    "retrieved"``, which gives every run its own yardstick). Evaluate all the compared runs against the
    returned judgments.

    Parameters
    ----------
    qrels : Qrels or path, bytes, text
    runs : Run, path, bytes, or a sequence or mapping of them
        The compared runs, as :func:`metrics.evaluate` accepts them.
    depth : int, optional
        Only the top ``depth`` documents of each ranking count as retrieved (a pool of that depth); by
        default every retrieved document counts.
    **options
        Other :class:`~metrics.conventions.Conventions` fields that decide the ranking (``preset``,
        ``score_dtype``): ties and the depth cut follow them.

    Returns
    -------
    Qrels
        The judgment rows whose (query, document) pair appears in at least one run, in their original
        order, named ``"<name> (joint)"``.

    Notes
    -----
    The restriction applies to every measure evaluated with the returned judgments, not only to the ideal
    ranking: relevant documents none of the runs found no longer count for recall or AP either, so use it
    for the gain-based measures it is meant for. A query none of whose judged documents any run retrieved
    has no judgments left and drops out of the evaluation, as an unjudged query does in trec_eval.

    Examples
    --------
    >>> qrels = "1 0 a 2\\n1 0 b 1\\n1 0 c 1\\n"
    >>> joint = joint_ideal_qrels(qrels, {"x": "1 Q0 a 1 2.0 x\\n", "y": "1 Q0 b 1 1.0 y\\n"})
    >>> joint.frame["docid"].tolist()
    ['a', 'b']
    """
    import pandas as pd

    judged = as_qrels(qrels)
    if depth is not None:
        options["depth"] = depth
    found = []
    for rankings in rank_runs(judged, runs, **options):
        if len(rankings.rel):
            found.append(pd.DataFrame({"query": rankings.queries[rankings.seg].astype(object),
                                       "docid": rankings.docids().astype(object)}))
    table = judged.table
    if not found:
        return Qrels(name=f"{judged.name} (joint)", table=table.slice(0, 0))
    retrieved = pd.MultiIndex.from_frame(pd.concat(found, ignore_index=True).drop_duplicates())
    pairs = pd.MultiIndex.from_arrays([table.column("query").to_numpy(zero_copy_only=False),
                                       table.column("docid").to_numpy(zero_copy_only=False)])
    mask = pa.array(np.asarray(pairs.isin(retrieved), dtype=bool), type=pa.bool_())
    return Qrels(name=f"{judged.name} (joint)", table=table.filter(mask))
