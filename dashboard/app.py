"""rankscope dashboard: ``rankscope dashboard`` or ``streamlit run dashboard/app.py``."""

from __future__ import annotations

import sys
from pathlib import Path

import streamlit as st

ROOT = Path(__file__).resolve().parent
if str(ROOT.parent) not in sys.path:  # `streamlit run dashboard/app.py` from a checkout
    sys.path.insert(0, str(ROOT.parent))

from dashboard import components, memory, state, stored, team  # noqa: E402

memory.install()  # once per process: closed sessions' uploads released, freed memory returned

ICON = ROOT / "assets" / "icon.png"  # served by the dashboard itself: nothing is fetched from elsewhere
present = components.presenting()
st.set_page_config(page_title="rankscope", page_icon=str(ICON), layout="wide",
                   initial_sidebar_state="collapsed" if present else "auto")


def _page(name: str, title: str, icon: str, **options) -> st.Page:
    """The page ``app_pages/<name>.py``, at the address its label names (``/reproducibility``)."""
    return st.Page(str(ROOT / "app_pages" / f"{name}.py"), title=title, icon=icon,
                   url_path=options.pop("url_path", title.lower()), **options)


PAGES = [  # the root URL opens the overview (home.py), so that /overview stays a link of its own
    _page("home", "rankscope", ":material/home:", default=True, visibility="hidden", url_path="home"),
    _page("overview", "Overview", ":material/table_chart:"),
    _page("data", "Data", ":material/upload_file:"),
    _page("curves", "Curves", ":material/show_chart:"),
    _page("gain", "Gain", ":material/stacked_line_chart:"),
    _page("queries", "Queries", ":material/manage_search:"),
    _page("significance", "Significance", ":material/balance:"),
    _page("agreement", "Agreement", ":material/compare_arrows:"),
    _page("judges", "Judges", ":material/gavel:"),
    _page("repro", "Reproducibility", ":material/replay:"),
    _page("trust", "Trust", ":material/verified:"),
    _page("learn", "Learn", ":material/school:"),
    _page("report", "Report", ":material/summarize:"),
    *([_page("collections", "Collections", ":material/folder_shared:")] if stored.enabled() else []),
    _page("teach", "Live class", ":material/co_present:", visibility="hidden"),  # started from the learn page
    st.Page(str(ROOT / "app_pages" / "classroom.py"), title="Class", icon=":material/how_to_vote:", url_path="class",
            visibility="hidden"),  # a student's phone: /class?code=...
]

team.gate()  # in the login mode, nothing but the sign-in before one
page = st.navigation(PAGES, position="top" if present else "sidebar")
if page.url_path == "class":  # a student's phone: the class alone, no sidebar, no collection
    st.set_page_config(page_title="rankscope class", layout="centered", initial_sidebar_state="collapsed")
    page.run()
    st.stop()
loaded = stored.begin()  # the link's stored collection; None: the link's id is unknown
components.frame(loaded or state.Loaded(), present)
if loaded is None and page.url_path != "collections":
    st.page_link(next(p for p in PAGES if p.url_path == "collections"), label="Open the list of collections",
                 icon=":material/folder_shared:")
    st.stop()
page.run()
