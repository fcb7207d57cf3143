"""The workspace: collections (qrels, named runs, conventions) and review notes in a shared database.

A collection never changes once added; a change (runs added or removed) makes a new version with its own
id whose ``parent`` is the old one. The versions of one collection form a *lineage*, named by the id of the
first, and review notes belong to the lineage: a note saved on any version is seen on all. A collection's
files are stored by content (:mod:`workspace.files`) and durably written before the rows that name them
are committed, in one transaction: a collection is visible only when complete. Ids are opaque random strings checked against a strict pattern before any query.
"""

from __future__ import annotations

import json
import os
import re
import secrets
from collections.abc import Iterable, Sequence
from datetime import datetime, timezone
from typing import Any

from sqlalchemy import select, text
from sqlalchemy.dialects import postgresql, sqlite

from metrics.conventions import Conventions
from metrics.errors import RankscopeError
from metrics.io import Qrels, Run, read_qrels, read_run, system_name
from workspace import cache, notes as notes_rows
from workspace.engine import Location, connect, resolve, transaction
from workspace.errors import StoreUnavailable, UnknownCollection, WorkspaceError
from workspace.files import BlobStore, check_digest, digest
from workspace.model import CollectionInfo, Note, StoredCollection, StoredFile
from workspace.schema import blobs, collection_files, collections, ensure_schema, events

__all__ = ["Workspace", "open_workspace"]

_ID = re.compile(r"[A-Za-z0-9_-]{16}\Z")
MAX_NAME = 256
NamedBytes = tuple[str, bytes]


def _new_id() -> str:
    """A random id (72 bits) that does not start with ``-``, so that a command line never reads it as an option."""
    while True:
        cid = secrets.token_urlsafe(12)
        if not cid.startswith("-"):
            return cid


def _now() -> str:
    return datetime.now(timezone.utc).isoformat()


def _line(value: object, what: str, limit: int = MAX_NAME) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > limit or any(c in value for c in "\r\n\0"):
        found = f"{type(value).__name__}" if not isinstance(value, str) else f"{len(value)} characters"
        raise WorkspaceError(f"{what}: expected one non-empty line of at most {limit} characters, found {found}")
    return value


def _named(item: object, what: str) -> NamedBytes:
    if (not isinstance(item, tuple) or len(item) != 2 or not isinstance(item[1], (bytes, bytearray))):
        raise WorkspaceError(f"{what}: expected a (file name, bytes) pair, found {type(item).__name__}")
    return _line(item[0], f"{what} file name"), bytes(item[1])


def open_workspace(location: str | os.PathLike | None = None, *, files: str | os.PathLike | None = None,
                   busy_timeout: float = 30.0) -> "Workspace":
    """Open (creating or upgrading when needed) a workspace.

    Parameters
    ----------
    location : str or path, optional
        A folder (``workspace.db`` in WAL mode and ``files/``), ``sqlite:///path.db``, or
        ``postgresql://user@host:port/db``. Default ``$RANKSCOPE_WORKSPACE``, else ``./rankscope-workspace``.
    files : str or path, optional
        Folder or fsspec URL of the stored files. Default the workspace's ``files/`` folder; for
        PostgreSQL ``$RANKSCOPE_WORKSPACE_FILES``, required then.
    busy_timeout : float, default=30.0
        Seconds to wait for a database another process holds locked before :class:`StoreUnavailable`.

    Returns
    -------
    Workspace

    Raises
    ------
    StoreUnavailable
        The database cannot be opened or written (read-only, locked, full, server down).
    SchemaTooNew
        The database was written by a newer rankscope.
    """
    where = resolve(location, files)
    engine = connect(where, busy_timeout)
    try:
        with transaction(engine, where) as conn:
            if where.sqlite_path is None:
                conn.execute(text("SELECT pg_advisory_xact_lock(7270501)"))
            ensure_schema(conn, where.label)
    except BaseException:
        engine.dispose()
        raise
    return Workspace(engine, where)


