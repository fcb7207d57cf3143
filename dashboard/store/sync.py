"""The session's collection and the stored one: each page run (:func:`begin`) the collection follows the
URL's ``?collection=ID`` (a link opened anywhere shows the same stored collection, and the id is put back in
the URL after a change of page); a collection whose files changed (an upload, a removed run), or whose
conventions, texts or system names changed, is saved as a new version, and the URL switches to it. Review
notes are read from the store on every run, never kept between runs, so everyone sees the others' notes on
their next rerun (:mod:`dashboard.store.review_notes` reads them back).
"""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from dashboard.server import identity
from dashboard.session import state
from dashboard.session.user_text import md
from dashboard.store.opened import PARAM, bundled_id, enabled, store
from dashboard.store.parsed import parse
from metrics import Conventions, RankscopeError

try:
    from workspace import NoAccess, Note, StoredCollection, UnknownCollection, Workspace
except ImportError:  # the workspace extra (sqlalchemy) is not installed: everything stays in the session
    pass

__all__ = ["begin", "loaded_of", "may", "still_shown"]

_MISSING = "rankscope_missing"  # the message about a link's unknown collection, for this run
_UNSAVED = "rankscope_unsaved"  # (files key, message) of a save that failed: not tried again for the same files
HEADS = "rankscope_note_heads"  # the collection's current notes, read this run (review_notes reads them back)
_ALLOWED = "rankscope_allowed"  # the actions this session may do with its stored collection, read this run
_SHOWN = "rankscope_collection_shown"  # the id last put in (or taken from) the URL
_STORED_AS = "rankscope_stored_as"  # (id, what it holds): the stored version the session's collection came from
_MADE = "rankscope_made"  # ids of the versions this browser session made: its next change may amend them
_FOUND = "rankscope_found"  # the stored collection an upload turned out to be, to say so once


# ---- what this session may do -------------------------------------------------------------------------
def may(action: str) -> bool:
    """Whether this session may do ``action`` (:data:`workspace.access.ACTIONS`) with its stored collection,
    as read this run; always for a collection that is not stored, or in the open mode."""
    found = st.session_state.get(_ALLOWED)
    return found is None or action in found


# ---- collections ----------------------------------------------------------------------------------------
def loaded_of(stored: StoredCollection, like: state.Loaded | None = None) -> state.Loaded:
    """A stored collection as the session's :class:`~dashboard.session.state.Loaded`; bytes are read on first use.

    Its conventions, texts and system names are the stored version's. ``like``: the session's collection,
    whose source (the demo, a worked example) is kept when it holds the same qrels.
    """
    def upload(f):
        return state.Upload.stored(f.name, f.sha256, f.size, f.read)

    runs = tuple((f.system, upload(f)) for f in stored.runs)
    conventions = Conventions.coerce(**stored.conventions) if stored.conventions else Conventions()
    topics = upload(stored.topics) if stored.topics else None
    documents = upload(stored.documents) if stored.documents else None
    judges = tuple((name, upload(f)) for name, f in stored.judgment_sets) if stored.judgments else ()
    source = "uploads"
    if like is not None and like.qrels is not None and like.qrels.digest == stored.qrels.sha256 and like.bundled:
        source = like.source
    return state.Loaded(qrels=judges[0][1] if judges else upload(stored.qrels), runs=runs, conventions=conventions,
                        source=source, topics=topics, documents=documents, collection=stored.info.id, judges=judges)


def _held(loaded: state.Loaded) -> tuple:
    """What a stored version holds that a session can change without changing files: names and texts. The
    conventions a session chooses stay in the session (a link opens the version's own)."""
    return (loaded.key[1], tuple((name, up.digest) for name, up in state.judgment_sets(loaded)),
            loaded.topics.digest if loaded.topics else None, loaded.documents.digest if loaded.documents else None)


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
    """``{sha256: parse}`` of the judgment sets and ``runs``, parsed once (:func:`parse`) and handed to the store."""
    found = {up.digest: parse("run", up) for up in runs}
    if loaded.qrels is not None:
        found.update({up.digest: parse("qrels", up) for _, up in state.judgment_sets(loaded)})
    return found


def _made(info):
    """Remember that this session made version ``info`` (its next change may amend it)."""
    st.session_state.setdefault(_MADE, set()).add(info.id)
    return info


