"""Collections: the workspace's stored collections, their versions; open, rename, archive, delete, restore or
share one; the audit log. Only what the person may see is listed, and only what their role allows is offered."""

from __future__ import annotations

import streamlit as st

from dashboard import pages, widgets
from dashboard.data.claim_checks import flipped_counts
from dashboard.panels import sharing
from dashboard.server import identity
from dashboard.store import opened
from dashboard.widgets import md
from metrics import RankscopeError

OWNERS_ONLY = "Only the collection's owners may do this."

st.title("Collections")
widgets.start_here("Every collection saved in the shared workspace that you may see, newest first. Open one to "
                   "evaluate it (its link opens it anywhere); uploading files on the data page saves a new one (or "
                   "opens the one that holds them), and a later change saves a new version of it: what one person "
                   "changes in one sitting is one version.")
try:
    ws = opened.store()
except RankscopeError:  # the workspace cannot be opened: sync.begin() has said why, in one line
    st.stop()
if ws is None:
    st.info("No workspace is configured: start the dashboard with `rankscope dashboard --workspace FOLDER`.")
    st.stop()
sharing.mode_line(ws.actor)

cols = st.columns([3, 1], vertical_alignment="bottom")
query = cols[0].text_input("Search", key="collections_search", placeholder="name, author, system or id")
archived = cols[1].toggle("Show archived", key="collections_archived")
try:
    listed = ws.collections(archived=archived)
    roles = ws.roles()
except RankscopeError as err:
    widgets.error(err)
    st.stop()
names = {c.id: c for c in listed}
words = query.strip().lower().split()
shown = [c for c in listed
         if all(any(w in field.lower() for field in (c.name, c.created_by, c.id, *c.systems)) for w in words)]

TABLE = {"name": "name", "id": st.column_config.TextColumn("id", width="medium", help="The id of the version: "
                                                            "its link is ?collection=ID"),
         "version": "version", "parent": "parent", "created_by": "created by",
         "created_at": "created (UTC)", "size": st.column_config.NumberColumn("size (bytes)", format="localized"),
         "systems": "systems", "topics": "topics", "archived": "archived", "role": "your role",
         "flipped": st.column_config.NumberColumn("flipped claims", help="Claims of its notes whose status on this "
                                                  "version differs from the one on the version they were saved on")}
try:
    flipped = flipped_counts(shown)
except RankscopeError as err:  # shown without the counts, and why
    flipped = {}
    widgets.error(err)
rows = [{"name": c.name, "id": c.id, "version": c.version, "parent": (names[c.parent].name + f" v{names[c.parent].version}"
                                                          if c.parent in names else c.parent or ""),
         "created_by": c.created_by, "created_at": c.created_at[:19].replace("T", " "), "size": c.size,
         "systems": ", ".join(c.systems), "topics": c.topics, "archived": c.archived,
         "role": sharing.role_label(ws.actor, roles, c.lineage), "flipped": flipped.get(c.id)} for c in shown]
st.dataframe(rows, hide_index=True, width="stretch", column_config=TABLE, key="collections_table")
st.caption(widgets.scrolls(list(TABLE)))
st.caption(md("{} of {} collection{}{}.", len(shown), len(listed), "s" * (len(listed) != 1),
              " (archived included)" if archived else ""))

who = identity.author()
act = sharing.acting(who, "collections_confirm", undo_key="collections_renamed")
renamed = st.session_state.get("collections_renamed")  # (id, old name, new name) of the last rename
if renamed and renamed[0] in names:
    note, undo = st.columns([4, 1], vertical_alignment="center")
    note.success(md("Renamed {} to {} ({}).", renamed[1], renamed[2], renamed[0]), icon=":material/edit:")
    if undo.button("Undo the rename", key="collections_undo", icon=":material/undo:"):
        act(lambda: ws.rename(renamed[0], renamed[1], author=who), "Name restored.")

labels = {c.id: f"{c.name} · v{c.version} · {c.created_by} · {c.id}" for c in shown}
ids = list(labels)
last = st.session_state.get("collections_last")  # this session's own choice, kept when a rename relabels it
chosen = st.selectbox("Collection", ids, format_func=labels.get, key="collections_chosen",
                      index=ids.index(last) if last in ids else None,
                      placeholder="Choose a collection to open, rename, archive or delete")
st.session_state["collections_last"] = chosen
if chosen is not None and chosen in names:
    info = names[chosen]
    st.code(chosen, language=None)  # the full id, to copy
    versions = [c for c in listed if c.id == info.parent or c.parent == info.id]
    if versions:
        st.caption("Linked versions")
        for c in versions:
            st.page_link(pages.by_script("overview").path, label=md("{} v{} ({})", c.name, c.version, c.id),
                         query_params={opened.PARAM: c.id}, icon=":material/account_tree:")
    try:
        allowed = ws.allowed(chosen)
    except RankscopeError as err:
        widgets.error(err)
        st.stop()
    left, mid, right, last = st.columns(4, vertical_alignment="bottom")
    left.page_link(pages.by_script("overview").path, label="Open", query_params={opened.PARAM: chosen},
                   icon=":material/open_in_new:")
    new_name = mid.text_input("New name", value=info.name, key=f"collections_name_{chosen}", max_chars=200,
                              disabled="rename" not in allowed)
    if (mid.button("Rename", key="collections_rename", icon=":material/edit:", disabled="rename" not in allowed,
                   help=None if "rename" in allowed else OWNERS_ONLY) and new_name.strip() != info.name):
        act(lambda: ws.rename(chosen, new_name.strip(), author=who), "Renamed.",
            undo=(chosen, info.name, new_name.strip()))
    if right.button("Unarchive" if info.archived else "Archive", key="collections_archive", icon=":material/archive:",
                    disabled="archive" not in allowed,
                    help=None if "archive" in allowed else OWNERS_ONLY):
        act(lambda: ws.archive(chosen, not info.archived, author=who), "Unarchived." if info.archived else "Archived.")
    if last.button("Delete…", key="collections_delete", icon=":material/delete:", disabled="delete" not in allowed,
                   help=None if "delete" in allowed else OWNERS_ONLY):
        st.session_state["collections_confirm"] = chosen
    if st.session_state.get("collections_confirm") == chosen:
        st.warning(md("Delete {} v{}? Its link will stop working; it can be restored below for {}.", info.name,
                      info.version, sharing.undo_window()), icon=":material/warning:")
        yes, no = st.columns(2)
        if yes.button("Yes, delete it", key="collections_delete_yes", type="primary"):
            act(lambda: ws.delete(chosen, author=who), "Deleted.")
        if no.button("Cancel", key="collections_delete_no"):
            st.session_state.pop("collections_confirm", None)
            st.rerun()
    if ws.actor is not None and ws.actor.checked:
        sharing.members_editor(ws, chosen, allowed, act)

sharing.deleted_list(ws, act)
sharing.audit_log(ws)
