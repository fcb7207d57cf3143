"""The ``rankscope`` command: ``eval``, ``measures``, ``compare``, ``dashboard`` and more.

Each subcommand lives in ``rankscope/commands/<name>.py`` with ``register(subparsers)`` and ``run(args)``;
this module only assembles them. Errors rankscope raises on bad input (``RankscopeError``) print one line
on stderr and exit with status 2; no traceback. What an error or a usage error prints goes through
:func:`metrics.io.redaction.redact`: no credential of a location. Run as the program, SIGINT and SIGTERM stop it cleanly: the
command unwinds (a file being written is left out, the old one kept), its child processes are ended, and it
exits with status 130 or 143, as a shell reports a command stopped by those signals, with no traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import signal
import sys
import time
from typing import NoReturn

import pyarrow

from metrics.errors import RankscopeError
from metrics.io import files
from metrics.io.redaction import redact

__all__ = ["main", "build_parser"]


class _Parser(argparse.ArgumentParser):
    """argparse's parser, whose usage errors (which may quote an argument) mask credentials (:func:`redact`)."""

    def error(self, message: str) -> NoReturn:
        super().error(redact(message))


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``rankscope`` parser with every subcommand, or only ``command``'s (a faster start: the other
    subcommands' modules, and what they import, are not loaded)."""
    from rankscope import commands

    parser = _Parser(prog="rankscope", description="Evaluate and compare retrieval runs.")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    names = sorted(m.name for m in pkgutil.iter_modules(commands.__path__) if not m.name.startswith("_"))
    for name in ([command] if command in names else names):
        importlib.import_module(f"rankscope.commands.{name}").register(subparsers)
    for sub in subparsers.choices.values():
        sub.add_argument("--no-unzip-limit", action="store_true", dest="no_unzip_limit",
                         help="lift the decompression limit for a trusted large gzip file (default: a gzip input "
                              "may expand to $RANKSCOPE_UNZIP_MB MiB, 1024, and $RANKSCOPE_UNZIP_RATIO times its "
                              "size, 100, as an upload to the dashboard; lifted, up to 4 GiB)")
    return parser


def _read_limits(args: argparse.Namespace):
    """The decompression limit of every file the command reads: the dashboard's (``RANKSCOPE_UNZIP_MB``,
    ``RANKSCOPE_UNZIP_RATIO``), or the readers' own 4 GiB with ``--no-unzip-limit``."""
    from metrics.io import ReadLimits

    if args.no_unzip_limit:
        return ReadLimits()
    from dashboard.server.guard import limits

    return limits().reading


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``rankscope`` console script; called with ``argv``, it returns the exit status."""
    if argv is not None:
        return _run(list(argv))
    _use_system_allocator()  # run as the `rankscope` program: this process is ours to configure
    if not _is_program():
        return _run(sys.argv[1:])
    try:  # ... and to end
        _stop_on_signals()  # inside the try: a signal the moment after is a stop like any other
        status = _run(sys.argv[1:])
        _stop_if_asked()  # a stop whose exception was lost on the way (see _stop_on_signals)
    except SystemExit as exit_:  # argparse: --help, or a usage error
        status = exit_.code if isinstance(exit_.code, int) else 0 if exit_.code is None else 1
        if not isinstance(exit_.code, (int, type(None))):
            print(exit_.code, file=sys.stderr)
    except Stopped as stop:
        status = 128 + stop.signum
        _end_children()
    _end_process(status)


class Stopped(BaseException):
    """The program was asked to stop (SIGINT or SIGTERM): raised where it runs, so that everything it was
    doing unwinds; a BaseException, so that no ``except Exception`` takes it for an error of the work."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"stopped by signal {signum}")
        self.signum = signum


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


_ASKED: list[int] = []  # the signal that asked this program to stop, once one has
_WAKEUP: list[int] = []  # the read end of the pipe Python's C-level handler writes each signal's number to


def _stop_on_signals() -> None:
    """Turn SIGINT and SIGTERM into :class:`Stopped`; a second signal while unwinding is ignored.

    Each stop is also recorded twice over, for the two ways CPython can lose one: the handler records the
    signal (:data:`_ASKED`), since an exception it raises while ``compile()`` runs (a module imported from
    source, as under ``PYTHONDONTWRITEBYTECODE``) can be dropped and the work go on; and Python's C-level
    handler writes the signal's number to a pipe (:func:`signal.set_wakeup_fd`), since a SIGINT can be taken
    by C code (``PyOS_InterruptOccurred``) before the handler ever runs. :func:`_stop_if_asked` reads both:
    :func:`main` calls it before the work and after it, and every file is checked with it before it takes its
    name (:data:`metrics.io.files.BEFORE_COMMIT`), so such a run still ends as stopped, without its file.

    pyarrow's own handlers are turned off. By default pyarrow replaces the handlers of both signals with its
    own while it reads a CSV file in the main thread, to cancel the read, and sends the signal again when the
    read ends; a signal that arrives as the read ends can be lost on the way (11 of 148 signals sent at
    random moments to a loop of short reads), and neither rankscope's handler nor the pipe ever sees it.
    With them off, a signal during a read reaches Python's handler, and the stop is raised when the read
    returns.

    Both signals are unblocked. A process inherits the signal mask of the thread that started it: started
    from a thread that held SIGINT back (as libraries do for a moment while they start a helper process),
    the program would install its handler and never receive the signal, which stays pending to the end."""

    def stop(signum, frame):
        for other in STOP_SIGNALS:
            signal.signal(other, signal.SIG_IGN)
        _ASKED.append(signum)
        raise Stopped(signum)

    pyarrow.enable_signal_handlers(False)
    for signum in STOP_SIGNALS:
        if signal.getsignal(signum) is not signal.SIG_IGN:  # ignored by who started us (`nohup`, `&` in sh)
            signal.signal(signum, stop)
    if hasattr(signal, "pthread_sigmask"):  # after the handlers: a signal pending since before is a stop
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)  # a mask inherited from who started us
    read, write = os.pipe()
    os.set_blocking(read, False)
    os.set_blocking(write, False)
    signal.set_wakeup_fd(write, warn_on_full_buffer=False)
    _WAKEUP.append(read)
    files.BEFORE_COMMIT.append(_stop_if_asked)


