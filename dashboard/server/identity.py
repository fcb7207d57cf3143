"""Who acts on this server: its access mode, the sign-in, and the person each session acts for.

The mode is a setting of :mod:`dashboard.server.config` (``--access``, ``$RANKSCOPE_ACCESS``), chosen by
whoever starts the server. In the **open** mode everyone may do everything, under a name typed once per
browser session in the sidebar. In the **login** mode every page waits for a sign-in through Streamlit's
``st.login`` (the OpenID Connect provider of ``.streamlit/secrets.toml``, section ``[auth]``): the identity
is the provider's, nobody types it, and :mod:`workspace.access` decides each action by the role it holds.
"""

from __future__ import annotations

import streamlit as st

from dashboard.server import config
from dashboard.session import typed_name
from dashboard.session.user_text import md

try:
    from workspace import Actor, access
except ImportError:  # the workspace extra is not installed: nobody acts on a store
    Actor = access = None

__all__ = ["actor", "author", "author_input", "gate", "mode"]



def mode() -> str:
    """The server's access mode, ``open`` or ``login`` (``--access``, ``$RANKSCOPE_ACCESS``)."""
    return config.access_mode()


def _signed_in() -> str | None:
    """The signed-in person's identity (the provider's ``email``, else its ``sub``), or None."""
    user = getattr(st, "user", None)
    if access is None or user is None or not getattr(user, "is_logged_in", False):
        return None
    return access.identity(str(user.get("email") or user.get("sub") or "")) or None


def actor() -> Actor | None:
    """Who this session acts as, or None before a sign-in (login mode) or a name (open mode).

    In the login mode, the signed-in identity, checked against the roles (an administrator when the
    ``--admins`` setting names it). In the open mode, the signed-in identity when Streamlit's login is
    configured, else the name typed (:func:`dashboard.session.typed_name.typed`); nothing is checked.
    """
    if Actor is None:
        return None
    who = _signed_in()
    if mode() == "login":
        if who is None:
            return None
        return Actor(who, checked=True, admin=who in {access.identity(a) for a in config.admins()})
    who = who or typed_name.typed()
    return Actor(who, checked=False) if who else None


def author() -> str | None:
    """Who writes: the name of :func:`actor`, or None."""
    found = actor()
    return found.name if found else None


def gate() -> None:
    """Before any page, in the login mode: the sign-in, and nothing else for a person who has not signed in.

    A login mode without Streamlit's ``[auth]`` settings, or a setting that holds no valid value, stops
    every page with one line: the server never falls back to the open mode.
    """
    try:
        if mode() != "login":
            return
    except config.SettingError as err:
        st.error(md("This server cannot start: {}", err), icon=":material/lock:")
        st.stop()
    if not (st.secrets.load_if_toml_exists() and "auth" in st.secrets):
        st.error("This server is in the login mode, but Streamlit's [auth] settings (redirect_uri, cookie_secret, "
                 "client_id, client_secret, server_metadata_url) are missing from .streamlit/secrets.toml.",
                 icon=":material/lock:")
        st.stop()
    if _signed_in() is None:
        st.title("rankscope")
        st.markdown("This server is shared: **sign in** to see the collections shared with you.")
        st.button("Sign in", on_click=st.login, icon=":material/login:", type="primary", key="rankscope_sign_in")
        st.stop()


def author_input() -> None:
    """The sidebar's name field (:func:`dashboard.session.typed_name.name_input`, remembered by this browser), unless a
    sign-in names the author (with the sign-out button)."""
    who = actor()
    if who is not None and (who.checked or _signed_in()):
        st.caption("Signed in as" + (" (administrator)" if who.admin else ""))
        st.text(who.name)
        if _signed_in():
            st.button("Sign out", on_click=st.logout, icon=":material/logout:", key="rankscope_sign_out")
        return
    typed_name.name_input()
