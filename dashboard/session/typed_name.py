"""The name typed in the sidebar by a person who has not signed in (:mod:`dashboard.server.identity` says who writes),
which this browser keeps in a cookie so that a reload or a new tab finds it again.

The cookie is written by a two-line script in the page (``st.html`` with JavaScript, no component) and read
back from the request that opens a session (``st.context.cookies``); it never leaves the machine. The name
is data in that script, never markup.
"""

from __future__ import annotations

import json
from urllib.parse import unquote

import streamlit as st

__all__ = ["AUTHOR_CHARS", "AUTHOR_COOKIE", "NAME_KEY", "author_cookie_script", "name_input", "remembered_author"]

NAME_KEY = "rankscope_author"  # the name field's key (session state), read by dashboard.server.identity
_KEEP_AUTHOR = "rankscope_author_typed"  # a name typed this run, to keep in the browser's cookie
AUTHOR_COOKIE = "rankscope_author"  # the cookie that keeps the typed name in this browser
AUTHOR_CHARS = 100


def remembered_author(cookies) -> str | None:
    """The name this browser kept in its cookie (:func:`author_cookie_script`), or None: one line of at most
    :data:`AUTHOR_CHARS` characters, else nothing."""
    raw = cookies.get(AUTHOR_COOKIE) if cookies is not None else None
    if not isinstance(raw, str) or not raw:  # (a test harness's context may hold anything)
        return None
    name = unquote(raw).strip()
    return name if name and len(name) <= AUTHOR_CHARS and name.isprintable() else None


def author_cookie_script(name: str) -> str:
    """A script that keeps ``name`` in this browser's cookie for a year (an empty name removes it).

    The name is data in the script: a JSON string whose ``<``, ``>`` and ``&`` are escaped too, so no text
    typed can end the script or become markup; the browser encodes it for the cookie.
    """
    value = json.dumps(name).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    age = 0 if not name else 365 * 24 * 3600
    return (f"<script>document.cookie = \"{AUTHOR_COOKIE}=\" + encodeURIComponent({value}) + "
            f"\"; path=/; max-age={age}; SameSite=Strict\";</script>")


def _keep_author() -> None:
    st.session_state[_KEEP_AUTHOR] = (st.session_state.get(NAME_KEY) or "").strip()


def name_input() -> None:
    """The sidebar's name field of a person who has not signed in (:func:`dashboard.server.identity.author_input`):
    filled from this browser's cookie in a new tab or after a reload, and kept there when typed (nothing
    leaves the machine: the cookie is read by this server only)."""
    if NAME_KEY not in st.session_state:  # a new session: the name this browser kept, if any
        kept = remembered_author(st.context.cookies)
        if kept:
            st.session_state[NAME_KEY] = kept
    st.text_input("Your name (for notes and saved collections)", key=NAME_KEY, max_chars=AUTHOR_CHARS,
                  on_change=_keep_author,
                  help="Shown beside what you save in the shared workspace; this browser remembers it.")
    typed = st.session_state.pop(_KEEP_AUTHOR, None)
    if typed is not None:
        st.html(author_cookie_script(typed), unsafe_allow_javascript=True)
