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
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from sqlalchemy import select, text
from sqlalchemy.dialects import postgresql, sqlite

from metrics.errors import RankscopeError
from metrics.io import Qrels, Run, read_qrels, read_run, system_name
from metrics.redaction import redact
from workspace import cache, derived, notes as notes_rows
from workspace.checks import ID as _ID
from workspace.checks import NamedBytes, Parsed
from workspace.checks import conventions_of as _conventions
from workspace.checks import line as _line
from workspace.checks import named as _named
from workspace.checks import new_id as _new_id
from workspace.checks import now as _now
from workspace.checks import renamed as _renamed
from workspace.engine import Location, connect, resolve, transaction
from workspace.errors import StoreUnavailable, UnknownCollection, WorkspaceError
from workspace.files import BlobStore, check_digest, digest
from workspace.model import CollectionInfo, Note, StoredCollection, StoredFile
from workspace.schema import blobs, collection_files, collections, ensure_schema, events, markers

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Workspace", "open_workspace"]

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
                       documents: NamedBytes | None = None, parsed: Parsed | None = None) -> CollectionInfo:
        """Add a new collection (version 1): qrels, named runs, conventions and optional texts.

        Every file is parsed first (a bad one raises :class:`~metrics.errors.ParseError` naming it and
        the line), unless ``parsed`` holds its parse, then stored with its parsed cache, then the rows are
        committed in one transaction.

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
        parsed : mapping, optional
            ``{sha256: Run or Qrels}``: files already parsed by the caller (read from exactly those bytes,
            with :func:`metrics.io.read_run` / :func:`metrics.io.read_qrels`), not parsed again.

        Returns
        -------
        CollectionInfo
        """
        return self._commit(*self._prepare(name, qrels, runs, conventions=conventions, author=author,
                                           topics=topics, documents=documents, parsed=parsed),
                            parent=None, version=1)

    def add_collections_once(self, marker: str, items: Sequence[dict[str, Any]], *,
                             author: str) -> list[CollectionInfo]:
        """Add several collections in one transaction, unless ``marker`` was recorded before.

        The marker's row is inserted in the same transaction as the collections (unique name): of two
        processes doing this at once, one adds them and the other adds nothing. Used to seed an empty
        workspace.

        Parameters
        ----------
        marker : str
            One line of at most 64 characters naming the action.
        items : sequence of dict
            The keyword arguments of :meth:`add_collection` for each (``name``, ``qrels``, ``runs``...).
        author : str

        Returns
        -------
        list of CollectionInfo
            The collections added, or an empty list when the marker was there.
        """
        _line(marker, "marker", 64)
        with transaction(self._engine, self.location, read=True) as conn:
            if conn.execute(select(markers.c.name).where(markers.c.name == marker)).first() is not None:
                return []
        prepared = [self._prepare(author=author, **item) for item in items]
        with transaction(self._engine, self.location) as conn:
            dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
            done = conn.execute(dialect.insert(markers).values(name=marker, at=_now()).on_conflict_do_nothing()
                                .returning(markers.c.name)).first()
            if done is None:
                return []
            return [self._insert(conn, *args, parent=None, version=1) for args in prepared]

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
                    rename_systems: Mapping[str, str] | None = None, conventions: dict[str, Any] | None = None,
                    topics: NamedBytes | None = None, documents: NamedBytes | None = None,
                    parsed: Parsed | None = None, author: str) -> CollectionInfo:
        """A new version of ``cid`` with some changes; the old one stays.

        Parameters
        ----------
        cid : str
        add_runs : sequence of (str, bytes)
            Runs added (system names made unique as in :meth:`add_collection`).
        remove_systems : iterable of str
            Systems removed.
        rename_systems : mapping, optional
            ``{old system name: new name}`` for kept systems; the new names must stay unique.
        conventions : dict, optional
            New conventions (``metrics.Conventions`` fields); the parent's when None.
        topics, documents : (str, bytes), optional
            New topic or document texts; the parent's when None.
        parsed : mapping, optional
            ``{sha256: Run}`` of added runs already parsed, as for :meth:`add_collection`.
        author : str

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
        names = _renamed(cid, [r.system for r in kept], dict(rename_systems or {}))
        entries = [_entry(old.qrels, "qrels")] + [{**_entry(r, "run"), "system": n} for r, n in zip(kept, names)]
        entries += self._store_runs(add_runs, taken=names, parsed=parsed or {})
        for role, given, before in (("topics", topics, old.topics), ("documents", documents, old.documents)):
            if given is not None:
                given = _named(given, role)
                entries.append(self._store(given[0], given[1], role, None, {}))
            elif before is not None:
                entries.append(_entry(before, role))
        chosen = old.conventions if conventions is None else _conventions(conventions)
        return self._commit(old.info.name, entries, chosen, author, old.info.topics, parent=cid,
                            version=old.info.version + 1)

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
                  base: int | Sequence[int] | None = None) -> Note:
        """Append a revision of the note on ``topic`` (and ``system``, or None for the topic itself).

        The revision is saved on version ``cid`` (its :attr:`Note.collection`) and seen on every version
        of the same lineage.

        Parameters
        ----------
        base : int or sequence of int, optional
            The :attr:`Note.revision` the author edited (saved on any version of the lineage), or several
            of them (the concurrent versions this save merges: none of them stays current); None for a
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

    # -- derived tables ----------------------------------------------------------------------------------------

    def derived_frame(self, kind: str, inputs: dict[str, Any]) -> pd.DataFrame | None:
        """The table stored by :meth:`keep_derived_frame` for ``kind`` and ``inputs``, or None.

        A stored table that is damaged, or was written for other inputs, is None (the caller computes it
        again). See :mod:`workspace.derived`.
        """
        sha, key = derived.key_of(kind, inputs)
        try:
            local = self._blobs.local_path(sha, derived.SUFFIX)
            if local is not None:
                data = local.read_bytes()
            elif self._blobs.exists(sha, derived.SUFFIX):
                data = self._blobs.get(sha, kind, derived.SUFFIX)
            else:
                return None
        except (OSError, RankscopeError):
            return None
        return derived.from_bytes(data, key)

    def keep_derived_frame(self, kind: str, inputs: dict[str, Any], frame: pd.DataFrame) -> bool:
        """Store a table computed from ``inputs`` (immutable: file digests and options), whole or not at all.

        Returns
        -------
        bool
            Whether it was stored; a read-only or full file store keeps nothing and says False.
        """
        sha, key = derived.key_of(kind, inputs)
        try:
            self._blobs.put(sha, derived.to_bytes(frame, key), derived.SUFFIX)
        except StoreUnavailable:
            return False
        return True

    # -- internals ---------------------------------------------------------------------------------------------

    def _row(self, conn, cid: str):
        if not isinstance(cid, str) or not _ID.match(cid):
            raise UnknownCollection(f"unknown collection id {redact(str(cid))[:40]!r}: expected 16 characters "
                                    f"A-Z a-z 0-9 _ -")
        row = conn.execute(select(collections).where(collections.c.id == cid)).first()
        if row is None or row.deleted:
            raise UnknownCollection(f"unknown collection id {cid!r}: no such collection in this workspace"
                                    + (" (it was deleted)" if row is not None else ""))
        return row

    def _read(self, sha256: str, name: str) -> bytes:
        return self._blobs.get(sha256, name)

    def _prepare(self, name: str, qrels: NamedBytes, runs: Sequence[NamedBytes] = (), *,
                 conventions: dict[str, Any] | None = None, author: str, topics: NamedBytes | None = None,
                 documents: NamedBytes | None = None, parsed: Parsed | None = None) -> tuple:
        """A new collection's files stored: ``(name, entries, conventions, author, topics)`` to commit."""
        _line(name, "collection name")
        _line(author, "author")
        conventions = _conventions(conventions)
        parsed = dict(parsed or {})
        qrels = _named(qrels, "qrels")
        entries = [self._store(qrels[0], qrels[1], "qrels", None, parsed)]
        topic_count = entries[0].pop("topics")
        entries += self._store_runs(runs, taken=(), parsed=parsed)
        for role, item in (("topics", topics), ("documents", documents)):
            if item is not None:
                item = _named(item, role)
                entries.append(self._store(item[0], item[1], role, None, parsed))
        return name, entries, conventions, author, topic_count

    def _store(self, name: str, data: bytes, role: str, system: str | None, given: Parsed) -> dict:
        sha = digest(data)
        entry = {"role": role, "name": name, "system": system, "sha256": sha, "size": len(data)}
        parsed = None
        if role in ("qrels", "run"):
            kind = Qrels if role == "qrels" else Run
            parsed = given.get(sha)
            if parsed is not None and not isinstance(parsed, kind):
                raise WorkspaceError(f"{name}: expected its parse as a {kind.__name__}, found "
                                     f"{type(parsed).__name__}")
            if parsed is None:
                parsed = (read_qrels if role == "qrels" else read_run)(data, name=name)  # messages name the file
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

    def _store_runs(self, runs: Sequence[NamedBytes], taken: Iterable[str], parsed: Parsed) -> list[dict]:
        taken, entries = set(taken), []
        for item in runs:
            name, data = _named(item, "run")
            base = system_name(name)
            system, n = base, 1
            while system in taken:
                n += 1
                system = f"{base}-{n}"
            taken.add(system)
            entries.append(self._store(name, data, "run", system, parsed))
        return entries

    def _commit(self, name, entries, conventions, author, topics, *, parent, version) -> CollectionInfo:
        with transaction(self._engine, self.location) as conn:
            return self._insert(conn, name, entries, conventions, author, topics, parent=parent, version=version)

    def _insert(self, conn, name, entries, conventions, author, topics, *, parent, version) -> CollectionInfo:
        """The rows of one collection whose files are stored, inside the caller's transaction."""
        cid = _new_id()
        row = {"id": cid, "name": name, "version": version, "parent": parent, "created_by": author,
               "created_at": _now(), "archived": False, "deleted": False,
               "size": sum(e["size"] for e in entries),
               "systems": json.dumps([e["system"] for e in entries if e["role"] == "run"]),
               "topics": topics, "conventions": json.dumps(conventions, sort_keys=True)}
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
