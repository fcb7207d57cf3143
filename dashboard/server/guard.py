"""Heavy work on uploaded files in a worker process, with a memory ceiling and a time limit.

Streamlit serves every browser session from one process, so a file that takes all the memory or all the
time of that process takes the dashboard from everyone. :func:`call` runs a function of ``metrics`` in a
child process instead: forked from a server process started once with ``metrics`` already imported (the
``forkserver`` start method: a child starts in about 40 ms, not the second a fresh interpreter takes), its
address space capped with ``RLIMIT_AS``, and killed when it runs past the time limit. Past either limit the
caller gets a :class:`LimitError` naming the file and the limit, and the server goes on serving the others.

Limits, read from the environment at each call:

``RANKSCOPE_WORKER_MEMORY_MB`` (default 4096)
    The address space (MiB) the work may add to the worker's: its ``RLIMIT_AS`` is its size at start (the
    libraries, about 0.3 to 0.6 GiB) plus this. Reading threads reserve arenas of 64 MiB each from it, so
    below about 300 even small files cannot be read.
``RANKSCOPE_WORKER_SECONDS`` (default 300)
    Seconds a worker may run.
``RANKSCOPE_WORKER_FROM_MB`` (default 4)
    Inputs smaller than this (in MB, all together) are worked on in the server's process, where the work
    takes milliseconds and a worker's start would double it; gzip inputs always go to a worker, since a
    few bytes of gzip can expand to gigabytes.
``RANKSCOPE_UNZIP_MB`` (default a quarter of ``RANKSCOPE_WORKER_MEMORY_MB``: 1024)
    The decompression limit: the most MiB an uploaded gzip file (runs, qrels, topics, documents) may expand
    to, checked while it is expanded, in the worker.
``RANKSCOPE_UNZIP_RATIO`` (default 100)
    The most times its compressed size an uploaded gzip file may expand to, checked while it is expanded
    once past 16 MiB: a bomb (3 MB of gzip that hold 3 GiB of one letter) stops there. Text files compress
    3 to 15 times.

Only the worker's own answer is ever unpickled here: the value its function returned, or the message of
the :class:`metrics.RankscopeError` it raised.

:func:`parse` reads a file this way without sending its bytes or its table through the pipe: the input goes to
the worker in a temporary file, and the worker writes the parsed table there as Arrow IPC, which this process
memory-maps (for a 7-million-line run, about 1.5 s less than pickling the table and its input both ways).
"""

from __future__ import annotations

import multiprocessing
import os
import resource
import tempfile
import time
import traceback
from dataclasses import dataclass, replace
from typing import Any, Callable

import pyarrow as pa

import metrics
from metrics import ParseError, RankscopeError, ValidationError
from metrics.errors import InputTooLarge
from metrics.io import ReadLimits

__all__ = ["LimitError", "Limits", "call", "limits", "parse", "small", "start_workers"]

GZIP_MAGIC = b"\x1f\x8b"
_CONTEXT = multiprocessing.get_context("forkserver")
# imported once in the fork server, so that no worker imports them again. Not "__main__": while a session's
# script runs, Streamlit's main module is dashboard/app.py, and Python's fork server never preloads the main
# module anyway (it is handed no path to it); each worker imports app.py, which then defines a function and
# runs nothing (see its docstring).
PRELOADED = ("metrics", "metrics.review.report", "metrics.stats.significance", "metrics.io.texts", "scipy.special",
             "scipy.stats", "dashboard.server.guard")
_CONTEXT.set_forkserver_preload(list(PRELOADED))


def start_workers() -> None:
    """Start the fork server the workers come from, if it is not running: it imports :data:`PRELOADED`
    (about a second), which the first upload after the server starts would otherwise wait for."""
    from multiprocessing import forkserver

    forkserver.ensure_running()


class LimitError(ValidationError):
    """Work on an input that went past the worker's memory ceiling or time limit."""


