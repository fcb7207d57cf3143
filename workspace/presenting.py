"""A meeting that follows its presenter: one presentation per collection, shared by every server process.

One person presents a stored collection (the ``present`` action of :mod:`workspace.access`: an editor at
least); whoever may see the collection can follow. The presentation belongs to the collection's lineage, so
a new version saved while presenting keeps it. Its row holds who presents, the random token of the
presenting browser session (only that session changes or ends it, unless another one takes over), the page
shown (its address) and the view (the link's query parameters: systems, measure, topic...), and a
``revision`` that grows by one at every change a follower must see: a follower's page compares one number.

A presentation lives as long as its presenter's page does. That page writes its view every second or so; a
write of what did not change writes nothing, unless the last write is :data:`BEAT_SECONDS` old, when it
writes the time alone (a beat: the revision stays). A presentation whose last beat is older than
:data:`GONE_SECONDS` counts as ended: a presenter who closed the tab, lost the network or whose server
restarted (a new session does not present) is gone within a minute, and a follower who arrives then is taken
nowhere. The presenter's page, once back, presents again (a change followers see).

Nothing here pushes anything anywhere: a follower's page asks (:meth:`Stage.current`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone

from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite

from metrics.checks import ListOf, MapOf, OneOf, Pattern, Text, read
from metrics.errors import Refused
from workspace import members as member_rows
from workspace.checks import ID, now, valid
from workspace.engine import transaction
from workspace.errors import WorkspaceError

__all__ = ["BEAT_SECONDS", "GONE_SECONDS", "MAX_PARAMS", "PAGE", "Presentation", "SomeonePresents", "Stage", "VIEW",
           "view_of"]

BEAT_SECONDS = 10  # the presenting page writes at least this often while it is open
GONE_SECONDS = 45  # a presentation without a beat for this long has ended: its page is gone
PAGE = re.compile(r"[a-z0-9_-]{1,64}\Z")  # a page's address, as the dashboard names its pages
MAX_PARAMS = 64  # query parameters of one view
MAX_VIEW = 16_384  # characters of the view, as JSON


class SomeonePresents(WorkspaceError):
    """Another session presents the collection (take over to present instead)."""


@dataclass(frozen=True)
class Presentation:
    """A collection's presentation: ``page`` and ``params`` (``{name: value or values}``) shown by
    ``presenter``; ``active`` False once it stopped, or its page went away (no beat for :data:`GONE_SECONDS`);
    ``gone`` True in that last case (stopped by nobody)."""

    lineage: str
    presenter: str
    page: str
    params: dict
    active: bool
    revision: int
    updated_at: str
    session: str = field(repr=False)  # the presenting browser session's token
    gone: bool = False

    def by(self, session: str) -> bool:
        """Whether ``session`` presents it now."""
        return self.active and self.session == session


def _age(updated_at: str) -> timedelta:
    """How long ago ``updated_at`` was (a time that cannot be read: long ago)."""
    try:
        return datetime.now(timezone.utc) - datetime.fromisoformat(updated_at)
    except ValueError:
        return timedelta.max


def _gone(updated_at: str) -> bool:
    return _age(updated_at) > timedelta(seconds=GONE_SECONDS)


VIEW = MapOf(Text(64, blank=False, what="a parameter's name of 1 to 64 characters"),
             OneOf(Text(MAX_VIEW), ListOf(Text(MAX_VIEW), MAX_VIEW), what="text, or a list of text"), MAX_PARAMS,
             what=f"a mapping of at most {MAX_PARAMS} query parameters")
"""A view as a link's query parameters: a name and its value (a list for a repeated name), declared once."""


def view_of(params: object) -> str:
    """The view as stored: ``params`` checked against :data:`VIEW` and written as JSON with sorted names, or
    :class:`WorkspaceError` naming what is wrong (``"a view: measure: expected text, ..., found 3"``)."""
    try:
        clean = read(params, VIEW, json=False)
    except Refused as err:
        raise WorkspaceError(f"a view: {err}") from None
    text = json.dumps(clean, sort_keys=True, separators=(",", ":"))
    if len(text) > MAX_VIEW:
        raise WorkspaceError(f"a view: expected at most {MAX_VIEW} characters of query parameters, found {len(text)}")
    return text


