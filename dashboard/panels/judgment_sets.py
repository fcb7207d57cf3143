"""The data page's judgment sets: upload more qrels of the same collection, name them, drop them, and choose
the one every page evaluates under.

The first set is the reference (the qrels uploaded as such); the others are added here, each named after
its file (``umbrela.qrels`` is ``umbrela``) and renamable. Choosing another set changes no file: every page
evaluates under it (its caches are keyed on that set's content), and the judges page compares them all.
Names and file names are shown as plain text.
"""

from __future__ import annotations

import streamlit as st

from dashboard import widgets
from dashboard.session import state

__all__ = ["editor"]


def editor(loaded: state.Loaded) -> state.Loaded:
    """The sets, renamable and removable (all but the reference), and the one the pages evaluate under."""
    named = state.judgment_sets(loaded)
    if len(named) < 2:
        return loaded
    names = [n for n, _ in named]
    chosen = st.selectbox("Every page evaluates under", names, index=names.index(state.judged_by(loaded)),
                          key="data_judged_by", help="The judgment set the other pages use; the judges page "
                                                     "compares them all. The first is the reference.")
    if chosen != state.judged_by(loaded):
        state.put(state.under(loaded, chosen))
        st.rerun()
    for i, (name, upload) in enumerate(named):
        left, right = st.columns([4, 1], vertical_alignment="bottom")
        role = "reference" if i == 0 else f"set {i + 1}"
        new = left.text_input(widgets.md("{} ({})", role.capitalize(), upload.name), value=name,
                              key=f"data_set_{i}_{name}")
        if new != name:
            state.put(state.renamed_judgments(loaded, name, new))
            st.rerun()
        if i and right.button("Remove", key=f"data_set_remove_{i}_{name}", icon=":material/delete:"):
            state.put(state.without_judgments(loaded, name))
            st.rerun()
    return loaded
