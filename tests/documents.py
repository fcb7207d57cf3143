"""Every declared field of a document made wrong in turn: what each reader's field test feeds its reader.

A reader's field test gives a valid example of its document and the document's declaration
(:mod:`metrics.checks`). :func:`cases` walks the two together and, for every field the declaration names
(each field of an object, the first item of a list, each entry of a mapping, all the way down), makes
the example wrong in that one place, in three ways: a value of a kind the field's rule refuses, the field
left out (when it is required), and an unknown field beside the declared ones. Each case carries the one
line the reader must give: the field's path, what its rule takes and what was found. :func:`unreached`
lists the declared fields the example does not reach (an empty list or mapping, an absent object), so that
a field added to a declaration is either covered by the same test or makes it fail.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from metrics.checks import ListOf, MapOf, Object, OneOf, Rule, read, where
from metrics.errors import Refused

WRONG = ({"unexpected": [1]}, [{"unexpected": 1}], "unexpected", 12345, 0.5, True, None, [])
"""Values tried in turn until the field's own rule refuses one (JSON and YAML can write each)."""
WRONG_KEYS = ("", "not a plain name!", "k" * 300)
UNKNOWN = "unexpected_field"

__all__ = ["Case", "WRONG", "cases", "unreached"]


@dataclass(frozen=True)
class Case:
    """One wrong document: what was done (``id``), the document, and the line the reader must give."""

    id: str
    document: Any
    message: str


def cases(document: Any, rule: Rule, *, at: str = "", json: bool = True, keep: tuple = ()) -> list[Case]:
    """The wrong documents of every declared field of ``rule`` that ``document`` reaches.

    ``at`` is written before every path, as the reader writes it; ``keep`` names paths (tuples) never left
    out (a field whose absence makes the document another kind of thing, not a document without it).
    """
    out: list[Case] = []

    def visit(value: Any, rule: Rule, path: tuple) -> None:
        rule = _branch(rule, value)
        if isinstance(rule, Object):
            for name, field in rule._declared.items():
                inner = path + (name,)
                wrong = _wrong(field.rule, skip_none=field.null, json=json)
                if wrong is not None:
                    out.append(Case(f"{_id(inner)}=wrong", _put(document, inner, wrong[0]),
                                    f"{where(at, inner)}: {wrong[1]}"))
                if field.required and inner not in keep:
                    out.append(Case(f"{_id(inner)}=absent", _drop(document, inner),
                                    f"{where(at, inner)}: expected {field.rule.describe(json)}, found no such field"))
                if isinstance(value, Mapping) and value.get(name) is not None:
                    visit(value[name], field.rule, inner)
            if not rule.extra:
                inner = path + (UNKNOWN,)
                out.append(Case(f"{_id(inner)}=unknown", _put(document, inner, 1),
                                f"{where(at, inner)}: expected one of the fields {', '.join(rule._declared)}, "
                                "found an unknown field"))
        elif isinstance(rule, ListOf) and isinstance(value, list) and value:
            inner = path + (0,)
            wrong = _wrong(rule.item, json=json)
            if wrong is not None:
                out.append(Case(f"{_id(inner)}=wrong", _put(document, inner, wrong[0]), f"{where(at, inner)}: {wrong[1]}"))
            visit(value[0], rule.item, inner)
        elif isinstance(rule, MapOf) and isinstance(value, Mapping) and value:
            key = next(iter(value))
            inner = path + (key,)
            wrong = _wrong(rule.values, json=json)
            if wrong is not None:
                out.append(Case(f"{_id(inner)}=wrong", _put(document, inner, wrong[0]), f"{where(at, inner)}: {wrong[1]}"))
            for bad in WRONG_KEYS:
                try:
                    read(bad, rule.keys, json=json)
                except Refused as err:
                    out.append(Case(f"{_id(path)}.<key>=wrong", _rekey(document, path, key, bad),
                                    f"{where(at, path + (bad,))}: {err.detail}"))
                    break
            for key, item in value.items():  # every entry, for what lies inside each (a view's lists)
                visit(item, rule.values, path + (key,))

    visit(document, rule, ())
    return out


def unreached(document: Any, rule: Rule) -> list[str]:
    """The declared lists, mappings and objects ``document`` leaves empty or out, by path."""
    missing: list[str] = []

    def visit(value: Any, rule: Rule, path: tuple) -> None:
        rule = _branch(rule, value)
        if isinstance(rule, Object):
            for name, field in rule._declared.items():
                inner = path + (name,)
                if isinstance(value, Mapping) and value.get(name) is not None:
                    visit(value[name], field.rule, inner)
                elif _container(field.rule):
                    missing.append(where("", inner))
        elif isinstance(rule, (ListOf, MapOf)):
            if not value:
                missing.append(where("", path))
            elif isinstance(rule, ListOf):
                visit(value[0], rule.item, path + (0,))
            else:
                key = next(iter(value))
                visit(value[key], rule.values, path + (key,))

    visit(document, rule, ())
    return missing


def _branch(rule: Rule, value: Any) -> Rule:
    """The alternative of a :class:`OneOf` that reads ``value`` (itself for any other rule)."""
    while isinstance(rule, OneOf):
        fitting = [r for r in rule.rules if r.kind(value)]
        if not fitting:
            return rule
        rule = fitting[0]
    return rule


def _container(rule: Rule) -> bool:
    rules = rule.rules if isinstance(rule, OneOf) else (rule,)
    return any(isinstance(r, (Object, ListOf, MapOf)) for r in rules)


def _wrong(rule: Rule, *, skip_none: bool = False, json: bool = True) -> tuple[Any, str] | None:
    """A value ``rule`` refuses at the field itself (not inside it), with the refusal's detail."""
    for value in WRONG:
        if value is None and skip_none:
            continue
        try:
            read(value, rule, json=json)
        except Refused as err:
            if not err.path:
                return value, err.detail
    return None


def _id(path: tuple) -> str:
    return ".".join(str(p)[:20] for p in path) or "<document>"


def _put(document: Any, path: tuple, value: Any) -> Any:
    out = copy.deepcopy(document)
    target = out
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value
    return out


def _drop(document: Any, path: tuple) -> Any:
    out = copy.deepcopy(document)
    target = out
    for part in path[:-1]:
        target = target[part]
    del target[path[-1]]
    return out


def _rekey(document: Any, path: tuple, key: Any, new: Any) -> Any:
    out = copy.deepcopy(document)
    target = out
    for part in path:
        target = target[part]
    target[new] = target.pop(key)
    return out
