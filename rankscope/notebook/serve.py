"""The dashboard opened from a notebook: the collection stored in the workspace, a server on this machine.

:func:`open_dashboard` adds the collection to the workspace as any other (the store's
:meth:`workspace.Workspace.add_collection`; runs held as frames are written as TREC files by
:mod:`metrics.io.writers`), starts the server ``rankscope dashboard`` starts (its command line,
:func:`rankscope.commands.dashboard.command`) on 127.0.0.1 and a free port, in a process group of its own,
waits until it answers, and returns a :class:`Dashboard` holding the link to the collection. The server
stops, with every process of its group, on :meth:`Dashboard.close` and when the interpreter exits.
"""

from __future__ import annotations

import atexit
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING, Any

from metrics import RankscopeError, Run
from metrics.io.readers import is_dataframe
from metrics.io.writers import qrels_bytes, run_bytes

if TYPE_CHECKING:
    from rankscope.notebook.collection import Collection

__all__ = ["Dashboard", "open_dashboard"]

ADDRESS = "127.0.0.1"
GRACE = 10.0  # seconds the server's group gets to stop on SIGTERM before SIGKILL
IFRAME_HEIGHT = 720  # pixels


class Dashboard:
    """A dashboard server started by :func:`open_dashboard`, showing one stored collection.

    Attributes
    ----------
    url : str
        The link to the collection (``http://127.0.0.1:PORT/?collection=ID``).
    collection : str
        The collection's id in the workspace.
    workspace : str
        Where the collection is stored.
    pid : int
        The server's process id, which is also its process group's id.
    """

    def __init__(self, process: subprocess.Popen, url: str, collection: str, workspace: str) -> None:
        self._process = process
        self.url, self.collection, self.workspace, self.pid = url, collection, workspace, process.pid
        atexit.register(self.close)

    def __repr__(self) -> str:
        return f"Dashboard({self.url!r}{'' if self.running else ', stopped'})"

    @property
    def running(self) -> bool:
        """True until the server has stopped."""
        return self._process.poll() is None

    def close(self) -> None:
        """Stop the server and every process of its group (SIGTERM, then SIGKILL after a grace period)."""
        _stop_group(self._process)
        atexit.unregister(self.close)

    def __enter__(self) -> "Dashboard":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


def open_dashboard(collection: "Collection", name: str | None = None, *,
                   workspace: str | os.PathLike | None = None, show: bool = True,
                   timeout: float = 120.0) -> Dashboard:
    """Store ``collection`` in the workspace and serve the dashboard on it on this machine.

    Parameters
    ----------
    collection : rankscope.notebook.Collection
    name : str, optional
        The stored collection's name (default: made of the qrels' and the runs' names, as the workspace
        names a collection added without one).
    workspace : str or path, optional
        A folder, ``sqlite:///file.db`` or ``postgresql://...`` (default ``$RANKSCOPE_WORKSPACE``, else
        ``./rankscope-workspace``, as ``rankscope dashboard``).
    show : bool, default=True
        In Jupyter, display the dashboard in an iframe below the cell (needs IPython; elsewhere nothing is
        shown).
    timeout : float, default=120.0
        Seconds to wait for the server to answer.

    Returns
    -------
    Dashboard
        ``url`` the link to the collection; ``close()`` stops the server.

    Raises
    ------
    metrics.RankscopeError
        The dashboard's packages are missing, the collection cannot be stored, or the server does not
        answer within ``timeout`` (it is then stopped).
    """
    import importlib.util

    if any(importlib.util.find_spec(p) is None for p in ("streamlit", "sqlalchemy")):
        raise RankscopeError("the dashboard needs streamlit and the workspace: pip install 'rankscope[dashboard]'")
    location = _location(workspace)
    cid = store(collection, name, location)
    from dashboard.store.sync import PARAM  # the query parameter the dashboard reads the collection from

    port = _free_port()
    process = _start(port, location)
    base = f"http://{ADDRESS}:{port}"
    _wait(process, f"{base}/_stcore/health", timeout)
    board = Dashboard(process, f"{base}/?{PARAM}={cid}", cid, location)
    if show:
        _display(board)
    return board


