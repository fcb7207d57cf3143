"""Review notes of the session's collection: read, merged, saved and listed, in the workspace for a stored
collection and in the browser session otherwise.

The notes of a stored collection are read once per page run by :func:`dashboard.store.sync.begin` (never kept
between runs, so everyone sees the others' notes on their next rerun); this module is what the pages call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd
import streamlit as st

from dashboard.server import identity
from dashboard.session import state
from dashboard.store.opened import enabled, store
from dashboard.store.sync import HEADS
from metrics import ValidationError

if TYPE_CHECKING:
    from workspace import Note

__all__ = ["heads", "history", "merged", "notes_frame", "put_notes", "save_note"]


def heads() -> list[Note] | None:
    """The current notes of the stored collection (read this run), or None when it is not stored."""
    return st.session_state.get(HEADS)


def merged(versions: list[Note]):
    """Versions of one note taken together by the workspace's rule (:func:`workspace.notes.merged`): their tags,
    their comments in turn, and the base a save of them names."""
    from workspace.notes import merged as merge

    return merge(versions)


def notes_frame(notes: list[Note]) -> pd.DataFrame:
    """Notes as a table: topic, system, tags, comment, author, time, revision (plain text)."""
    rows = [(n.topic, n.system or "", n.tag, n.comment, n.author, n.created_at[:19].replace("T", " "), n.revision)
            for n in notes]
    return pd.DataFrame(rows, columns=["topic", "system", "tags", "comment", "author", "saved (UTC)", "revision"])


def save_note(loaded: state.Loaded, topic: str, system: str | None, tags, comment: str,
              base: int | tuple[int, ...] | None) -> None:
    """Save one note: in the workspace for a stored collection (a new revision), else in the session.

    ``base``: the revision edited, or the revisions a merge replaces (:func:`merged`), or None for a new note.

    Raises
    ------
    metrics.RankscopeError
        No author yet, a note too long, or the workspace cannot be written.
    """
    from dashboard import exports

    tags = [t.strip() for t in (tags.split(",") if isinstance(tags, str) else tags) if t.strip()]
    if not (enabled() and loaded.collection):
        if system is not None:
            raise ValidationError("notes on one system need a collection saved in the workspace")
        state.put_notes(exports.set_note(state.notes(), topic, tags, comment))
        return
    who = identity.author()
    if who is None:
        raise ValidationError("type your name before saving a note")
    store().save_note(loaded.collection, topic, system, ", ".join(tags), comment, author=who, base=base)


def history(loaded: state.Loaded, topic: str, system: str | None) -> list[Note]:
    """Every revision of one note, oldest first (empty when the collection is not stored)."""
    if not (enabled() and loaded.collection):
        return []
    return store().note_history(loaded.collection, topic, system)


def put_notes(loaded: state.Loaded, notes: dict) -> None:
    """Notes read from a session file: each one saved (a stored collection) or the session's notes replaced."""
    if not (enabled() and loaded.collection):
        state.put_notes(notes)
        return
    current = {(n.topic, n.system): n for n in (heads() or [])}
    for topic, note in notes.items():
        old = current.get((topic, None))
        tag, comment = ", ".join(note["tags"]), note["comment"]
        if old is None or (old.tag, old.comment) != (tag, comment):
            save_note(loaded, topic, None, note["tags"], comment, old.revision if old else None)

