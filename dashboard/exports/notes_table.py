"""Review notes as the dashboard edits and exports them: one topic's note set, all notes as a table.

A reviewer tags or comments a topic in the dashboard's queries view; :func:`set_note` gives the new notes
(notes are values, never changed in place) and :func:`notes_frame` lays them out as a table for display or
export. Their shape and limits are :mod:`metrics.review.notes`'s (:func:`~metrics.review.notes.normalise_notes`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from metrics.checks import refuse
from metrics.review.notes import normalise_notes

__all__ = ["notes_frame", "set_note"]


def set_note(notes: Mapping[str, Any] | None, topic: str, tags: Sequence[str] | str | None = None,
             comment: str | None = None) -> dict[str, dict[str, Any]]:
    """The notes with one topic's tags and comment replaced (removed when both are empty).

    Parameters
    ----------
    notes : mapping, optional
        The current notes (any shape :func:`metrics.review.notes.normalise_notes` accepts); not modified.
    topic : str
    tags : sequence of str or str, optional
        A comma-separated string is split.
    comment : str, optional

    Returns
    -------
    dict
        New notes, normalised; an edited topic keeps its place, a new one comes last.

    Examples
    --------
    >>> notes = set_note({}, "401", "hard, pool", "judge again")
    >>> set_note(notes, "401", [], "")
    {}
    """
    if isinstance(topic, bool) or not isinstance(topic, (str, int)):
        raise refuse("notes", "a topic id as text", topic)
    out = normalise_notes(notes)
    out[str(topic).strip()] = {"tags": [] if tags is None else tags, "comment": "" if comment is None else comment}
    return normalise_notes(out)


def notes_frame(notes: Mapping[str, Any] | None) -> pd.DataFrame:
    """The notes as a table: columns ``topic``, ``tags`` (comma-separated) and ``comment``, topics in order."""
    rows = [(topic, ", ".join(note["tags"]), note["comment"]) for topic, note in normalise_notes(notes).items()]
    return pd.DataFrame(rows, columns=["topic", "tags", "comment"])