def store(collection: "Collection", name: str | None, location: str) -> str:
    """Add ``collection`` to the workspace at ``location``; its id. Files given as paths are stored as they
    are (with their ir_metadata), runs and judgments held in memory as TREC files."""
    from rankscope.commands.workspace import operator
    from workspace import open_workspace

    runs = [(f"{system}.run", _bytes(run, collection._sources[system])) for system, run in
            zip(collection.systems, collection.runs)]
    qrels = (_file_name(collection._qrels_source, "qrels.txt"), _qrels(collection))
    with open_workspace(location) as ws:
        info = ws.add_collection(name, qrels=qrels, runs=runs, conventions=collection.conventions.as_dict(),
                                 author=operator())
        renames = {old: new for old, new in zip(info.systems, collection.systems) if old != new}
        if renames:  # a name the file-name rule does not give back (``bm25.run`` -> ``bm25``): kept as given
            info = ws.new_version(info.id, rename_systems=renames, author=operator(), amend=True)
    return info.id


def _bytes(run: Run, source: Any) -> bytes:
    """A run file's own bytes when it was given as a path, else the run written as a TREC file."""
    if isinstance(source, (str, os.PathLike)) and "\n" not in str(source):
        return Path(source).read_bytes()
    if isinstance(source, (bytes, bytearray)):
        return bytes(source)
    return run_bytes(run)


def _qrels(collection: "Collection") -> bytes:
    source = collection._qrels_source
    if isinstance(source, (str, os.PathLike)) and "\n" not in str(source):
        return Path(source).read_bytes()
    if isinstance(source, (bytes, bytearray)):
        return bytes(source)
    return qrels_bytes(collection.qrels)


def _file_name(source: Any, default: str) -> str:
    if isinstance(source, (str, os.PathLike)) and "\n" not in str(source) and not is_dataframe(source):
        return Path(source).name
    return default


def _location(workspace: str | os.PathLike | None) -> str:
    """The workspace as ``rankscope dashboard`` finds it: a folder made absolute, a URL as it is."""
    location = str(workspace or os.environ.get("RANKSCOPE_WORKSPACE") or "rankscope-workspace")
    return location if "://" in location else str(Path(location).resolve())


def _free_port() -> int:
    with socket.socket() as s:
        s.bind((ADDRESS, 0))
        return s.getsockname()[1]


def _start(port: int, location: str) -> subprocess.Popen:
    """``rankscope dashboard``'s server, headless, at the head of a session (and process group) of its own."""
    from rankscope.commands.dashboard import command

    env = {**os.environ, "RANKSCOPE_WORKSPACE": location, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
    return subprocess.Popen(command(port, ADDRESS, headless=True), env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


def _wait(process: subprocess.Popen, health: str, timeout: float) -> None:
    """Until the server answers ``health``; a server that exits or does not answer in time is stopped."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(health, timeout=2) as reply:
                if reply.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        if process.poll() is not None:
            _stop_group(process)
            raise RankscopeError(f"the dashboard stopped at start with status {process.returncode}")
        if time.monotonic() > deadline:
            _stop_group(process)
            raise RankscopeError(f"the dashboard did not answer within {timeout:g} s")
        time.sleep(0.2)


def _stop_group(process: subprocess.Popen) -> None:
    """SIGTERM to the server's whole group, SIGKILL to whatever is left after :data:`GRACE` seconds."""
    for signum in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, signum)
        except (ProcessLookupError, PermissionError):
            break
        deadline = time.monotonic() + GRACE
        while time.monotonic() < deadline and _group_alive(process):
            time.sleep(0.05)
        if not _group_alive(process):
            break
    if process.poll() is None:
        process.wait()


def _group_alive(process: subprocess.Popen) -> bool:
    process.poll()  # reaps the leader once it exits, so that it no longer counts
    try:
        os.killpg(process.pid, 0)
        return True
    except (ProcessLookupError, PermissionError):
        return False


def _display(board: Dashboard) -> None:
    """The iframe below the running cell when this runs in Jupyter (IPython is optional)."""
    try:
        from IPython import get_ipython
        from IPython.display import IFrame, display
    except ImportError:
        return
    shell = get_ipython()
    if shell is not None and type(shell).__name__ == "ZMQInteractiveShell":
        display(IFrame(board.url, width="100%", height=IFRAME_HEIGHT))
