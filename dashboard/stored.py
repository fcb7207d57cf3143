"""The one place the dashboard talks to the shared workspace: stored collections, links and review notes.

The workspace is used when ``$RANKSCOPE_WORKSPACE`` names one (``rankscope dashboard`` sets it, by default
to ``./rankscope-workspace``) and the workspace extra is installed; otherwise everything stays in the
browser session. It is opened
once per server process and seeded, when empty, with the demo collection and the worked examples.

Every page run (see :func:`begin`) the session's collection follows the URL's ``?collection=ID``: a link
opened anywhere shows the same stored collection, and the id is put back in the URL after a change of
page. A collection whose files changed (an upload, a removed run), or whose conventions, texts or system
names changed, is saved as a new version, and the URL switches to it. Files are parsed once per server
process (:func:`parse`, inside the guard's worker for large ones): the store is handed the parse, it does
not parse again. Review notes are read from the store on every run, never kept between runs, so everyone
sees the others' notes on their next rerun.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace

import numpy as np
import pandas as pd
import streamlit as st

import metrics
from dashboard import guard, state
from metrics import Conventions, RankscopeError
from metrics.errors import ValidationError

try:
    from workspace import Note, StoredCollection, UnknownCollection, Workspace, open_workspace
    _INSTALLED = True
except ImportError:  # the workspace extra (sqlalchemy) is not installed: everything stays in the session
    _INSTALLED = False

__all__ = ["ENV", "PARAM", "author", "author_input", "begin", "enabled", "heads", "history",
           "loaded_of", "notes_frame", "parse", "parsed_qrels", "parsed_run", "put_notes", "run_table", "save_note",
           "store"]

ENV = "RANKSCOPE_WORKSPACE"
PARAM = "collection"  # the URL's query parameter holding the collection id
DEMO = "Demo collection"
EXAMPLE = "Worked example: {}"
SEEDED = "seeded with the demo collection"  # the store's marker of the seeding, recorded once per workspace
_AUTHOR = "rankscope_author"
_MISSING = "rankscope_missing"  # the message about a link's unknown collection, for this run
_UNSAVED = "rankscope_unsaved"  # (files key, message) of a save that failed: not tried again for the same files
_HEADS = "rankscope_note_heads"
_SHOWN = "rankscope_collection_shown"  # the id last put in (or taken from) the URL
_STORED_AS = "rankscope_stored_as"  # (id, what it holds): the stored version the session's collection came from
FILES_KEPT, FILES_TTL = 32, "1h"  # parsed files kept per server process, and for how long


def enabled() -> bool:
    """Whether a workspace is configured (``$RANKSCOPE_WORKSPACE``) and the workspace extra installed."""
    return _INSTALLED and bool(os.environ.get(ENV))


@st.cache_resource(show_spinner=False)
def _open(location: str) -> Workspace:
    ws = open_workspace(location)
    if not ws.collections(archived=True):
        _seed(ws)
    return ws


def store() -> Workspace | None:
    """The workspace of this server process, or None when none is configured.

    Raises
    ------
    workspace.StoreUnavailable
        The workspace cannot be opened.
    """
    return _open(os.environ[ENV]) if enabled() else None


def _seed(ws: Workspace) -> None:
    """The demo collection and the worked examples, as the first collections of an empty workspace.

    Added in one transaction with the workspace's :data:`SEEDED` marker, so that two server processes
    opening one empty workspace at once do not both seed it.
    """
    from sample_data import teaching_examples

    bundled = [(DEMO, state.demo())]
    bundled += [(EXAMPLE.format(name), state.example(name)) for name in teaching_examples()]
    ws.add_collections_once(SEEDED, [{"name": name, "qrels": (loaded.qrels.name, loaded.qrels.data),
                                      "runs": [(up.name, up.data) for _, up in loaded.runs]}
                                     for name, loaded in bundled], author="rankscope")


def _bundled_id(ws: Workspace, loaded: state.Loaded) -> str | None:
    """The stored copy of the demo or a worked example, by name and content."""
    name = DEMO if loaded.source == "demo" else EXAMPLE.format(loaded.source.split(":", 1)[1])
    for info in reversed(ws.collections(archived=True)):  # the oldest: the seeded one
        if info.name == name:
            stored = ws.load(info.id)
            if stored.qrels.sha256 == loaded.qrels.digest:
                return info.id
    return None


# ---- authors --------------------------------------------------------------------------------------------
def author() -> str | None:
    """Who writes: the logged-in user (Streamlit OIDC login) or the name typed in the sidebar."""
    user = getattr(st, "user", None)
    if user is not None and getattr(user, "is_logged_in", False):
        return str(user.get("email") or user.get("name") or "").strip() or None
    return (st.session_state.get(_AUTHOR) or "").strip() or None


def author_input() -> None:
    """The sidebar's name field (once per browser session), unless a login names the author."""
    if not enabled():
        return
    user = getattr(st, "user", None)
    if user is not None and getattr(user, "is_logged_in", False):
        st.caption("Signed in as")
        st.text(author() or "")
        return
    st.text_input("Your name (for notes and saved collections)", key=_AUTHOR, max_chars=100,
                  help="Shown beside what you save in the shared workspace; asked once per browser session.")


