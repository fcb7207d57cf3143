"""The workspace of this server process, as this session uses it.

The workspace is used when ``$RANKSCOPE_WORKSPACE`` names one (``rankscope dashboard`` sets it, by default
to ``./rankscope-workspace``) and the workspace extra is installed; otherwise everything stays in the
browser session. It is opened once per server process and seeded, when empty, with the demo collection and
the worked examples. It is used as the person this session acts for (:func:`dashboard.server.identity.actor`:
the signed-in identity in the login mode, the name typed in the open mode), so that :mod:`workspace.access`
decides each action (:func:`store`). A sign-out is stored there too (:func:`end_sign_in`), so that every
server process refuses the sign-in afterwards (:func:`sign_in_ended`). The server also purges, every
:data:`~dashboard.server.config.PURGE_EVERY` seconds, the collections deleted longer ago than the undo window.
"""

from __future__ import annotations

import logging
import os
import threading
import time

import streamlit as st

from dashboard.server import config, identity
from dashboard.session import state
from metrics import RankscopeError

try:
    from workspace import Actor, StoreUnavailable, Workspace, access, open_workspace
    _INSTALLED = True
    UNAVAILABLE: tuple[type[Exception], ...] = (StoreUnavailable,)  # what a page meets when the store is down
except ImportError:  # the workspace extra (sqlalchemy) is not installed: everything stays in the session
    _INSTALLED = False
    UNAVAILABLE = ()

__all__ = ["DEMO", "ENV", "EXAMPLE", "PARAM", "UNAVAILABLE", "bundled_id", "enabled", "end_sign_in", "sign_in_ended",
           "store"]

ENV = "RANKSCOPE_WORKSPACE"
PARAM = "collection"  # the URL's query parameter holding the collection id
DEMO = "Demo collection"
EXAMPLE = "Worked example: {}"
SEEDED = "seeded with the demo collection"  # the store's marker of the seeding, recorded once per workspace


def enabled() -> bool:
    """Whether a workspace is configured (``$RANKSCOPE_WORKSPACE``) and the workspace extra installed."""
    return _INSTALLED and bool(os.environ.get(ENV))


@st.cache_resource(show_spinner=False)
def _open(location: str) -> Workspace:
    ws = open_workspace(location)
    if not ws.collections(archived=True):
        _seed(ws)
    threading.Thread(target=_purge_forever, args=(ws,), name="rankscope-purge", daemon=True).start()
    return ws


def _purge_forever(ws: Workspace) -> None:
    """Purge the collections deleted longer ago than the undo window, now and every ``PURGE_EVERY`` seconds."""
    while True:
        try:
            ws.purge(config.undo_hours() * 3600, author="rankscope dashboard (server)")
        except (RankscopeError, config.SettingError) as err:
            logging.getLogger(__name__).warning("purge: %s", str(err).splitlines()[0])
        time.sleep(config.PURGE_EVERY)


def store() -> Workspace | None:
    """The workspace of this server process as this session uses it, or None when none is configured.

    In the login mode it acts as the signed-in person (nobody, before a sign-in: nothing is theirs); in the
    open mode as the name typed, unchecked.

    Raises
    ------
    workspace.StoreUnavailable
        The workspace cannot be opened.
    """
    if not enabled():
        return None
    ws = _open(os.environ[ENV])
    who = identity.actor()
    if who is not None:
        return ws.acting_as(who)
    return ws.acting_as(Actor("", checked=True)) if identity.mode() == "login" else ws


def sign_in_ended(claims: dict) -> bool:
    """Whether the sign-in whose identity token holds ``claims`` was ended by a sign-out (on any server
    process of this workspace); False without a workspace, where nothing stored is there to protect.

    Raises
    ------
    workspace.StoreUnavailable
        The workspace cannot be opened or read: whether the sign-in ended cannot be told.
    """
    if not enabled():
        return False
    from workspace.sign_ins import SignIns, key_of

    return SignIns(_open(os.environ[ENV])).ended(key_of(claims))


def end_sign_in(claims: dict) -> None:
    """Record that the sign-in whose identity token holds ``claims`` has ended (the sign-out button). A store
    that cannot record it is logged: the browser's cookie is removed all the same, a copy of it is not ended."""
    if not enabled() or not claims:
        return
    from workspace.sign_ins import SignIns, key_of

    try:
        SignIns(_open(os.environ[ENV])).end(key_of(claims))
    except RankscopeError as err:
        logging.getLogger(__name__).warning("sign-out not recorded: %s", str(err).splitlines()[0])


def _seed(ws: Workspace) -> None:
    """The demo collection and the worked examples, as the first collections of an empty workspace.

    Added in one transaction with the workspace's :data:`SEEDED` marker, so that two server processes
    opening one empty workspace at once do not both seed it.
    """
    from sample_data import teaching_examples

    bundled = [(DEMO, state.demo())]
    bundled += [(EXAMPLE.format(name), state.example(name)) for name in teaching_examples()]
    ws.add_collections_once(SEEDED, [{"name": name, "qrels": (loaded.qrels.name, loaded.qrels.data),
                                      "runs": [(up.name, up.data) for _, up in loaded.runs],
                                      "members": {access.EVERYONE: "viewer"}}  # everyone signed in sees them
                                     for name, loaded in bundled], author="rankscope")


def bundled_id(ws: Workspace, loaded: state.Loaded) -> str | None:
    """The stored copy of the demo or a worked example, by name and content."""
    name = DEMO if loaded.source == "demo" else EXAMPLE.format(loaded.source.split(":", 1)[1])
    for info in reversed(ws.collections(archived=True)):  # the oldest: the seeded one
        if info.name == name:
            stored = ws.load(info.id)
            if stored.qrels.sha256 == loaded.qrels.digest:
                return info.id
    return None
