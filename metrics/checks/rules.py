"""The rules: what one value may be, each described once.

A rule is a small frozen declaration: :class:`Integer`, :class:`Number`, :class:`Options`, :class:`Text`,
:class:`Pattern`, :class:`Boolean`, :class:`Kind` and :class:`OneOf` of them. It says whether it takes a
value (``accepts``), what it passes on (``convert``: a Python ``int`` for a numpy integer...), and what it
takes in words (``describe``). Whatever refuses a value, a parameter or a field of a file, says so in one
line, worded one way (:mod:`metrics.checks.words`)::

    <where>: expected <what the rule takes>, found <the value, shown short>
"""

from __future__ import annotations

import math
import numbers
import re
from dataclasses import dataclass
from typing import Any

from metrics.checks.words import Miss, shown

__all__ = ["Boolean", "Integer", "Kind", "Number", "OneOf", "Options", "Pattern", "Rule", "Text"]

CLOSED = ("both", "left", "right", "neither")
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x85\u2028\u2029]")  # what ends or hides a line (a tab is kept)


class Rule:
    """What every rule has: ``accepts``, ``convert``, ``describe`` and ``read`` (the value as passed on, or
    :class:`Miss`). ``none``: None is taken too (passed on as None); ``label``: the parameter's name as a
    message says it, in place of the name the caller gives."""

    none: bool = False
    label: str | None = None

    def accepts(self, value: Any) -> bool:
        raise NotImplementedError

    def convert(self, value: Any) -> Any:
        return value

    def describe(self, json: bool = False) -> str:
        raise NotImplementedError

    def kind(self, value: Any) -> bool:
        """Whether ``value`` is of the kind the rule is about (its type), in range or not: how
        :class:`OneOf` picks the rule whose refusal says the most."""
        return self.accepts(value)

    def read(self, value: Any) -> Any:
        if value is None and self.none:
            return None
        if not self.accepts(value):
            raise Miss(self, value)
        return self.convert(value)

    def _or_none(self, text: str, json: bool) -> str:
        return text + ((" or null" if json else " or None") if self.none else "")


