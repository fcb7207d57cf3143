"""The checks and small values of the workspace: ids, one-line texts, (name, bytes) pairs, conventions, names.

Everything a caller gives the store is checked here before any file is written or any row is committed,
with the rules of :mod:`metrics.checks`; each failure is a :class:`~workspace.errors.WorkspaceError` worded
as every refusal is: ``"<what>: expected ..., found ..."``.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any

from metrics.checks import Kind, Rule, Text, check, refuse
from metrics.conventions import Conventions
from metrics.errors import RankscopeError
from metrics.io import Qrels, Run
from workspace.errors import WorkspaceError

__all__ = ["ID", "MAX_NAME", "NamedBytes", "Parsed", "conventions_of", "line", "named", "new_id", "now", "renamed",
           "valid"]

ID = re.compile(r"[A-Za-z0-9_-]{16}\Z")
MAX_NAME = 256
NamedBytes = tuple[str, bytes]
Parsed = Mapping[str, Run | Qrels]
"""``{sha256: parse}``: files a caller already parsed."""


def new_id() -> str:
    """A random id (72 bits) that does not start with ``-``, so that a command line never reads it as an option."""
    while True:
        cid = secrets.token_urlsafe(12)
        if not cid.startswith("-"):
            return cid


def now() -> str:
    """The current UTC time in ISO 8601."""
    return datetime.now(timezone.utc).isoformat()


def valid(what: str, value: object, rule: Rule) -> Any:
    """``value`` as ``rule`` passes it on, or a :class:`WorkspaceError` in the one wording of a refusal."""
    try:
        return check(what, value, rule)
    except RankscopeError as err:
        raise WorkspaceError(str(err)) from None


def line(value: object, what: str, limit: int = MAX_NAME) -> str:
    """``value`` if it is one non-empty line of at most ``limit`` characters (a name, an author)."""
    return valid(what, value, Text(limit, blank=False, line=True))


def named(item: object, what: str) -> NamedBytes:
    if not isinstance(item, tuple) or len(item) != 2 or not isinstance(item[1], (bytes, bytearray)):
        raise WorkspaceError(str(refuse(what, "a (file name, bytes) pair", item)))
    return line(item[0], f"{what} file name"), bytes(item[1])


def conventions_of(conventions: object) -> dict[str, Any]:
    """Conventions as given, checked and completed (every field of :class:`metrics.Conventions`)."""
    valid("conventions", conventions, Kind(dict, "a dict of metrics.Conventions fields", none=True))
    try:
        return Conventions.coerce(**(conventions or {})).as_dict()
    except RankscopeError as err:
        raise WorkspaceError(f"conventions: {err}") from None


def renamed(cid: str, systems: list[str], renames: dict[str, str]) -> list[str]:
    """The kept systems' names after ``renames``; each old name must be kept, each new one unique."""
    unknown = sorted(set(renames) - set(systems))
    if unknown:
        raise WorkspaceError(f"collection {cid}: cannot rename system(s) {', '.join(map(repr, unknown))}: "
                             f"expected one of {', '.join(systems)}")
    names = [line(renames.get(s, s), "system name") for s in systems]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise WorkspaceError(f"collection {cid}: expected unique system names after renaming, found "
                             f"{', '.join(map(repr, twice))} twice")
    return names
