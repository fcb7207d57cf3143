"""Review notes: append-only revisions of a note on a topic (and a system), with the revision each edits.

Nothing is ever updated or deleted. A save names its ``base``, the revision its author was looking at
(``None`` for a new note). The current notes are the *heads*: revisions that no later revision of the same
(topic, system) names as its base. Two people who edit the same revision at the same time both make heads,
and both are shown, rather than one silently overwriting the other. A save may name several bases (a merge
of such heads): all of them stop being heads; ``notes.base`` keeps the latest and ``note_bases`` every one.

A note belongs to a *lineage*, the chain of versions of one collection (``collections.lineage``, the id of
its first version): it is saved on one version (:attr:`Note.collection`) and seen on all of them, and an
edit on any version may name as its base a revision saved on another.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone

from sqlalchemy import Connection, and_, select, union

from workspace import claims as claim_rows
from workspace.errors import WorkspaceError
from workspace.model import Note, StoredClaim
from workspace.schema import collections, note_bases, notes

__all__ = ["MAX_COMMENT", "MAX_TAG", "MAX_TOPIC", "SEPARATOR", "Merged", "heads", "history", "insert_note", "merged",
           "tags_of"]

MAX_TOPIC = 256
MAX_TAG = 64
MAX_COMMENT = 20_000
SEPARATOR = "\n---\n"
"""Between the comments of versions merged into one note."""


@dataclass(frozen=True)
class Merged:
    """Versions of one note taken together (see :func:`merged`).

    Attributes
    ----------
    tags : tuple of str
        Every tag of every version, once, in the order first seen.
    comment : str
        Their comments, one after the other, separated by :data:`SEPARATOR` (empty ones left out).
    base : int, tuple of int or None
        What a save of the result names as edited: the one version's revision, every version's (a merge,
        which replaces them all), or None when there was no version.
    """

    tags: tuple[str, ...]
    comment: str
    base: int | tuple[int, ...] | None


def tags_of(tag: str) -> list[str]:
    """The tags of a note's ``tag`` field: comma-separated, stripped, empty ones left out."""
    return [t.strip() for t in tag.split(",") if t.strip()]


def merged(versions: Sequence[Note]) -> Merged:
    """The rule for concurrent versions of a note: tags together, comments one after the other, every
    version a base. One version gives itself; none gives an empty note with no base.

    Examples
    --------
    >>> a = Note(revision=3, collection="c", topic="1", system=None, tag="easy, typo", comment="first",
    ...          author="ana", created_at="", base=None)
    >>> b = Note(revision=4, collection="c", topic="1", system=None, tag="typo, pool", comment="second",
    ...          author="bea", created_at="", base=None)
    >>> merged([a, b])
    Merged(tags=('easy', 'typo', 'pool'), comment='first\n---\nsecond', base=(3, 4))
    >>> merged([a]).base, merged([]).base
    (3, None)
    """
    tags = tuple(dict.fromkeys(t for note in versions for t in tags_of(note.tag)))
    comment = SEPARATOR.join(note.comment for note in versions if note.comment)
    if not versions:
        return Merged(tags=(), comment="", base=None)
    base = versions[0].revision if len(versions) == 1 else tuple(note.revision for note in versions)
    return Merged(tags=tags, comment=comment, base=base)


def _text(value: object, what: str, limit: int, *, empty: bool, line: bool = True) -> str:
    if not isinstance(value, str):
        raise WorkspaceError(f"note {what}: expected text, found {type(value).__name__}")
    if (not empty and not value.strip()) or len(value) > limit or (line and ("\n" in value or "\r" in value)):
        shape = "one line" if line else "text"
        raise WorkspaceError(f"note {what}: expected {'non-empty ' if not empty else ''}{shape} of at most "
                             f"{limit} characters, found {len(value)} characters")
    return value


def _key(topic: str, system: str | None):
    same_system = notes.c.system.is_(None) if system is None else notes.c.system == system
    return and_(notes.c.topic == topic, same_system)


def _note(row, merged: dict[int, tuple[int, ...]]) -> Note:
    bases = merged.get(row.revision) or ((row.base,) if row.base is not None else ())
    return Note(revision=row.revision, collection=row.collection, topic=row.topic, system=row.system,
                tag=row.tag, comment=row.comment, author=row.author, created_at=row.created_at, base=row.base,
                bases=bases, claims=claim_rows.decode(row.claims))


def _merged(conn: Connection, lineage: str) -> dict[int, tuple[int, ...]]:
    """``{revision: bases}`` of the merges of a lineage (revisions that named several bases)."""
    found: dict[int, list[int]] = {}
    for revision, base in conn.execute(select(note_bases.c.revision, note_bases.c.base)
                                       .where(note_bases.c.lineage == lineage)):
        found.setdefault(revision, []).append(base)
    return {revision: tuple(sorted(bases)) for revision, bases in found.items()}


