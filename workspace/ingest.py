"""How a collection enters the store: its files parsed, stored with their Arrow caches, then its rows
inserted in one transaction, so that it is visible only when complete.

Each file is stored (:class:`~workspace.files.BlobStore`) before the rows that name it are committed. Under
the store's write lock (:func:`workspace.purge.lock_files`), the rows' transaction checks that each file
stored for it is there, and writes it again if a purge removed it meanwhile (bytes that were already
stored, and so not written again, when they were added).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sqlalchemy import Connection
from sqlalchemy.dialects import postgresql, sqlite

from metrics.errors import RankscopeError
from metrics.io import Qrels, Run, read_qrels, read_run, system_name
from workspace import cache, members as member_rows, versions
from workspace.checks import NamedBytes, Parsed
from workspace.checks import conventions_of as _conventions
from workspace.checks import line as _line
from workspace.checks import named as _named
from workspace.checks import new_id as _new_id
from workspace.checks import now as _now
from workspace.errors import StoreUnavailable, WorkspaceError
from workspace.files import BlobStore, digest
from workspace.model import CollectionInfo, StoredFile
from workspace.purge import lock_files
from workspace.schema import blobs, collection_files, collections

__all__ = ["default_set_name", "entry", "info", "insert", "judgment_entries", "prepare", "set_name_checked",
           "store_file", "store_runs"]


def prepare(store: BlobStore, name: str | None, qrels: NamedBytes, runs: Sequence[NamedBytes] = (), *,
            conventions: dict[str, Any] | None = None, author: str, topics: NamedBytes | None = None,
            documents: NamedBytes | None = None, parsed: Parsed | None = None,
            judgments: Sequence[tuple[str, NamedBytes]] = (), reference: str | None = None) -> tuple:
    """A new collection's files stored: ``(name, entries, conventions, author, topics)`` to commit; a name of
    None becomes :func:`workspace.versions.default_name` of the qrels file and the systems."""
    if name is not None:
        _line(name, "collection name")
    _line(author, "author")
    conventions = _conventions(conventions)
    parsed = dict(parsed or {})
    qrels = _named(qrels, "qrels")
    reference = default_set_name(qrels[0]) if reference is None else reference
    entries = [{**store_file(store, qrels[0], qrels[1], "qrels", None, parsed),
                "judgment_set": set_name_checked(reference)}]
    topic_count = entries[0].pop("topics")
    entries += store_runs(store, runs, taken=(), parsed=parsed)
    entries += judgment_entries(store, judgments, reference, parsed)
    if name is None:
        name = _line(versions.default_name(qrels[0], [e["system"] for e in entries[1:]]), "collection name")
    for role, item in (("topics", topics), ("documents", documents)):
        if item is not None:
            item = _named(item, role)
            entries.append(store_file(store, item[0], item[1], role, None, parsed))
    return name, entries, conventions, author, topic_count


def store_file(store: BlobStore, name: str, data: bytes, role: str, system: str | None, given: Parsed) -> dict:
    """Parse (a qrels or a run, unless ``given`` holds its parse) and store one file with its Arrow cache;
    its entry (role, name, system, digest, size, and the bytes, until the rows are committed)."""
    sha = digest(data)
    found = {"role": role, "name": name, "system": system, "sha256": sha, "size": len(data), "data": data}
    parsed = None
    if role in ("qrels", "run", "judgments"):
        kind = Run if role == "run" else Qrels
        parsed = given.get(sha)
        if parsed is not None and not isinstance(parsed, kind):
            raise WorkspaceError(f"{name}: expected its parse as a {kind.__name__}, found "
                                 f"{type(parsed).__name__}")
        if parsed is None:
            parsed = (read_run if role == "run" else read_qrels)(data, name=name)  # messages name the file
        if role == "run":
            parsed = parsed.renamed(system)
        if role == "qrels":
            found["topics"] = len(parsed.queries)
    try:
        store.put(sha, data)
        if parsed is not None:
            store.put(sha, cache.to_arrow(parsed, sha), cache.SUFFIX)
    except StoreUnavailable as err:  # a full disk, say: name the file that did not fit
        raise StoreUnavailable(f"cannot store {name}: {err}") from None
    return found


def judgment_entries(store: BlobStore, judgments: Sequence, reference: str, parsed: Parsed) -> list[dict]:
    """The entries of a collection's other judgment sets, new files stored as qrels.

    Parameters
    ----------
    store : BlobStore
    judgments : sequence of (str, (str, bytes)) or (str, StoredFile)
        Each set's name and its qrels file: new bytes, or a file the parent version holds.
    reference : str
        The reference set's name (no other set may take it).
    parsed : mapping
        Files already parsed, as for :func:`store_file`.
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
            entries.append({**entry(given, "judgments"), "judgment_set": name})
            continue
        found = store_file(store, *_named(given, "judgments"), "judgments", None, parsed)
        found.pop("topics", None)
        entries.append({**found, "judgment_set": name})
    return entries


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


