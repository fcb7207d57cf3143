"""Where trec_eval stops with an error instead of printing a summary, and with which exit status.

trec_eval 9 evaluates the topics of the run that have judgments. When there are none it prints nothing and
stops: "No queries with both results and relevance info", exit status 7 (``-c`` does not change that).

trec_eval 10 walks the topics of the qrels instead, in byte-wise order. Without ``-c``, the first one the
run does not rank stops it with exit status 4 and the message "result qid 'X' not found in qrels" (it is
the run, not the qrels, that lacks topic X), after it has printed the per-query lines (``-q``) of the
topics before X. With ``-c`` every topic of the qrels is evaluated and it does not stop.

Both versions also stop, with exit status 4 ("Can't calculate measure 'M'"), when the first topic they
evaluate has no judgment with a grade of 0 or more (only negative grades: in the pool, unjudged): the
buffer of per-grade counts is then allocated with size 0, which its allocator refuses the first time only.
A later topic of that kind passes, as the buffer of an earlier topic is reused.

:func:`trec_eval_stop` says whether, where and how a version stops on given topics; ``rankscope eval``
stops the same way under ``--compat``.

Examples
--------
>>> trec_eval_stop(["1", "2", "3"], ["1", "3"], version=10, complete=False)
Stop(status=4, message="result qid '2' not found in qrels", topic='2', printed=1)
>>> trec_eval_stop(["1", "2", "3"], ["1", "3"], version=9, complete=False) is None
True
>>> trec_eval_stop(["1"], ["9"], version=9, complete=True).status
7
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["Stop", "trec_eval_stop", "common_topics", "NO_COMMON_TOPICS"]

NO_COMMON_TOPICS = "No queries with both results and relevance info"
"""trec_eval's message when no topic of the run is judged (exit status 7 in both versions)."""


@dataclass(frozen=True)
class Stop:
    """How a trec_eval version stops on a run.

    Attributes
    ----------
    status : int
        Its exit status.
    message : str
        What it prints on stderr, after ``trec_eval: ``.
    topic : str or None
        The topic it stops at (None: it stops before evaluating any).
    printed : int
        How many topics' per-query lines (``-q``) it printed before stopping: the first ``printed`` of the
        topics evaluated.
    """

    status: int
    message: str
    topic: str | None = None
    printed: int = 0


def _bytewise(topics: Iterable[str]) -> list[str]:
    return sorted(set(topics), key=lambda t: t.encode())


def common_topics(qrels_topics: Iterable[str], run_topics: Iterable[str]) -> list[str]:
    """The topics of the run that have judgments, in byte-wise order."""
    return _bytewise(set(qrels_topics) & set(run_topics))


def trec_eval_stop(qrels_topics: Iterable[str], run_topics: Iterable[str], *, version: int,
                   complete: bool, negative_only: Iterable[str] = ()) -> Stop | None:
    """Whether trec_eval ``version`` (9 or 10) stops on a run with these topics, and how.

    Parameters
    ----------
    qrels_topics : iterable of str
        The topics of the qrels.
    run_topics : iterable of str
        The topics the run ranks at least one document for.
    version : {9, 10}
    complete : bool
        trec_eval's ``-c``.
    negative_only : iterable of str, optional
        The topics of the qrels whose judgments all have a negative grade.

    Returns
    -------
    Stop or None
        None when it evaluates the run to the end.
    """
    if version not in (9, 10):
        raise ValueError(f"trec_eval version: expected 9 or 10, found {version!r}")
    judged, ranked = _bytewise(qrels_topics), set(run_topics)
    if version == 9:
        evaluated = [t for t in judged if t in ranked]
    elif complete:
        evaluated = judged
    else:  # the topics up to the first one the run lacks
        evaluated = list(itertools.takewhile(ranked.__contains__, judged))
    if evaluated and evaluated[0] in set(negative_only):
        return Stop(4, "Can't calculate measure", evaluated[0], 0)
    if version == 10 and len(evaluated) < len(judged):
        topic = judged[len(evaluated)]
        return Stop(4, f"result qid '{topic}' not found in qrels", topic, len(evaluated))
    return None if evaluated else Stop(7, NO_COMMON_TOPICS)
