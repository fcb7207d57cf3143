"""Sign-ins that have ended: a sign-out stored, so that every server process refuses a copy of its cookie.

A sign-in through the OpenID Connect provider lives in a cookie that Streamlit signs with the server's
``cookie_secret`` and accepts for 30 days; signing out removes it from one browser, and a copy of it (saved
before, replayed in another browser) would sign in again. Signing out therefore also records the sign-in
here, by its key: the SHA-256 of the identity token's claims that make it one sign-in (issuer, subject,
audience, time of issue, nonce; see :func:`key_of`), never the claims themselves. Every page asks
(:meth:`SignIns.ended`) before it serves a sign-in, so the cookie and any copy of it find the sign-in ended
on every server process that shares the workspace. A key is kept for :data:`KEEP_DAYS` (past that no cookie
of it is accepted anyway); each sign-out removes the keys past their time.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from datetime import datetime, timedelta, timezone

from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite

from workspace.engine import transaction
from workspace.errors import WorkspaceError

__all__ = ["CLAIMS", "KEEP_DAYS", "SignIns", "key_of"]

KEEP_DAYS = 31
"""Days an ended sign-in is kept: Streamlit accepts its sign-in cookie for 30 days, and one day more."""
CLAIMS = ("iss", "sub", "aud", "iat", "auth_time", "nonce", "sid", "jti")
"""The identity token's claims whose values make one sign-in: a new sign-in has a new time of issue and a
new nonce, so ending one never ends the next."""
_KEY = re.compile(r"[0-9a-f]{64}\Z")


def key_of(claims: Mapping) -> str:
    """The key of the sign-in whose identity token holds ``claims`` (those of :data:`CLAIMS` it has).

    Raises
    ------
    WorkspaceError
        The claims hold neither a subject nor a time of issue: nothing tells this sign-in from another.
    """
    found = {name: claims[name] for name in CLAIMS if claims.get(name) not in (None, "")}
    if "sub" not in found or "iat" not in found:
        raise WorkspaceError("a sign-in: expected an identity token with a subject (sub) and a time of issue (iat)")
    return hashlib.sha256(json.dumps(found, sort_keys=True, default=str).encode()).hexdigest()


def _key(key: object) -> str:
    if not isinstance(key, str) or not _KEY.match(key):
        raise WorkspaceError("a sign-in's key: expected 64 hexadecimal digits (key_of)")
    return key


class SignIns:
    """The ended sign-ins of one :class:`~workspace.Workspace` (any person may end their own)."""

    def __init__(self, ws) -> None:
        self._engine, self._where = ws._engine, ws.location

    def end(self, key: str) -> None:
        """Record that the sign-in ``key`` (:func:`key_of`) has ended; remove the keys past their time."""
        from workspace.schema import ended_sign_ins as table

        key = _key(key)
        at = datetime.now(timezone.utc)
        values = {"ended_at": at.isoformat(), "expires_at": (at + timedelta(days=KEEP_DAYS)).isoformat()}
        with transaction(self._engine, self._where) as conn:
            conn.execute(table.delete().where(table.c.expires_at < values["ended_at"]))
            dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
            conn.execute(dialect.insert(table).values(key=key, **values)
                         .on_conflict_do_nothing(index_elements=[table.c.key]))

    def ended(self, key: str) -> bool:
        """Whether the sign-in ``key`` has ended (one row read by its key)."""
        from workspace.schema import ended_sign_ins as table

        key = _key(key)
        with transaction(self._engine, self._where, read=True) as conn:
            return conn.execute(select(table.c.key).where(table.c.key == key)).first() is not None
