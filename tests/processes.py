"""Long-lived processes the tests start: each in a session (and process group) of its own, stopped as a group.

A server may start children of its own, or hand its process over to another program; stopping only the
process the test started could leave those running. :func:`start` puts the process at the head of a new
session, so everything it starts stays in that session's process group; :func:`stop` sends SIGTERM to the
whole group, waits, and sends SIGKILL to whatever is left.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

__all__ = ["alive", "free_port", "group_members", "log_tails", "serve_dashboard", "start", "stop", "wait_until_gone"]

GRACE = 10.0  # seconds a group gets to stop on SIGTERM before SIGKILL
PROC = Path("/proc")  # where there is one, the process table read to find a session's processes
# the output of each dashboard server that runs, by process id: read when a test fails (log_tails)
LOGS: dict[int, Path] = {}


def start(argv: list[str], **popen_kwargs) -> subprocess.Popen:
    """Start ``argv`` at the head of a new session: its process group id is its process id.

    Parameters
    ----------
    argv : list of str
        The command line.
    **popen_kwargs
        Passed to :class:`subprocess.Popen` (``start_new_session`` is always True).

    Returns
    -------
    subprocess.Popen
    """
    return subprocess.Popen(argv, start_new_session=True, **popen_kwargs)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve_dashboard(port: int, env: dict[str, str] | None = None, timeout: float = 60.0,
                    log=None) -> subprocess.Popen:
    """``streamlit run dashboard/app.py`` on 127.0.0.1:``port`` in a session of its own, once it accepts
    connections; a server that dies or does not answer within ``timeout`` seconds is stopped and raises.
    ``log``: where the server's output (stdout and stderr) goes, a file opened for writing; by default a
    temporary file that :func:`log_tails` reads while the server runs and :func:`stop` removes."""
    root = Path(__file__).resolve().parents[1]
    own = None
    if log is None:
        own = tempfile.NamedTemporaryFile(prefix=f"dashboard-{port}-", suffix=".log", delete=False)
        log = own
    try:
        proc = start([sys.executable, "-m", "streamlit", "run", str(root / "dashboard" / "app.py"),
                      "--server.port", str(port), "--server.address", "127.0.0.1", "--server.headless", "true",
                      "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
                     cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
    except BaseException:
        if own is not None:
            Path(own.name).unlink(missing_ok=True)
        raise
    finally:
        if own is not None:
            own.close()  # the server holds its own copy of the descriptor
    if own is not None:
        LOGS[proc.pid] = Path(own.name)
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return proc
        except OSError:
            pass
        try:  # wait a little for the server, noticing at once if it died
            proc.wait(timeout=0.3)
            stop(proc)
            raise RuntimeError(f"streamlit exited with status {proc.returncode}")
        except subprocess.TimeoutExpired:
            if time.monotonic() > deadline:
                stop(proc)
                raise RuntimeError(f"streamlit did not start within {timeout:g} s") from None


def group_members(pgid: int) -> list[int]:
    """The live processes (zombies left out) of process group ``pgid``, or of the session it leads.

    A process that moved to a group of its own inside the session still counts. Reads ``/proc`` where
    there is one (a zombie still counts for ``os.killpg(pgid, 0)``); elsewhere asks the kernel with
    signal 0 and returns ``[pgid]`` while any member of the group answers.

    Parameters
    ----------
    pgid : int
        A process group id: the process id of a process from :func:`start`.

    Returns
    -------
    list of int
        Process ids (on systems without ``/proc``, ``[pgid]`` or ``[]``).
    """
    if not PROC.joinpath("self", "stat").exists():
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return []
        return [pgid]
    return [pid for pid, _ in _scan(pgid)]


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie does not), read from ``/proc``."""
    try:
        stat = PROC.joinpath(str(pid), "stat").read_text(errors="replace")
    except OSError:
        return False
    return stat[stat.rindex(")") + 2:].split()[0] != "Z"


def wait_until_gone(proc: subprocess.Popen, timeout: float) -> list[int]:
    """Wait up to ``timeout`` seconds until no process of the group (or session) ``proc`` heads is alive.

    ``proc`` is reaped as soon as it ends (an unreaped leader would keep its group alive for the kernel).

    Parameters
    ----------
    proc : subprocess.Popen
        A process from :func:`start`.
    timeout : float
        Seconds.

    Returns
    -------
    list of int
        The process ids still alive at the end (empty: the group is gone).
    """
    deadline = time.monotonic() + timeout
    while True:
        proc.poll()
        alive = group_members(proc.pid)
        if not alive:
            proc.wait()  # ended (a zombie at most): returns at once
            return alive
        if time.monotonic() >= deadline:
            return alive
        time.sleep(0.1)


def stop(proc: subprocess.Popen, grace: float = GRACE) -> None:
    """Stop the process group (and session) ``proc`` heads: SIGTERM, up to ``grace`` seconds, then SIGKILL.

    ``proc`` is reaped before this returns.

    Parameters
    ----------
    proc : subprocess.Popen
        A process from :func:`start`.
    grace : float
        Seconds the processes get to stop after each signal.
    """
    if not hasattr(os, "killpg"):  # Windows: no process groups to signal
        proc.kill()
    else:
        for signum in (signal.SIGTERM, signal.SIGKILL):
            _signal_all(proc.pid, signum)
            if not wait_until_gone(proc, grace):
                break
    proc.wait()
    log = LOGS.pop(proc.pid, None)
    if log is not None:
        log.unlink(missing_ok=True)


def log_tails(lines: int = 40) -> str:
    """The last ``lines`` lines of output of each dashboard server still running (what a failed browser test
    reports beside its own error), or an empty string."""
    parts = []
    for pid, path in list(LOGS.items()):
        try:
            text = path.read_bytes()[-20_000:].decode("utf-8", "replace")
        except OSError:
            continue
        tail = text.splitlines()[-lines:]
        parts.append(f"-- server {pid}, last {len(tail)} line(s) of {path.name}:\n" + "\n".join(tail))
    return "\n".join(parts)


def _scan(pgid: int) -> list[tuple[int, int]]:
    """(pid, process group) of each live process of group ``pgid`` or of session ``pgid``, from /proc."""
    found = []
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # the process ended while the folder was read
            continue
        # "pid (comm) state ppid pgrp session ...": comm may hold spaces and parentheses
        state, _ppid, pgrp, session = stat[stat.rindex(")") + 2:].split()[:4]
        if pgid in (int(pgrp), int(session)) and state != "Z":
            found.append((int(entry.name), int(pgrp)))
    return found


def _signal_all(pgid: int, signum: int) -> None:
    """Send ``signum`` to group ``pgid``, and to each process of its session in another group."""
    try:
        os.killpg(pgid, signum)
    except ProcessLookupError:
        pass
    if PROC.joinpath("self", "stat").exists():
        for pid, pgrp in _scan(pgid):
            if pgrp != pgid:
                try:
                    os.kill(pid, signum)
                except ProcessLookupError:
                    pass
