"""The values the workspace hands out: collection descriptions, stored files and review notes.

All are frozen dataclasses; a :class:`StoredFile` reads its bytes through the store it came from and
checks them against their SHA-256 on every read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["CollectionInfo", "Event", "Note", "StoredClaim", "StoredCollection", "StoredFile"]


@dataclass(frozen=True)
class CollectionInfo:
    """One version of a collection, as listed.

    Attributes
    ----------
    id : str
        Opaque identifier (16 URL-safe characters); each version has its own.
    name : str
        The name given by its authors (may be changed with ``Workspace.rename``).
    version : int
        1 for a new collection, the parent's version plus one for a new version.
    parent : str or None
        The id of the version this one was made from.
    created_by : str
    created_at : str
        UTC time in ISO 8601 (``2026-01-31T12:00:00.123456+00:00``).
    archived : bool
    size : int
        Bytes of all its stored files.
    systems : tuple of str
        The system names of its runs, in order.
    topics : int
        The number of judged topics in its qrels.
    lineage : str
        The id of the first version of its chain of parents (its own id for version 1); review notes are
        shared by all versions of one lineage.
    replaced_by : str or None
        The version that amended this one (see :mod:`workspace.versions`): it is then no longer listed, but
        still opens by its id.
    """

    id: str
    name: str
    version: int
    parent: str | None
    created_by: str
    created_at: str
    archived: bool
    size: int
    systems: tuple[str, ...]
    topics: int
    lineage: str
    replaced_by: str | None = None


@dataclass(frozen=True)
class StoredFile:
    """A file of a collection, stored by content.

    Attributes
    ----------
    name : str
        The file name it was added under.
    system : str or None
        For a run, :func:`metrics.io.system_name` of ``name``, made unique within the collection; else
        ``None``.
    sha256 : str
        Hex SHA-256 of the bytes.
    size : int
        Number of bytes.
    judgment_set : str or None
        For qrels, the name of the judgment set they hold (None when the collection did not name it).
    """

    name: str
    system: str | None
    sha256: str
    size: int
    _reader: Callable[[str, str], bytes] = field(repr=False, compare=False, default=None)
    judgment_set: str | None = None

    def read(self) -> bytes:
        """The file's bytes, checked against :attr:`sha256`.

        Raises
        ------
        WorkspaceError
            The stored file is missing or its bytes do not match the digest.
        """
        return self._reader(self.sha256, self.name)


@dataclass(frozen=True)
class StoredCollection:
    """A collection with its files: what :meth:`Workspace.load` returns.

    Attributes
    ----------
    info : CollectionInfo
    conventions : dict
        The evaluation conventions stored with it (``metrics.Conventions`` fields), possibly empty.
    qrels : StoredFile
        The reference judgments.
    runs : list of StoredFile
    topics : StoredFile or None
        Topic texts, if given.
    documents : StoredFile or None
        Document texts, if given.
    judgments : tuple of StoredFile
        The other judgment sets of the collection (each named by its ``judgment_set``), in order.
    """

    info: CollectionInfo
    conventions: dict[str, Any]
    qrels: StoredFile
    runs: list[StoredFile]
    topics: StoredFile | None = None
    documents: StoredFile | None = None
    judgments: tuple[StoredFile, ...] = ()

    @property
    def reference(self) -> str:
        """The name of the reference judgment set: as stored, else :func:`metrics.judgments.sets.set_name` of
        the qrels file's name."""
        from metrics.judgments.sets import set_name

        return self.qrels.judgment_set or set_name(self.qrels.name)

    @property
    def judgment_sets(self) -> list[tuple[str, StoredFile]]:
        """``(name, file)`` of every judgment set, the reference first."""
        return [(self.reference, self.qrels), *((f.judgment_set or "", f) for f in self.judgments)]


@dataclass(frozen=True)
class Note:
    """One revision of a review note on a topic (and a system, or the topic as a whole).

    Attributes
    ----------
    revision : int
        Unique, increasing over the whole workspace.
    collection : str
        The id of the version it was saved on; it is seen on every version of that version's lineage.
    topic : str
    system : str or None
        ``None`` for a note on the topic itself.
    tag : str
    comment : str
    author : str
    created_at : str
        UTC time in ISO 8601.
    base : int or None
        The revision its author edited (the latest of them for a merge), ``None`` for a new note.
    bases : tuple of int
        Every revision its author edited, ascending: one, several for a save that merged concurrent
        versions, none for a new note.
    claims : tuple of StoredClaim
        The claims the note carries (:mod:`workspace.claims`), in the order they were added.
    """

    revision: int
    collection: str
    topic: str
    system: str | None
    tag: str
    comment: str
    author: str
    created_at: str
    base: int | None
    bases: tuple[int, ...] = ()
    claims: tuple["StoredClaim", ...] = ()


@dataclass(frozen=True)
class StoredClaim:
    """A claim carried by a note: what it states and where it was made.

    Attributes
    ----------
    claim : metrics.review.claims.Threshold, Better or Rank
    since : str
        The id of the version it was saved on: it is checked on that version and every later one.
    author : str
        Who added it.
    at : str
        When, UTC time in ISO 8601.
    """

    claim: Any
    since: str
    author: str
    at: str


@dataclass(frozen=True)
class Event:
    """One entry of the audit log: a destructive or sharing action on a collection, by whom and when.

    Attributes
    ----------
    id : int
        Increasing over the whole workspace.
    collection : str
        The id of the version acted on.
    name : str
        The collection's name now.
    version : int
    action : str
        ``rename``, ``archive``, ``unarchive``, ``delete``, ``restore``, ``purge`` or ``share``.
    detail : str
        The new name (rename), ``IDENTITY: ROLE`` or ``IDENTITY: removed`` (share), else empty.
    author : str
        Who did it: the signed-in identity, the name typed in the open mode, or the operator on the
        command line (``USER (command line)``).
    at : str
        UTC time in ISO 8601.
    """

    id: int
    collection: str
    name: str
    version: int
    action: str
    detail: str
    author: str
    at: str
