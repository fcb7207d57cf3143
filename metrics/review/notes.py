"""Review notes: tags and a comment per topic, checked into one shape wherever they come from.

A reviewer's notes travel with reports and session files as ``{topic: {"tags": [str, ...], "comment": str}}``;
:func:`normalise_notes` checks notes from anywhere (a session file, an API caller, the dashboard) and puts
them in that shape. The limits below bound what one file may carry.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from metrics.errors import ValidationError

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
    if not isinstance(notes, Mapping):
        raise ValidationError(f"notes must be a mapping {{topic: {{tags, comment}}}}, got {type(notes).__name__}")
    if len(notes) > MAX_NOTES:
        raise ValidationError(f"notes: at most {MAX_NOTES} topics, got {len(notes)}")
    out: dict[str, dict[str, Any]] = {}
    for topic, note in notes.items():
        topic = _topic(topic)
        if isinstance(note, str):
            note = {"comment": note}
        if not isinstance(note, Mapping):
            raise ValidationError(f"notes[{topic!r}]: expected {{'tags': [...], 'comment': '...'}}, "
                                  f"got {type(note).__name__}")
        unknown = sorted(set(map(str, note)) - {"tags", "comment"})
        if unknown:
            raise ValidationError(f"notes[{topic!r}]: unknown key(s) {unknown}; expected 'tags' and 'comment'")
        tags = _tags(topic, note.get("tags", []))
        comment = _comment(topic, note.get("comment", ""))
        if tags or comment:
            out[topic] = {"tags": tags, "comment": comment}
    return out


def _topic(topic: Any) -> str:
    if isinstance(topic, bool) or not isinstance(topic, (str, int)):
        raise ValidationError(f"notes: a topic id must be text, got {type(topic).__name__}")
    topic = str(topic).strip()
    if not topic or len(topic) > MAX_TOPIC:
        raise ValidationError(f"notes: topic ids must be 1 to {MAX_TOPIC} characters, got {topic[:40]!r}")
    return topic


def _tags(topic: str, tags: Any) -> list[str]:
    if tags is None:
        tags = []
    if isinstance(tags, str):
        tags = tags.split(",")
    if not isinstance(tags, (list, tuple)):
        raise ValidationError(f"notes[{topic!r}]['tags']: expected a list of text, got {type(tags).__name__}")
    clean: dict[str, None] = {}  # ordered and de-duplicated in constant time per tag
    for tag in tags:
        if not isinstance(tag, str):
            raise ValidationError(f"notes[{topic!r}]['tags']: tags must be text, got {type(tag).__name__}")
        tag = tag.strip()
        if len(tag) > MAX_TAG:
            raise ValidationError(f"notes[{topic!r}]: a tag is longer than {MAX_TAG} characters")
        if tag:
            clean[tag] = None
            if len(clean) > MAX_TAGS:
                raise ValidationError(f"notes[{topic!r}]: expected at most {MAX_TAGS} tags, found more")
    return list(clean)


def _comment(topic: str, comment: Any) -> str:
    if comment is None:
        comment = ""
    if not isinstance(comment, str):
        raise ValidationError(f"notes[{topic!r}]['comment']: expected text, got {type(comment).__name__}")
    if len(comment) > MAX_COMMENT:
        raise ValidationError(f"notes[{topic!r}]: the comment is longer than {MAX_COMMENT} characters")
    return comment.strip()
