"""The data page's ir_datasets field: qrels (and topics, when the dataset has queries) by id, from the
server's local ir_datasets store.

The id is what a person typed: it is checked against the id pattern and ir_datasets' registry before
anything is read (:func:`dashboard.data.dataset_files`), never read as a path, and shown as text. What cannot
be loaded (a malformed or unknown id, a file missing from the store, ir_datasets not installed) is one line
through the page's error path. The dataset's relevance level is applied on loading and said under the field,
with its reason; the Conventions below still change it, and the caption then says which applies.
"""

from __future__ import annotations

import dataclasses

import streamlit as st

from dashboard import data, widgets
from dashboard.session import state
from dashboard.session.user_text import md
from metrics import RankscopeError

__all__ = ["field"]


def field(loaded: state.Loaded, container) -> state.Loaded:
    """The "ir_datasets id" field and its Load button in ``container``; on Load, the dataset's qrels replace
    the loaded ones (topics too), under the dataset's relevance level."""
    with container.form("data_irds_form", border=False, enter_to_submit=True):
        cols = st.columns([4, 1], vertical_alignment="bottom")
        typed = cols[0].text_input("ir_datasets id", key="data_irds", max_chars=300, placeholder="cranfield",
                                   help="Qrels (and topics) of an ir_datasets dataset from this server's local "
                                        "ir_datasets store, e.g. cranfield or msmarco-passage/trec-dl-2019; "
                                        "nothing is downloaded.")
        asked = cols[1].form_submit_button("Load", icon=":material/dataset:")
    if asked and typed.strip():
        st.session_state["data_irds_errors"] = []
        try:
            with st.spinner("Reading the dataset from the local ir_datasets store…", show_time=True):
                qrels, topics, default = data.dataset_files(typed)
                data.read_qrels(qrels)
            loaded = state.with_qrels(loaded, qrels)
            if topics is not None:
                loaded = state.with_texts(loaded, topics=topics)
            conventions = dataclasses.replace(loaded.conventions, relevance_level=default.level)
            state.put(dataclasses.replace(loaded, conventions=conventions))
            st.rerun()
        except RankscopeError as err:
            st.session_state["data_irds_errors"].append(str(err))
    for message in st.session_state.get("data_irds_errors", []):
        widgets.error(message)
    default = data.dataset_relevance(loaded.qrels.name) if loaded.qrels is not None else None
    if default is not None:
        level = loaded.conventions.relevance_level
        if level == default.level:
            container.caption(md("Qrels from ir_datasets: {}. {}.", loaded.qrels.name, default.reason))
        else:
            container.caption(md("Qrels from ir_datasets: {}. Relevant from grade {} (set under Conventions); the "
                                 "dataset's: {}.", loaded.qrels.name, level, default.reason))
    return loaded
