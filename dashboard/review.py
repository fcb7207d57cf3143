"""The review note editor of the queries page: one topic's (or one system's) tags and comment, with the
concurrent versions and the history of a note kept in the workspace."""

from __future__ import annotations

import streamlit as st

from dashboard import components, state, stored
from metrics import RankscopeError

__all__ = ["note_editor"]


def note_editor(loaded: state.Loaded, topic: str, systems, tag_options, max_comment: int) -> None:
    """The queries page's note on one topic (or one system on it): tags, comment, save, conflicts, history.

    Every text is shown as plain text. With a stored collection each save is a new revision by its author;
    two saves made from the same revision are both kept and shown here until someone saves over them.
    """
    kept = stored.enabled() and loaded.collection is not None
    system = None
    if kept:
        on = st.selectbox("Note on", ["the topic itself", *systems], key=f"queries_note_on_{topic}")
        system = None if on == "the topic itself" else on
    mine = sorted((n for n in stored.heads() or [] if n.topic == topic and n.system == system),
                  key=lambda n: n.revision)
    base = mine[-1].revision if mine else None
    if len(mine) > 1:
        st.warning(f"{len(mine)} versions of this note were saved at the same time from the same revision; "
                   "all are kept. Saving here makes yours the next revision.", icon=":material/call_split:")
        st.text("\n".join(f"{n.author} ({n.created_at[:19].replace('T', ' ')} UTC): {n.tag} · {n.comment}"
                          for n in mine))
    if kept:
        tags = [t.strip() for n in mine[-1:] for t in n.tag.split(",") if t.strip()]
        comment = mine[-1].comment if mine else ""
    else:
        note = state.notes().get(topic, {"tags": [], "comment": ""})
        tags, comment = note["tags"], note["comment"]
    opened = f"queries_note_opened_{topic}_{system or ''}"
    seen = st.session_state.setdefault(opened, base) if kept else None  # the revision the form was opened on
    if kept and seen != base and not len(mine) > 1:
        st.caption(f"Changed by {mine[-1].author} since you opened it; saving keeps both versions.")
    suffix = f"_{system or ''}_{seen or 0}" if kept else ""
    with st.form(f"queries_note_{topic}{suffix}", border=True):
        chosen = st.multiselect("Tags", list(dict.fromkeys([*tag_options, *tags])), default=tags,
                                accept_new_options=True, key=f"queries_tags_{topic}{suffix}")
        text = st.text_area("Comment", value=comment, key=f"queries_comment_{topic}{suffix}", max_chars=max_comment)
        if st.form_submit_button(f"Save the note on topic {components.plain(topic)}", icon=":material/bookmark_add:"):
            try:
                stored.save_note(loaded, topic, system, chosen, text, seen)
                st.session_state.pop(opened, None)  # reopened on the saved revision
                st.rerun()
            except RankscopeError as err:
                components.error(err)
    if kept and mine:
        with st.expander("History of this note", icon=":material/history:"):
            try:
                st.dataframe(stored.notes_frame(stored.history(loaded, topic, system)), hide_index=True,
                             width="stretch",
                             key=f"queries_history_{topic}_{system or ''}")
            except RankscopeError as err:
                components.error(err)
