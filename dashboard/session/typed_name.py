"""The name typed by a person who has not signed in (:mod:`dashboard.server.identity` says who writes): part of
the session's identity, not of the sidebar, and kept by this browser in a cookie so that a reload or a new tab
finds it again.

The name lives in the session's own state (:data:`NAME_KEY`), never in a widget's: Streamlit forgets a
widget's value when the widget is not drawn, so a name held by the sidebar's field was lost as soon as
presentation mode hid the sidebar, and stayed lost after switching back. Every field that asks for the name
(:func:`name_input`: the sidebar's, or one beside what needs an author, such as a claim saved in presentation
mode) is drawn from it and writes to it.

The cookie is written by a two-line script in the page (``st.html`` with JavaScript, no component) and read
back from the request that opens a session (``st.context.cookies``); it never leaves the machine. The name
is data in that script, never markup.
"""

from __future__ import annotations

import json
from urllib.parse import unquote

import streamlit as st

__all__ = ["AUTHOR_CHARS", "AUTHOR_COOKIE", "FIELD", "LABEL", "NAME_KEY", "author_cookie_script", "cookie_script",
           "name_input", "remembered_author", "typed"]

NAME_KEY = "rankscope_author"  # the typed name (session state, not a widget's), read by dashboard.server.identity
FIELD = "rankscope_author_field"  # the sidebar's name field
LABEL = "Your name (for notes and saved collections)"
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


def cookie_script(cookie: str, value: str, seconds: int) -> str:
    """A script that keeps ``value`` in this browser's cookie ``cookie`` (a name of letters and ``_``) for
    ``seconds`` (0, or an empty value, removes it).

    The value is data in the script: a JSON string whose ``<``, ``>`` and ``&`` are escaped too, so no text
    typed can end the script or become markup; the browser encodes it for the cookie.
    """
    if not cookie.replace("_", "").isalpha():
        raise ValueError(f"a cookie's name: expected letters and '_', found {cookie!r}")
    text = json.dumps(value).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    age = 0 if not value else int(seconds)
    return (f"<script>document.cookie = \"{cookie}=\" + encodeURIComponent({text}) + "
            f"\"; path=/; max-age={age}; SameSite=Strict\";</script>")


def author_cookie_script(name: str) -> str:
    """A script that keeps ``name`` in this browser's cookie for a year (an empty name removes it)."""
    return cookie_script(AUTHOR_COOKIE, name, 365 * 24 * 3600)


def typed() -> str | None:
    """The name this session's person typed, or None: in a new session, the one this browser kept."""
    if NAME_KEY not in st.session_state:
        st.session_state[NAME_KEY] = remembered_author(st.context.cookies) or ""
    return (st.session_state.get(NAME_KEY) or "").strip() or None


def _keep(field: str) -> None:
    name = (st.session_state.get(field) or "").strip()[:AUTHOR_CHARS]
    st.session_state[NAME_KEY] = name
    st.session_state[_KEEP_AUTHOR] = name


def name_input(key: str = FIELD, label: str = LABEL, where=None) -> None:
    """A field for the typed name (by default the sidebar's), drawn from it and writing to it; a name typed is
    kept by this browser (nothing leaves the machine: the cookie is read by this server only). ``key``: the
    field's own key (each place that asks has its own); ``where``: a container to draw in."""
    if key not in st.session_state or st.session_state[key] != (typed() or ""):
        st.session_state[key] = typed() or ""  # the name typed anywhere, in every field that asks for it
    (where or st).text_input(label, key=key, max_chars=AUTHOR_CHARS, on_change=_keep, args=(key,),
                             help="Shown beside what you save in the shared workspace; this browser remembers it.")
    kept = st.session_state.pop(_KEEP_AUTHOR, None)
    if kept is not None:
        st.html(author_cookie_script(kept), unsafe_allow_javascript=True)
