"""The members of each lineage and their roles (table ``members``), read and changed inside the caller's
transaction, and a collection's row looked up for one person. What a role allows is decided in
:mod:`workspace.access`, not here."""

from __future__ import annotations

from collections.abc import Mapping

from sqlalchemy import Connection, delete, select

from metrics.io.redaction import redact

from workspace.access import EVERYONE, ROLES, Actor, identity, may, no_access, require
from workspace.checks import ID, line
from workspace.errors import UnknownCollection, WorkspaceError
from workspace.schema import collections, members

__all__ = ["add", "of", "role", "roles", "row", "set_role", "visible"]


def _who(text: object) -> str:
    """A member's identity as stored: one line, canonical (:func:`workspace.access.identity`)."""
    return identity(line(text, "member identity"))


def _role(role: object) -> str:
    if role not in ROLES:
        raise WorkspaceError(f"role: expected one of {', '.join(ROLES)}, found {str(role)[:40]!r}")
    return role


def of(conn: Connection, lineage: str) -> dict[str, str]:
    """``{identity: role}`` of one lineage, in the order of the identities."""
    rows = conn.execute(select(members.c.identity, members.c.role).where(members.c.lineage == lineage)
                        .order_by(members.c.identity)).all()
    return dict(rows)


def roles(conn: Connection, who: str, lineage: str | None = None) -> dict[str, str]:
    """``{lineage: role}`` that ``who`` holds, directly or through :data:`~workspace.access.EVERYONE`
    (the higher of the two); one lineage only when ``lineage`` is given."""
    if not identity(who):  # nobody (not signed in) is not everyone
        return {}
    query = select(members.c.lineage, members.c.role).where(members.c.identity.in_([identity(who), EVERYONE]))
    if lineage is not None:
        query = query.where(members.c.lineage == lineage)
    found: dict[str, str] = {}
    for at, role in conn.execute(query):
        if at not in found or ROLES.index(role) > ROLES.index(found[at]):
            found[at] = role
    return found


def add(conn: Connection, lineage: str, given: Mapping[str, str]) -> None:
    """The members of a new lineage, ``{identity: role}``."""
    rows = {}
    for who, role in given.items():
        rows[_who(who)] = _role(role)
    if rows:
        conn.execute(members.insert(), [{"lineage": lineage, "identity": k, "role": v} for k, v in rows.items()])


def set_role(conn: Connection, lineage: str, who: str, role: str | None) -> tuple[str, str | None, str | None]:
    """Give ``who`` the ``role`` on ``lineage`` (None: take every role away).

    Returns
    -------
    (identity, before, after)
        The identity as stored and its role before and after.

    Raises
    ------
    WorkspaceError
        A bad identity or role, or a change that would leave the lineage without an owner.
    """
    who = _who(who)
    role = None if role is None else _role(role)
    current = of(conn, lineage)
    before = current.get(who)
    if who == EVERYONE and role == "owner":
        raise WorkspaceError("everyone (*) may be a viewer or an editor, not an owner")
    owners = [k for k, v in current.items() if v == "owner" and k != who]
    if before == "owner" and role != "owner" and not owners:
        raise WorkspaceError(f"{who} is the only owner: give someone else the owner role first")
    conn.execute(delete(members).where(members.c.lineage == lineage, members.c.identity == who))
    if role is not None:
        conn.execute(members.insert().values(lineage=lineage, identity=who, role=role))
    return who, before, role


def _checked(actor: Actor | None) -> bool:
    """Whether roles decide for ``actor`` (not the operator, the open mode or an administrator)."""
    return actor is not None and actor.checked and not actor.admin


def visible(conn: Connection, actor: Actor | None) -> dict[str, str] | None:
    """``{lineage: role}`` of ``actor``, or None when roles do not decide for them (they see everything)."""
    return roles(conn, actor.name) if _checked(actor) else None


def role(conn: Connection, actor: Actor | None, lineage: str) -> str | None:
    """The role ``actor`` holds on ``lineage`` (None: none, or roles do not decide for them)."""
    return roles(conn, actor.name, lineage).get(lineage) if _checked(actor) else None


def row(conn: Connection, actor: Actor | None, cid: object, action: str = "view", *, deleted: bool | None = False):
    """The row of collection ``cid`` if ``actor`` (None: the operator) may do ``action`` with it.

    ``deleted``: whether it must be a deleted collection (None: either). For a signed-in person, every
    failure to see it is the one :func:`workspace.access.no_access` message, whether the id exists or not.
    """
    checked = actor is not None and actor.checked
    if not isinstance(cid, str) or not ID.match(cid):
        if checked:
            raise no_access(cid)
        raise UnknownCollection(f"unknown collection id {redact(str(cid))[:40]!r}: expected 16 characters A-Z a-z 0-9 _ -")
    found = conn.execute(select(collections).where(collections.c.id == cid)).first()
    if found is None or (found.deleted and deleted is False):
        if checked:
            raise no_access(cid)
        raise UnknownCollection(f"unknown collection id {redact(cid)!r}: no such collection in this workspace"
                                + (" (it was deleted)" if found is not None else ""))
    held = role(conn, actor, found.lineage)
    if actor is not None and not may(actor, "restore" if found.deleted else "view", held):
        raise no_access(cid)  # a deleted collection is there only for those who may restore it
    if deleted and not found.deleted:
        raise WorkspaceError(f"collection {cid} is not deleted")
    if actor is not None:
        require(actor, action, held, cid)
    return found