def _session(token: object) -> str:
    return valid("a presenting session", token, Pattern(ID.pattern, "a token of 16 characters A-Z a-z 0-9 _ -"))


class Stage:
    """The presentations of one :class:`~workspace.Workspace`, as the person it acts for may use them."""

    def __init__(self, ws) -> None:
        self._ws = ws
        self._engine, self._where, self._actor = ws._engine, ws.location, ws.actor

    def present(self, cid: str, session: str, page: str, params: Mapping, *, author: str | None = None,
                take_over: bool = False) -> Presentation:
        """Show ``page`` with ``params`` to the followers of ``cid``'s lineage, as the presenting ``session``.

        The first call starts the presentation; later ones change what it shows. When nothing changed,
        nothing is written unless the last write is :data:`BEAT_SECONDS` old: then the time alone (the
        presenter's page is still there). ``take_over``: present instead of another session that presents
        now.

        Raises
        ------
        SomeonePresents
            Another session presents the collection, and ``take_over`` is False.
        workspace.access.Forbidden
            The person may see the collection but not present it (an editor's role is needed).
        """
        from workspace.schema import presentations as pr

        session = _session(session)
        page = valid("a page", page, Pattern(PAGE.pattern, "its address (1 to 64 of a-z 0-9 _ -)"))
        view = view_of(params)
        who = self._ws._who(author, "presenter")
        with transaction(self._engine, self._where) as conn:
            lineage = member_rows.row(conn, self._actor, cid, "present").lineage
            row = conn.execute(select(pr).where(pr.c.lineage == lineage)).first()
            live = row is not None and row.active and not _gone(row.updated_at)
            if live and row.session != session and not take_over:
                raise SomeonePresents(f"{row.presenter} presents this collection now: follow, or take over to "
                                      "present instead")
            if live and (row.session, row.page, row.params) == (session, page, view):
                if _age(row.updated_at) < timedelta(seconds=BEAT_SECONDS):
                    return self._presentation(row)
                beat = now()
                conn.execute(pr.update().where(pr.c.lineage == lineage).values(updated_at=beat))
                return replace(self._presentation(row), updated_at=beat)
            values = {"presenter": who, "session": session, "page": page, "params": view, "active": True,
                      "revision": (row.revision if row is not None else 0) + 1, "updated_at": now()}
            dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
            conn.execute(dialect.insert(pr).values(lineage=lineage, **values)
                         .on_conflict_do_update(index_elements=[pr.c.lineage], set_=values))
        return Presentation(lineage, who, page, json.loads(view), True, values["revision"], values["updated_at"],
                            session)

    def stop(self, cid: str, session: str) -> bool:
        """End the presentation of ``cid``'s lineage, if ``session`` presents it; whether it did."""
        from workspace.schema import presentations as pr

        session = _session(session)
        with transaction(self._engine, self._where) as conn:
            lineage = member_rows.row(conn, self._actor, cid, "view").lineage
            row = conn.execute(select(pr).where(pr.c.lineage == lineage)).first()
            if row is None or not row.active or row.session != session:
                return False
            conn.execute(pr.update().where(pr.c.lineage == lineage)
                         .values(active=False, revision=row.revision + 1, updated_at=now()))
        return True

    def current(self, cid: str) -> Presentation | None:
        """The presentation of ``cid``'s lineage (ended or not), or None when it was never presented: what a
        follower's page polls (one row, after the access check)."""
        from workspace.schema import presentations as pr

        with transaction(self._engine, self._where, read=True) as conn:
            lineage = member_rows.row(conn, self._actor, cid, "view").lineage
            row = conn.execute(select(pr).where(pr.c.lineage == lineage)).first()
        return None if row is None else self._presentation(row)

    @staticmethod
    def _presentation(row) -> Presentation:
        try:
            params = json.loads(row.params)
        except ValueError:
            params = {}
        gone = bool(row.active) and _gone(row.updated_at)
        return Presentation(row.lineage, row.presenter, row.page, params if isinstance(params, dict) else {},
                            bool(row.active) and not gone, row.revision, row.updated_at, row.session, gone)
