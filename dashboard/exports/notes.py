"""Review notes: tags and a comment per topic, in one checked shape that travels with reports and sessions.

A reviewer tags or comments a topic in the dashboard's queries view; :func:`set_note` gives the new notes
(notes are values, never changed in place), :func:`normalise_notes` checks notes from anywhere (a session
file, an API caller), and :func:`notes_frame` lays them out as a table for display or export.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from metrics import ValidationError

__all__ = ["MAX_COMMENT", "MAX_NOTES", "MAX_TAG", "MAX_TAGS", "MAX_TOPIC", "normalise_notes", "notes_frame",
           "set_note"]

MAX_TOPIC = 200
MAX_TAGS = 32
MAX_TAG = 64
MAX_COMMENT = 20_000
MAX_NOTES = 100_000


def normalise_notes(notes: Mapping[str, Any] | None) -> dict[str, dict[str, Any]]:
    """Review notes in one shape: ``{topic: {"tags": [str, ...], "comment": str}}``.

    Parameters
    ----------
    notes : mapping, optional
        ``{topic: {"tags": [...], "comment": "..."}}``; a topic's value may also be a comment string, and
        ``tags`` a comma-separated string. Topics without tags or comment are dropped.

    Returns
    -------
    dict
        Topics in the order given; tags stripped, de-duplicated, in order.

    Raises
    ------
    ValidationError
        A malformed note: wrong type, unknown key, or text too long.

    Examples
    --------
    >>> normalise_notes({"401": {"tags": "hard, ties", "comment": "check"}, 402: "judged?"})
    {'401': {'tags': ['hard', 'ties'], 'comment': 'check'}, '402': {'tags': [], 'comment': 'judged?'}}
    """
    if notes is None:
        return {}
    if not isinstance(notes, Mapping):
        raise ValidationError(f"notes must be a mapping {{topic: {{tags, comment}}}}, got {type(notes).__name__}")
    if len(notes) > MAX_NOTES:
        raise ValidationError(f"notes: at most {MAX_NOTES} topics, got {len(notes)}")
    out: dict[str, dict[str, Any]] = {}
    for topic, note in notes.items():
        if isinstance(topic, bool) or not isinstance(topic, (str, int)):
            raise ValidationError(f"notes: a topic id must be text, got {type(topic).__name__}")
        topic = str(topic).strip()
        if not topic or len(topic) > MAX_TOPIC:
            raise ValidationError(f"notes: topic ids must be 1 to {MAX_TOPIC} characters, got {topic[:40]!r}")
        if isinstance(note, str):
            note = {"comment": note}
        if not isinstance(note, Mapping):
            raise ValidationError(f"notes[{topic!r}]: expected {{'tags': [...], 'comment': '...'}}, "
                                  f"got {type(note).__name__}")
        unknown = sorted(set(map(str, note)) - {"tags", "comment"})
        if unknown:
            raise ValidationError(f"notes[{topic!r}]: unknown key(s) {unknown}; expected 'tags' and 'comment'")
        tags = note.get("tags", [])
        if tags is None:
            tags = []
        if isinstance(tags, str):
            tags = tags.split(",")
        if not isinstance(tags, (list, tuple)):
            raise ValidationError(f"notes[{topic!r}]['tags']: expected a list of text, got {type(tags).__name__}")
        clean: list[str] = []
        for tag in tags:
            if not isinstance(tag, str):
                raise ValidationError(f"notes[{topic!r}]['tags']: tags must be text, got {type(tag).__name__}")
            tag = tag.strip()
            if len(tag) > MAX_TAG:
                raise ValidationError(f"notes[{topic!r}]: a tag is longer than {MAX_TAG} characters")
            if tag and tag not in clean:
                clean.append(tag)
        if len(clean) > MAX_TAGS:
            raise ValidationError(f"notes[{topic!r}]: at most {MAX_TAGS} tags, got {len(clean)}")
        comment = note.get("comment", "")
        if comment is None:
            comment = ""
        if not isinstance(comment, str):
            raise ValidationError(f"notes[{topic!r}]['comment']: expected text, got {type(comment).__name__}")
        if len(comment) > MAX_COMMENT:
            raise ValidationError(f"notes[{topic!r}]: the comment is longer than {MAX_COMMENT} characters")
        if clean or comment.strip():
            out[topic] = {"tags": clean, "comment": comment.strip()}
    return out


def set_note(notes: Mapping[str, Any] | None, topic: str, tags: Sequence[str] | str | None = None,
             comment: str | None = None) -> dict[str, dict[str, Any]]:
    """The notes with one topic's tags and comment replaced (removed when both are empty).

    Parameters
    ----------
    notes : mapping, optional
        The current notes (any shape :func:`normalise_notes` accepts); not modified.
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
        raise ValidationError(f"notes: a topic id must be text, got {type(topic).__name__}")
    out = normalise_notes(notes)
    out[str(topic).strip()] = {"tags": [] if tags is None else tags, "comment": "" if comment is None else comment}
    return normalise_notes(out)


def notes_frame(notes: Mapping[str, Any] | None) -> pd.DataFrame:
    """The notes as a table: columns ``topic``, ``tags`` (comma-separated) and ``comment``, topics in order."""
    rows = [(topic, ", ".join(note["tags"]), note["comment"]) for topic, note in normalise_notes(notes).items()]
    return pd.DataFrame(rows, columns=["topic", "tags", "comment"])
