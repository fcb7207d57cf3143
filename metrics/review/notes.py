"""Review notes: tags and a comment per topic, checked into one shape wherever they come from.

A reviewer's notes travel with reports and session files as ``{topic: {"tags": [str, ...], "comment": str}}``;
:func:`normalise_notes` checks notes from anywhere (a session file, an API caller, the dashboard) and puts
them in that shape. The limits below bound what one file may carry.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from metrics.checks import refuse, where
from metrics.errors import Refused

__all__ = ["MAX_COMMENT", "MAX_NOTES", "MAX_TAG", "MAX_TAGS", "MAX_TOPIC", "normalise_notes"]

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
    if not isinstance(notes, Mapping) or len(notes) > MAX_NOTES:
        raise refuse("notes", f"a mapping of at most {MAX_NOTES} topics to notes", notes)
    out: dict[str, dict[str, Any]] = {}
    for topic, note in notes.items():
        topic = _topic(topic)
        if isinstance(note, str):
            note = {"comment": note}
        if not isinstance(note, Mapping):
            raise refuse(where("notes", [topic]), "a mapping with the fields tags and comment, or a comment", note)
        for key in note:
            if key not in ("tags", "comment"):
                raise Refused(where("notes", [topic, key]), "one of the fields tags, comment", "an unknown field")
        tags = _tags(topic, note.get("tags", []))
        comment = _comment(topic, note.get("comment", ""))
        if tags or comment:
            out[topic] = {"tags": tags, "comment": comment}
    return out


def _topic(topic: Any) -> str:
    text = str(topic).strip() if isinstance(topic, (str, int)) and not isinstance(topic, bool) else ""
    if not text or len(text) > MAX_TOPIC:
        raise refuse("notes", f"topic ids of 1 to {MAX_TOPIC} characters", topic)
    return text


def _tags(topic: str, tags: Any) -> list[str]:
    if tags is None:
        tags = []
    if isinstance(tags, str):
        tags = tags.split(",")
    if not isinstance(tags, (list, tuple)):
        raise refuse(where("notes", [topic, "tags"]), "a list of text, or text separated by commas", tags)
    clean: dict[str, None] = {}  # ordered and de-duplicated in constant time per tag
    for i, tag in enumerate(tags):
        if not isinstance(tag, str) or len(tag.strip()) > MAX_TAG:
            raise refuse(where("notes", [topic, "tags", i]), f"text of at most {MAX_TAG} characters", tag)
        tag = tag.strip()
        if tag:
            clean[tag] = None
            if len(clean) > MAX_TAGS:
                raise Refused(where("notes", [topic, "tags"]), f"at most {MAX_TAGS} distinct tags", "more")
    return list(clean)


def _comment(topic: str, comment: Any) -> str:
    if comment is None:
        comment = ""
    if not isinstance(comment, str) or len(comment) > MAX_COMMENT:
        raise refuse(where("notes", [topic, "comment"]), f"text of at most {MAX_COMMENT} characters", comment)
    return comment.strip()