# ---- collections ----------------------------------------------------------------------------------------
def loaded_of(stored: StoredCollection, like: state.Loaded | None = None) -> state.Loaded:
    """A stored collection as the session's :class:`~dashboard.state.Loaded`; bytes are read on first use.

    Its conventions, texts and system names are the stored version's. ``like``: the session's collection,
    whose source (the demo, a worked example) is kept when it holds the same qrels.
    """
    def upload(f):
        return state.Upload.stored(f.name, f.sha256, f.size, f.read)

    runs = tuple((f.system, upload(f)) for f in stored.runs)
    conventions = Conventions.coerce(**stored.conventions) if stored.conventions else Conventions()
    topics = upload(stored.topics) if stored.topics else None
    documents = upload(stored.documents) if stored.documents else None
    source = "uploads"
    if like is not None and like.qrels is not None and like.qrels.digest == stored.qrels.sha256 and like.bundled:
        source = like.source
    return state.Loaded(qrels=upload(stored.qrels), runs=runs, conventions=conventions, source=source,
                        topics=topics, documents=documents, collection=stored.info.id)


def _held(loaded: state.Loaded) -> tuple:
    """What a stored version holds that a session can change without changing files: names and texts. The
    conventions a session chooses stay in the session (a link opens the version's own)."""
    return (loaded.key[:2], loaded.topics.digest if loaded.topics else None,
            loaded.documents.digest if loaded.documents else None)


def _opened(loaded: state.Loaded) -> state.Loaded:
    """Remember the stored version a session's collection is (to save what the session changes in it)."""
    st.session_state[_STORED_AS] = (loaded.collection, _held(loaded))
    return loaded


def _changed(loaded: state.Loaded) -> bool:
    """Whether the session changed the names, conventions or texts of the stored version it opened."""
    opened = st.session_state.get(_STORED_AS)
    return (bool(loaded.collection) and not loaded.bundled and opened is not None
            and opened[0] == loaded.collection and opened[1] != _held(loaded))


def _parsed_files(loaded: state.Loaded, runs) -> dict:
    """``{sha256: parse}`` of the qrels and ``runs``, parsed once (:func:`parse`) and handed to the store."""
    found = {up.digest: parse("run", up) for up in runs}
    if loaded.qrels is not None:
        found[loaded.qrels.digest] = parse("qrels", loaded.qrels)
    return found


def _save_changes(ws: Workspace, loaded: state.Loaded, who: str) -> state.Loaded:
    """A new version of the stored collection with the session's system names and texts."""
    old = ws.load(loaded.collection)
    names = {f.sha256: f.system for f in old.runs}
    renames = {names[up.digest]: name for name, up in loaded.runs if names.get(up.digest, name) != name}
    texts = {}
    for role, up, before in (("topics", loaded.topics, old.topics), ("documents", loaded.documents, old.documents)):
        if up is not None and (before is None or before.sha256 != up.digest):
            texts[role] = (up.name, up.data)
    if not renames and not texts:  # nothing the stored version does not hold already
        return replace(loaded_of(old, loaded), conventions=loaded.conventions)
    info = ws.new_version(old.info.id, rename_systems=renames, author=who, **texts)
    return replace(loaded_of(ws.load(info.id), loaded), conventions=loaded.conventions)


def _save(ws: Workspace, loaded: state.Loaded, who: str) -> state.Loaded:
    """Store the session's files: a new version of their parent when the qrels are the same, else new."""
    if _changed(loaded):
        return _save_changes(ws, loaded, who)
    parent = None
    if loaded.parent:
        try:
            parent = ws.load(loaded.parent)
        except UnknownCollection:
            parent = None
    if parent is not None and parent.qrels.sha256 == loaded.qrels.digest:
        have = {f.sha256 for f in parent.runs}
        keep = {up.digest for _, up in loaded.runs}
        added = [up for _, up in loaded.runs if up.digest not in have]
        removed = [f.system for f in parent.runs if f.sha256 not in keep]
        if not added and not removed:  # a rerun that saved these runs already: the version holding them
            return loaded_of(parent, loaded)
        info = ws.new_version(parent.info.id, author=who, add_runs=[(up.name, up.data) for up in added],
                              remove_systems=removed, parsed=_parsed_files(replace(loaded, qrels=None), added))
    else:
        name = loaded.qrels.name.rsplit(".", 1)[0] if "." in loaded.qrels.name else loaded.qrels.name
        topics, documents = ((up.name, up.data) if up else None for up in (loaded.topics, loaded.documents))
        info = ws.add_collection(name, qrels=(loaded.qrels.name, loaded.qrels.data),
                                 runs=[(up.name, up.data) for _, up in loaded.runs],
                                 conventions=loaded.conventions.as_dict(), author=who, topics=topics,
                                 documents=documents,
                                 parsed=_parsed_files(loaded, [up for _, up in loaded.runs]))
    return loaded_of(ws.load(info.id), loaded)


