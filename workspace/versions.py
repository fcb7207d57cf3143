"""How changes become versions: one sitting is one version, the same files open the collection that holds
them, and a collection is named after its qrels and systems until someone names it.

**One sitting, one version.** A change to a stored collection is saved as a new version (collections never
change). When the change is the next one of a sitting, it *amends* the version instead: the new version
takes the amended one's place (the same parent, version number and lineage) and the amended one gets
``replaced_by``, so it is no longer listed (it still opens by its id: a link to it keeps working). A
version is amended only when all of these hold, checked in the transaction that adds its replacement:

* the caller asks for it: the dashboard asks when the browser session that changes the version is the one
  that made it (so uploading qrels and runs, then topics, then documents makes one version);
* the same author made it;
* nobody has built on it: no version has it as parent, and it was not amended already;
* it was made less than :data:`AMEND_SECONDS` (30 minutes) before.

Otherwise the change is a new version whose parent is the old one.

**The same files, the same collection.** :func:`holding` finds the listed collection whose qrels and runs are
exactly given files (by content), so that uploading them again opens that collection instead of starting a
second lineage.

**Names.** :func:`default_name` names a collection after its qrels file and its systems; a version whose
name is still its default name gets the default name of its new content.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta, timezone

from sqlalchemy import Connection, select

from workspace.schema import collection_files, collections, events

__all__ = ["AMEND_SECONDS", "NAME_SYSTEMS", "amendable", "default_name", "holding", "mark_replaced"]

AMEND_SECONDS = 30 * 60
"""How long after a version was made the same sitting's next change still amends it."""

NAME_SYSTEMS = 3
"""Systems named in a default name; more are counted (``+2 more``)."""

_NAME_CHARS = 200
_SUFFIXES = (".gz", ".txt", ".qrels", ".qrel", ".tsv", ".trec")


def default_name(qrels_name: str, systems: Sequence[str]) -> str:
    """A collection's name from its qrels file and its systems: ``cranfield.graded: bm25, dense, tfidf +1 more``.

    The qrels file's name loses the suffixes ``.gz .txt .qrels .qrel .tsv .trec``, in any order and case
    (``cranfield.graded.qrels`` is ``cranfield.graded``); the first :data:`NAME_SYSTEMS` systems are named,
    in order. At most 200 characters.

    Examples
    --------
    >>> default_name("cranfield.graded.qrels", ["lucene", "weak", "tfidf", "titles"])
    'cranfield.graded: lucene, weak, tfidf +1 more'
    >>> default_name("qrels.txt.gz", ["bm25"])
    'qrels: bm25'
    """
    stem = qrels_name.strip()
    while (suffix := next((x for x in _SUFFIXES if stem.lower().endswith(x) and len(stem) > len(x)), None)):
        stem = stem[:-len(suffix)]
    named = ", ".join(systems[:NAME_SYSTEMS]) + (f" +{len(systems) - NAME_SYSTEMS} more"
                                                 if len(systems) > NAME_SYSTEMS else "")
    name = " ".join(f"{stem}: {named}".split()) if systems else " ".join(stem.split())
    return name if len(name) <= _NAME_CHARS else name[:_NAME_CHARS - 1] + "…"


def amendable(conn: Connection, cid: str, author: str, *, at: datetime | None = None):
    """The row of version ``cid`` when a change by ``author`` may amend it (see the module's notes), else
    None. Locks the row (PostgreSQL) until the caller's transaction ends."""
    row = conn.execute(select(collections).where(collections.c.id == cid).with_for_update()).first()
    if row is None or row.deleted or row.replaced_by is not None or row.created_by != author:
        return None
    made = datetime.fromisoformat(row.created_at)
    if (at or datetime.now(timezone.utc)) - made > timedelta(seconds=AMEND_SECONDS):
        return None
    built_on = conn.execute(select(collections.c.id).where(collections.c.parent == cid).limit(1)).first()
    return None if built_on is not None else row


def mark_replaced(conn: Connection, old: str, new: str, author: str, at: str) -> None:
    """Record that ``new`` amended ``old`` (inside the transaction that added ``new``)."""
    conn.execute(collections.update().where(collections.c.id == old).values(replaced_by=new))
    conn.execute(events.insert().values(collection=old, action="amend", detail=new, author=author, at=at))


def holding(conn: Connection, qrels: str, runs: Sequence[str]) -> list[str]:
    """The ids of the listed collections (not deleted, archived or replaced) whose qrels has the digest
    ``qrels`` and whose runs have exactly the digests ``runs`` (in any order), newest first; then the
    archived ones."""
    found = conn.execute(select(collections.c.id, collections.c.archived)
                         .join(collection_files, collection_files.c.collection == collections.c.id)
                         .where(collection_files.c.role == "qrels", collection_files.c.sha256 == qrels,
                                collections.c.deleted.is_(False), collections.c.replaced_by.is_(None))
                         .order_by(collections.c.created_at.desc(), collections.c.id)).all()
    if not found:
        return []
    wanted = sorted(runs)
    held: dict[str, list[str]] = {cid: [] for cid, _ in found}
    for cid, sha in conn.execute(select(collection_files.c.collection, collection_files.c.sha256)
                                 .where(collection_files.c.collection.in_(list(held)),
                                        collection_files.c.role == "run")):
        held[cid].append(sha)
    same = [(archived, cid) for cid, archived in found if sorted(held[cid]) == wanted]
    return [cid for archived, cid in sorted(same, key=lambda item: item[0])]  # stable: newest first in each
