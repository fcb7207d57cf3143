"""Collections: the workspace's stored collections, their versions; open, rename, archive or delete one."""

from __future__ import annotations

import streamlit as st

from dashboard import components, state, stored
from dashboard.components import md
from metrics import RankscopeError

st.title("Collections")
components.start_here("Every collection saved in the shared workspace, newest first. Open one to evaluate it "
                      "(its link opens it anywhere); uploading files on the data page saves a new one, and "
                      "adding or removing a run saves a new version of it.")
try:
    ws = stored.store()
except RankscopeError:  # the workspace cannot be opened: stored.begin() has said why, in one line
    st.stop()
if ws is None:
    st.info("No workspace is configured: start the dashboard with `rankscope dashboard --workspace FOLDER`.")
    st.stop()

cols = st.columns([3, 1], vertical_alignment="bottom")
query = cols[0].text_input("Search", key="collections_search", placeholder="name, author, system or id")
archived = cols[1].toggle("Show archived", key="collections_archived")
try:
    listed = ws.collections(archived=archived)
except RankscopeError as err:
    components.error(err)
    st.stop()
names = {c.id: c for c in listed}
words = query.strip().lower().split()
shown = [c for c in listed
         if all(any(w in field.lower() for field in (c.name, c.created_by, c.id, *c.systems)) for w in words)]

current = state.get().collection
TABLE = {"name": "name", "version": "version", "parent": "parent", "created_by": "created by",
         "created_at": "created (UTC)", "size": st.column_config.NumberColumn("size (bytes)", format="localized"),
         "systems": "systems", "topics": "topics", "archived": "archived", "id": "id"}
rows = [{"name": c.name, "version": c.version, "parent": (names[c.parent].name + f" v{names[c.parent].version}"
                                                          if c.parent in names else c.parent or ""),
         "created_by": c.created_by, "created_at": c.created_at[:19].replace("T", " "), "size": c.size,
         "systems": ", ".join(c.systems), "topics": c.topics, "archived": c.archived, "id": c.id} for c in shown]
st.dataframe(rows, hide_index=True, width="stretch", column_config=TABLE, key="collections_table")
st.caption(md("{} of {} collection{}{}.", len(shown), len(listed), "s" * (len(listed) != 1),
              " (archived included)" if archived else ""))
if not shown:
    st.stop()

labels = {c.id: f"{c.name} · v{c.version} · {c.created_by} · {c.id}" for c in shown}
ids = list(labels)
chosen = st.selectbox("Collection", ids, format_func=labels.get, key="collections_chosen",
                      index=ids.index(current) if current in ids else 0)
info = names[chosen]
versions = [c for c in listed if c.id == info.parent or c.parent == info.id]
if versions:
    st.caption("Linked versions")
    for c in versions:
        st.page_link("app_pages/overview.py", label=md("{} v{} ({})", c.name, c.version, c.id),
                     query_params={stored.PARAM: c.id}, icon=":material/account_tree:")

who = stored.author()
left, mid, right, last = st.columns(4, vertical_alignment="bottom")
left.page_link("app_pages/overview.py", label="Open", query_params={stored.PARAM: chosen},
               icon=":material/open_in_new:")
new_name = mid.text_input("New name", value=info.name, key=f"collections_name_{chosen}", max_chars=200)


def _act(action, done: str) -> None:
    """Run one change; a store error is shown as one line and nothing else changes."""
    if who is None:
        st.error("Type your name in the sidebar first.", icon=":material/person:")
        return
    try:
        action()
    except RankscopeError as err:
        components.error(err)
        return
    st.session_state.pop("collections_confirm", None)
    st.toast(md("{}", done))
    st.rerun()


if mid.button("Rename", key="collections_rename", icon=":material/edit:") and new_name.strip() != info.name:
    _act(lambda: ws.rename(chosen, new_name.strip(), author=who), "Renamed.")
if right.button("Unarchive" if info.archived else "Archive", key="collections_archive", icon=":material/archive:"):
    _act(lambda: ws.archive(chosen, not info.archived, author=who), "Unarchived." if info.archived else "Archived.")
if last.button("Delete…", key="collections_delete", icon=":material/delete:"):
    st.session_state["collections_confirm"] = chosen
if st.session_state.get("collections_confirm") == chosen:
    st.warning(md("Delete {} v{}? Its link will stop working.", info.name, info.version),
               icon=":material/warning:")
    yes, no = st.columns(2)
    if yes.button("Yes, delete it", key="collections_delete_yes", type="primary"):
        _act(lambda: ws.delete(chosen, author=who), "Deleted.")
    if no.button("Cancel", key="collections_delete_no"):
        st.session_state.pop("collections_confirm", None)
        st.rerun()
