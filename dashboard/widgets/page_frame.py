"""What every page shows around its own content: the stylesheet, the sidebar (the loaded collection, the
conventions in force, the notes) and presentation mode, kept in the link (``?present=true``) from page to page;
and which page of the page table this run draws (:func:`set_page`, :func:`this_page`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import streamlit as st

from dashboard import data, pages
from dashboard.session import state

__all__ = ["PRESENT", "PRESENT_SCALE", "ask_name", "example_title", "fragment", "frame", "presentation_toggle",
           "presenting", "set_page", "sidebar", "this_page"]

PRESENT = "present"  # the URL's ?present=true: presentation mode, kept from page to page
PRESENT_SCALE = 1.35  # charts' text in presentation mode
# constant stylesheets (never built from user text): captions in full contrast; a chart's texts in the page's
# font, the one plotly measures them in (its measuring box sits in the page's body: drawn in plotly's own
# fallback font, wider, the labels would pass the margins and titles measured for them); in presentation mode
# larger type, the page as wide as the screen, no sidebar
STYLE = """<style>
[data-testid="stCaptionContainer"], [data-testid="stCaptionContainer"] p { color: #262730; opacity: 1; }
.js-plotly-plot .plotly, .js-plotly-plot .plotly div { font-family: inherit !important; }
</style>"""
PRESENTATION = """<style>
html, html:root { font-size: 20px !important; }
[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"], [data-testid="stExpandSidebarButton"]
  { display: none !important; }
[data-testid="stMainBlockContainer"] { max-width: 100% !important; padding: 4.5rem 1.2rem 3rem !important; }
[data-testid="stMarkdownContainer"] p, [data-testid="stMarkdownContainer"] li { font-size: 1.05rem; }
[data-testid="stCaptionContainer"], [data-testid="stCaptionContainer"] p { color: #000000; font-size: 0.95rem; }
[data-testid="stWidgetLabel"] p { font-size: 0.95rem; color: #000000; }
h1 { font-size: 2.1rem !important; }
</style>"""


_PAGE = "rankscope_page"  # the declaration of the page this run draws (session state, set on every run)


def set_page(page: pages.Page) -> None:
    """Keep ``page`` as the page this run draws: :mod:`dashboard.app` calls it with the navigation's choice
    before the page's script runs, so every widget the script calls knows its page (:func:`this_page`)."""
    st.session_state[_PAGE] = page


def this_page() -> pages.Page | None:
    """The declaration of the page this run draws (:func:`set_page`); None before the app has chosen one."""
    return st.session_state.get(_PAGE)


def presenting() -> bool:
    """Presentation mode: the toggle's value, which a link's ``?present=1`` (or ``true``) sets on arrival."""
    if PRESENT not in st.session_state:
        asked = str(st.query_params.get(PRESENT, "")).lower()
        if asked in ("1", "true", "yes", "on"):
            st.session_state[PRESENT] = True
    present = bool(st.session_state.get(PRESENT, False))
    if present and st.query_params.get(PRESENT) != "true":  # kept in the link, from page to page
        st.query_params[PRESENT] = "true"
    elif not present and PRESENT in st.query_params:
        del st.query_params[PRESENT]
    return present


def presentation_toggle() -> bool:
    """The presentation-mode switch; :func:`presenting` keeps it in the URL (``?present=true``) on every page.

    Not bound to the URL by Streamlit: a bound value would be dropped from the link on a change of page."""
    return st.toggle("Presentation mode", key=PRESENT,
                     help="For a projector: no sidebar (pages in the top bar), larger type in text and charts, "
                          "tables as wide as the screen. The link keeps it (?present=true).")


def frame(loaded: state.Loaded, present: bool) -> None:
    """What every page shows around its own content: the sidebar (or, presenting, only the switch) and the
    stylesheet."""
    st.html(STYLE + (PRESENTATION if present else ""))
    if present:
        presentation_toggle()
    else:
        sidebar(loaded)


def example_title(name: str) -> str:
    """A worked example's name as students read it."""
    return data.example_titles().get(name, name)


def sidebar(loaded: state.Loaded) -> None:
    """The loaded collection, the conventions in force, and the notes, on every page."""
    from dashboard.server import identity
    from dashboard.store import opened

    with st.sidebar:
        presentation_toggle()
        if opened.enabled():
            identity.author_input(sign_out=opened.end_sign_in)
        st.caption("Collection")
        if loaded.ready:
            where = {"demo": " (demo)", "ranking": " (typed in)"}.get(loaded.source, "")
            if loaded.source.startswith("example:"):
                where = f" (worked example: {example_title(loaded.source.split(':', 1)[1])})"
            st.text(f"{len(loaded.runs)} system{'s' * (len(loaded.runs) != 1)} · qrels {loaded.qrels.name}{where}")
            if loaded.judges:
                st.text(f"judged by {state.judged_by(loaded)} (of {len(loaded.judges)} judgment sets)")
        else:
            st.text("nothing loaded")
        st.caption("Conventions")
        st.text(loaded.conventions.describe())
        notes = state.notes()
        if notes:
            st.caption("Review notes")
            st.text(f"{len(notes)} topic{'s' * (len(notes) != 1)} noted")


def fragment(body: Callable[[], None]) -> Callable[[], None]:
    """``st.fragment(body)``, whose every rerun first asks whether the person may still see the session's stored
    collection (:func:`dashboard.store.sync.still_shown`): a role taken away holds at the next rerun of any
    part of a page, not only of the whole page."""
    from dashboard.store import sync

    @functools.wraps(body)
    def checked() -> None:
        sync.still_shown()
        body()

    return st.fragment(checked)


def ask_name(key: str, label: str = "Your name (saved with it)") -> None:
    """A name field beside what needs an author, for a person of a workspace who has neither signed in nor
    typed a name yet (in presentation mode the sidebar's field is hidden); once typed, the name is the
    session's (:mod:`dashboard.session.typed_name`), in every field and on every page."""
    from dashboard.server import identity
    from dashboard.session import typed_name
    from dashboard.store import opened

    if opened.enabled() and identity.actor() is None and identity.mode() == "open":
        typed_name.name_input(key=key, label=label)