def _sync(ws: Workspace, loaded: state.Loaded) -> state.Loaded:
    """The session's collection, stored when it is not yet (or the reason it is not, shown once per run)."""
    from dashboard.components import md  # components reads this module: imported when called

    if (loaded.collection and not _changed(loaded)) or not loaded.ready:
        return loaded
    if loaded.bundled:
        found = _bundled_id(ws, loaded)
        return replace(loaded, collection=found) if found else loaded
    if loaded.source != "uploads":
        return loaded
    failed = st.session_state.get(_UNSAVED)
    if failed and failed[0] == _held(loaded):
        st.error(md("The files are loaded but not saved in the workspace: {}", failed[1]), icon=":material/cloud_off:")
        return loaded
    who = author()
    if who is None:
        st.warning("Not saved in the workspace yet: type your name in the sidebar to save these files.",
                   icon=":material/person:")
        return loaded
    try:
        with st.spinner("Saving the collection in the workspace…", show_time=True):
            return _opened(_save(ws, loaded, who))
    except RankscopeError as err:
        reason = str(err).splitlines()[0]
        st.session_state[_UNSAVED] = (_held(loaded), reason)
        st.error(md("The files are loaded but not saved in the workspace: {}", reason), icon=":material/cloud_off:")
        return loaded


def begin() -> state.Loaded | None:
    """Each run, before the page: follow the link's collection, save changed files, keep the id in the URL.

    Returns the session's collection, or None when the link names a collection that does not exist (the
    message is shown; the caller shows nothing that would pretend to be that collection).
    """
    from dashboard.components import md  # components reads this module: imported when called

    st.session_state.pop(_HEADS, None)
    if not enabled():
        return state.get()
    try:
        ws = store()
    except RankscopeError as err:
        st.error(md("The workspace cannot be opened: {}", str(err).splitlines()[0]), icon=":material/cloud_off:")
        return state.get()
    loaded = state.get()
    wanted = st.query_params.get(PARAM)
    if wanted and wanted != loaded.collection and wanted != st.session_state.get(_SHOWN):
        try:  # a link (or an edited URL) names a collection: open it
            loaded = _opened(loaded_of(ws.load(wanted), loaded))
            st.session_state.pop(_UNSAVED, None)
            st.session_state[_SHOWN] = wanted
        except UnknownCollection as err:
            st.error(md("{}", str(err).splitlines()[0]), icon=":material/link_off:")
            return None
        except RankscopeError as err:
            st.error(md("The workspace cannot be read: {}", str(err).splitlines()[0]), icon=":material/cloud_off:")
            return None
    loaded = _sync(ws, loaded)
    if loaded is not state.get():
        state.put(loaded)
    if loaded.collection:
        st.session_state[_SHOWN] = loaded.collection
        if st.query_params.get(PARAM) != loaded.collection:
            st.query_params[PARAM] = loaded.collection
        _refresh_notes(ws, loaded)
    return loaded


def parsed_run(digest: str):
    """The workspace's cached parse of the run with this SHA-256, or None (not stored, or no workspace)."""
    return _parsed("parsed_run", digest)


def parsed_qrels(digest: str):
    """The workspace's cached parse of the qrels with this SHA-256, or None."""
    return _parsed("parsed_qrels", digest)


@st.cache_resource(max_entries=FILES_KEPT, ttl=FILES_TTL, show_spinner=False)
def _parse(kind: str, digest: str, name: str, _upload: state.Upload):
    cached = _parsed("parsed_run" if kind == "run" else "parsed_qrels", digest)  # a stored file: its cache
    if cached is not None:
        return cached
    return guard.parse(metrics.read_run if kind == "run" else metrics.read_qrels, _upload.data, name)


def parse(kind: str, upload: state.Upload):
    """The run (``kind="run"``, named after its file) or qrels of an upload, parsed once per content in this
    server process: from the workspace's cache when it is stored, else by :func:`dashboard.guard.parse`.

    Raises
    ------
    metrics.ParseError, dashboard.guard.LimitError
    """
    return _parse(kind, upload.digest, upload.name, upload)


def _parsed(method: str, digest: str):
    if not enabled():
        return None
    try:
        return getattr(store(), method)(digest)
    except RankscopeError:  # unreadable cache or store: the caller parses the bytes itself
        return None