def _stop_if_asked() -> None:
    """Raise :class:`Stopped` if SIGINT or SIGTERM has asked this program to stop, whether or not its
    handler ran (see :func:`_stop_on_signals`)."""
    for read in _WAKEUP:
        try:
            arrived = os.read(read, 4096)
        except (BlockingIOError, OSError):
            arrived = b""
        _ASKED.extend(signum for signum in arrived if signum in STOP_SIGNALS)
    if _ASKED:
        for other in STOP_SIGNALS:  # as the handler does: a second signal while unwinding is ignored
            signal.signal(other, signal.SIG_IGN)
        raise Stopped(_ASKED[0])


def _end_children(grace: float = 5.0) -> None:
    """End the processes this one started, and theirs (a browser that renders figures): SIGTERM, up to
    ``grace`` seconds, then SIGKILL. Reads the process table in ``/proc``; where there is none, nothing."""
    mine = _descendants(os.getpid())
    for signum in (signal.SIGTERM, signal.SIGKILL):
        for pid in mine:
            try:
                os.kill(pid, signum)
            except (ProcessLookupError, PermissionError):
                pass
        deadline = time.monotonic() + grace
        while mine and time.monotonic() < deadline:
            _reap()
            mine = [pid for pid in mine if _alive(pid)]
            time.sleep(0.05)
        if not mine:
            return


def _descendants(root: int) -> list[int]:
    """The live processes below ``root`` in the process tree (from ``/proc``; empty where there is none)."""
    parents = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read().decode("ascii", "replace")
        except OSError:  # ended while the table was read
            continue
        fields = stat[stat.rindex(")") + 2:].split()  # "pid (comm) state ppid ...": comm may hold spaces
        if fields[0] != "Z":
            parents[int(entry)] = int(fields[1])
    found, frontier = [], [root]
    while frontier:
        children = [pid for pid, parent in parents.items() if parent in frontier]
        found.extend(children)
        frontier = children
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read().decode("ascii", "replace")
    except OSError:
        return False
    return stat[stat.rindex(")") + 2:].split()[0] != "Z"


def _reap() -> None:
    """Collect the exit status of ended children, so that none stays a zombie of this process."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _is_program() -> bool:
    """Whether the program running is rankscope itself: its console script or ``python -m rankscope``."""
    path = getattr(sys.modules.get("__main__"), "__file__", None) or ""
    name = os.path.basename(path)
    return name == "rankscope" or (name == "__main__.py" and os.path.basename(os.path.dirname(path)) == "rankscope")


def _run(argv: list[str]) -> int:
    command = next((a for a in argv if not a.startswith("-")), None)
    parser = build_parser(command)
    _stop_if_asked()  # asked to stop while the commands' modules were compiled: stop before any work
    args = parser.parse_args(argv)
    args.command_line = tuple(argv)  # what was said, for a command whose defaults differ from a value given
    try:
        from metrics.io.readers import reading_limits
        from rankscope.datasets import resolve

        with reading_limits(_read_limits(args)):  # every file the command reads, in this process or a worker
            resolve(args)  # a qrels argument irds:ID (or --dataset ID) read from ir_datasets' local store
            return int(args.func(args) or 0)
    except RankscopeError as err:  # one line, every location in it shown without its credentials
        print(redact(f"rankscope {args.command}: {err}"), file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `rankscope eval ... | head`
        sys.stderr.close()
        return 0


def _end_process(status: int) -> NoReturn:
    """Flush the output and end the process at once, without the interpreter's shutdown.

    pyarrow's native threads (the workers of its CPU and I/O thread pools, which its CSV reader and compute
    functions start, and jemalloc's background thread) are still alive when the interpreter finalises;
    C++ destructors of the library then run while they are, and now and then one meets a worker still
    joinable and calls ``std::terminate``: "terminate called without an active exception", status 134,
    after all the output was written. Nothing is left to clean up at this point (the output is flushed
    here, the kernel closes the files and ends every thread at once), so the shutdown is skipped.
    """
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None and not stream.closed:
                stream.flush()
        except (BrokenPipeError, OSError):  # the reader has gone (`| head`): what is left is not wanted
            pass
    os._exit(status)


def _use_system_allocator() -> None:
    """Give pyarrow the C library's allocator unless ARROW_DEFAULT_MEMORY_POOL chooses one: on a 7M-line run
    its default pool (mimalloc) spent twice the kernel time in page faults and peaked 70-130 MB higher."""
    if "ARROW_DEFAULT_MEMORY_POOL" not in os.environ:
        import pyarrow as pa

        pa.set_memory_pool(pa.system_memory_pool())


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
