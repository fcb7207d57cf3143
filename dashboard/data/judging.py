"""Judging as the pages ask for it: the tasks of a collection, an assessor's next document with its texts and the
query's words marked, and how the conclusion firms up as the judgments arrive.

The store is :mod:`workspace.judging` (tasks, judgments) and :mod:`workspace.dealing` (the task's method kept in
memory by this server process). What a page polls is bounded as the live class's is: a task's revision is read
at most once per :data:`REVISION_TTL` per server process, whatever the number of pages following it; what the
conclusion looks like under the judgments so far is computed once per task and revision.
"""

from __future__ import annotations

import re

import pandas as pd
import streamlit as st

from dashboard.data.files import document_texts, topic_texts
from dashboard.session.state import Loaded
from dashboard.store import opened

__all__ = ["REVISION_TTL", "SHOWN_PAIRS", "available", "disagreements", "firming", "judging", "marked", "progress",
           "record", "records", "revision", "task_files", "task_texts", "tasks_of", "terms_of"]

REVISION_TTL = 1.0  # seconds a task's revision is reused by every page of a server process
SHOWN_PAIRS = 10  # pairs the firming panel shows, the least sure first
MAX_TERMS = 50
STOPWORDS = frozenset("a an and are as at be by for from how in into is it its of on or that the their this to was "
                      "what when where which who why with about any all can do does find documents document "
                      "describe describing discuss identify information relevant".split())
"""Words of a topic's text never marked in a document (function words, and the words topics ask with)."""
_WORD = re.compile(r"\w+", re.UNICODE)


def available() -> bool:
    """Whether this server has a workspace (judging is kept there)."""
    return opened.enabled()


def judging():
    """The judging store of this server's workspace, as this session's person uses it."""
    from workspace.judging import Judging

    return Judging(opened.store())


@st.cache_data(ttl=REVISION_TTL, max_entries=256, show_spinner=False)
def _revision(location: str, tid: str, _judging) -> int:
    return _judging.revision(tid)


def revision(tid: str) -> int:
    """A task's revision, read at most once a second per server process (after the access check of the first
    reader in that second; every reader's own check ran when its page drew the task)."""
    store = judging()
    return _revision(store._where.label, tid, store)


def tasks_of(loaded: Loaded) -> list:
    """The judging tasks of the loaded stored collection's lineage (none for a collection not stored)."""
    if not available() or not loaded.collection:
        return []
    return judging().tasks(loaded.collection)


# ---- an assessor's document ---------------------------------------------------------------------------------
def task_texts(info) -> tuple:
    """The topic and document texts of a task's collection version (either None when not loaded)."""
    from dashboard.store.sync import loaded_of

    stored = loaded_of(opened.store().load(info.collection))
    return topic_texts(stored), document_texts(stored)


def terms_of(query: str) -> tuple[str, ...]:
    """The words of a query to mark in a document: lower case, two letters or more, not :data:`STOPWORDS`, each
    once, at most :data:`MAX_TERMS`.

    >>> terms_of("What is the wing of a slipstream? Wing!")
    ('wing', 'slipstream')
    """
    words = [w.lower() for w in _WORD.findall(query or "")]
    return tuple(dict.fromkeys(w for w in words if len(w) > 1 and w not in STOPWORDS))[:MAX_TERMS]


def marked(text: str, terms: tuple[str, ...]) -> list[tuple[str, bool]]:
    """``text`` in pieces, each with whether it is one of ``terms`` (a whole word, any case): what
    :func:`dashboard.session.user_text.md_marked` shows. Linear in the text.

    >>> marked("A wing, wings and WING.", ("wing",))
    [('A ', False), ('wing', True), (', wings and ', False), ('WING', True), ('.', False)]
    """
    wanted = set(terms)
    pieces: list[tuple[str, bool]] = []
    at = 0
    for word in _WORD.finditer(text or ""):
        if word.group().lower() in wanted:
            if word.start() > at:
                pieces.append((text[at:word.start()], False))
            pieces.append((word.group(), True))
            at = word.end()
    if at < len(text or ""):
        pieces.append((text[at:], False))
    return pieces


# ---- the conclusion firming up ------------------------------------------------------------------------------
@st.cache_data(max_entries=64, show_spinner=False)
def _firming(location: str, tid: str, at: int, _info, _ws) -> dict:
    from workspace.dealing import conclusion

    return conclusion(_ws, _info)


def firming(info) -> dict:
    """How sure each pairwise order is under the task's judgments so far: ``pairs`` (better, worse, probability,
    decided, needed; the undecided first, the least sure first), ``needed`` (the judgments the decision estimates
    until every pair is decided; NaN: more than the documents there are), ``runs`` (Judged@10 of each run before
    the task and now), ``model`` (the decision's model in words), ``measure``, ``confidence`` and
    ``judged_now`` (documents the task judged that the collection had not). Computed once per task revision."""
    ws = opened.store()
    return _firming(ws.location.label, info.id, info.revision, info, ws)


def progress(info) -> pd.DataFrame:
    """Per assessor: ``assessor``, ``dealt``, ``judged``, ``skipped``, ``second`` (documents dealt to them as a
    second assessor)."""
    dealt = judging().dealt(info.id)
    if not len(dealt):
        return pd.DataFrame(columns=["assessor", "dealt", "judged", "skipped", "second"])
    grouped = dealt.groupby("assessor", sort=True)
    return pd.DataFrame({"dealt": grouped.size(), "judged": grouped["grade"].count(),
                         "skipped": grouped["skipped"].sum().astype(int),
                         "second": grouped["slot"].sum().astype(int)}).reset_index()


def disagreements(info) -> pd.DataFrame:
    """The documents the task's assessors graded differently, with the owner's grade (-1: none yet)."""
    from metrics.judgments.assessors import disagreements as apart

    store = judging()
    return apart(store.judgments(info.id), store.adjudications(info.id))


# ---- the report and the exports -----------------------------------------------------------------------------
def task_files(info) -> dict[str, bytes]:
    """The task's judgment sets as TREC qrels and its judgments as a table (CSV), by file name
    (:func:`dashboard.exports.judgments.judgment_files`)."""
    from dashboard.exports.judgments import judgment_files, judgments_table

    store = judging()
    return judgment_files(info.name, store.sets(info.id), judgments_table(store.judgments(info.id), info.scale))


def record(info):
    """The task as the report, the zip and the session file keep it
    (:class:`dashboard.exports.judgments.TaskRecord`)."""
    from dashboard.exports.judgments import task_record

    return task_record(judging(), info, firming(info))


def records(loaded: Loaded) -> list:
    """Every judging task of the loaded stored collection's lineage as :func:`record` makes it, newest first
    (none for a collection not stored, or without a workspace)."""
    return [record(info) for info in tasks_of(loaded)]
