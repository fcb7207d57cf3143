"""The parts of the collections page that a team server needs: the access mode, the members of a collection
and their roles, the deleted collections that can still be restored, and the audit log.

Every action goes through the store, which asks :mod:`workspace.access` whether the person may do it; the
buttons here are only disabled ahead of that, for the same rule (:meth:`workspace.Workspace.allowed`).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

import pandas as pd
import streamlit as st

from dashboard import widgets
from dashboard.server import config, identity
from metrics import RankscopeError

__all__ = ["acting", "audit_log", "deleted_list", "members_editor", "mode_line", "role_label", "undo_window"]

ROLES = {"viewer": "viewer: opens it, reads its notes",
         "assessor": "assessor: also judges the documents a judging task deals them",
         "editor": "editor: also adds versions and writes notes",
         "owner": "owner: also renames, archives, deletes and shares it",
         None: "no role: takes this person's role away"}
LOG_SHOWN = 200  # entries of the audit log on the page (`rankscope workspace log` prints them all)


def mode_line(actor) -> None:
    """Which mode the server runs in, and who this session acts as."""
    if identity.mode() == "login":
        who = actor.name if actor is not None else "nobody"
        st.caption(":material/lock: **Login server.** You see the collections shared with you and act by your role "
                   + widgets.md("on each; signed in as {}", who)
                   + (" (administrator: every collection, every action)." if actor and actor.admin else "."))
    else:
        st.caption(":material/lock_open: **Open server.** Everyone who can reach it may open, change, delete and "
                   "restore every collection; the names beside changes are typed, not checked.")


def role_label(actor, roles: dict[str, str] | None, lineage: str) -> str:
    """The role shown beside a collection: the person's, ``administrator``, or empty in the open mode."""
    if roles is None:
        return "administrator" if actor is not None and actor.admin else ""
    return roles.get(lineage, "")


def undo_window() -> str:
    """The undo window, in words."""
    hours = config.undo_hours()
    return f"{hours / 24:g} days" if hours >= 48 else f"{hours:g} hours"


def acting(who: str | None, confirm_key: str, undo_key: str | None = None) -> Callable[..., None]:
    """A runner of one change: a store error (a refusal included) is shown as one line and nothing changes.

    ``act(action, done, undo=None)``: after a change, ``undo`` (what the next run offers to undo, such as a
    rename's id, old and new names) is kept under ``undo_key``, and nothing when it is None.
    """
    def act(action: Callable[[], object], done: str, undo: object = None) -> None:
        if who is None:
            st.error("Type your name in the sidebar first.", icon=":material/person:")
            return
        try:
            action()
        except RankscopeError as err:
            widgets.error(err)
            return
        st.session_state.pop(confirm_key, None)
        if undo_key is not None:
            st.session_state[undo_key] = undo
        st.toast(widgets.md("{}", done))
        st.rerun()
    return act


def members_editor(ws, cid: str, allowed: frozenset[str], act) -> None:
    """Who holds which role on every version of ``cid``; owners give, change and take roles."""
    with st.expander("Members and roles", icon=":material/group:", expanded=False):
        try:
            members = ws.members(cid)
        except RankscopeError as err:
            widgets.error(err)
            return
        frame = pd.DataFrame({"identity": list(members), "role": list(members.values())})
        frame["identity"] = frame["identity"].replace("*", "* (everyone signed in)")
        st.dataframe(frame, hide_index=True, width="stretch", key="collections_members")
        if "share" not in allowed:
            st.caption("Only the collection's owners (and administrators) may give or take roles.")
            return
        with st.form("collections_share", border=False):
            left, right = st.columns(2, vertical_alignment="bottom")
            who = left.text_input("Identity (e-mail address, or * for everyone signed in)", key="collections_share_who",
                                  max_chars=256)
            role = right.selectbox("Role", list(ROLES), format_func=ROLES.get, key="collections_share_role")
            if st.form_submit_button("Give this role", icon=":material/person_add:"):
                act(lambda: ws.share(cid, who, role, author=identity.author()), "Roles changed.")


def deleted_list(ws, act) -> None:
    """The deleted collections this person may restore, until the purge removes their files."""
    try:
        deleted = ws.deleted()
    except RankscopeError as err:
        widgets.error(err)
        return
    with st.expander(widgets.md("Deleted collections ({})", len(deleted)), icon=":material/restore_from_trash:"):
        st.caption(widgets.md("A deleted collection can be restored for {}; then its files are removed.",
                              undo_window()))
        if not deleted:
            return
        hours = config.undo_hours()
        until = {e.collection: (datetime.fromisoformat(e.at) + timedelta(hours=hours)).strftime("%Y-%m-%d %H:%M")
                 for e in deleted}
        labels = {e.collection: f"{e.name} · v{e.version} · deleted by {e.author} · restorable until "
                                f"{until[e.collection]} UTC · {e.collection}" for e in deleted}
        chosen = st.selectbox("Deleted collection", list(labels), format_func=labels.get, key="collections_deleted")
        if st.button("Restore", key="collections_restore", icon=":material/restore_from_trash:"):
            act(lambda: ws.restore(chosen, author=identity.author()), "Restored.")


def audit_log(ws) -> None:
    """Every rename, archive, deletion, restore, purge and role change of what this person may see."""
    with st.expander("Audit log", icon=":material/history:"):
        try:
            events = ws.log(limit=LOG_SHOWN)
        except RankscopeError as err:
            widgets.error(err)
            return
        st.caption(widgets.md("The latest {} changes at most, newest first; ", LOG_SHOWN)
                   + "`rankscope workspace log` prints all.")
        st.dataframe(pd.DataFrame([{"when (UTC)": e.at[:19].replace("T", " "), "who": e.author, "action": e.action,
                                    "collection": f"{e.name} v{e.version}", "detail": e.detail, "id": e.collection}
                                   for e in events],
                                  columns=["when (UTC)", "who", "action", "collection", "detail", "id"]),
                     hide_index=True, width="stretch", key="collections_log")
