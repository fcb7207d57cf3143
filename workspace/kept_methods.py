"""The method of each judging task, made once per server process from the collection's runs and reference
judgments (a :class:`metrics.judgments.methods.Proposer`), :data:`KEPT` tasks at most, the least recently used
dropped. :mod:`workspace.dealing` brings a kept method up to the judgments in the store and deals from it;
:meth:`workspace.judging.Judging.start` makes it once (:func:`check`) so that a task the method refuses is
never stored.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from metrics.judgments.decide import Decision
    from metrics.judgments.methods import Proposer
    from workspace.judging import TaskInfo

__all__ = ["KEPT", "Kept", "check", "kept_of"]

KEPT = 8
"""Tasks whose method a process keeps in memory (the least recently used one is dropped)."""


@dataclass
class Kept:
    """A task's method as this process keeps it, and what it has followed of the store."""

    proposer: "Proposer"
    topics: np.ndarray  # the topic indices the task judges
    seen: int = 0  # the task's revision the method follows
    grades: dict = field(default_factory=dict)  # (topic, docid) -> the grade the method was given
    said: dict = field(default_factory=dict)  # (topic, docid) -> {assessor: grade}
    decided: dict = field(default_factory=dict)  # (topic, docid) -> adjudicated grade
    dealt: set = field(default_factory=set)  # (topic, docid) dealt in slot 0
    dealt_up_to: int = 0  # the highest position read
    decision: "Decision | None" = None
    lock: threading.Lock = field(default_factory=threading.Lock)


_kept: OrderedDict[tuple[str, str], Kept] = OrderedDict()
_guard = threading.Lock()


def _inputs(ws, info: "TaskInfo"):
    """The task's version: its runs (named as stored), reference judgments and conventions, parsed once."""
    from metrics import read_qrels, read_run
    from metrics.conventions import Conventions

    stored = ws.load(info.collection)
    runs = [(ws.parsed_run(r.sha256) or read_run(r.read(), name=r.system)).renamed(r.system) for r in stored.runs]
    qrels = ws.parsed_qrels(stored.qrels.sha256) or read_qrels(stored.qrels.read(), name=stored.qrels.name)
    return runs, qrels, Conventions.coerce(**stored.conventions)


def _make(ws, info: "TaskInfo", settings: dict[str, Any] | None = None) -> Kept:
    from metrics.errors import ValidationError
    from metrics.judgments.candidates import gather, topics_text
    from metrics.judgments.pooling import METHODS, make_proposer

    runs, qrels, conventions = _inputs(ws, info)
    declared = METHODS[info.method]
    depth = info.settings.get("depth", 100)
    candidates = gather(runs, qrels, depth=None if declared.whole_runs else depth, conventions=conventions)
    options = settings if settings is not None else declared.settings(info.settings.get("options", {}))
    proposer = make_proposer(candidates, info.method, size=depth, **options)
    wanted = info.topics
    if wanted is None:
        topics = np.arange(candidates.n_topics)
    else:
        unknown = [t for t in wanted if t not in set(candidates.topics.tolist())]
        if unknown:
            raise ValidationError(f"topics: expected topics the runs answer ({topics_text(candidates.topics)}), "
                                  f"found {unknown[0]!r}")
        topics = np.array(sorted(candidates.topic_index(t) for t in wanted), dtype=np.int64)
    return Kept(proposer, topics)


def check(ws, info: "TaskInfo", settings: dict[str, Any]) -> None:
    """Make the method of a task about to start (its options, pairs and topics checked against the collection),
    and keep it for the first deals."""
    made = _make(ws, info, settings)
    with _guard:
        _kept[(ws.location.label, info.id)] = made
        _trim()


def _trim() -> None:
    while len(_kept) > KEPT:
        _kept.popitem(last=False)


def kept_of(ws, info: "TaskInfo") -> Kept:
    key = (ws.location.label, info.id)
    with _guard:
        found = _kept.get(key)
        if found is not None:
            _kept.move_to_end(key)
            return found
    made = _make(ws, info)  # outside the guard: other tasks are served meanwhile
    with _guard:
        found = _kept.setdefault(key, made)
        _kept.move_to_end(key)
        _trim()
        return found


