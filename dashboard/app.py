"""rankscope dashboard: ``rankscope dashboard`` or ``streamlit run dashboard/app.py``.

Streamlit runs this script as ``__main__`` for every session's every rerun. A process that
:mod:`dashboard.server.guard` starts imports it too, as ``__mp_main__`` (multiprocessing prepares each child with
the parent's main module, and while a script runs Streamlit's is this one): there it must do nothing, so
the app and its imports (Streamlit, the pages, the workspace) live in :func:`main`, which only a session
runs. (When the app itself ran in every worker, a worker took seconds to start and could wait on the
workspace for good, and the upload that started it waited for the time limit.)
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent


def _streamlit_pages(stored: bool) -> list:
    """The navigation's pages, built from the page table (:data:`dashboard.pages.PAGES`)."""
    import streamlit as st

    from dashboard import pages

    return [st.Page(str(pages.script_path(p)), title=p.title, icon=p.icon, url_path=p.url_path, default=p.default,
                    visibility="visible" if p.listed else "hidden") for p in pages.served(stored)]


def main() -> None:
    """One run of the app for one browser session."""
    if str(ROOT.parent) not in sys.path:  # `streamlit run dashboard/app.py` from a checkout
        sys.path.insert(0, str(ROOT.parent))
    import streamlit as st

    from dashboard import widgets
    from dashboard.pages import by_url
    from dashboard.panels import follow
    from dashboard.server import identity, memory, preload
    from dashboard.session import state
    from dashboard.store import opened, sync

    memory.install()  # once per process: closed sessions' uploads released, freed memory returned
    icon = ROOT / "assets" / "icon.png"  # served by the dashboard itself: nothing is fetched from elsewhere
    present = widgets.presenting()
    st.set_page_config(page_title="rankscope", page_icon=str(icon), layout="wide",
                       initial_sidebar_state="collapsed" if present else "auto")
    pages = _streamlit_pages(opened.enabled())  # the root address opens the overview (home), /overview its own link
    identity.gate(ended=opened.sign_in_ended)  # in the login mode, nothing but the sign-in before one
    page = st.navigation(pages, position="top" if present else "sidebar", expanded=True)  # every page listed
    declared = by_url(page.url_path)
    widgets.set_page(declared)  # its declaration, for the widgets its script calls (the "start here" link)
    if declared.alone:  # a student's phone: the class alone, no sidebar, no collection
        st.set_page_config(page_title="rankscope class", layout="centered", initial_sidebar_state="collapsed")
        try:
            page.run()
        except opened.UNAVAILABLE as err:
            st.error(widgets.md("The workspace cannot be read: {}", str(err).splitlines()[0]),
                     icon=":material/cloud_off:")
        st.stop()
    try:
        loaded = sync.begin()  # the link's stored collection; None: the link's id is unknown
        widgets.frame(loaded or state.Loaded(), present)
        followed = follow.pages(pages)  # a stored collection: present it, or follow its presenter
        follow.before(loaded, page.url_path, followed, present)
        if loaded is None and page.url_path != "collections":
            st.page_link(next(p for p in pages if p.url_path == "collections"), label="Open the list of collections",
                         icon=":material/folder_shared:")
            st.stop()
        page.run()
        follow.after(loaded, page.url_path, followed)
    except opened.UNAVAILABLE as err:  # the workspace went down: one line, whatever part of the page met it
        st.error(widgets.md("The workspace cannot be read: {}", str(err).splitlines()[0]), icon=":material/cloud_off:")
        st.stop()
    preload.start()  # after the first page is drawn: the libraries later pages import


if __name__ == "__main__":  # a session's run; not a worker's import
    main()
