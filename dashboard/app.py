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


def main() -> None:
    """One run of the app for one browser session."""
    if str(ROOT.parent) not in sys.path:  # `streamlit run dashboard/app.py` from a checkout
        sys.path.insert(0, str(ROOT.parent))
    import streamlit as st

    from dashboard import components, memory, state, stored

    memory.install()  # once per process: closed sessions' uploads released, freed memory returned
    icon = ROOT / "assets" / "icon.png"  # served by the dashboard itself: nothing is fetched from elsewhere
    present = components.presenting()
    st.set_page_config(page_title="rankscope", page_icon=str(icon), layout="wide",
                       initial_sidebar_state="collapsed" if present else "auto")

    def page_of(name: str, title: str, icon: str, **options) -> st.Page:
        return st.Page(str(ROOT / "app_pages" / f"{name}.py"), title=title, icon=icon, url_path=name, **options)

    pages = [  # the root URL opens the overview (home.py), so that /overview stays a link of its own
        page_of("home", "rankscope", ":material/home:", default=True, visibility="hidden"),
        page_of("overview", "Overview", ":material/table_chart:"),
        page_of("data", "Data", ":material/upload_file:"),
        page_of("curves", "Curves", ":material/show_chart:"),
        page_of("gain", "Gain", ":material/stacked_line_chart:"),
        page_of("queries", "Queries", ":material/manage_search:"),
        page_of("significance", "Significance", ":material/balance:"),
        page_of("agreement", "Agreement", ":material/compare_arrows:"),
        page_of("repro", "Reproducibility", ":material/replay:"),
        page_of("trust", "Trust", ":material/verified:"),
        page_of("learn", "Learn", ":material/school:"),
        page_of("report", "Report", ":material/summarize:"),
        *([page_of("collections", "Collections", ":material/folder_shared:")] if stored.enabled() else []),
    ]
    page = st.navigation(pages, position="top" if present else "sidebar")
    loaded = stored.begin()  # the link's stored collection; None: the link's id is unknown
    components.frame(loaded or state.Loaded(), present)
    if loaded is None and page.url_path != "collections":
        st.page_link(pages[-1], label="Open the list of collections",
                     icon=":material/folder_shared:")
        st.stop()
    page.run()


if __name__ == "__main__":  # a session's run; not a worker's import
    main()