class Workspace:
    """A shared store of collections and review notes; made by :func:`open_workspace`.

    Safe to use from several threads and processes at once. Every method raises
    :class:`StoreUnavailable` when the database cannot be used.
    """

    def __init__(self, engine, where: Location) -> None:
        self._engine, self.location = engine, where
        self._blobs = BlobStore(where.files)

    def close(self) -> None:
        """Close the database connections."""
        self._engine.dispose()

    def __enter__(self) -> "Workspace":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Workspace({self.location.label!r})"

    # -- collections ---------------------------------------------------------------------------------------

    def add_collection(self, name: str, qrels: NamedBytes, runs: Sequence[NamedBytes] = (), *,
                       conventions: dict[str, Any] | None = None, author: str, topics: NamedBytes | None = None,
                       documents: NamedBytes | None = None) -> CollectionInfo:
        """Add a new collection (version 1): qrels, named runs, conventions and optional texts.

        Every file is parsed first (a bad one raises :class:`~metrics.errors.ParseError` naming it and
        the line), then stored with its parsed cache, then the rows are committed in one transaction.

        Parameters
        ----------
        name : str
            One line.
        qrels : (str, bytes)
            File name and bytes.
        runs : sequence of (str, bytes)
            Each run's file name (its system name is :func:`metrics.io.system_name` of it, made unique
            with ``-2``, ``-3``...) and bytes.
        conventions : dict, optional
            :class:`metrics.Conventions` fields; checked, and stored complete.
        author : str
        topics, documents : (str, bytes), optional
            Topic and document texts, stored as given.

        Returns
        -------
        CollectionInfo
        """
        _line(name, "collection name")
        _line(author, "author")
        if conventions is not None and not isinstance(conventions, dict):
            raise WorkspaceError(f"conventions: expected a dict of metrics.Conventions fields, found "
                                 f"{type(conventions).__name__}")
        try:
            conventions = Conventions.coerce(**(conventions or {})).as_dict()
        except RankscopeError as err:
            raise WorkspaceError(f"conventions: {err}") from None
        qrels = _named(qrels, "qrels")
        entries = [self._store(qrels[0], qrels[1], "qrels", None)]
        topic_count = entries[0].pop("topics")
        entries += self._store_runs(runs, taken=())
        for role, item in (("topics", topics), ("documents", documents)):
            if item is not None:
                item = _named(item, role)
                entries.append(self._store(item[0], item[1], role, None))
        return self._commit(name, entries, conventions, author, parent=None, version=1, topics=topic_count)

    def collections(self, *, archived: bool = False) -> list[CollectionInfo]:
        """The collections, newest first, every version listed; archived ones only when ``archived``."""
        query = select(collections).where(collections.c.deleted.is_(False))
        if not archived:
            query = query.where(collections.c.archived.is_(False))
        with transaction(self._engine, self.location, read=True) as conn:
            rows = conn.execute(query.order_by(collections.c.created_at.desc(), collections.c.id)).all()
        return [_info(row) for row in rows]

    def collection(self, cid: str) -> CollectionInfo:
        """One collection's description; :class:`UnknownCollection` if the id is unknown or deleted."""
        with transaction(self._engine, self.location, read=True) as conn:
            return _info(self._row(conn, cid))

    def load(self, cid: str) -> StoredCollection:
        """A collection with its files (read lazily, checked on read) and conventions."""
        with transaction(self._engine, self.location, read=True) as conn:
            row = self._row(conn, cid)
            files = conn.execute(select(collection_files, blobs.c.size)
                                 .join(blobs, blobs.c.sha256 == collection_files.c.sha256)
                                 .where(collection_files.c.collection == cid)
                                 .order_by(collection_files.c.position)).all()
        stored = {"qrels": None, "topics": None, "documents": None}
        runs = []
        for f in files:
            item = StoredFile(f.name, f.system, f.sha256, f.size, self._read)
            if f.role == "run":
                runs.append(item)
            else:
                stored[f.role] = item
        return StoredCollection(info=_info(row), conventions=json.loads(row.conventions), runs=runs, **stored)

    def new_version(self, cid: str, *, add_runs: Sequence[NamedBytes] = (), remove_systems: Iterable[str] = (),
                    author: str) -> CollectionInfo:
        """A new version of ``cid`` without ``remove_systems`` and with ``add_runs``; the old one stays.

        Returns
        -------
        CollectionInfo
            The new version: a new id, ``parent=cid``, ``version`` one more than the parent's.
        """
        _line(author, "author")
        old = self.load(cid)
        remove = set(remove_systems)
        unknown = sorted(remove - {r.system for r in old.runs})
        if unknown:
            raise WorkspaceError(f"collection {cid}: cannot remove system(s) {', '.join(map(repr, unknown))}: "
                                 f"expected one of {', '.join(r.system for r in old.runs)}")
        kept = [r for r in old.runs if r.system not in remove]
        entries = [_entry(old.qrels, "qrels")] + [_entry(r, "run") for r in kept]
        entries += self._store_runs(add_runs, taken=[r.system for r in kept])
        entries += [_entry(f, role) for role, f in (("topics", old.topics), ("documents", old.documents)) if f]
        return self._commit(old.info.name, entries, old.conventions, author, parent=cid,
                            version=old.info.version + 1, topics=old.info.topics)

    def rename(self, cid: str, name: str, *, author: str) -> CollectionInfo:
        """Give collection ``cid`` a new name."""
        _line(name, "collection name")
        return self._change(cid, author, "rename", name, name=name)

    def archive(self, cid: str, archived: bool = True, *, author: str) -> CollectionInfo:
        """Archive (hide from the default list) or, with ``archived=False``, restore a collection."""
        return self._change(cid, author, "archive" if archived else "unarchive", "", archived=bool(archived))

    def delete(self, cid: str, *, author: str) -> None:
        """Delete a collection: it is no longer listed or loadable (its stored bytes may serve others)."""
        self._change(cid, author, "delete", "", deleted=True)

    # -- parsed files ----------------------------------------------------------------------------------------

    def parsed_run(self, sha256: str) -> Run | None:
        """The stored run with this digest, parsed (from its Arrow cache when there is one), or None."""
        return self._parsed(sha256, "run")

    def parsed_qrels(self, sha256: str) -> Qrels | None:
        """The stored qrels with this digest, parsed (from its Arrow cache when there is one), or None."""
        return self._parsed(sha256, "qrels")

    # -- notes -------------------------------------------------------------------------------------------------

    def notes(self, cid: str) -> list[Note]:
        """The current notes of a collection: the head revisions of each (topic, system), saved on any
        version of its lineage."""
        with transaction(self._engine, self.location, read=True) as conn:
            return notes_rows.heads(conn, self._row(conn, cid).lineage)

    def save_note(self, cid: str, topic: str, system: str | None, tag: str, comment: str, *, author: str,
                  base: int | None = None) -> Note:
        """Append a revision of the note on ``topic`` (and ``system``, or None for the topic itself).

        The revision is saved on version ``cid`` (its :attr:`Note.collection`) and seen on every version
        of the same lineage.

        Parameters
        ----------
        base : int, optional
            The :attr:`Note.revision` the author edited (saved on any version of the lineage); None for a
            new note.
        """
        with transaction(self._engine, self.location) as conn:
            lineage = self._row(conn, cid).lineage
            return notes_rows.insert_note(conn, cid, lineage, topic, system, tag, comment, author=author,
                                          base=base)

    def note_history(self, cid: str, topic: str, system: str | None) -> list[Note]:
        """Every revision of one note, oldest first, saved on any version of the collection's lineage."""
        with transaction(self._engine, self.location, read=True) as conn:
            return notes_rows.history(conn, self._row(conn, cid).lineage, topic, system)

    # -- internals ---------------------------------------------------------------------------------------------

    def _row(self, conn, cid: str):
        if not isinstance(cid, str) or not _ID.match(cid):
            raise UnknownCollection(f"unknown collection id {str(cid)[:40]!r}: expected 16 characters "
                                    f"A-Z a-z 0-9 _ -")
        row = conn.execute(select(collections).where(collections.c.id == cid)).first()
        if row is None or row.deleted:
            raise UnknownCollection(f"unknown collection id {cid!r}: no such collection in {self.location.label}"
                                    + (" (it was deleted)" if row is not None else ""))
        return row

    def _read(self, sha256: str, name: str) -> bytes:
        return self._blobs.get(sha256, name)

    def _store(self, name: str, data: bytes, role: str, system: str | None) -> dict:
        sha = digest(data)
        entry = {"role": role, "name": name, "system": system, "sha256": sha, "size": len(data)}
        parsed = None
        if role in ("qrels", "run"):
            reader = read_qrels if role == "qrels" else read_run
            parsed = reader(data, name=name)  # messages name the file
            if role == "run":
                parsed = parsed.renamed(system)
            if role == "qrels":
                entry["topics"] = len(parsed.queries)
        try:
            self._blobs.put(sha, data)
            if parsed is not None:
                self._blobs.put(sha, cache.to_arrow(parsed, sha), cache.SUFFIX)
        except StoreUnavailable as err:  # a full disk, say: name the file that did not fit
            raise StoreUnavailable(f"cannot store {name}: {err}") from None
        return entry

    def _store_runs(self, runs: Sequence[NamedBytes], taken: Iterable[str]) -> list[dict]:
        taken, entries = set(taken), []
        for item in runs:
            name, data = _named(item, "run")
            base = system_name(name)
            system, n = base, 1
            while system in taken:
                n += 1
                system = f"{base}-{n}"
            taken.add(system)
            entries.append(self._store(name, data, "run", system))
        return entries

    def _commit(self, name, entries, conventions, author, *, parent, version, topics) -> CollectionInfo:
        cid = _new_id()
        row = {"id": cid, "name": name, "version": version, "parent": parent, "created_by": author,
               "created_at": _now(), "archived": False, "deleted": False,
               "size": sum(e["size"] for e in entries),
               "systems": json.dumps([e["system"] for e in entries if e["role"] == "run"]),
               "topics": topics, "conventions": json.dumps(conventions, sort_keys=True)}
        with transaction(self._engine, self.location) as conn:
            row["lineage"] = cid if parent is None else self._row(conn, parent).lineage
            dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
            for sha, size in {e["sha256"]: e["size"] for e in entries}.items():
                conn.execute(dialect.insert(blobs).values(sha256=sha, size=size, created_at=row["created_at"])
                             .on_conflict_do_nothing())
            conn.execute(collections.insert().values(**row))
            conn.execute(collection_files.insert(), [
                {"collection": cid, "position": i, "role": e["role"], "name": e["name"], "system": e["system"],
                 "sha256": e["sha256"]} for i, e in enumerate(entries)])
        return _info(_Row(row))

    def _change(self, cid, author, action, detail, **values) -> CollectionInfo:
        _line(author, "author")
        with transaction(self._engine, self.location) as conn:
            self._row(conn, cid)
            conn.execute(collections.update().where(collections.c.id == cid).values(**values))
            conn.execute(events.insert().values(collection=cid, action=action, detail=detail, author=author,
                                                at=_now()))
            row = conn.execute(select(collections).where(collections.c.id == cid)).first()
        return _info(row)

    def _parsed(self, sha256: str, kind: str) -> Run | Qrels | None:
        check_digest(sha256)
        role = "run" if kind == "run" else "qrels"
        with transaction(self._engine, self.location, read=True) as conn:
            named = conn.execute(select(collection_files.c.name, collection_files.c.system)
                                 .where(collection_files.c.sha256 == sha256, collection_files.c.role == role)
                                 .limit(1)).first()
        if named is None:
            return None
        label = named.system or named.name
        local = self._blobs.local_path(sha256, cache.SUFFIX)
        if local is not None or self._blobs.exists(sha256, cache.SUFFIX):
            source = local if local is not None else self._blobs.get(sha256, label, cache.SUFFIX)
            parsed = cache.from_arrow(source, sha256, kind)
            if parsed is not None:
                return parsed
        data = self._blobs.get(sha256, label)
        parsed = read_run(data, name=label) if kind == "run" else read_qrels(data, name=label)
        try:
            self._blobs.put(sha256, cache.to_arrow(parsed, sha256), cache.SUFFIX)
        except RankscopeError:  # a read-only file store still serves the parse
            pass
        return parsed


class _Row:
    def __init__(self, values: dict) -> None:
        self.__dict__.update(values)


def _info(row) -> CollectionInfo:
    return CollectionInfo(id=row.id, name=row.name, version=row.version, parent=row.parent,
                          created_by=row.created_by, created_at=row.created_at, archived=bool(row.archived),
                          size=row.size, systems=tuple(json.loads(row.systems)), topics=row.topics,
                          lineage=row.lineage)


def _entry(f: StoredFile, role: str) -> dict:
    return {"role": role, "name": f.name, "system": f.system, "sha256": f.sha256, "size": f.size}