def _bases(base: object) -> tuple[int, ...]:
    """The revisions a save names as edited: ``None``, one revision, or a non-empty list of them."""
    many = isinstance(base, (list, tuple))
    items = list(base) if many else ([] if base is None else [base])
    if (many and not items) or any(isinstance(b, bool) or not isinstance(b, int) for b in items):
        found = type(base).__name__ if not many else f"a {type(base).__name__} of " + ", ".join(
            sorted({type(b).__name__ for b in items}) or ["nothing"])
        raise WorkspaceError(f"note base: expected a revision number, a non-empty list of them, or None, "
                             f"found {found}")
    return tuple(sorted(set(items)))


def insert_note(conn: Connection, cid: str, lineage: str, topic: str, system: str | None, tag: str, comment: str,
                *, author: str, base: int | Sequence[int] | None,
                claims: Sequence[StoredClaim] | None = None) -> Note:
    """Append one revision saved on version ``cid`` of ``lineage`` (both already checked).

    ``base`` is the revision edited, or a list of revisions (a merge), or None for a new note. ``claims``
    are the claims the revision carries; None keeps those of the revisions it edits (each claim once).
    Raises :class:`WorkspaceError` on bad values, a base that is no revision of this note in this lineage,
    or a claim saved on a version of another lineage.
    """
    _text(topic, "topic", MAX_TOPIC, empty=False)
    if system is not None:
        _text(system, "system", MAX_TOPIC, empty=False)
    _text(tag, "tag", MAX_TAG, empty=True)
    _text(comment, "comment", MAX_COMMENT, empty=True, line=False)
    _text(author, "author", MAX_TOPIC, empty=False)
    bases = _bases(base)
    if bases:
        found = set(conn.execute(select(notes.c.revision).where(notes.c.revision.in_(bases),
                                                                notes.c.lineage == lineage,
                                                                _key(topic, system))).scalars())
        for missing in (b for b in bases if b not in found):
            raise WorkspaceError(f"note base {missing}: expected a revision of the note on topic {topic!r}, "
                                 f"system {system!r} of collection {cid} or another of its versions, found none")
    if claims is None:  # kept as stored, even those this release cannot read
        kept = claim_rows.union(conn.execute(select(notes.c.claims).where(notes.c.revision.in_(bases))
                                             .order_by(notes.c.revision)).scalars().all()) if bases else []
    else:
        kept = list(claims)
        _since(conn, lineage, {c.since for c in kept})
    stored = claim_rows.encode(kept)
    row = {"collection": cid, "topic": topic, "system": system, "tag": tag, "comment": comment, "author": author,
           "created_at": datetime.now(timezone.utc).isoformat(), "base": bases[-1] if bases else None}
    revision = conn.execute(notes.insert().values(**row, lineage=lineage, claims=stored)
                            .returning(notes.c.revision)).scalar_one()
    if len(bases) > 1:
        conn.execute(note_bases.insert(), [{"revision": revision, "base": b, "lineage": lineage} for b in bases])
    return Note(revision=revision, **row, bases=bases, claims=claim_rows.decode(stored))


def _since(conn: Connection, lineage: str, ids: set[str]) -> None:
    """Refuse a claim saved on a version that is not one of ``lineage``."""
    found = set(conn.execute(select(collections.c.id).where(collections.c.id.in_(sorted(ids)),
                                                            collections.c.lineage == lineage)).scalars())
    for missing in sorted(ids - found):
        raise WorkspaceError(f"claim since {missing[:40]!r}: expected a version of this collection, found none")


def heads(conn: Connection, lineage: str) -> list[Note]:
    """The current notes of a lineage, by topic, then system (the topic's own notes first), then revision."""
    later = notes.alias("later")
    edited = union(select(later.c.base).where(later.c.lineage == lineage, later.c.base.is_not(None)),
                   select(note_bases.c.base).where(note_bases.c.lineage == lineage))
    rows = conn.execute(select(notes).where(notes.c.lineage == lineage, notes.c.revision.not_in(edited)))
    merged = _merged(conn, lineage)
    # ordered here, not by the database: the same order (code points, the topic's own note first) everywhere
    return sorted((_note(row, merged) for row in rows),
                  key=lambda n: (n.topic, n.system is not None, n.system or "", n.revision))


def history(conn: Connection, lineage: str, topic: str, system: str | None) -> list[Note]:
    """Every revision of one note in a lineage, oldest first, whichever version each was saved on."""
    rows = conn.execute(select(notes).where(notes.c.lineage == lineage, _key(topic, system))
                        .order_by(notes.c.revision))
    merged = _merged(conn, lineage)
    return [_note(row, merged) for row in rows]
