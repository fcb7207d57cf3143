"""The data page's session-file uploader: a good file applies its conventions, names, notes and view (opening
the saved page); a bad one shows its one line and changes nothing."""

from __future__ import annotations

import streamlit as st

import metrics
from dashboard import pages
from dashboard.exports import session_from_json
from dashboard.server import guard
from dashboard.session import state
from dashboard.store import review_notes
from dashboard.widgets import error, md

__all__ = ["session_loader"]


def session_loader(loaded: state.Loaded, seen: set) -> state.Loaded:
    """The session-file uploader: a good file applies its conventions, names, notes and view (opening the
    saved page, when it is one a view may reopen); a bad one shows its message and changes nothing."""
    upload = st.file_uploader("Session file", type=["json"], key="data_session",
                              help="A session saved on the report page: conventions, system names, review notes and "
                                   "the view. Load the same files first.")
    if upload is not None and upload.file_id not in seen:
        seen.add(upload.file_id)
        data = upload.getvalue()
        try:  # under the guard, as every upload
            session = guard.call(upload.name, session_from_json, data, in_process=guard.small(data))
        except guard.LimitError as err:  # names the file already
            st.session_state["data_session_error"] = str(err)
        except metrics.RankscopeError as err:
            st.session_state["data_session_error"] = f"{upload.name}: {err}"
        else:
            st.session_state.pop("data_session_error", None)
            loaded, problems = state.with_session(loaded, session)
            state.put(loaded)
            try:
                review_notes.put_notes(loaded, session.notes)
            except metrics.RankscopeError as err:
                st.session_state["data_session_error"] = f"{upload.name}: {err}"
            st.session_state["data_session_problems"] = problems
            page = next((p for p in pages.PAGES if p.reopens_view and p.script == session.view.get("page")), None)
            if page is not None and not problems:
                st.switch_page(page.path, query_params={k: v for k, v in session.view.items() if k != "page"})
    if st.session_state.get("data_session_error"):
        error(st.session_state["data_session_error"])
    for problem in st.session_state.get("data_session_problems", []):
        st.warning(md("{} (its notes and conventions were applied)", problem), icon=":material/warning:")
    return loaded