def run_table(kind: str, loaded: state.Loaded, system: str, upload: state.Upload, options: dict,
              compute: Callable[[], pd.DataFrame]) -> pd.DataFrame:
    """A table of one run (its ``system`` column first) computed by ``compute()``, or read back from the
    workspace for a stored collection.

    The workspace keeps the table beside the stored files, keyed on what it depends on: ``kind``, the
    digests of the qrels and the run, the conventions, the release and ``options`` (JSON values: the
    measures...). So a server that restarts reads it back instead of ranking and evaluating the run again;
    a table kept under another system name gets this one. Sessions whose files are not stored compute it,
    as does any session when the workspace cannot be read or written.
    """
    if not (enabled() and loaded.collection):
        return compute()
    inputs = {"qrels": loaded.qrels.digest, "run": upload.digest, "conventions": loaded.conventions.as_dict(),
              "rankscope": metrics.__version__, **options}  # another release may compute other numbers
    try:
        ws = store()
        found = ws.derived_frame(kind, inputs)
    except RankscopeError:
        return compute()
    if found is not None and "system" in found.columns:
        found["system"] = pd.array(np.full(len(found), system, dtype=object), dtype=found["system"].dtype)
        return found
    table = compute()
    try:
        ws.keep_derived_frame(kind, inputs, table)
    except RankscopeError:  # not kept: computed again next time
        pass
    return table


# ---- review notes ---------------------------------------------------------------------------------------
def _refresh_notes(ws: Workspace, loaded: state.Loaded) -> None:
    """The collection's current notes, read now (never kept from an earlier run)."""
    from dashboard.components import md  # components reads this module: imported when called

    try:
        found = ws.notes(loaded.collection)
    except RankscopeError as err:
        st.error(md("The review notes cannot be read: {}", str(err).splitlines()[0]), icon=":material/cloud_off:")
        found = []
    st.session_state[_HEADS] = found
    merged: dict[str, dict] = {}
    for note in found:
        entry = merged.setdefault(note.topic, {"tags": [], "comment": ""})
        entry["tags"] += [t.strip() for t in note.tag.split(",") if t.strip() and t.strip() not in entry["tags"]]
        if note.comment:
            entry["comment"] = "\n---\n".join(filter(None, [entry["comment"], note.comment]))
    state.put_notes({t: n for t, n in merged.items() if n["tags"] or n["comment"]})


def heads() -> list[Note] | None:
    """The current notes of the stored collection (read this run), or None when it is not stored."""
    return st.session_state.get(_HEADS)


def notes_frame(notes: list[Note]) -> pd.DataFrame:
    """Notes as a table: topic, system, tags, comment, author, time, revision (plain text)."""
    rows = [(n.topic, n.system or "", n.tag, n.comment, n.author, n.created_at[:19].replace("T", " "), n.revision)
            for n in notes]
    return pd.DataFrame(rows, columns=["topic", "system", "tags", "comment", "author", "saved (UTC)", "revision"])


def save_note(loaded: state.Loaded, topic: str, system: str | None, tags, comment: str,
              base: int | list[int] | None) -> None:
    """Save one note: in the workspace for a stored collection (a new revision), else in the session.

    ``base``: the revision edited, or the revisions a merge replaces, or None for a new note.

    Raises
    ------
    metrics.RankscopeError
        No author yet, a note too long, or the workspace cannot be written.
    """
    from dashboard import exports

    tags = [t.strip() for t in (tags.split(",") if isinstance(tags, str) else tags) if t.strip()]
    if not (enabled() and loaded.collection):
        if system is not None:
            raise ValidationError("notes on one system need a collection saved in the workspace")
        state.put_notes(exports.set_note(state.notes(), topic, tags, comment))
        return
    who = author()
    if who is None:
        raise ValidationError("type your name in the sidebar before saving a note")
    store().save_note(loaded.collection, topic, system, ", ".join(tags), comment, author=who, base=base)


def history(loaded: state.Loaded, topic: str, system: str | None) -> list[Note]:
    """Every revision of one note, oldest first (empty when the collection is not stored)."""
    if not (enabled() and loaded.collection):
        return []
    return store().note_history(loaded.collection, topic, system)


def put_notes(loaded: state.Loaded, notes: dict) -> None:
    """Notes read from a session file: each one saved (a stored collection) or the session's notes replaced."""
    if not (enabled() and loaded.collection):
        state.put_notes(notes)
        return
    current = {(n.topic, n.system): n for n in (heads() or [])}
    for topic, note in notes.items():
        old = current.get((topic, None))
        tag, comment = ", ".join(note["tags"]), note["comment"]
        if old is None or (old.tag, old.comment) != (tag, comment):
            save_note(loaded, topic, None, note["tags"], comment, old.revision if old else None)