def _is_integer(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _is_real(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _number(x: float) -> str:
    return f"{x:g}" if isinstance(x, float) else str(x)


@dataclass(frozen=True)
class Integer(Rule):
    """A whole number (a Python or numpy integer, never a bool) from ``low`` to ``high``, both included.

    The value passed on is a Python ``int``.
    """

    low: int | None = None
    high: int | None = None
    none: bool = False
    label: str | None = None

    def accepts(self, value: Any) -> bool:
        return _is_integer(value) and (self.low is None or value >= self.low) \
            and (self.high is None or value <= self.high)

    def kind(self, value: Any) -> bool:
        return _is_integer(value)

    def convert(self, value: Any) -> int:
        return int(value)

    def describe(self, json: bool = False) -> str:
        if self.high is not None:
            text = f"an integer from {self.low} to {self.high}" if self.low is not None \
                else f"an integer of at most {self.high}"
        elif self.low == 1:
            text = "a positive integer"
        elif self.low == 0:
            text = "a non-negative integer"
        elif self.low is not None:
            text = f"an integer of at least {self.low}"
        else:
            text = "an integer"
        return self._or_none(text, json)


@dataclass(frozen=True)
class Number(Rule):
    """A finite real number (int, float or numpy scalar, never a bool) between ``low`` and ``high``.

    ``closed`` says which bounds belong to the range: ``"both"`` (the default), ``"left"``, ``"right"`` or
    ``"neither"``. The value passed on is a Python ``float``.
    """

    low: float | None = None
    high: float | None = None
    closed: str = "both"
    none: bool = False
    label: str | None = None

    def __post_init__(self) -> None:
        if self.closed not in CLOSED:
            raise ValueError(f"closed: expected one of {', '.join(CLOSED)}, found {self.closed!r}")

    def accepts(self, value: Any) -> bool:
        if not _is_real(value) or not math.isfinite(value):
            return False
        left, right = self.closed in ("both", "left"), self.closed in ("both", "right")
        if self.low is not None and not (value >= self.low if left else value > self.low):
            return False
        return self.high is None or (value <= self.high if right else value < self.high)

    def kind(self, value: Any) -> bool:
        return _is_real(value)

    def convert(self, value: Any) -> float:
        return float(value)

    def describe(self, json: bool = False) -> str:
        low, high = self.low, self.high
        if low is not None and high is not None:
            text = {"neither": f"a number above {_number(low)} and below {_number(high)}",
                    "both": f"a number from {_number(low)} to {_number(high)}",
                    "left": f"a number from {_number(low)} up to but not including {_number(high)}",
                    "right": f"a number above {_number(low)} and at most {_number(high)}"}[self.closed]
        elif low == 0:
            text = "a non-negative number" if self.closed in ("both", "left") else "a positive number"
        elif low is not None:
            text = f"a number {'>=' if self.closed in ('both', 'left') else '>'} {_number(low)}"
        elif high is not None:
            text = f"a number {'<=' if self.closed in ('both', 'right') else '<'} {_number(high)}"
        else:
            text = "a finite number"
        return self._or_none(text, json)


@dataclass(frozen=True, init=False)
class Options(Rule):
    """One of the given values (compared with ``==`` and the same type, so ``"1"`` is not ``1`` and
    ``True`` is not ``1``). One value alone is described as itself (a document's ``format``)."""

    values: tuple[Any, ...]
    none: bool = False
    label: str | None = None

    def __init__(self, *values: Any, none: bool = False, label: str | None = None) -> None:
        object.__setattr__(self, "values", tuple(values))
        object.__setattr__(self, "none", none)
        object.__setattr__(self, "label", label)

    def accepts(self, value: Any) -> bool:
        try:
            return any(type(value) is type(v) and value == v for v in self.values)
        except (TypeError, ValueError):
            return False

    def kind(self, value: Any) -> bool:
        return any(type(value) is type(v) for v in self.values)

    def describe(self, json: bool = False) -> str:
        names = [shown(v, json) for v in self.values]
        text = names[0] if len(names) == 1 else f"one of {', '.join(names)}"
        return self._or_none(text, json)


@dataclass(frozen=True)
class Text(Rule):
    """A string of at most ``longest`` characters (None: any length).

    ``blank``: False refuses text that is empty or only white space. ``line``: True refuses a character
    that ends or hides a line (controls other than the tab, U+0085, U+2028, U+2029), so that the text is
    one line wherever it is shown. ``what``: the description, in place of one made of the above.
    """

    longest: int | None = None
    blank: bool = True
    line: bool = False
    what: str | None = None
    none: bool = False
    label: str | None = None

    def accepts(self, value: Any) -> bool:
        return isinstance(value, str) and (self.longest is None or len(value) <= self.longest) \
            and (self.blank or bool(value.strip())) and not (self.line and _CONTROL.search(value))

    def kind(self, value: Any) -> bool:
        return isinstance(value, str)

    def describe(self, json: bool = False) -> str:
        if self.what:
            return self._or_none(self.what, json)
        if self.line:
            text = "one line" if self.blank else "one non-empty line"
        else:
            text = "text" if self.blank else "non-empty text"
        if self.longest is not None:
            text += f" of at most {self.longest} characters"
        return self._or_none(text, json)


@dataclass(frozen=True)
class Pattern(Rule):
    """A string that ``regex`` matches whole, described as ``what`` (``"a SHA-256 in lower-case hex"``).

    The pattern is the declaration's, never a user's; keep it free of nested repetition, so that a match
    stays linear in the text.
    """

    regex: str
    what: str
    none: bool = False
    label: str | None = None

    def accepts(self, value: Any) -> bool:
        return isinstance(value, str) and re.fullmatch(self.regex, value) is not None

    def kind(self, value: Any) -> bool:
        return isinstance(value, str)

    def describe(self, json: bool = False) -> str:
        return self._or_none(self.what, json)


@dataclass(frozen=True)
class Boolean(Rule):
    """True or False (never 0 or 1)."""

    none: bool = False
    label: str | None = None

    def accepts(self, value: Any) -> bool:
        return isinstance(value, bool)

    def describe(self, json: bool = False) -> str:
        return self._or_none("true or false" if json else "True or False", json)


@dataclass(frozen=True)
class Kind(Rule):
    """A value of one of ``types`` (a bool only if ``bool`` is named), described as ``what``."""

    types: type | tuple[type, ...]
    what: str
    none: bool = False
    label: str | None = None

    def accepts(self, value: Any) -> bool:
        types = self.types if isinstance(self.types, tuple) else (self.types,)
        return isinstance(value, types) and (not isinstance(value, bool) or bool in types)

    def describe(self, json: bool = False) -> str:
        return self._or_none(self.what, json)


@dataclass(frozen=True, init=False)
class OneOf(Rule):
    """Any of ``rules``. A value of one rule's kind (text for a :class:`Text`, a list for a list of...) is
    read by that rule alone, so its refusal says what is wrong with it (too long, an item's path); a value
    of no rule's kind is refused with all of them (``"text, a number or a list of text"``), or with
    ``what`` when given."""

    rules: tuple[Rule, ...]
    what: str | None = None
    none: bool = False
    label: str | None = None

    def __init__(self, *rules: Rule, what: str | None = None, none: bool = False, label: str | None = None) -> None:
        object.__setattr__(self, "rules", tuple(rules))
        object.__setattr__(self, "what", what)
        object.__setattr__(self, "none", none)
        object.__setattr__(self, "label", label)

    def accepts(self, value: Any) -> bool:
        return (value is None and self.none) or any(rule.accepts(value) for rule in self.rules)

    def kind(self, value: Any) -> bool:
        return any(rule.kind(value) for rule in self.rules)

    def read(self, value: Any) -> Any:
        if value is None and self.none:
            return None
        fitting = [rule for rule in self.rules if rule.kind(value)]
        for rule in fitting:
            if len(fitting) == 1 or rule.accepts(value):
                return rule.read(value)
        raise Miss(self, value)

    def describe(self, json: bool = False) -> str:
        if self.what:
            return self._or_none(self.what, json)
        words = [rule.describe(json) for rule in self.rules] + (["null" if json else "None"] if self.none else [])
        return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"
