"""The review note editor of the queries page: one topic's (or one system's) tags and comment, with the
concurrent versions and the history of a note kept in the workspace."""

from __future__ import annotations

import streamlit as st

from dashboard import components, state, stored
from dashboard.components import md
from metrics import RankscopeError

__all__ = ["note_editor"]


def note_editor(loaded: state.Loaded, topic: str, systems, tag_options, max_comment: int) -> None:
    """The queries page's note on one topic (or one system on it): tags, comment, save, conflicts, history.

    Every text is shown as plain text. With a stored collection each save is a new revision by its author;
    two saves made from the same revision are both kept and shown here until someone merges them: the form
    then starts from all of them (tags together, comments one after the other) and its save names every one
    as its base, so that one save resolves the concurrent edits.
    """
    kept = stored.enabled() and loaded.collection is not None
    system = None
    if kept:
        on = st.selectbox("Note on", ["the topic itself", *systems], key=f"queries_note_on_{topic}")
        system = None if on == "the topic itself" else on
    mine = sorted((n for n in stored.heads() or [] if n.topic == topic and n.system == system),
                  key=lambda n: n.revision)
    merging = len(mine) > 1
    base = [n.revision for n in mine] if merging else (mine[-1].revision if mine else None)
    if merging:
        st.warning(md("{} versions of this note were saved at the same time from the same revision; all are kept. "
                      "Merge them below: the form holds all of them, and saving it replaces them with one note.",
                      len(mine)), icon=":material/call_split:")
        st.text("\n".join(f"{n.author} ({n.created_at[:19].replace('T', ' ')} UTC): {n.tag} · {n.comment}"
                          for n in mine))
    if kept:
        tags = list(dict.fromkeys(t.strip() for n in (mine if merging else mine[-1:]) for t in n.tag.split(",")
                                  if t.strip()))
        comment = "\n---\n".join(n.comment for n in mine if n.comment) if merging else (mine[-1].comment
                                                                                         if mine else "")
    else:
        note = state.notes().get(topic, {"tags": [], "comment": ""})
        tags, comment = note["tags"], note["comment"]
    opened = f"queries_note_opened_{topic}_{system or ''}"
    if kept and merging:  # a merge replaces the versions shown now
        st.session_state[opened] = base
    seen = st.session_state.setdefault(opened, base) if kept else None  # the revision the form was opened on
    if kept and seen != base and not merging:
        st.caption(md("Changed by {} since you opened it; saving keeps both versions.", mine[-1].author))
    suffix = f"_{system or ''}_{'-'.join(map(str, seen)) if isinstance(seen, list) else seen or 0}" if kept else ""
    with st.form(f"queries_note_{topic}{suffix}", border=True):
        chosen = st.multiselect("Tags", list(dict.fromkeys([*tag_options, *tags])), default=tags,
                                accept_new_options=True, key=f"queries_tags_{topic}{suffix}")
        text = st.text_area("Comment", value=comment, key=f"queries_comment_{topic}{suffix}", max_chars=max_comment)
        if st.form_submit_button(md("Merge the {} versions of the note on topic {}", len(mine), topic) if merging
                                 else md("Save the note on topic {}", topic),
                                 icon=":material/merge:" if merging else ":material/bookmark_add:"):
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
