"""The fields of a JSON or YAML document, declared once, and the one reader that checks a parsed document.

A document's declaration is made of the rules of :mod:`metrics.checks.rules` and four containers:
:class:`Object` (named fields, each required or :class:`Field` ``(required=False)``; unknown fields refused
or, with ``extra=True``, kept), :class:`ListOf` (items of one rule, at most so many), :class:`MapOf` (keys
and values of one rule each, at most so many) and :class:`Tree` (plain data of any shape, bounded in
values and depth). :func:`read` checks a parsed document against its declaration and returns what the
rules pass on, or raises one :class:`~metrics.errors.Refused` naming the path of the first field that is
wrong::

    loaded.runs[2].system: expected one non-empty line of at most 256 characters, found 3

Reading is linear in the document: each value is looked at once, a list's or a mapping's size is compared
with its declared bound before any of its items is read, and nothing in the document sizes anything else.
The declarations are finite, so the depth of the walk is the declaration's (a :class:`Tree` walks its
data with a stack of its own, bounded by ``deepest``).

Examples
--------
>>> from metrics.checks import Integer, Text
>>> RUN = Object({"system": Text(256, blank=False), "file": Text(256)})
>>> read({"runs": [{"system": "bm25", "file": "a.run"}]}, Object({"runs": ListOf(RUN, 1000)}))
{'runs': [{'system': 'bm25', 'file': 'a.run'}]}
>>> read({"runs": [{"system": 3, "file": "a.run"}]}, Object({"runs": ListOf(RUN, 1000)}))
Traceback (most recent call last):
...
metrics.errors.Refused: runs[0].system: expected non-empty text of at most 256 characters, found 3
"""

from __future__ import annotations

import json as _json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from metrics.checks.rules import Rule, Text
from metrics.checks.words import Miss, shown
from metrics.errors import ValidationError

__all__ = ["Container", "Field", "LONGEST_NUMBER", "ListOf", "MapOf", "Object", "Tree", "load_json", "read"]

LONGEST_NUMBER = 64
"""The most characters a number of a JSON document may have: a longer one is refused before it is converted."""


def load_json(text: str, *, longest_number: int = LONGEST_NUMBER) -> Any:
    """Strict JSON: what :func:`json.loads` reads, but a key twice in one object, ``NaN``, ``Infinity``, a
    number past a float's range or longer than ``longest_number`` characters are refused.

    Parameters
    ----------
    text : str
        Already bounded in size by the caller.
    longest_number : int, default=LONGEST_NUMBER

    Returns
    -------
    object
        Plain dicts, lists, strings, ints, finite floats, booleans and None.

    Raises
    ------
    ValidationError
        One line, ``"line L, column C: expected ..., found ..."`` where the parser says where.

    Examples
    --------
    >>> load_json('{"a": [1, 2.5, null]}')
    {'a': [1, 2.5, None]}
    >>> load_json('{"a": 1, "a": 2}')
    Traceback (most recent call last):
    ...
    metrics.errors.ValidationError: expected each key once in an object, found 'a' twice
    """

    def number(token: str, kind: type) -> Any:
        if len(token) > longest_number:
            raise _BadNumber(token, f"expected a number of at most {longest_number} characters, found one of "
                                    f"{len(token)}")
        value = kind(token)
        if kind is float and not math.isfinite(value):
            raise _BadNumber(token, f"expected a finite number, found {token}")
        return value

    def constant(name: str) -> Any:
        raise _BadNumber(name, f"expected a finite number, found {name}")

    try:
        return _json.loads(text, parse_constant=constant, parse_int=lambda t: number(t, int),
                           parse_float=lambda t: number(t, float), object_pairs_hook=_unique)
    except _json.JSONDecodeError as err:
        raise ValidationError(f"line {err.lineno}, column {err.colno}: expected JSON, found an error: "
                              f"{err.msg}") from None
    except _BadNumber as err:
        raise ValidationError(f"{_line_of(text, err.token)}{err}") from None
    except RecursionError:
        raise ValidationError("expected JSON, found it nested too deeply to read") from None


class _BadNumber(Exception):
    """A JSON number refused while parsing (the parser does not say where; :func:`_line_of` finds it)."""

    def __init__(self, token: str, message: str) -> None:
        super().__init__(message)
        self.token = token