@dataclass(frozen=True)
class Limits:
    """The worker's limits: memory ceiling (MiB), time limit (s), and the size worked on in process (bytes)."""

    memory_mb: int = 4096
    seconds: float = 300.0
    in_process_bytes: int = 4_000_000
    unzip_mb: int = 1024
    unzip_ratio: float = 100.0

    @property
    def reading(self) -> ReadLimits:
        """What the readers of uploads take: gzip expanded to at most ``unzip_mb`` MiB and ``unzip_ratio`` times."""
        return ReadLimits(gzip_bytes=self.unzip_mb << 20, gzip_ratio=self.unzip_ratio)


def limits() -> Limits:
    """The limits set in the environment (``RANKSCOPE_WORKER_*``, ``RANKSCOPE_UNZIP_*``), the defaults otherwise."""
    default = Limits()
    memory_mb = int(_number("RANKSCOPE_WORKER_MEMORY_MB", default.memory_mb))
    return Limits(memory_mb=memory_mb,
                  seconds=_number("RANKSCOPE_WORKER_SECONDS", default.seconds),
                  in_process_bytes=int(_number("RANKSCOPE_WORKER_FROM_MB", default.in_process_bytes / 1e6) * 1e6),
                  unzip_mb=max(1, int(_number("RANKSCOPE_UNZIP_MB", memory_mb // 4))),
                  unzip_ratio=_number("RANKSCOPE_UNZIP_RATIO", default.unzip_ratio))


def _number(variable: str, default: float) -> float:
    text = os.environ.get(variable, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        raise ValidationError(f"{variable}={text!r}: expected a positive number") from None
    if value <= 0:
        raise ValidationError(f"{variable}={text!r}: expected a positive number")
    return value


def small(*inputs: bytes) -> bool:
    """Whether these inputs are small enough to work on in the server's process (and none is gzip)."""
    return (sum(len(data) for data in inputs) < limits().in_process_bytes
            and not any(data[:2] == GZIP_MAGIC for data in inputs))


def call(what: str, fn: Callable, /, *args, in_process: bool = False, **kwargs) -> Any:
    """``fn(*args, **kwargs)`` in a worker process under the limits (or here, when ``in_process``).

    Parameters
    ----------
    what : str
        What is worked on, as the message names it (a file name).
    fn : callable
        A module-level function (the worker imports it by name).
    in_process : bool
        Call ``fn`` in this process (for inputs :func:`small` accepts).

    Returns
    -------
    What ``fn`` returns.

    Raises
    ------
    LimitError
        The worker went past its memory ceiling or its time limit, or stopped without an answer.
    metrics.RankscopeError
        What ``fn`` raised on bad input, with its message.
    """
    chosen = limits()
    if in_process:
        try:
            return fn(*args, **kwargs)
        except InputTooLarge as err:
            raise _too_large(what, err.limit, chosen) from None
    receiver, sender = _CONTEXT.Pipe(duplex=False)
    worker = _CONTEXT.Process(target=_work, args=(sender, chosen.memory_mb, fn, args, kwargs), daemon=True)
    worker.start()
    sender.close()
    try:
        deadline = time.monotonic() + chosen.seconds
        answer = None
        if receiver.poll(chosen.seconds):
            try:
                answer = receiver.recv()
            except EOFError:  # the worker ended without a word: killed, or aborted by the allocator
                pass
        if answer is None and time.monotonic() >= deadline and worker.is_alive():
            raise LimitError(f"{what}: stopped after {chosen.seconds:g} s, the time limit of the dashboard's "
                             "worker (RANKSCOPE_WORKER_SECONDS)")
    finally:
        receiver.close()
        if worker.is_alive():
            worker.join(1.0)
        if worker.is_alive():
            worker.kill()
        worker.join()
    return _answered(what, answer, worker.exitcode, chosen)


def parse(reader: Callable, data: bytes, name: str) -> Any:
    """``reader(data, name=name)`` under the limits: here for a :func:`small` input, otherwise in a worker.

    ``reader`` is one of the readers of uploads: ``metrics.read_run`` or ``read_qrels`` (their table comes
    back as a memory-mapped Arrow IPC file, not through the pipe), ``metrics.io.texts.read_topics`` or
    ``read_documents``; it is given the decompression limits (:attr:`Limits.reading`), so that gzip input
    stops expanding at ``RANKSCOPE_UNZIP_MB`` or ``RANKSCOPE_UNZIP_RATIO``.

    Raises
    ------
    LimitError
        Past the decompression limit (naming the file and the setting), the memory ceiling or the time limit.
    metrics.RankscopeError
        What the reader raised on bad input, with its message.
    """
    chosen = limits()
    if small(data):
        return call(name, reader, data, name=name, limits=chosen.reading, in_process=True)
    if reader not in (metrics.read_run, metrics.read_qrels):  # texts: a dict of strings, sent back through the pipe
        return call(name, reader, data, name=name, limits=chosen.reading)
    with tempfile.TemporaryDirectory(prefix="rankscope-") as folder:
        source, target = os.path.join(folder, "input"), os.path.join(folder, "table.arrow")
        with open(source, "wb") as out:
            out.write(data)
        shell = call(name, _parse_to_file, reader, source, target, name, chosen.reading)
        with pa.memory_map(target) as mapped:  # the table's buffers keep the mapping after the file is removed
            table = pa.ipc.open_file(mapped).read_all()
    return replace(shell, table=table)


def _parse_to_file(reader: Callable, source: str, target: str, name: str, reading: ReadLimits) -> Any:
    """In the worker: parse the input file (memory-mapped by the reader, not copied), write its table to
    ``target``, return the value without its table."""
    parsed = reader(source, name=name, limits=reading)
    with pa.OSFile(target, "wb") as sink, pa.ipc.new_file(sink, parsed.table.schema) as writer:
        writer.write_table(parsed.table)
    return replace(parsed, table=parsed.table.schema.empty_table())


def _too_large(what: str, limit: str, chosen: Limits) -> LimitError:
    """The one line for an input past the decompression limit."""
    if limit == "gzip_ratio":
        return LimitError(f"{what}: expands more than {chosen.unzip_ratio:g} times its size, the decompression "
                          "limit of the dashboard (RANKSCOPE_UNZIP_RATIO)")
    return LimitError(f"{what}: expands to more than {chosen.unzip_mb} MB, the decompression limit of the "
                      "dashboard (RANKSCOPE_UNZIP_MB)")


def _answered(what: str, answer, exitcode: int | None, chosen: Limits) -> Any:
    memory = (f"{what}: needs more than {chosen.memory_mb} MB, the memory ceiling of the dashboard's worker "
              "(RANKSCOPE_WORKER_MEMORY_MB)")
    if answer is None:
        raise LimitError(memory + f"; the worker stopped with status {exitcode}")
    kind, *rest = answer
    if kind == "value":
        return rest[0]
    if kind == "memory":
        raise LimitError(memory)
    if kind == "too_large":
        raise _too_large(what, rest[0], chosen)
    if kind == "parse":
        raise ParseError(*rest)
    if kind == "error":
        cls, message = rest
        raise (cls if isinstance(cls, type) and issubclass(cls, RankscopeError) else RankscopeError)(message)
    raise RuntimeError(f"{what}: the dashboard's worker failed:\n{rest[0]}")


def _address_space() -> int:
    """Bytes of address space this process has mapped (what it holds before it works), from /proc."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            return next(int(line.split()[1]) << 10 for line in status if line.startswith("VmSize:"))
    except (OSError, StopIteration):
        return 0


def _work(sender, memory_mb: int, fn: Callable, args: tuple, kwargs: dict) -> None:
    """In the worker: cap the address space, call ``fn``, send back its value or what went wrong."""
    ceiling = _address_space() + (memory_mb << 20)
    resource.setrlimit(resource.RLIMIT_AS, (ceiling, ceiling))
    try:
        answer = ("value", fn(*args, **kwargs))
    except MemoryError:
        answer = ("memory",)
    except InputTooLarge as err:
        answer = ("too_large", err.limit)
    except ParseError as err:
        answer = ("parse", err.source, err.line, err.message)
    except RankscopeError as err:
        answer = ("error", type(err), str(err))
    except BaseException:
        answer = ("bug", traceback.format_exc())
    try:
        sender.send(answer)
    except MemoryError:
        sender.send(("memory",))
    finally:
        sender.close()
