"""The rows of a collection: its description from a database row, and the entries of its files.

An entry is the dict a collection's file becomes before its row is inserted: ``role`` (``qrels``, ``run``,
``topics``, ``documents``, ``judgments``), ``name``, ``system``, ``sha256``, ``size`` and ``judgment_set``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

from metrics.errors import RankscopeError
from workspace.checks import named
from workspace.errors import WorkspaceError
from workspace.model import CollectionInfo, StoredFile

__all__ = ["Row", "default_set_name", "entry_of", "info_of", "judgment_entries", "set_name_checked"]


class Row:
    """A row built from a dict (the values just inserted), read like a database row."""

    def __init__(self, values: dict) -> None:
        self.__dict__.update(values)


def info_of(row) -> CollectionInfo:
    """The :class:`CollectionInfo` of a ``collections`` row."""
    return CollectionInfo(id=row.id, name=row.name, version=row.version, parent=row.parent,
                          created_by=row.created_by, created_at=row.created_at, archived=bool(row.archived),
                          size=row.size, systems=tuple(json.loads(row.systems)), topics=row.topics,
                          lineage=row.lineage)


def entry_of(f: StoredFile, role: str) -> dict:
    """The entry of a file already stored (a new version keeps it)."""
    return {"role": role, "name": f.name, "system": f.system, "sha256": f.sha256, "size": f.size,
            "judgment_set": f.judgment_set}


def default_set_name(file_name: str) -> str:
    """The name of a judgment set given none: :func:`metrics.judgments.sets.set_name` of its file's name."""
    from metrics.judgments.sets import set_name

    return set_name(file_name)


def set_name_checked(name: object) -> str:
    """A judgment set's name, checked as :func:`metrics.judgments.sets.check_name` checks it."""
    from metrics.judgments.sets import check_name

    try:
        return check_name(name)
    except RankscopeError as err:
        raise WorkspaceError(f"judgments: {err}") from None


def judgment_entries(judgments: Sequence, reference: str, store: Callable[[str, bytes], dict]) -> list[dict]:
    """The entries of a collection's other judgment sets.

    Parameters
    ----------
    judgments : sequence of (str, (str, bytes)) or (str, StoredFile)
        Each set's name and its qrels file: new bytes, or a file the parent version holds.
    reference : str
        The reference set's name (no other set may take it).
    store : callable
        Stores new bytes (file name, bytes) as a qrels file and returns its entry.
    """
    taken, entries = {set_name_checked(reference)}, []
    for item in judgments:
        if not isinstance(item, tuple) or len(item) != 2:
            raise WorkspaceError(f"judgments: expected (set name, (file name, bytes)) pairs, found "
                                 f"{type(item).__name__}")
        name, given = set_name_checked(item[0]), item[1]
        if name in taken:
            raise WorkspaceError(f"judgments: expected a name for each judgment set, found {name!r} twice")
        taken.add(name)
        if isinstance(given, StoredFile):
            entries.append({**entry_of(given, "judgments"), "judgment_set": name})
            continue
        entry = store(*named(given, "judgments"))
        entry.pop("topics", None)
        entries.append({**entry, "judgment_set": name})
    return entries
