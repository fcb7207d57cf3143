"""Judge: an assessor's page. One document of a judging task at a time, its topic's text above it, the query's
words marked, the grades as large buttons and as keys; each judgment stored when it is made."""

from __future__ import annotations

import streamlit as st

from dashboard.data import judging as data
from dashboard.panels import assessor
from dashboard.session import state

st.title("Judge")
if not data.available():
    st.info("Judging is kept in a workspace, and this server has none.", icon=":material/inbox:")
    st.stop()
task = assessor.choose_task(state.get())
if task is None:
    st.stop()
assessor.judge_view(task)
