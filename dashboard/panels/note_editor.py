"""The review note editor of the queries page: one topic's (or one system's) tags and comment, with the
concurrent versions and the history of a note kept in the workspace.

A save names as its base the revision its author saw when they opened the editor: the editor is opened
when it is first drawn for a note (the page draws it only in the open "One topic" tab), and stays open
while every completed run draws it again; leaving it (another topic, the other tab, another page) closes
it, and coming back opens it on the note as it is then. So a save makes a second version of a note only
when someone else saved it between the opening and the save, and the words then say who saved what, when.
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from dashboard import widgets
from dashboard.session import state
from dashboard.store import opened, review_notes, sync
from dashboard.widgets import md
from metrics import RankscopeError

__all__ = ["conflict_words", "editor", "when"]

_OPEN = "queries_note_open"  # (collection, topic, system), the base shown, the comment widget's key


def when(created_at: str) -> str:
    """A revision's time as shown: ``2026-01-31 12:00:03 UTC``."""
    return created_at[:19].replace("T", " ") + " UTC"


def conflict_words(heads: Sequence, history: Sequence = ()) -> str:
    """The sentence over a note's concurrent versions: who saved each and when, and what each edited.

    ``heads``: the note's current revisions (two or more), ``history``: every revision of the note (to name
    the revisions edited). Plain text: the caller escapes it for where it is shown.
    """
    heads = sorted(heads, key=lambda n: n.revision)
    earlier = {n.revision: n for n in history}
    saved = [f"{n.author} at {when(n.created_at)}" for n in heads]
    listed = ", ".join(saved[:-1]) + f" and {saved[-1]}"
    bases = sorted({b for n in heads for b in (n.bases or ((n.base,) if n.base is not None else ()))})
    if not bases:
        edited = "each writing it anew"
    else:
        named = [f"revision {b}" + (f" ({earlier[b].author}, {when(earlier[b].created_at)})" if b in earlier else "")
                 for b in bases]
        edited = ("each editing " if len(heads) > 1 and len(bases) == 1 else "editing ") + " and ".join(named)
    return (f"{len(heads)} versions of this note were saved without seeing each other: {listed}, {edited}. "
            "All are kept. Merge them below: the form holds all of them, and saving it replaces them with one note.")


def _opened_on(where: tuple, current) -> object:
    """The revision the editor of note ``where`` was opened on: the one kept since it was opened, when the
    last completed run drew it (its comment widget is still in the session); else ``current``, now."""
    record = st.session_state.get(_OPEN)
    if record is not None and record[0] == where and record[2] in st.session_state:
        return record[1]
    return current


def editor(loaded: state.Loaded, topic: str, systems, tag_options, max_comment: int) -> None:
    """The queries page's note on one topic (or one system on it): tags, comment, save, conflicts, history.

    Every text is shown as plain text. With a stored collection each save is a new revision by its author,
    based on the revision shown when the editor was opened (see the module's notes); two saves made from
    the same revision are both kept and shown here until someone merges them: the form then starts from
    all of them (tags together, comments one after the other) and its save names every one as its base, so
    that one save resolves the concurrent edits.
    """
    kept = opened.enabled() and loaded.collection is not None
    system = _subject(topic, systems) if kept else None
    mine = sorted((n for n in review_notes.heads() or [] if n.topic == topic and n.system == system),
                  key=lambda n: n.revision)
    merging = len(mine) > 1
    draft = review_notes.merged(mine) if kept else None  # the workspace's rule: tags together, comments in turn
    base = draft.base if draft else None
    if merging:
        _versions(loaded, topic, system, mine)
    if draft:
        tags, comment = list(draft.tags), draft.comment
    else:
        note = state.notes().get(topic, {"tags": [], "comment": ""})
        tags, comment = note["tags"], note["comment"]
    where = (loaded.collection, topic, system)
    # a merge replaces the versions shown now; an edit, the revision shown when the editor was opened
    seen = (base if merging else _opened_on(where, base)) if kept else None
    if kept and seen != base and not merging:
        _saved_meanwhile(topic, system, mine[-1])
    suffix = f"_{system or ''}_{'-'.join(map(str, seen)) if isinstance(seen, tuple) else seen or 0}" if kept else ""
    comment_key = f"queries_comment_{topic}{suffix}"
    read_only = kept and not sync.may("note")
    if read_only:
        st.caption("Your role on this collection lets you read its notes, not write them (editors and owners do).")
    elif kept:
        widgets.ask_name(f"queries_note_author_{topic}_{system or ''}", "Your name (saved with the note)")
    _form(loaded, topic, system, tags=tags, comment=comment, offered=tag_options, longest=max_comment, base=seen,
          merged=len(mine) if merging else 0, suffix=suffix, comment_key=comment_key, read_only=read_only)
    if kept:
        st.session_state[_OPEN] = (where, seen, comment_key)
    if kept and mine:
        _history(loaded, topic, system)


