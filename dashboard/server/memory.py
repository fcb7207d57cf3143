"""Give memory back when browser sessions end: a one-time setting of the server process.

Streamlit keeps a closed tab's session (its ``st.session_state``, with the uploaded bytes) for
``server.disconnectedSessionTTL`` seconds, so that a tab that lost its connection for a moment finds its
state again. Two things then keep the memory past that time in Streamlit 1.67: the sessions it keeps are
dropped only when another session connects or disconnects (an idle server keeps them all), and a dropped
session's uploaded files stay in its in-memory file manager for good (only a session shut down while
connected removes them). :func:`install` starts a thread that, every :data:`SWEEP_SECONDS`, drops the
sessions past their TTL, removes the uploaded files of every session that no longer exists, releases what the
caches derived from files no session holds any more (:func:`released`), collects the garbage (the server does not after every script run: ``runner.postScriptGC`` is off, since a full
collection after each run of a fragment made polling pages costly), and hands the freed memory back to the
operating system (``malloc_trim``). It also gives pyarrow the C library's
allocator (unless ``ARROW_DEFAULT_MEMORY_POOL`` chooses one), as the command line does, so that the trim
reaches pyarrow's buffers too.

And it keeps each run of a page with an uploader from copying the uploaded files: Streamlit deep-copies a
widget's value every time the widget is drawn, and a deep copy of an ``UploadedFile`` copies its bytes (two
MS MARCO-size runs: 460 MB, 0.3-0.8 s each run of the data page). :func:`install` gives ``UploadedFile`` the
copy Streamlit makes of it anyway when it builds one: a new file over the same bytes, which ``BytesIO``
copies only when something writes to it. A copy still has its own position and cannot change the original.

What the pages derive from a file (its parse, its rankings, the tables of a collection) is cached once per
content and shared by every session holding that file. A cache wrapped in :func:`released` records, each time
it is called, the files its entry was computed from: the SHA-256 digests among its hashed arguments. A sweep
drops every entry one of whose files no session holds any more (a session's files are the digests found in
what its ``st.session_state`` holds) and that has not been used for :data:`GRACE_SECONDS`: the grace covers a
file read before its session holds it (an upload is read before it joins the collection). Without it the
parsed documents and topics stayed for good and the parsed runs and qrels for an hour after their sessions
ended (three sessions of 730,000 documents each: 1.7 GB).
"""

from __future__ import annotations

import copy
import ctypes
import ctypes.util
import dataclasses
import functools
import gc
import inspect
import io
import logging
import os
import re
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

__all__ = ["GRACE_SECONDS", "SWEEP_SECONDS", "held_files", "install", "release", "released", "share_uploaded_bytes",
           "sweep", "trim"]

SWEEP_SECONDS = 10.0
GRACE_SECONDS = 60.0  # an entry used this recently stays, held or not (a file is read before a session holds it)
_DIGEST = re.compile(r"[0-9a-f]{64}")  # how a file is named in a cache's arguments and in a session: its SHA-256
_DEPTH = 6  # how deep a session's state or a cache's arguments are searched for digests
_started = threading.Lock()
_thread: threading.Thread | None = None
F = TypeVar("F", bound=Callable[..., Any])


@dataclasses.dataclass
class _Entry:
    files: frozenset[str]
    used: float
    clear: Callable[[], None]


_entries: dict[tuple, _Entry] = {}  # (cache, its hashed arguments) -> the files of the entry, its last use, its clear
_entries_lock = threading.Lock()


def install() -> None:
    """Set the allocator and start the sweeping thread, once per process (later calls do nothing)."""
    global _thread
    with _started:
        if _thread is not None:
            return
        if "ARROW_DEFAULT_MEMORY_POOL" not in os.environ:
            import pyarrow as pa

            pa.set_memory_pool(pa.system_memory_pool())
        share_uploaded_bytes()
        _thread = threading.Thread(target=_sweep_forever, name="rankscope-memory", daemon=True)
        _thread.start()


def share_uploaded_bytes() -> None:
    """Make a deep copy of an ``UploadedFile`` a new file over the same bytes (copied on a write only)."""
    from streamlit.runtime.uploaded_file_manager import UploadedFile

    def __deepcopy__(self: UploadedFile, memo: dict) -> UploadedFile:
        twin = type(self).__new__(type(self))
        io.BytesIO.__init__(twin, self.getvalue())  # the same bytes, until one of the two is written to
        twin.__dict__.update(copy.deepcopy(self.__dict__, memo))  # its name, type, size, id ...: small
        twin.seek(self.tell())
        return twin

    UploadedFile.__deepcopy__ = __deepcopy__


def _sweep_forever() -> None:
    while True:
        time.sleep(SWEEP_SECONDS)
        try:
            sweep()
        except (AttributeError, KeyError, RuntimeError, TypeError):  # a Streamlit without these internals
            logging.getLogger(__name__).debug("sweep skipped", exc_info=True)


