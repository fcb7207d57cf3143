"""A pool made by name, and what it holds: the documents to judge in order, and statistics of the pool.

:func:`make_pool` reads every method of :data:`METHODS` (:mod:`~metrics.judgments.pools`,
:mod:`~metrics.judgments.adaptive` and :mod:`~metrics.judgments.decide` register theirs when imported here),
ranks the runs once (:func:`~metrics.judgments.candidates.gather`), makes the method, and returns a
:class:`Pool`: the documents to judge with why each was chosen, their number per topic, the documents each run
alone brings, and each run's Judged@k before and after the proposed documents are judged. The method itself
(:attr:`Pool.proposer`) goes on taking judgments one at a time.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from metrics.checks import COUNT, Integer, Options, check
from metrics.conventions import Conventions
from metrics.io import Qrels, Run
import metrics.judgments.pools  # noqa: F401,I001  (each registers its methods, in this order)
import metrics.judgments.adaptive  # noqa: F401,I001
import metrics.judgments.decide  # noqa: F401,I001
from metrics.judgments.candidates import NOT_JUDGED, ORDERS, Candidates, gather
from metrics.judgments.methods import METHODS, Method, Proposer, proposals
from metrics.measures.judged import Judged

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["JUDGED_AT", "METHODS", "Pool", "make_pool", "make_proposer", "pool_statistics"]

JUDGED_AT = 10
"""The k of the Judged@k each run is given before and after a pool is judged."""


@dataclass(frozen=True, eq=False)
class Pool:
    """A pool: the documents to judge and what they change.

    Attributes
    ----------
    method : Method
        The method's declaration.
    settings : dict
        The method's options as used.
    proposer : Proposer
        The method, ready to take judgments (:meth:`~metrics.judgments.methods.Proposer.judge`) and propose again.
    documents : pandas.DataFrame
        ``order`` (1, 2, ...), ``topic``, ``docid``, ``weight``, ``why``: the documents to judge, in order.
    topics : pandas.DataFrame
        Per topic: ``topic``, ``proposed``, ``judged`` (documents of the runs already judged) and ``candidates``
        (the documents of the runs to the depth).
    runs : pandas.DataFrame
        Per run: ``system``, ``alone`` (proposed documents no other run retrieves to the depth),
        ``judged_before`` and ``judged_after`` (its mean Judged@k over the topics it answers, before and after
        the proposed documents are judged).
    """

    method: Method
    settings: dict[str, Any]
    proposer: Proposer
    documents: "pd.DataFrame"
    topics: "pd.DataFrame"
    runs: "pd.DataFrame"


def make_proposer(candidates: Candidates, method: str, size: int | None = None, **options: Any) -> Proposer:
    """The method ``method`` on ``candidates``, with its options (those of other methods are ignored).

    ``size`` is the number of documents per topic of a method that reads the runs whole (RBP, RRF); None:
    every document of the runs.
    """
    check("method", method, Options(*METHODS))
    declared = METHODS[method]
    settings = declared.settings(options)
    if declared.whole_runs:
        settings["size"] = size
    return declared.make(candidates, **settings)


def make_pool(runs: Sequence[Run] | Mapping[str, Run], qrels: Qrels | None = None, *, method: str = "depth",
              depth: int = 100, budget: int | None = None, order: str = "trec_eval",
              conventions: Conventions | None = None, **options: Any) -> Pool:
    """The documents to judge by one method, given the judgments already made.

    Parameters
    ----------
    runs : sequence of Run, or mapping {name: Run}
    qrels : Qrels, optional
        The judgments already made: their documents are not proposed.
    method : str, default="depth"
        A name of :data:`METHODS`.
    depth : int, default=100
        How deep the runs are read; for a method that reads them whole (RBP, RRF), the documents per topic.
    budget : int, optional
        The most documents to propose (None: every document the method would propose).
    order : {"trec_eval", "trectools"}, default="trec_eval"
        The order of a run's documents (:data:`~metrics.judgments.candidates.ORDERS`).
    conventions : Conventions, optional
        The relevance level and score precision.
    **options
        The method's options (:attr:`Method.options`), by keyword.

    Returns
    -------
    Pool

    Raises
    ------
    ValidationError
        An unknown method, a depth or budget below 1, an option out of its range, an unknown pair, runs that
        share no topic, judgments of another collection.
    """
    check("method", method, Options(*METHODS))
    check("depth", depth, COUNT)
    check("budget", budget, Integer(1, none=True))
    check("order", order, Options(*ORDERS))
    declared = METHODS[method]
    candidates = gather(runs, qrels, depth=None if declared.whole_runs else depth, order=order,
                        conventions=conventions)
    proposer = make_proposer(candidates, method, size=depth, **options)
    index, weight, why = proposer.propose(budget)
    documents = proposals(candidates, index, weight, why)
    documents.insert(0, "order", np.arange(1, len(documents) + 1))
    topics, per_run = pool_statistics(candidates, index)
    return Pool(method=declared, settings=declared.settings(options), proposer=proposer, documents=documents,
                topics=topics, runs=per_run)


def pool_statistics(candidates: Candidates, index: np.ndarray,
                    cutoff: int = JUDGED_AT) -> tuple["pd.DataFrame", "pd.DataFrame"]:
    """The pool's size per topic and what it changes for each run (the tables of :class:`Pool`), the pool being
    the candidates at ``index``."""
    import pandas as pd

    c = candidates
    topic_of = c.topic_of
    topics = pd.DataFrame({"topic": c.topics,
                           "proposed": np.bincount(topic_of[index], minlength=c.n_topics),
                           "judged": np.bincount(topic_of[c.grades != NOT_JUDGED], minlength=c.n_topics),
                           "candidates": np.diff(c.topic_starts)})
    proposed = np.zeros(len(c), dtype=bool)
    proposed[index] = True
    alone = proposed & (np.bincount(c.candidate, minlength=len(c)) == 1)  # retrieved by one run only
    lonely = np.bincount(c.system[alone[c.candidate]], minlength=c.n_systems)
    measure = Judged(cutoff=cutoff)
    cut = c.depth is None or c.depth >= cutoff  # the top k of each run are candidates: no need to look further
    keys = None if cut else set(zip(topic_of[index], c.docids[index]))
    before, after = [], []
    for s, (r, whole) in enumerate(zip(c.rankings, c.whole)):
        if cut:
            mine = proposed[c.candidate[c.system == s]]  # the run's positions, by topic then rank
        else:  # a run's own top k, whatever the depth of the pool
            r, top = whole, whole.within(cutoff)
            at = np.repeat(np.arange(whole.n_queries), whole.num_ret)[top]
            mine = np.zeros(len(r.rel), dtype=bool)
            mine[np.flatnonzero(top)] = [(t, d) in keys for t, d in zip(at, whole.docids()[top])]
        answered = c.answered[s]
        before.append(float(measure.compute(r)[answered].mean()))
        now = dataclasses.replace(r, rel=np.where(mine & (r.rel < 0), 0, r.rel))
        after.append(float(measure.compute(now)[answered].mean()))
    per_run = pd.DataFrame({"system": list(c.systems), "alone": lonely, "judged_before": before,
                            "judged_after": after})
    return topics, per_run
