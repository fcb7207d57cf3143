"""Class: a student's phone in a live class. One question at a time; the page follows the teacher."""

from __future__ import annotations

import streamlit as st

from dashboard import widgets
from dashboard.data import live_class as data
from dashboard.panels import class_student as live
from metrics import RankscopeError

st.html(live.PHONE)
st.title("Class")
if not data.available():
    st.info("This server runs no live class.")
    st.stop()
code = st.query_params.get("code") or st.text_input("Class code", max_chars=16, key="class_code",
                                                    placeholder="the 6 letters and digits on the screen")
if not code or not live.admitted(str(code)):
    st.stop()
try:
    status = data.status(str(code))
except RankscopeError as err:
    st.error(widgets.md("{}", str(err).splitlines()[0]), icon=":material/error:")
    st.stop()
if status.closed:
    st.info(widgets.md("The class {} is over.", status.code), icon=":material/event_busy:")
    st.stop()
live.live_view(status.code)