def released(cached: F) -> F:
    """Wrap a Streamlit-cached function so that :func:`sweep` drops each of its entries once no session holds
    the files it was computed from.

    The files are the SHA-256 digests among the hashed arguments (those not named with a leading underscore),
    alone or inside tuples (a collection's key). An entry whose arguments name no file is never dropped here
    (its cache's ``max_entries`` and ``ttl`` bound it).
    """
    names = list(inspect.signature(cached).parameters)

    @functools.wraps(cached)
    def call(*args: Any, **kwargs: Any) -> Any:
        value = cached(*args, **kwargs)
        hashed = tuple(None if i < len(names) and names[i].startswith("_") else a for i, a in enumerate(args))
        named = {k: None if k.startswith("_") else v for k, v in kwargs.items()}
        files = _digests((hashed, tuple(named.values())))
        if files:
            key = (id(cached), repr(hashed), repr(named))
            with _entries_lock:
                _entries[key] = _Entry(files, time.monotonic(), functools.partial(cached.clear, *hashed, **named))
        return value

    call.clear = cached.clear  # type: ignore[attr-defined]
    return call  # type: ignore[return-value]


def release(held: Iterable[str], now: float | None = None) -> int:
    """Drop every cached entry (of a :func:`released` cache) one of whose files is not in ``held`` and that was
    last used more than :data:`GRACE_SECONDS` before ``now`` (a :func:`time.monotonic` time, by default now).
    Returns how many were dropped."""
    held = frozenset(held)
    now = time.monotonic() if now is None else now
    with _entries_lock:
        gone = [key for key, entry in _entries.items() if not entry.files <= held and now - entry.used > GRACE_SECONDS]
        clears = [_entries.pop(key).clear for key in gone]
    for clear in clears:
        clear()
    return len(clears)


def held_files(states: Iterable[Any]) -> frozenset[str]:
    """The digests of the files the session states ``states`` hold: every SHA-256 digest found in their values
    (a collection's uploads and names, an upload, tuples, lists and dictionaries of them)."""
    return _digests(tuple(states))


def _digests(value: Any) -> frozenset[str]:
    found: set[str] = set()
    _search(value, found, _DEPTH)
    return frozenset(found)


def _search(value: Any, found: set[str], depth: int) -> None:
    if isinstance(value, str):
        if len(value) == 64 and _DIGEST.fullmatch(value):
            found.add(value)
    elif depth <= 0 or isinstance(value, (bytes, bytearray, int, float)) or value is None:
        return
    elif isinstance(value, (tuple, list, set, frozenset)):
        for item in list(value):
            _search(item, found, depth - 1)
    elif isinstance(value, dict):
        for item in list(value.items()):
            _search(item, found, depth - 1)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):  # a collection, an upload
        for f in dataclasses.fields(value):
            if not f.name.startswith("_"):  # an upload's bytes are never read for this
                _search(getattr(value, f.name), found, depth - 1)


def _session_states(manager: Any, storage: Any) -> list[Any]:
    """The values each session (connected, or kept after it disconnected) holds in its ``st.session_state``."""
    sessions = {info.session.id: info.session for info in storage.list()}
    sessions.update((info.session.id, info.session) for info in manager.list_active_sessions())
    values = []
    for session in sessions.values():
        state = session.session_state
        for part in (state._old_state, state._new_session_state):
            values.extend(list(part.values()))
    return values


def sweep() -> int:
    """Drop the sessions past their TTL, the uploaded files of sessions that are gone and the cached entries
    derived from files no session holds (:func:`release`); return how many sessions' files were removed. The
    garbage is collected and the freed memory trimmed at every sweep."""
    from streamlit.runtime import Runtime

    if not Runtime.exists():
        return 0
    runtime = Runtime.instance()
    manager = runtime._session_mgr
    files = runtime.uploaded_file_mgr
    storage = manager._session_storage
    with manager._storage_lock:
        expire = getattr(getattr(storage, "_cache", None), "expire", None)
        if expire is not None:
            expire()  # the sessions past their TTL, with their session_state
        kept = {info.session.id for info in storage.list()}
    alive = kept | {info.session.id for info in manager.list_active_sessions()}
    gone = [sid for sid in list(getattr(files, "file_storage", {})) if sid not in alive]
    for sid in gone:
        files.remove_session_files(sid)
    with manager._storage_lock:
        states = _session_states(manager, storage)
    release(held_files(states))  # only once every session was read: one that failed to read releases nothing
    gc.collect()  # the server runs scripts without collecting after each (runner.postScriptGC): here instead
    trim()  # also what an upload's request left behind (its body and parts), freed but still held
    return len(gone)


def trim() -> None:
    """Return the C library's free memory to the operating system (glibc ``malloc_trim``; elsewhere nothing)."""
    name = ctypes.util.find_library("c")
    try:
        ctypes.CDLL(name).malloc_trim(0)
    except (OSError, AttributeError, TypeError):
        pass
