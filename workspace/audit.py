"""The audit log: every rename, archive, deletion, restore, purge and role change, with who and when
(table ``events``, appended to in the transaction of the change itself, never updated)."""

from __future__ import annotations

from collections.abc import Collection

from sqlalchemy import Connection, exists, func, select

from workspace.checks import now
from workspace.model import Event
from workspace.schema import collection_files, collections, events

__all__ = ["read", "record", "restorable"]


def record(conn: Connection, cid: str, action: str, detail: str, author: str) -> None:
    """Append one entry, inside the transaction of the change it records."""
    conn.execute(events.insert().values(collection=cid, action=action, detail=detail, author=author, at=now()))


def _event(row) -> Event:
    return Event(id=row.id, collection=row.collection, name=row.name, version=row.version, action=row.action,
                 detail=row.detail, author=row.author, at=row.at)


def _entries():
    return (select(events, collections.c.name, collections.c.version)
            .join(collections, collections.c.id == events.c.collection))


def read(conn: Connection, lineages: Collection[str] | None, lineage: str | None = None,
         limit: int | None = None) -> list[Event]:
    """The entries, newest first: of the collections of ``lineages`` (None: all), of one ``lineage`` when
    given, at most ``limit`` of them."""
    query = _entries()
    if lineages is not None:
        query = query.where(collections.c.lineage.in_(sorted(lineages)))
    if lineage is not None:
        query = query.where(collections.c.lineage == lineage)
    query = query.order_by(events.c.id.desc())
    if limit is not None:
        query = query.limit(limit)
    return [_event(row) for row in conn.execute(query)]


def restorable(conn: Connection, lineages: Collection[str] | None) -> list[Event]:
    """The deletion of each deleted collection whose files are still stored (it can be restored), newest
    first; of the collections of ``lineages`` only when given."""
    latest = (select(func.max(events.c.id)).where(events.c.action == "delete")
              .group_by(events.c.collection).scalar_subquery())
    query = _entries().where(events.c.id.in_(latest), collections.c.deleted.is_(True),
                             exists().where(collection_files.c.collection == collections.c.id))
    if lineages is not None:
        query = query.where(collections.c.lineage.in_(sorted(lineages)))
    return [_event(row) for row in conn.execute(query.order_by(events.c.id.desc()))]