def _mine(cid: str) -> bool:
    """Whether this browser session made version ``cid`` (see :mod:`workspace.versions`: one sitting, one
    version)."""
    return cid in st.session_state.get(_MADE, ())


def _other_sets(loaded: state.Loaded, old: StoredCollection | None) -> list:
    """The judgment sets after the reference, for the store: ``(name, file)``, a file ``old`` holds passed
    as its stored file (not read again), a new one as its name and bytes."""
    stored = {f.sha256: f for _, f in old.judgment_sets} if old is not None else {}
    return [(name, stored.get(up.digest) or (up.name, up.data)) for name, up in state.judgment_sets(loaded)[1:]]


def _sets_changed(loaded: state.Loaded, old: StoredCollection) -> bool:
    return ([(n, up.digest) for n, up in state.judgment_sets(loaded)]
            != [(n, f.sha256) for n, f in old.judgment_sets])


def _save_changes(ws: Workspace, loaded: state.Loaded, who: str) -> state.Loaded:
    """A new version of the stored collection with the session's system names and texts (amending it when this
    session made it)."""
    old = ws.load(loaded.collection)
    names = {f.sha256: f.system for f in old.runs}
    renames = {names[up.digest]: name for name, up in loaded.runs if names.get(up.digest, name) != name}
    texts = {}
    for role, up, before in (("topics", loaded.topics, old.topics), ("documents", loaded.documents, old.documents)):
        if up is not None and (before is None or before.sha256 != up.digest):
            texts[role] = (up.name, up.data)
    sets = {}
    if _sets_changed(loaded, old):
        sets = {"judgments": _other_sets(loaded, old), "reference": state.judgment_sets(loaded)[0][0]}
    if not renames and not texts and not sets:  # nothing the stored version does not hold already
        return _kept(loaded_of(old, loaded), loaded)
    info = _made(ws.new_version(old.info.id, rename_systems=renames, author=who, amend=_mine(old.info.id), **texts,
                                **sets))
    return _kept(loaded_of(ws.load(info.id), loaded), loaded)


def _kept(stored: state.Loaded, loaded: state.Loaded) -> state.Loaded:
    """A stored version as the session's collection, with the session's conventions and judgment set."""
    return state.under(replace(stored, conventions=loaded.conventions), state.judged_by(loaded))


def _save(ws: Workspace, loaded: state.Loaded, who: str) -> state.Loaded:
    """Store the session's files: a new version of their parent when the qrels are the same and the session may
    add versions to it (amending it when this session made it), the collection that holds these files already,
    else a new collection (in the login mode, its own)."""
    if _changed(loaded):
        return _save_changes(ws, loaded, who)
    parent = None
    if loaded.parent:
        try:
            parent = ws.load(loaded.parent)
        except UnknownCollection:
            parent = None
    first = state.reference(loaded)
    if parent is not None and parent.qrels.sha256 == first.digest and "version" in ws.allowed(parent.info.id):
        have = {f.sha256 for f in parent.runs}
        keep = {up.digest for _, up in loaded.runs}
        added = [up for _, up in loaded.runs if up.digest not in have]
        removed = [f.system for f in parent.runs if f.sha256 not in keep]
        sets = {}
        if _sets_changed(loaded, parent):
            sets = {"judgments": _other_sets(loaded, parent), "reference": state.judgment_sets(loaded)[0][0]}
        if not added and not removed and not sets:  # a rerun that saved these files already: their version
            return state.under(loaded_of(parent, loaded), state.judged_by(loaded))
        info = _made(ws.new_version(parent.info.id, author=who, add_runs=[(up.name, up.data) for up in added],
                                    remove_systems=removed, amend=_mine(parent.info.id),
                                    parsed=_parsed_files(replace(loaded, qrels=None), added), **sets))
    else:
        held = ws.holding(first.digest, [up.digest for _, up in loaded.runs])
        if held is not None:  # files the workspace holds already: their collection, with this session's texts
            st.session_state[_FOUND] = held
            found = loaded_of(ws.load(held.id), loaded)
            return _save_changes(ws, replace(found, conventions=loaded.conventions,
                                             topics=loaded.topics or found.topics,
                                             documents=loaded.documents or found.documents,
                                             judges=loaded.judges or found.judges), who)
        topics, documents = ((up.name, up.data) if up else None for up in (loaded.topics, loaded.documents))
        info = _made(ws.add_collection(None, qrels=(first.name, first.data),
                                       runs=[(up.name, up.data) for _, up in loaded.runs],
                                       conventions=loaded.conventions.as_dict(), author=who, topics=topics,
                                       documents=documents, judgments=_other_sets(loaded, None),
                                       reference=state.judgment_sets(loaded)[0][0],
                                       parsed=_parsed_files(loaded, [up for _, up in loaded.runs])))
    return state.under(loaded_of(ws.load(info.id), loaded), state.judged_by(loaded))


