"""What the team does with collections once stored: rename, archive, delete, restore and purge them, give
roles on them and read the audit log of all of it.

:class:`Stewardship` is the part of :class:`workspace.store.Workspace` that changes who may see a collection
and whether it is listed, never its content; each change is checked by :mod:`workspace.access`'s rule for the
person acted for and recorded in the audit log (:mod:`workspace.audit`) in the same transaction.
"""

from __future__ import annotations

from sqlalchemy import select

from workspace import access, audit, ingest, members as member_rows, purge
from workspace.access import Actor
from workspace.checks import line as _line
from workspace.engine import transaction
from workspace.errors import WorkspaceError
from workspace.model import CollectionInfo, Event
from workspace.schema import collection_files, collections

__all__ = ["Stewardship"]


class Stewardship:
    """Renaming, archiving, deleting, restoring, purging, roles and the audit log of a workspace.

    A base of :class:`workspace.store.Workspace`, which provides the engine, the file store, the person acted
    for and the checks (``_row``, ``_who``) these methods use.
    """

    def rename(self, cid: str, name: str, *, author: str | None = None) -> CollectionInfo:
        """Give collection ``cid`` a new name."""
        _line(name, "collection name")
        return self._change(cid, author, "rename", name, name=name)

    def archive(self, cid: str, archived: bool = True, *, author: str | None = None) -> CollectionInfo:
        """Archive (hide from the default list) or, with ``archived=False``, unarchive a collection."""
        return self._change(cid, author, "archive" if archived else "unarchive", "", archived=bool(archived))

    def delete(self, cid: str, *, author: str | None = None) -> None:
        """Delete a collection: it is no longer listed or loadable, but :meth:`restore` brings it back until
        :meth:`purge` removes its files."""
        self._change(cid, author, "delete", "", deleted=True)

    def restore(self, cid: str, *, author: str | None = None) -> CollectionInfo:
        """Undo the deletion of ``cid``, whose files are still stored (see :meth:`deleted`)."""
        author = self._who(author)
        with transaction(self._engine, self.location) as conn:
            self._row(conn, cid, "restore", deleted=True)
            if conn.execute(select(collection_files.c.collection).where(collection_files.c.collection == cid)
                            .limit(1)).first() is None:
                raise WorkspaceError(f"collection {cid} cannot be restored: its files were purged")
            conn.execute(collections.update().where(collections.c.id == cid).values(deleted=False))
            audit.record(conn, cid, "restore", "", author)
            return ingest.info(self._row(conn, cid))

    def deleted(self) -> list[Event]:
        """The deletion of each deleted collection that can still be restored (by the person acted for),
        newest first: its files are stored until :meth:`purge` removes them."""
        with transaction(self._engine, self.location, read=True) as conn:
            roles = member_rows.visible(conn, self._actor)
            owned = None if roles is None else {k for k, v in roles.items() if access.may(self._actor, "restore", v)}
            return audit.restorable(conn, owned)

    def purge(self, older_than: float, *, author: str | None = None) -> purge.Purged:
        """Remove the files of collections deleted more than ``older_than`` seconds ago, and every stored
        file, cache or derived table no collection names (see :mod:`workspace.purge`).

        Only the operator and administrators may purge. The collections stay in the audit log (and in
        the database, marked deleted); they can no longer be restored.
        """
        author = self._who(author)
        if self._actor is not None and self._actor.checked and not self._actor.admin:
            raise access.Forbidden(f"{self._actor.name} may not purge the workspace: that needs an administrator")
        return purge.run(lambda read: transaction(self._engine, self.location, read=read), self._blobs,
                         older_than, author)

    # -- members and the audit log -------------------------------------------------------------------------------

    def roles(self) -> dict[str, str] | None:
        """``{lineage: role}`` of the person acted for; None when every collection is theirs to use (the
        operator, the open mode, an administrator)."""
        with transaction(self._engine, self.location, read=True) as conn:
            return member_rows.visible(conn, self._actor)

    def allowed(self, cid: str) -> frozenset[str]:
        """The actions (:data:`workspace.access.ACTIONS`) the person acted for may do with ``cid``."""
        with transaction(self._engine, self.location, read=True) as conn:
            row = self._row(conn, cid)
            role = member_rows.role(conn, self._actor, row.lineage)
        actor = self._actor or Actor("operator", checked=False)
        return frozenset(a for a in access.ACTIONS if access.may(actor, a, role))

    def members(self, cid: str) -> dict[str, str]:
        """``{identity: role}`` of the lineage of ``cid`` (``*``: everyone signed in)."""
        with transaction(self._engine, self.location, read=True) as conn:
            return member_rows.of(conn, self._row(conn, cid).lineage)

    def share(self, cid: str, who: str, role: str | None, *, author: str | None = None) -> tuple[str, str | None]:
        """Give ``who`` (an identity, or ``*`` for everyone signed in) the ``role`` on every version of
        ``cid``, or take their role away (None). Logged; a lineage always keeps an owner once it has one.

        Returns
        -------
        (str, str or None)
            The identity as stored (:func:`workspace.access.identity`) and its role before.
        """
        author = self._who(author)
        with transaction(self._engine, self.location) as conn:
            lineage = self._row(conn, cid, "share").lineage
            stored, before, after = member_rows.set_role(conn, lineage, who, role)
            audit.record(conn, cid, "share", f"{stored}: {before or 'none'} -> {after or 'none'}", author)
        return stored, before

    def log(self, cid: str | None = None, *, limit: int | None = None) -> list[Event]:
        """The audit log, newest first: every rename, archive, deletion, restore, purge and role change of the
        collections the person acted for may see (of the lineage of ``cid`` only, when given)."""
        with transaction(self._engine, self.location, read=True) as conn:
            lineage = None if cid is None else self._row(conn, cid, deleted=None).lineage
            return audit.read(conn, member_rows.visible(conn, self._actor), lineage, limit)

    def _change(self, cid, author, action, detail, **values) -> CollectionInfo:
        author = self._who(author)
        with transaction(self._engine, self.location) as conn:
            self._row(conn, cid, "archive" if action == "unarchive" else action)
            conn.execute(collections.update().where(collections.c.id == cid).values(**values))
            audit.record(conn, cid, action, detail, author)
            row = conn.execute(select(collections).where(collections.c.id == cid)).first()
        return ingest.info(row)
