"""How a refusal is worded: the refused value shown short, a field's path written out, and a rule's refusal
on its way up a document.

Every refusal reads ``"<where>: expected <what the rule takes>, found <the value, shown short>"``. The value
is shown by :func:`shown`: a number as itself (an integer too long to read by its size), text quoted and cut
to a few dozen characters with its length (never inside a location, whose credentials a cut would hide
from :mod:`metrics.io.redaction`), a short list of plain values whole, a longer list or a mapping by its
size, anything else by its type. Nothing a caller gives makes a message long or slow to write. Documents
spell ``null``, ``true`` and ``false`` the JSON way (``json=True``), parameters ``None``, ``True`` and
``False`` the Python way. :func:`where` writes a field's path as the readers name it
(``loaded.runs[2].system``).
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from typing import Any

from metrics.errors import Refused

__all__ = ["Miss", "SHOWN_CHARACTERS", "SHOWN_ITEMS", "shown", "where"]

SHOWN_CHARACTERS = 32
"""The characters of a long text a message shows (then ``...`` and the text's length)."""
SHOWN_ITEMS = 5
"""The items of a short list of plain values a message shows whole; a longer list is shown by its size."""


def shown(value: Any, json: bool = False) -> str:
    """A value as a message shows it: short, on one line, whatever it is.

    Parameters
    ----------
    value : object
    json : bool, default=False
        Spell ``None``, ``True`` and ``False`` as JSON and YAML do (``null``, ``true``, ``false``).

    Returns
    -------
    str
        At most about 60 characters: a number as itself (an integer of 30 digits or more by its size in
        bits), text quoted (its first :data:`SHOWN_CHARACTERS` characters and its length when longer, never
        past a location's ``://``), a list of at most :data:`SHOWN_ITEMS` plain values
        whole, a longer list or a mapping by its size, anything else by its type.

    Examples
    --------
    >>> shown(10**40), shown("x" * 1000), shown([1, None], json=True), shown(list(range(9))), shown(object())
    ('an integer of 133 bits', "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...' (1000 characters)", '[1, null]', 'a list of 9 items', 'an object')
    """
    if value is None:
        return "null" if json else "None"
    if isinstance(value, bool):
        return ("true" if value else "false") if json else repr(value)
    if isinstance(value, numbers.Integral):
        number = int(value)
        return str(number) if abs(number) < 10**30 else f"an integer of {number.bit_length()} bits"
    if isinstance(value, numbers.Real):
        return repr(float(value))
    if isinstance(value, str):
        return _quoted(value)
    if isinstance(value, (bytes, bytearray)):
        return f"{len(value)} bytes"
    if isinstance(value, (list, tuple)):
        return _sequence(value, json)
    if isinstance(value, Mapping):
        n = len(value)
        return "an empty mapping" if not n else f"a mapping of {n} {'key' if n == 1 else 'keys'}"
    return _a(type(value).__name__[:40])


def _quoted(text: str) -> str:
    whole = repr(text)
    if len(whole) <= SHOWN_CHARACTERS + 10:
        return whole  # whole, so that metrics.io.redaction still finds a location's credentials in the message
    head = text[:SHOWN_CHARACTERS]
    scheme = head.find("://")
    if scheme >= 0:  # cut after a location's scheme: its credentials never reach a message half-cut
        head = head[:scheme + 3]
    while len(repr(head)) > SHOWN_CHARACTERS + 2:  # escapes (\x00, \u2028) count in what is shown
        head = head[:-1]
    quoted = repr(head)
    return f"{quoted[:-1]}...{quoted[-1]} ({len(text)} characters)"


def _sequence(items: list | tuple, json: bool, depth: int = 0) -> str:
    """A short list of plain values (or of short lists of them) whole, any other by its size."""
    word = "tuple" if isinstance(items, tuple) and not json else "list"
    n = len(items)
    if not n:
        return f"an empty {word}"
    if n <= SHOWN_ITEMS and all(_plain_value(item) or (depth == 0 and isinstance(item, (list, tuple))
                                                       and len(item) <= SHOWN_ITEMS) for item in items):
        parts = [_sequence(item, json, 1) if isinstance(item, (list, tuple)) else shown(item, json) for item in items]
        text = ", ".join(parts)
        if len(text) <= 60 and not any(part.startswith(("a ", "an ")) for part in parts):
            return f"[{text}]" if word == "list" else f"({text},)" if n == 1 else f"({text})"
    return f"a {word} of {n} {'item' if n == 1 else 'items'}"


def _plain_value(item: Any) -> bool:
    return item is None or isinstance(item, (bool, numbers.Real, str))


def _a(noun: str) -> str:
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


# ---- a refusal on its way up -----------------------------------------------------------------------

class Miss(Exception):
    """A rule's refusal on its way up a document: the rule (or what was expected), the value, and the path
    gathered as it passes each container (innermost first). Turned into :class:`Refused` at the top."""

    def __init__(self, rule: Any, value: Any, *, expected: str | None = None, found: str | None = None) -> None:
        super().__init__()
        self.rule, self.value, self.expected, self.found = rule, value, expected, found
        self.path: list = []

    def refusal(self, at: str = "", json: bool = False) -> Refused:
        """The refusal, worded, at the path gathered below ``at`` (a parameter's name, a document's)."""
        path = tuple(reversed(self.path))
        expected = self.expected if self.expected is not None else self.rule.describe(json)
        found = self.found if self.found is not None else shown(self.value, json)
        return Refused(where(at, path), expected, found, path)


def where(at: str, path: tuple | list) -> str:
    """A field's path as a message names it: ``loaded.runs[2].system`` (after ``at``, when given).

    A key is written as it is when it reads plainly (at most 40 characters, no dot, bracket, quote, space
    or control character), else in brackets as :func:`shown` shows it; an index in brackets.

    Examples
    --------
    >>> where("", ["loaded", "runs", 2, "system"]), where("manifest", ["runs", 0]), where("view", ["a.b"])
    ('loaded.runs[2].system', 'manifest.runs[0]', "view['a.b']")
    """
    text = at
    for part in path:
        if isinstance(part, int) and not isinstance(part, bool):
            text += f"[{part}]"
        elif isinstance(part, str) and _plain(part):
            text += f".{part}" if text else part
        else:
            text += f"[{shown(part)}]"
    return text


def _plain(key: str) -> bool:
    return 0 < len(key) <= 40 and key.isprintable() and not any(c in key for c in ".[]'\" ")
