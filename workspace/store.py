"""The workspace: collections (qrels, named runs, conventions) and review notes in a shared database.

A collection never changes once added; a change (runs added or removed) makes a new version with its own
id whose ``parent`` is the old one. The versions of one collection form a *lineage*, named by the id of the
first, and review notes belong to the lineage: a note saved on any version is seen on all. A collection's
files are stored by content (:mod:`workspace.files`) and durably written before the rows that name them
are committed, in one transaction: a collection is visible only when complete. Ids are opaque random
strings checked against a strict pattern before any query. Who may do what is :mod:`workspace.access`'s
rule, applied to the person a view of the workspace acts for (:meth:`Workspace.acting_as`).
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from sqlalchemy import select, text
from sqlalchemy.dialects import postgresql, sqlite

from metrics.io import Qrels, Run
from workspace import cache, derived, ingest, members as member_rows, notes as notes_rows, versions
from workspace.access import Actor
from workspace.checks import NamedBytes, Parsed
from workspace.checks import conventions_of as _conventions
from workspace.checks import line as _line
from workspace.checks import named as _named
from workspace.checks import now as _now
from workspace.checks import renamed as _renamed
from workspace.engine import Location, connect, resolve, transaction
from workspace.errors import WorkspaceError
from workspace.files import BlobStore, check_digest
from workspace.model import CollectionInfo, Note, StoredClaim, StoredCollection, StoredFile
from workspace.stewardship import Stewardship
from workspace.schema import blobs, collection_files, collections, ensure_schema, markers

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


class Workspace(Stewardship):
    """A shared store of collections and review notes; made by :func:`open_workspace`.

    Safe to use from several threads and processes at once. Every method raises
    :class:`StoreUnavailable` when the database cannot be used.

    As opened, the workspace acts for the operator: nothing is checked, and each change names its
    ``author``. :meth:`acting_as` gives the same workspace as one person sees it: each method then asks
    :mod:`workspace.access` whether that person may do it (an id they may not see is
    :class:`~workspace.access.NoAccess`, an action their role does not allow
    :class:`~workspace.access.Forbidden`), and records them as the author.
    """

    def __init__(self, engine, where: Location) -> None:
        self._engine, self.location = engine, where
        self._blobs = BlobStore(where.files)
        self._actor: Actor | None = None

    def acting_as(self, actor: Actor) -> "Workspace":
        """This workspace as ``actor`` uses it (the same connections: close the workspace, not the view)."""
        view = copy.copy(self)
        view._actor = actor
        return view

    @property
    def actor(self) -> Actor | None:
        """Who this view acts for; None for the operator."""
        return self._actor

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

    def add_collection(self, name: str | None, qrels: NamedBytes, runs: Sequence[NamedBytes] = (), *,
                       conventions: dict[str, Any] | None = None, author: str | None = None,
                       topics: NamedBytes | None = None, documents: NamedBytes | None = None,
                       parsed: Parsed | None = None, members: Mapping[str, str] | None = None,
                       judgments: Sequence[tuple[str, NamedBytes]] = (), reference: str | None = None) -> CollectionInfo:
        """Add a new collection (version 1): qrels, named runs, conventions and optional texts.

        Every file is parsed first (a bad one raises :class:`~metrics.errors.ParseError` naming it and
        the line), unless ``parsed`` holds its parse, then stored with its parsed cache, then the rows are
        committed in one transaction.

        Parameters
        ----------
        name : str or None
            One line; None: :func:`workspace.versions.default_name` of the qrels file and the systems.
        qrels : (str, bytes)
            File name and bytes.
        runs : sequence of (str, bytes)
            Each run's file name (its system name is :func:`metrics.io.system_name` of it, made unique
            with ``-2``, ``-3``...) and bytes.
        conventions : dict, optional
            :class:`metrics.Conventions` fields; checked, and stored complete.
        author : str, optional
            Who adds it; required from the operator, the person acted for otherwise.
        topics, documents : (str, bytes), optional
            Topic and document texts, stored as given.
        parsed : mapping, optional
            ``{sha256: Run or Qrels}``: files already parsed by the caller (read from exactly those bytes,
            with :func:`metrics.io.read_run` / :func:`metrics.io.read_qrels`), not parsed again.
        members : mapping, optional
            ``{identity: role}`` (:mod:`workspace.access`) of its lineage. A signed-in person who adds a
            collection is its owner.
        judgments : sequence of (str, (str, bytes)), optional
            Other judgment sets of the collection: (name, qrels file). ``reference`` names the set ``qrels``
            holds (default :func:`metrics.judgments.sets.set_name` of its file name).

        Returns
        -------
        CollectionInfo
        """
        prepared = ingest.prepare(self._blobs, name, qrels, runs, conventions=conventions, author=self._who(author),
                                  topics=topics, documents=documents, parsed=parsed, judgments=judgments,
                                  reference=reference)
        return self._commit(*prepared, parent=None, version=1, members=members)

    def add_collections_once(self, marker: str, items: Sequence[dict[str, Any]], *,
                             author: str | None = None) -> list[CollectionInfo]:
        """Add several collections in one transaction, unless ``marker`` was recorded before.

        The marker's row is inserted in the same transaction as the collections (unique name): of two
        processes doing this at once, one adds them and the other adds nothing. Used to seed an empty
        workspace.

        Parameters
        ----------
        marker : str
            One line of at most 64 characters naming the action.
        items : sequence of dict
            The keyword arguments of :meth:`add_collection` for each (``name``, ``qrels``, ``runs``,
            ``members``...).
        author : str, optional

        Returns
        -------
        list of CollectionInfo
            The collections added, or an empty list when the marker was there.
        """
        _line(marker, "marker", 64)
        author = self._who(author)
        with transaction(self._engine, self.location, read=True) as conn:
            if conn.execute(select(markers.c.name).where(markers.c.name == marker)).first() is not None:
                return []
        prepared = [(ingest.prepare(self._blobs, author=author, **{k: v for k, v in item.items() if k != "members"}),
                     item.get("members")) for item in items]
        with transaction(self._engine, self.location) as conn:
            dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
            done = conn.execute(dialect.insert(markers).values(name=marker, at=_now()).on_conflict_do_nothing()
                                .returning(markers.c.name)).first()
            if done is None:
                return []
            return [self._insert(conn, *args, parent=None, version=1, members=given) for args, given in prepared]

    def collections(self, *, archived: bool = False) -> list[CollectionInfo]:
        """The collections, newest first, every version listed but those amended (:mod:`workspace.versions`);
        archived ones only when ``archived``; only those the person acted for may see."""
        query = select(collections).where(collections.c.deleted.is_(False), collections.c.replaced_by.is_(None))
        if not archived:
            query = query.where(collections.c.archived.is_(False))
        with transaction(self._engine, self.location, read=True) as conn:
            rows = conn.execute(query.order_by(collections.c.created_at.desc(), collections.c.id)).all()
            visible = member_rows.visible(conn, self._actor)
        return [ingest.info(row) for row in rows if visible is None or row.lineage in visible]

    def collection(self, cid: str) -> CollectionInfo:
        """One collection's description; :class:`UnknownCollection` if the id is unknown or deleted (for a person
        who may not see it, :class:`~workspace.access.NoAccess`, the same line in every case)."""
        with transaction(self._engine, self.location, read=True) as conn:
            return ingest.info(self._row(conn, cid))

    def holding(self, qrels: str, runs: Sequence[str]) -> CollectionInfo | None:
        """The listed collection (newest first, archived ones last) whose qrels and runs are exactly the files
        with these SHA-256 digests, in any order; None when no collection holds them."""
        with transaction(self._engine, self.location, read=True) as conn:
            visible = member_rows.visible(conn, self._actor)
            found = [cid for cid in versions.holding(conn, qrels, list(runs))
                     if visible is None or self._row(conn, cid).lineage in visible]
            return ingest.info(self._row(conn, found[0])) if found else None

    def load(self, cid: str) -> StoredCollection:
        """A collection with its files (read lazily, checked on read) and conventions."""
        with transaction(self._engine, self.location, read=True) as conn:
            row = self._row(conn, cid)
            files = conn.execute(select(collection_files, blobs.c.size)
                                 .join(blobs, blobs.c.sha256 == collection_files.c.sha256)
                                 .where(collection_files.c.collection == cid)
                                 .order_by(collection_files.c.position)).all()
        stored = {"qrels": None, "topics": None, "documents": None}
        runs, judgments = [], []
        for f in files:
            item = StoredFile(f.name, f.system, f.sha256, f.size, self._read, judgment_set=f.judgment_set)
            if f.role == "run":
                runs.append(item)
            elif f.role == "judgments":
                judgments.append(item)
            else:
                stored[f.role] = item
        return StoredCollection(info=ingest.info(row), conventions=json.loads(row.conventions), runs=runs,
                                judgments=tuple(judgments), **stored)

    def new_version(self, cid: str, *, add_runs: Sequence[NamedBytes] = (), remove_systems: Iterable[str] = (),
                    rename_systems: Mapping[str, str] | None = None, conventions: dict[str, Any] | None = None,
                    topics: NamedBytes | None = None, documents: NamedBytes | None = None,
                    parsed: Parsed | None = None, author: str | None = None, amend: bool = False,
                    judgments: Sequence[tuple[str, NamedBytes]] | None = None,
                    reference: str | None = None, qrels: NamedBytes | None = None) -> CollectionInfo:
        """A new version of ``cid`` with some changes; the old one stays. It keeps the members of its lineage.

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
            ``{sha256: Run or Qrels}`` of added files already parsed, as for :meth:`add_collection`.
        author : str, optional
            Required from the operator.
        amend : bool, default=False
            Amend ``cid`` rather than follow it, when the rules of :mod:`workspace.versions` allow (the same
            author, nothing built on it, made less than 30 minutes ago): the new version then takes its
            place (its parent, version number and lineage) and ``cid`` is no longer listed.
        judgments, reference : optional
            The other judgment sets, replacing the parent's, and the reference's name, as for
            :meth:`add_collection`; None keeps the parent's.
        qrels : (str, bytes), optional
            New reference judgments (a judging task's, :mod:`workspace.judging`); the parent's when None. The
            parent's reference is then no longer a set of the new version unless ``judgments`` names it.

        Returns
        -------
        CollectionInfo
            The new version: a new id, ``parent=cid``, ``version`` one more than the parent's (or, amending,
            ``cid``'s parent and version). A name that was the default one (:func:`workspace.versions.default_name`)
            becomes the default name of the new systems.
        """
        author = self._who(author)
        with transaction(self._engine, self.location, read=True) as conn:
            self._row(conn, cid, "version")
        old = self.load(cid)
        remove = set(remove_systems)
        unknown = sorted(remove - {r.system for r in old.runs})
        if unknown:
            raise WorkspaceError(f"collection {cid}: cannot remove system(s) {', '.join(map(repr, unknown))}: "
                                 f"expected one of {', '.join(r.system for r in old.runs)}")
        kept = [r for r in old.runs if r.system not in remove]
        names = _renamed(cid, [r.system for r in kept], dict(rename_systems or {}))
        reference = old.reference if reference is None else reference
        topic_count = old.info.topics
        if qrels is None:
            entries = [{**ingest.entry(old.qrels, "qrels"), "judgment_set": reference}]
        else:
            entries = [{**ingest.store_file(self._blobs, *_named(qrels, "qrels"), "qrels", None, parsed or {}),
                        "judgment_set": ingest.set_name_checked(reference)}]
            topic_count = entries[0].pop("topics")
        entries += [{**ingest.entry(r, "run"), "system": n} for r, n in zip(kept, names)]
        entries += ingest.store_runs(self._blobs, add_runs, taken=names, parsed=parsed or {})
        if judgments is None:
            kept_sets = [(f.judgment_set or "", f) for f in old.judgments]
            entries += ingest.judgment_entries(self._blobs, kept_sets, reference, {})
        else:
            entries += ingest.judgment_entries(self._blobs, judgments, reference, parsed or {})
        for role, given, before in (("topics", topics, old.topics), ("documents", documents, old.documents)):
            if given is not None:
                given = _named(given, role)
                entries.append(ingest.store_file(self._blobs, given[0], given[1], role, None, {}))
            elif before is not None:
                entries.append(ingest.entry(before, role))
        chosen = old.conventions if conventions is None else _conventions(conventions)
        name = old.info.name
        if name == versions.default_name(old.qrels.name, old.info.systems):  # the name follows the content
            name = versions.default_name(old.qrels.name, [e["system"] for e in entries if e["role"] == "run"])
        return self._commit(name, entries, chosen, author, topic_count, parent=cid,
                            version=old.info.version + 1, amend=cid if amend else None)

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

    def save_note(self, cid: str, topic: str, system: str | None, tag: str, comment: str, *,
                  author: str | None = None, base: int | Sequence[int] | None = None,
                  claims: Sequence[StoredClaim] | None = None) -> Note:
        """Append a revision of the note on ``topic`` (and ``system``, or None for the topic itself).

        The revision is saved on version ``cid`` (its :attr:`Note.collection`) and seen on every version
        of the same lineage.

        Parameters
        ----------
        base : int or sequence of int, optional
            The :attr:`Note.revision` the author edited (saved on any version of the lineage), or several
            of them (the concurrent versions this save merges: none of them stays current); None for a
            new note.
        claims : sequence of StoredClaim, optional
            The claims the revision carries (:mod:`workspace.claims`), each saved on a version of this
            lineage; None keeps those of the revisions it edits.
        """
        author = self._who(author, "note author")
        with transaction(self._engine, self.location) as conn:
            lineage = self._row(conn, cid, "note").lineage
            return notes_rows.insert_note(conn, cid, lineage, topic, system, tag, comment, author=author,
                                          base=base, claims=claims)

    def lineage(self, cid: str) -> list[CollectionInfo]:
        """Every version of the collection ``cid`` belongs to, amended ones included, deleted ones left out,
        oldest first."""
        with transaction(self._engine, self.location, read=True) as conn:
            lineage = self._row(conn, cid).lineage
            rows = conn.execute(select(collections).where(collections.c.lineage == lineage,
                                                          collections.c.deleted.is_(False))
                                .order_by(collections.c.created_at, collections.c.id)).all()
        return [ingest.info(row) for row in rows]

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
        return derived.read(self._blobs, kind, inputs)

    def keep_derived_frame(self, kind: str, inputs: dict[str, Any], frame: pd.DataFrame) -> bool:
        """Store a table computed from ``inputs`` (immutable: file digests and options), whole or not at all.

        Returns
        -------
        bool
            Whether it was stored; a read-only or full file store keeps nothing and says False.
        """
        return derived.keep(self._blobs, kind, inputs, frame)

    # -- internals ---------------------------------------------------------------------------------------------

    def _who(self, author: str | None, what: str = "author") -> str:
        """The author recorded: as given by the operator; the person acted for otherwise."""
        if self._actor is None:
            return _line(author, what)
        if author is not None and author != self._actor.name:
            raise WorkspaceError(f"author: {self._actor.name} cannot write as {str(author)[:80]!r}")
        return self._actor.name

    def _row(self, conn, cid: str, action: str = "view", *, deleted: bool | None = False):
        return member_rows.row(conn, self._actor, cid, action, deleted=deleted)

    def _read(self, sha256: str, name: str) -> bytes:
        return self._blobs.get(sha256, name)

    def _commit(self, name, entries, conventions, author, topics, *, parent, version,
                members=None, amend: str | None = None) -> CollectionInfo:
        with transaction(self._engine, self.location) as conn:
            amended = versions.amendable(conn, amend, author) if amend else None
            if amended is None:
                return self._insert(conn, name, entries, conventions, author, topics, parent=parent,
                                    version=version, members=members)
            info = self._insert(conn, name, entries, conventions, author, topics, parent=amended.parent,
                                version=amended.version, lineage=amended.lineage)
            versions.mark_replaced(conn, amend, info.id, author, info.created_at)
            return info

    def _insert(self, conn, name, entries, conventions, author, topics, *, parent, version,
                members=None, lineage: str | None = None) -> CollectionInfo:
        """The rows of one collection whose files are stored, inside the caller's transaction; ``lineage``
        that of the version it amends, else its parent's (a new one for a first version). A signed-in
        person who adds a collection is its owner."""
        if lineage is None and parent is not None:
            lineage = self._row(conn, parent, "version").lineage
        given = dict(members or {})
        if lineage is None and self._actor is not None and self._actor.checked:
            given[self._actor.name] = "owner"
        return ingest.insert(conn, self._blobs, name, entries, conventions, author, topics, parent=parent,
                             lineage=lineage, version=version, members=given)

    def _parsed(self, sha256: str, kind: str) -> Run | Qrels | None:
        check_digest(sha256)
        roles = ("run",) if kind == "run" else ("qrels", "judgments")
        with transaction(self._engine, self.location, read=True) as conn:
            named = conn.execute(select(collection_files.c.name, collection_files.c.system)
                                 .where(collection_files.c.sha256 == sha256, collection_files.c.role.in_(roles))
                                 .limit(1)).first()
        return None if named is None else cache.parsed(self._blobs, sha256, named.system or named.name, kind)