def _line_of(text: str, token: str) -> str:
    """``line L, column C: `` of the first occurrence of ``token`` as a JSON value in ``text`` (empty when not
    found)."""
    found = re.search(r"(?:^|(?<=[\[:,\s]))" + re.escape(token) + r"(?=[\s,\]}]|\Z)", text)
    if found is None:
        return ""
    at = found.start()
    line = text.count("\n", 0, at) + 1
    column = at - text.rfind("\n", 0, at)
    return f"line {line}, column {column}: "


def _unique(pairs: list) -> dict:
    """A JSON object as a dict, refusing a key that appears twice (in linear time)."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set = set()
        twice = next(k for k, _ in pairs if k in seen or seen.add(k))
        raise ValidationError(f"expected each key once in an object, found {shown(twice)} twice")
    return out


def read(document: Any, rule: Rule, *, at: str = "", json: bool = True) -> Any:
    """``document`` checked against its declaration: what the rules pass on, or one refusal.

    Parameters
    ----------
    document : object
        Parsed JSON or YAML (dicts, lists, strings, numbers, booleans, None), or the same built in Python.
    rule : Rule
        The declaration, usually an :class:`Object`.
    at : str, default=""
        Where the document sits, written before every path (``"manifest"`` for ``manifest.runs[0]``).
    json : bool, default=True
        Spell ``null``, ``true`` and ``false`` as JSON and YAML do (False: as Python does).

    Returns
    -------
    object

    Raises
    ------
    Refused
        ``"<path>: expected ..., found ..."`` for the first wrong field; its ``path`` holds the keys and
        indices, for a reader that finds the field's line.
    """
    try:
        return rule.read(document)
    except Miss as miss:
        raise miss.refusal(at, json) from None


def _inside(rule: Rule, value: Any, key: Any) -> Any:
    """``rule.read(value)``, with ``key`` added to the path of a refusal."""
    try:
        return rule.read(value)
    except Miss as miss:
        miss.path.append(key)
        raise


@dataclass(frozen=True)
class Field:
    """A field of an :class:`Object` with more to say than its rule: ``required=False`` for an optional one;
    ``null=True`` for one whose value may be left empty (null, kept as None) without a message saying so
    each time (a schema where every field may be empty)."""

    rule: Rule
    required: bool = True
    null: bool = False


class Container(Rule):
    """What the four containers share: a value of their kind (``kind``) within their bounds (``sized``) is
    read inside by ``contents``; it is taken when nothing inside is refused; ``what`` replaces the words of
    ``described``."""

    what: str | None = None

    def accepts(self, value: Any) -> bool:
        try:
            self.read(value)
        except Miss:
            return False
        return True

    def read(self, value: Any) -> Any:
        if value is None and self.none:
            return None
        if not self.kind(value) or not self.sized(value):
            raise Miss(self, value)
        return self.contents(value)

    def describe(self, json: bool = False) -> str:
        return self._or_none(self.what or self.described(), json)

    def sized(self, value: Any) -> bool:
        return True

    def described(self) -> str:
        raise NotImplementedError

    def contents(self, value: Any) -> Any:
        raise NotImplementedError


class Counted(Container):
    """A container of ``shortest`` to ``longest`` items or entries."""

    shortest: int = 0
    longest: int = 0

    def sized(self, value: Any) -> bool:
        return self.shortest <= len(value) <= self.longest

    def counted(self, noun: str, unit: str) -> str:
        if self.shortest:
            return f"{noun} of {self.shortest} to {self.longest} {unit}"
        return f"{noun} of at most {self.longest} {unit}"


@dataclass(frozen=True)
class Object(Container):
    """A mapping with named fields: ``{name: rule or Field}``, every one required unless its :class:`Field`
    says otherwise.

    ``extra``: keep the fields the declaration does not name, unchecked (else each is refused). ``first``:
    the fields that say what the document is (a format and a version), checked before any other, so that
    another kind of file is told so before anything else. What is read keeps the document's order; an
    absent optional field is absent from it.
    """

    fields: Mapping[str, Rule | Field]
    extra: bool = False
    first: tuple[str, ...] = ()
    what: str | None = None
    none: bool = False
    label: str | None = None
    _declared: dict = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        declared = {name: spec if isinstance(spec, Field) else Field(spec) for name, spec in self.fields.items()}
        object.__setattr__(self, "_declared", declared)

    def kind(self, value: Any) -> bool:
        return isinstance(value, Mapping)

    def described(self) -> str:
        return f"a mapping with the fields {', '.join(self._declared)}"

    def contents(self, value: Any) -> Any:
        declared = self._declared
        for name in self.first:
            if name in value:
                _inside(declared[name].rule, value[name], name)
        out = {}
        for key, item in value.items():
            spec = declared.get(key) if isinstance(key, str) else None
            if spec is not None:
                out[key] = None if item is None and spec.null else _inside(spec.rule, item, key)
            elif self.extra:
                out[key] = item
            else:
                raise _at(Miss(self, key, expected=f"one of the fields {', '.join(declared)}",
                               found="an unknown field"), (key,))
        for name, spec in declared.items():
            if spec.required and name not in value:
                raise _at(Miss(spec.rule, None, found="no such field"), (name,))
        return out


@dataclass(frozen=True)
class ListOf(Counted):
    """A list (or tuple) of ``shortest`` to ``longest`` items, each taken by ``item``; read as a list."""

    item: Rule
    longest: int
    shortest: int = 0
    what: str | None = None
    none: bool = False
    label: str | None = None

    def kind(self, value: Any) -> bool:
        return isinstance(value, (list, tuple))

    def described(self) -> str:
        return self.counted("a list", "items")

    def contents(self, value: Any) -> Any:
        item = self.item
        return [_inside(item, v, i) for i, v in enumerate(value)]


@dataclass(frozen=True)
class MapOf(Counted):
    """A mapping of ``shortest`` to ``longest`` entries, each key taken by ``keys`` and each value by ``values``."""

    keys: Rule
    values: Rule
    longest: int
    shortest: int = 0
    what: str | None = None
    none: bool = False
    label: str | None = None

    def kind(self, value: Any) -> bool:
        return isinstance(value, Mapping)

    def described(self) -> str:
        return self.counted("a mapping", "entries")

    def contents(self, value: Any) -> Any:
        keys, values = self.keys, self.values
        return {_inside(keys, k, k): _inside(values, v, k) for k, v in value.items()}


@dataclass(frozen=True)
class Tree(Container):
    """Plain data of any shape: mappings with text keys, lists, text (taken by ``text``), numbers, true,
    false and null, at most ``longest`` values in all and ``deepest`` levels deep. Walked with a stack, never
    by recursion; handed on as it is."""

    longest: int
    deepest: int
    text: Rule = Text()
    what: str | None = None
    none: bool = False
    label: str | None = None

    def kind(self, value: Any) -> bool:
        return isinstance(value, Mapping)

    def described(self) -> str:
        return f"a mapping of plain values, at most {self.longest} in all and {self.deepest} levels deep"

    def contents(self, value: Any) -> Any:
        count, stack = 1, [(value, (), 0)]
        while stack:
            item, path, depth = stack.pop()
            if isinstance(item, (Mapping, list)):
                count += len(item)
                if count > self.longest or depth >= self.deepest:
                    found = f"more than {self.longest} values" if count > self.longest \
                        else f"more than {self.deepest} levels"
                    raise Miss(self, value, found=found)
                if isinstance(item, list):
                    stack.extend((inner, path + (i,), depth + 1) for i, inner in enumerate(item))
                    continue
                for key, inner in item.items():
                    if not isinstance(key, str):
                        raise _at(Miss(self, key, expected="text keys"), path + (key,))
                    stack.append((inner, path + (key,), depth + 1))
            elif isinstance(item, str):
                if not self.text.accepts(item):
                    raise _at(Miss(self.text, item), path)
            elif item is not None and not isinstance(item, (bool, int, float)):
                raise _at(Miss(self, item, expected="text, a number, true, false, null, a list or a mapping"), path)
        return value


def _at(miss: Miss, path: tuple) -> Miss:
    """``miss`` at ``path`` below where it is raised (the path is gathered innermost first)."""
    miss.path.extend(reversed(path))
    return miss
