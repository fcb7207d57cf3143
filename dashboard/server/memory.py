"""Give memory back when browser sessions end: a one-time setting of the server process.

Streamlit keeps a closed tab's session (its ``st.session_state``, with the uploaded bytes) for
``server.disconnectedSessionTTL`` seconds, so that a tab that lost its connection for a moment finds its
state again. Two things then keep the memory past that time in Streamlit 1.67: the sessions it keeps are
dropped only when another session connects or disconnects (an idle server keeps them all), and a dropped
session's uploaded files stay in its in-memory file manager for good (only a session shut down while
connected removes them). :func:`install` starts a thread that, every :data:`SWEEP_SECONDS`, drops the
sessions past their TTL, removes the uploaded files of every session that no longer exists, collects the
garbage (the server does not after every script run: ``runner.postScriptGC`` is off, since a full
collection after each run of a fragment made polling pages costly), and hands the freed memory back to the
operating system (``malloc_trim``). It also gives pyarrow the C library's
allocator (unless ``ARROW_DEFAULT_MEMORY_POOL`` chooses one), as the command line does, so that the trim
reaches pyarrow's buffers too.

And it keeps each run of a page with an uploader from copying the uploaded files: Streamlit deep-copies a
widget's value every time the widget is drawn, and a deep copy of an ``UploadedFile`` copies its bytes (two
MS MARCO-size runs: 460 MB, 0.3-0.8 s each run of the data page). :func:`install` gives ``UploadedFile`` the
copy Streamlit makes of it anyway when it builds one: a new file over the same bytes, which ``BytesIO``
copies only when something writes to it. A copy still has its own position and cannot change the original.
"""

from __future__ import annotations

import copy
import ctypes
import ctypes.util
import gc
import io
import logging
import os
import threading
import time

SWEEP_SECONDS = 10.0
_started = threading.Lock()
_thread: threading.Thread | None = None


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


def sweep() -> int:
    """Drop the sessions past their TTL and the uploaded files of sessions that are gone; return how many
    sessions' files were removed. The garbage is collected and the freed memory trimmed at every sweep."""
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