def _subject(topic: str, systems) -> str | None:
    """What the note is on, chosen: the topic itself (None) or one system on it."""
    on = st.selectbox("Note on", ["the topic itself", *systems], key=f"queries_note_on_{topic}")
    return None if on == "the topic itself" else on


def _versions(loaded: state.Loaded, topic: str, system: str | None, mine: Sequence) -> None:
    """The concurrent versions of a note, who saved each and what each edited, before the form that merges them."""
    try:
        earlier = review_notes.history(loaded, topic, system)
    except RankscopeError:
        earlier = []
    st.warning(md("{}", conflict_words(mine, earlier)), icon=":material/call_split:")
    st.text("\n".join(f"{n.author} ({when(n.created_at)}): {n.tag} · {n.comment}" for n in mine))


def _saved_meanwhile(topic: str, system: str | None, latest) -> None:
    """Someone saved the note since this editor was opened: say who and when, and offer to start again."""
    st.warning(md("Since you opened this note, {} saved a new version of it at {}. Saving yours keeps both, to "
                  "be merged; or start again from theirs (what you typed here is then lost).", latest.author,
                  when(latest.created_at)), icon=":material/edit_note:")
    if st.button("Start again from the current version", key=f"queries_note_reopen_{topic}_{system or ''}",
                 icon=":material/refresh:"):
        st.session_state.pop(_OPEN, None)
        st.rerun()


def _form(loaded: state.Loaded, topic: str, system: str | None, *, tags: list, comment: str, offered, longest: int,
          base, merged: int, suffix: str, comment_key: str, read_only: bool) -> None:
    """The note's form, starting from ``tags`` and ``comment``; its save is based on ``base`` and merges
    ``merged`` versions (0: none)."""
    with st.form(f"queries_note_{topic}{suffix}", border=True):
        chosen = st.multiselect("Tags", list(dict.fromkeys([*offered, *tags])), default=tags,
                                accept_new_options=True, key=f"queries_tags_{topic}{suffix}")
        text = st.text_area("Comment", value=comment, key=comment_key, max_chars=longest)
        if st.form_submit_button(md("Merge the {} versions of the note on topic {}", merged, topic) if merged
                                 else md("Save the note on topic {}", topic),
                                 icon=":material/merge:" if merged else ":material/bookmark_add:", disabled=read_only):
            try:
                review_notes.save_note(loaded, topic, system, chosen, text, base)
                st.session_state.pop(_OPEN, None)  # opened again on the saved revision
                st.rerun()
            except RankscopeError as err:
                widgets.error(err)


def _history(loaded: state.Loaded, topic: str, system: str | None) -> None:
    """Every revision of the note, oldest first, in an expander."""
    with st.expander("History of this note", icon=":material/history:"):
        try:
            st.dataframe(review_notes.notes_frame(review_notes.history(loaded, topic, system)), hide_index=True,
                         width="stretch", key=f"queries_history_{topic}_{system or ''}")
        except RankscopeError as err:
            widgets.error(err)