def store_runs(store: BlobStore, runs: Sequence[NamedBytes], taken: Iterable[str], parsed: Parsed) -> list[dict]:
    """Store runs named after their files (:func:`metrics.io.system_name`), made unique with ``-2``, ``-3``..."""
    taken, entries = set(taken), []
    for item in runs:
        name, data = _named(item, "run")
        base = system_name(name)
        system, n = base, 1
        while system in taken:
            n += 1
            system = f"{base}-{n}"
        taken.add(system)
        entries.append(store_file(store, name, data, "run", system, parsed))
    return entries


def insert(conn: Connection, store: BlobStore, name, entries, conventions, author, topics, *, parent: str | None,
           lineage: str | None, version: int, members: Mapping[str, str]) -> CollectionInfo:
    """The rows of one collection whose files are stored, inside the caller's transaction.

    ``lineage`` is the parent's (None for a new lineage, whose ``members`` are then recorded).
    """
    lock_files(conn)
    for e in entries:
        if "data" in e and not store.exists(e["sha256"]):
            store.put(e["sha256"], e["data"])
    cid = _new_id()
    row = {"id": cid, "name": name, "version": version, "parent": parent, "created_by": author,
           "created_at": _now(), "archived": False, "deleted": False,
           "size": sum(e["size"] for e in entries),
           "systems": json.dumps([e["system"] for e in entries if e["role"] == "run"]),
           "topics": topics, "conventions": json.dumps(conventions, sort_keys=True), "lineage": lineage or cid}
    dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
    for sha, size in {e["sha256"]: e["size"] for e in entries}.items():
        conn.execute(dialect.insert(blobs).values(sha256=sha, size=size, created_at=row["created_at"])
                     .on_conflict_do_nothing())
    conn.execute(collections.insert().values(**row))
    conn.execute(collection_files.insert(), [
        {"collection": cid, "position": i, "role": e["role"], "name": e["name"], "system": e["system"],
         "sha256": e["sha256"], "judgment_set": e.get("judgment_set")} for i, e in enumerate(entries)])
    if lineage is None:
        member_rows.add(conn, cid, members)
    return info(_Row(row))


class _Row:
    def __init__(self, values: dict) -> None:
        self.__dict__.update(values)


def info(row) -> CollectionInfo:
    """A collection's row as a :class:`CollectionInfo`."""
    return CollectionInfo(id=row.id, name=row.name, version=row.version, parent=row.parent,
                          created_by=row.created_by, created_at=row.created_at, archived=bool(row.archived),
                          size=row.size, systems=tuple(json.loads(row.systems)), topics=row.topics,
                          lineage=row.lineage, replaced_by=getattr(row, "replaced_by", None))


def entry(f: StoredFile, role: str) -> dict:
    """The entry of a file already stored (kept by a new version)."""
    return {"role": role, "name": f.name, "system": f.system, "sha256": f.sha256, "size": f.size,
            "judgment_set": f.judgment_set}