def _sync(ws: Workspace, loaded: state.Loaded) -> state.Loaded:
    """The session's collection, stored when it is not yet (or the reason it is not, shown once per run)."""
    if (loaded.collection and not _changed(loaded)) or not loaded.ready:
        return loaded
    if loaded.bundled:
        found = bundled_id(ws, loaded)
        return replace(loaded, collection=found) if found else loaded
    if loaded.source != "uploads":
        return loaded
    failed = st.session_state.get(_UNSAVED)
    if failed and failed[0] == _held(loaded):
        st.error(md("The files are loaded but not saved in the workspace: {}", failed[1]), icon=":material/cloud_off:")
        return loaded
    who = identity.author()
    if who is None:
        st.warning("Not saved in the workspace yet: type your name in the sidebar to save these files.",
                   icon=":material/person:")
        return loaded
    try:
        with st.spinner("Saving the collection in the workspace…", show_time=True):
            saved = _opened(_save(ws, loaded, who))
        held = st.session_state.pop(_FOUND, None)
        if held is not None:  # its id and version only: no user text in the toast's Markdown
            st.toast(md("These files are in the workspace already: opened their collection, version {} ({}).",
                        held.version, held.id), icon=":material/folder_open:")
        return saved
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
    st.session_state.pop(HEADS, None)
    st.session_state.pop(_ALLOWED, None)
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
        try:
            allowed = ws.allowed(loaded.collection)
        except NoAccess as err:  # no longer shared with this person: nothing of it stays in the session
            _forget()
            st.error(md("{}", str(err).splitlines()[0]), icon=":material/link_off:")
            return None
        except RankscopeError:  # the store cannot be read: nothing allowed
            allowed = frozenset()
        st.session_state[_ALLOWED] = allowed
        st.session_state[_SHOWN] = loaded.collection
        if st.query_params.get(PARAM) != loaded.collection:
            st.query_params[PARAM] = loaded.collection
        _refresh_notes(ws, loaded)
    return loaded


def _forget() -> None:
    """Drop the session's stored collection (and what this module keeps of it)."""
    state.put(state.Loaded())
    for key in (_SHOWN, _STORED_AS, _UNSAVED, _ALLOWED, HEADS):
        st.session_state.pop(key, None)


def still_shown() -> None:
    """In a fragment's rerun (which skips :func:`begin`): when the person may no longer see the session's stored
    collection, rerun the whole page, which then shows why and draws nothing of it. One row read."""
    loaded = state.get()
    if not enabled() or not loaded.collection:
        return
    try:
        store().allowed(loaded.collection)
    except NoAccess:
        st.rerun(scope="app")
    except RankscopeError:  # the store cannot be read: the fragment draws what the page drew
        return


# ---- review notes ---------------------------------------------------------------------------------------
def _refresh_notes(ws: Workspace, loaded: state.Loaded) -> None:
    """The collection's current notes, read now (never kept from an earlier run); :mod:`dashboard.store.review_notes`
    reads them back."""
    from workspace.notes import merged as merge_notes

    try:
        found = ws.notes(loaded.collection)
    except RankscopeError as err:
        st.error(md("The review notes cannot be read: {}", str(err).splitlines()[0]), icon=":material/cloud_off:")
        found = []
    st.session_state[HEADS] = found
    by_topic: dict[str, list[Note]] = {}
    for note in found:
        by_topic.setdefault(note.topic, []).append(note)
    notes = {topic: merge_notes(versions) for topic, versions in by_topic.items()}
    state.put_notes({t: {"tags": list(n.tags), "comment": n.comment} for t, n in notes.items() if n.tags or n.comment})
