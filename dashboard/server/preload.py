"""The libraries the pages import on first use, imported once per server process on a thread of its own,
and the fork server of the upload workers started.

The first page to need ``scipy.stats`` (the overview's confidence intervals, the tests) would otherwise wait
about 1.7 s for its import, and with it whoever opens that page first after the server starts; the first
large upload would wait about a second for the fork server (:func:`dashboard.server.guard.start_workers`). The
thread starts after the first session's page is drawn, so that it does not delay it; a page that needs a
module while it is being imported waits for that import alone (Python's import lock), never imports it twice.
"""

from __future__ import annotations

import importlib
import logging
import threading

from dashboard.server.guard import PRELOADED, start_workers

_started = threading.Lock()
_thread: threading.Thread | None = None


def start() -> None:
    """Import :data:`dashboard.server.guard.PRELOADED`, then start the workers' fork server, on a daemon thread, once
    per process (later calls do nothing)."""
    global _thread
    with _started:
        if _thread is None:
            _thread = threading.Thread(target=_import_all, name="rankscope-preload", daemon=True)
            _thread.start()


def _import_all() -> None:
    for name in PRELOADED:
        try:
            importlib.import_module(name)
        except ImportError:  # the page that needs it reports it
            logging.getLogger(__name__).debug("preload of %s failed", name, exc_info=True)
    try:
        start_workers()
    except OSError:  # the first upload that needs a worker starts it, or reports why it cannot
        logging.getLogger(__name__).debug("the fork server did not start", exc_info=True)
