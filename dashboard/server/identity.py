"""Who acts on this server: its access mode, the sign-in, and the person each session acts for.

The mode is a setting of :mod:`dashboard.server.config` (``--access``, ``$RANKSCOPE_ACCESS``), chosen by
whoever starts the server. In the **open** mode everyone may do everything, under a name typed once per
browser session in the sidebar. In the **login** mode every page waits for a sign-in through Streamlit's
``st.login`` (the OpenID Connect provider of ``.streamlit/secrets.toml``, section ``[auth]``): the identity
is the provider's, nobody types it, and :mod:`workspace.access` decides each action by the role it holds.

**The identity rule** (:func:`identity_of`): only what the provider vouches for names a person. That is the
``email`` claim when the provider says it checked it (``email_verified`` true), in lower case; otherwise the
subject (``sub``), the provider's own stable name of the account. An address that is only claimed
(``email_verified`` false or absent) names nobody: an account that says it is ``ALICE@Example.org`` without
proof signs in under its subject, and sees nothing of alice's.

**Signing out** ends the sign-in, not only the browser's cookie: :func:`sign_out_button` takes the action that
records the sign-out (:mod:`dashboard.store.opened` stores it in the workspace), and :func:`gate` asks, before
every page, whether the sign-in has ended (a copy of its cookie replayed elsewhere gets the sign-in page).
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from dashboard.server import config
from dashboard.session import typed_name
from dashboard.session.user_text import md
from metrics import RankscopeError

try:
    from workspace import Actor, access
except ImportError:  # the workspace extra is not installed: nobody acts on a store
    Actor = access = None

__all__ = ["actor", "author", "author_input", "claims", "gate", "identity_of", "mode"]

_ENDED = "rankscope_sign_in_ended"  # the sign-in of this session was found ended by the last full run


def mode() -> str:
    """The server's access mode, ``open`` or ``login`` (``--access``, ``$RANKSCOPE_ACCESS``)."""
    return config.access_mode()


def identity_of(claims) -> str | None:
    """The identity the provider's ``claims`` vouch for: the ``email`` when ``email_verified`` is true (the
    boolean, or the text ``"true"`` some providers send), else the subject ``sub``; None without either.

    >>> identity_of({"sub": "8f3a", "email": "ALICE@Example.org", "email_verified": False})
    '8f3a'
    >>> identity_of({"sub": "8f3a", "email": "ALICE@Example.org", "email_verified": True})
    'alice@example.org'
    """
    verified = claims.get("email_verified")
    email = str(claims.get("email") or "").strip() if verified is True or str(verified).lower() == "true" else ""
    found = email or str(claims.get("sub") or "").strip()
    return (access.identity(found) if access is not None else found) or None


def claims() -> dict:
    """The signed-in session's identity-token claims (``st.user``), empty before a sign-in."""
    user = getattr(st, "user", None)
    if user is None or not getattr(user, "is_logged_in", False):
        return {}
    return {k: v for k, v in user.to_dict().items() if k != "tokens"}


def _signed_in() -> str | None:
    """The signed-in person's identity (:func:`identity_of`), or None before a sign-in or after it ended."""
    found = claims()
    if access is None or not found or st.session_state.get(_ENDED):
        return None
    return identity_of(found)


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


def gate(ended: Callable[[dict], bool] | None = None) -> None:
    """Before any page, in the login mode: the sign-in, and nothing else for a person who has not signed in
    or whose sign-in has ended (``ended(claims)``: whether a sign-out ended it, asked on every full run).

    A login mode without Streamlit's ``[auth]`` settings, or a setting that holds no valid value, stops
    every page with one line: the server never falls back to the open mode; so does a store that cannot
    say whether the sign-in has ended.
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
    st.session_state.pop(_ENDED, None)
    if ended is not None and claims():
        try:
            st.session_state[_ENDED] = ended(claims())
        except RankscopeError as err:  # the store is down: nothing is served that it would have to allow
            st.error(md("This server cannot check the sign-in now: {}", str(err).splitlines()[0]),
                     icon=":material/cloud_off:")
            st.stop()
    if _signed_in() is None:
        st.title("rankscope")
        st.markdown("This server is shared: **sign in** to see the collections shared with you.")
        st.button("Sign in", on_click=st.login, icon=":material/login:", type="primary", key="rankscope_sign_in")
        st.stop()


def author_input(sign_out: Callable[[dict], None] | None = None) -> None:
    """The sidebar's name field (:func:`dashboard.session.typed_name.name_input`, remembered by this browser), unless a
    sign-in names the author (with the sign-out button, which calls ``sign_out(claims)`` first: what ends the
    sign-in for good)."""
    who = actor()
    if who is not None and (who.checked or _signed_in()):
        st.caption("Signed in as" + (" (administrator)" if who.admin else ""))
        st.text(who.name)
        if _signed_in():
            # no key: a button's key may not come from the link (?rankscope_sign_out=... would raise)
            st.button("Sign out", on_click=_sign_out, args=(sign_out,), icon=":material/logout:")
        return
    typed_name.name_input()


def _sign_out(record: Callable[[dict], None] | None) -> None:
    """Record the sign-out (``record``), then remove the cookie: the sign-in ends even if a copy of it lives on."""
    if record is not None:
        record(claims())
    st.logout()
