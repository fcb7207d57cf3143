"""Purging: the bytes of collections deleted longer ago than the undo window are removed, and no stored
file (stored bytes, Arrow cache, derived table) is left that no collection names.

The order never leaves a row naming a missing file, whenever the process is killed:

1. **Rows first**, in one transaction: the file rows of each expired collection are deleted (the
   collection row stays, marked deleted, so that the audit log keeps naming it), a ``purge`` entry is
   logged, and the ``blobs`` rows no file row names any more go too. A lineage all of whose versions
   are purged loses its notes.
2. **Then the files**, each one no ``blobs`` row names (those of step 1, and any left by an earlier
   purge that was killed half-way), with their Arrow caches and the derived tables computed from them.
   They are removed while holding the store's write lock (:func:`lock_files`), after checking again
   under it that no row names them; a collection being added takes the same lock to check, before its
   rows are committed, that each of its files is there (and writes a missing one again). So a purge and an
   add of the same bytes at the same time never leave the add's rows naming a removed file. A derived table
   (kept without the lock) is moved aside before it is judged the last time, and put back if a session kept
   it again whole meanwhile: a purge never removes a table kept after its check.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager as ContextManager
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

from sqlalchemy import Connection, delete, exists, func, select, text

from workspace import audit, derived
from workspace.errors import WorkspaceError
from workspace.files import BlobStore
from workspace.schema import blobs, collection_files, collections, events, note_bases, notes

__all__ = ["LEFTOVER_SECONDS", "Purged", "expire", "lock_files", "run", "sweep"]

FILES_LOCK = 7270502
"""PostgreSQL advisory lock held while stored files are checked against the rows or removed."""
LEFTOVER_SECONDS = 3600.0
"""A temporary file older than this is the leftover of an interrupted write (no write takes this long)."""


@dataclass(frozen=True)
class Purged:
    """What a purge removed.

    Attributes
    ----------
    collections : tuple of str
        The ids of the deleted collections whose files were removed (no longer restorable).
    files : int
        Stored files, Arrow caches, derived tables and leftovers of interrupted writes removed.
    bytes : int
        Their size.
    """

    collections: tuple[str, ...]
    files: int
    bytes: int


Transaction = Callable[[bool], ContextManager[Connection]]
"""``transaction(read)`` opens a transaction of the workspace's database (``read=True``: one that only reads)."""


def run(transaction: Transaction, store: BlobStore, older_than: float, author: str) -> Purged:
    """Purge the collections deleted more than ``older_than`` seconds ago (step 1), then the files (step 2)."""
    if isinstance(older_than, bool) or not isinstance(older_than, (int, float)) or not older_than >= 0:
        raise WorkspaceError(f"purge: expected a number of seconds of at least 0, found {older_than!r}")
    cutoff = datetime.now(timezone.utc) - timedelta(seconds=min(float(older_than), 1e11))
    with transaction(False) as conn:
        ids = expire(conn, cutoff, author)
    files, size = sweep(transaction, store)
    return Purged(tuple(ids), files, size)


def lock_files(conn: Connection) -> None:
    """Hold the store's write lock until the transaction ends: SQLite's ``BEGIN IMMEDIATE`` holds it already,
    PostgreSQL takes an advisory lock."""
    if conn.dialect.name == "postgresql":
        conn.execute(text(f"SELECT pg_advisory_xact_lock({FILES_LOCK})"))


def expire(conn: Connection, cutoff: datetime, author: str) -> list[str]:
    """Step 1: the rows of the collections deleted at or before ``cutoff``; their ids.

    A collection deleted before the audit log existed (no ``delete`` entry) counts as deleted long ago.
    """
    deleted_at = (select(events.c.collection, func.max(events.c.at).label("at"))
                  .where(events.c.action == "delete").group_by(events.c.collection).subquery())
    rows = conn.execute(select(collections.c.id, collections.c.lineage, deleted_at.c.at)
                        .outerjoin(deleted_at, deleted_at.c.collection == collections.c.id)
                        .where(collections.c.deleted.is_(True),
                               exists().where(collection_files.c.collection == collections.c.id))).all()
    due = sorted((r for r in rows if r.at is None or datetime.fromisoformat(r.at) <= cutoff), key=lambda r: r.id)
    if not due:
        return []
    ids = [r.id for r in due]
    conn.execute(delete(collection_files).where(collection_files.c.collection.in_(ids)))
    for cid in ids:
        audit.record(conn, cid, "purge", "", author)
    conn.execute(delete(blobs).where(blobs.c.sha256.not_in(select(collection_files.c.sha256))))
    kept = select(collections.c.lineage).where(
        collections.c.deleted.is_(False) | exists().where(collection_files.c.collection == collections.c.id))
    gone = sorted({r.lineage for r in due} - set(conn.execute(kept).scalars()))
    if gone:
        conn.execute(delete(note_bases).where(note_bases.c.lineage.in_(gone)))
        conn.execute(delete(notes).where(notes.c.lineage.in_(gone)))
    return ids


def _unnamed(store: BlobStore, named: set[str]) -> list[tuple[str, str]]:
    """The stored files no ``blobs`` row in ``named`` accounts for: bytes and caches of an unnamed digest,
    derived tables computed from one (or unreadable)."""
    return [(sha, suffix) for sha, suffix in store.listing()
            if (_stale(store, sha, named) if suffix == derived.SUFFIX else sha not in named)]


def _stale(store: BlobStore, sha: str, named: set[str]) -> bool:
    """Whether the derived table ``sha`` is unreadable or computed from a file no row in ``named`` names."""
    try:  # a local file is memory-mapped: only its schema, where the inputs are, is read
        local = store.local_path(sha, derived.SUFFIX)
        return _made_elsewhere(local if local is not None else store.get(sha, "derived table", derived.SUFFIX),
                               named)
    except WorkspaceError:  # removed meanwhile, or unreadable: nothing to keep
        return True


def _made_elsewhere(table: Path | bytes, named: set[str]) -> bool:
    """Whether a derived table (a path or its bytes) is unreadable or computed from a file not in ``named``."""
    made_from = derived.sources(table)
    return made_from is None or not made_from <= named


def sweep(transaction: Transaction, store: BlobStore) -> tuple[int, int]:
    """Step 2: remove every stored file no row names; ``(files, bytes)`` removed."""
    with transaction(True) as conn:
        named = set(conn.execute(select(blobs.c.sha256)).scalars())
    candidates = _unnamed(store, named)
    files = size = 0
    if candidates:
        with transaction(False) as conn:
            lock_files(conn)
            named = set(conn.execute(select(blobs.c.sha256)).scalars())  # again, under the lock
            for sha, suffix in candidates:
                if suffix != derived.SUFFIX:
                    if sha not in named:  # else added again since the listing
                        size += store.remove(sha, suffix)
                        files += 1
                    continue
                if _stale(store, sha, named):  # else a damaged table written again whole since the listing
                    # judged again once moved aside: a table kept again after this check stays
                    removed = store.remove(sha, suffix, keep_if=lambda table: not _made_elsewhere(table, named))
                    if removed is not None:
                        size += removed
                        files += 1
    left = store.remove_leftovers(LEFTOVER_SECONDS)
    return files + left[0], size + left[1]

