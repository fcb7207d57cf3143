"""rankscope dashboard: ``rankscope dashboard`` or ``streamlit run dashboard/app.py``.

Streamlit runs this script as ``__main__`` for every session's every rerun. A process that
:mod:`dashboard.guard` starts imports it too, as ``__mp_main__`` (multiprocessing prepares each child with
the parent's main module, and while a script runs Streamlit's is this one): there it must do nothing, so
the app and its imports (Streamlit, the pages, the workspace) live in :func:`main`, which only a session
runs. (When the app itself ran in every worker, a worker took seconds to start and could wait on the
workspace for good, and the upload that started it waited for the time limit.)
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent


def _page(name: str, title: str, icon: str, **options):
    """The page ``app_pages/<name>.py``, at the address its label names (``/reproducibility``)."""
    import streamlit as st

    return st.Page(str(ROOT / "app_pages" / f"{name}.py"), title=title, icon=icon,
                   url_path=options.pop("url_path", title.lower()), **options)


def main() -> None:
    """One run of the app for one browser session."""
    if str(ROOT.parent) not in sys.path:  # `streamlit run dashboard/app.py` from a checkout
        sys.path.insert(0, str(ROOT.parent))
    import streamlit as st

    from dashboard import components, follow, memory, preload, state, stored, team

    memory.install()  # once per process: closed sessions' uploads released, freed memory returned
    icon = ROOT / "assets" / "icon.png"  # served by the dashboard itself: nothing is fetched from elsewhere
    present = components.presenting()
    st.set_page_config(page_title="rankscope", page_icon=str(icon), layout="wide",
                       initial_sidebar_state="collapsed" if present else "auto")
    pages = [  # the root URL opens the overview (home.py), so that /overview stays a link of its own
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
        _page("teach", "Live class", ":material/co_present:", visibility="hidden", url_path="teach"),  # started from the learn page
        st.Page(str(ROOT / "app_pages" / "classroom.py"), title="Class", icon=":material/how_to_vote:",
                url_path="class", visibility="hidden"),  # a student's phone: /class?code=...
    ]
    team.gate()  # in the login mode, nothing but the sign-in before one
    page = st.navigation(pages, position="top" if present else "sidebar", expanded=True)  # every page listed
    if page.url_path == "class":  # a student's phone: the class alone, no sidebar, no collection
        st.set_page_config(page_title="rankscope class", layout="centered", initial_sidebar_state="collapsed")
        page.run()
        st.stop()
    loaded = stored.begin()  # the link's stored collection; None: the link's id is unknown
    components.frame(loaded or state.Loaded(), present)
    followed = follow.pages(pages)  # a stored collection: present it, or follow its presenter
    follow.before(loaded, page.url_path, followed, present)
    if loaded is None and page.url_path != "collections":
        st.page_link(next(p for p in pages if p.url_path == "collections"), label="Open the list of collections",
                     icon=":material/folder_shared:")
        st.stop()
    page.run()
    follow.after(loaded, page.url_path, followed)
    preload.start()  # after the first page is drawn: the libraries later pages import


if __name__ == "__main__":  # a session's run; not a worker's import
    main()
