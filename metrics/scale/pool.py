"""Running the tasks of :mod:`metrics.scale.tasks`: in this process, on local worker processes, or on Dask.

Every way yields the same :class:`~metrics.scale.tasks.Outcome` objects, one per run, in the order they
finish. At most ``window`` tasks are out at once, so the client holds at most that many finished tables
before it consumes them, whatever the number of runs.
"""

from __future__ import annotations

import contextlib
import signal
import threading
import traceback
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from metrics.checks import Integer, checked
from metrics.conventions import Conventions
from metrics.errors import ParseError, RankscopeError, ValidationError
from metrics.io import Qrels
from metrics.io.readers import current_limits
import metrics.scale.tasks as tasks
from metrics.scale.tasks import Outcome, Payload

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["BATCH", "START_METHOD", "collect", "evaluate_spread", "items_of", "outcomes", "payload_of", "raise_outcome"]

START_METHOD = "spawn"
"""How local workers start: a fresh interpreter each, never a fork of the client (whose threads, open files
and memory a plain fork would copy), and no server process left running after the pool ("forkserver")."""
BATCH = 100
"""Runs whose per-query tables :func:`evaluate_spread` puts together at once."""

Item = tuple[int, Any, "str | None"]


@checked(jobs=Integer(1, none=True), window=Integer(1, none=True))
def outcomes(payload: Payload, items: Sequence[Item], *, jobs: int | None = None, client: Any = None,
             window: int | None = None, ordered: bool = False) -> Iterator[Outcome]:
    """Evaluate every run of ``items`` (``(index, source, name)``) and yield their outcomes.

    Parameters
    ----------
    payload : Payload
        Judgments, measures and conventions; sent once to each worker.
    items : sequence of (int, source, str or None)
    jobs : int, optional
        Local worker processes; None or 1 evaluates in this process. Ignored when ``client`` is given.
    client : dask.distributed.Client, optional
        Evaluate on that cluster: the payload is one task every worker fetches, one task per run.
    window : int, optional
        Outcomes held at once, out on workers or finished and not yet handed over; default twice the
        number of workers (at least 2).
    ordered : bool, default=False
        Yield in the order of ``items`` (an outcome that finishes early waits, within the window, for those
        before it) instead of in the order the tasks finish.

    Yields
    ------
    Outcome
        In the order the tasks finish (which depends on timing; callers sort what they keep), or in the
        order of ``items`` when ``ordered``.
    """
    if client is not None:
        yield from _on_dask(payload, items, client, window, ordered)
    elif jobs is None or jobs == 1:
        for item in items:
            yield tasks.evaluate_source(payload, *item)
    else:
        yield from _on_processes(payload, items, jobs, window or 2 * jobs, ordered)


def _drive(items: Sequence[Item], window: int, submit: Callable[[Item], None], next_done: Callable[[], Outcome],
           ordered: bool) -> Iterator[Outcome]:
    """Keep at most ``window`` outcomes out or held, submit the next run as room frees, yield the outcomes.

    When ``ordered``, a finished outcome is held until those before it are yielded, and the next runs are
    submitted once the ready ones are handed over, so out, held and handed over never exceed ``window``
    together. The run next in order
    was submitted before any held outcome (runs are submitted in order), so it is always still out: the
    loop never waits on nothing.
    """
    todo = iter(items)
    order = [item[0] for item in items]
    held: dict[int, Outcome] = {}
    out, position = 0, 0

    def refill() -> None:
        nonlocal out
        while out + len(held) < window:
            item = next(todo, None)
            if item is None:
                return
            submit(item)
            out += 1

    refill()
    while out:
        outcome = next_done()
        out -= 1
        if not ordered:
            refill()  # before handing the result over: workers keep working
            yield outcome
            del outcome
            continue
        held[outcome.index] = outcome
        del outcome
        while position < len(order) and order[position] in held:
            ready = held.pop(order[position])
            position += 1
            yield ready  # out + held + this one: at most the window
            del ready
        refill()


def _on_processes(payload: Payload, items: Sequence[Item], jobs: int, window: int,
                  ordered: bool = False) -> Iterator[Outcome]:
    import multiprocessing
    from collections import deque
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    context = multiprocessing.get_context(START_METHOD)
    pending: set = set()
    finished: deque = deque()
    pool = None

    def submit(item: Item) -> None:
        with _signals_held():  # a submit may start a worker
            pending.add(pool.submit(tasks.evaluate_installed, *item))

    def next_done() -> Outcome:
        nonlocal pending
        if not finished:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            finished.extend(done)
        return finished.popleft().result()

    try:
        from metrics.scale.plan import threads_per_worker

        pool = ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=tasks.install,
                                   initargs=(payload, threads_per_worker(jobs)))
        yield from _drive(items, window, submit, next_done, ordered)
    except BaseException as err:  # a stop (SIGTERM, Ctrl-C), perhaps while the pool was being made
        # Let go of the pool's queues now, not when this exception is dropped: their semaphores must be
        # released while multiprocessing's resource tracker still runs (a program being stopped ends its
        # children, the tracker among them, before it drops the exception).
        traceback.clear_frames(err.__traceback__)
        if pool is not None:  # and do not wait for the runs under way
            _terminate_workers(pool)
        raise
    finally:
        for future in pending:
            future.cancel()
        pending.clear()
        finished.clear()
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
        pool = None


def _terminate_workers(pool: Any) -> None:
    """Stop a pool's workers at once (``terminate_workers`` where Python has it, else each process)."""
    terminate = getattr(pool, "terminate_workers", None)
    if terminate is not None:
        terminate()
        return
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        process.terminate()


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM held back for the duration: their Python handlers run once it ends, so a stop
    comes after a worker being started has all its start-up data, never in the middle of it (a worker that
    reads half of it fails with a traceback of its own, or waits forever for the rest). Python runs signal
    handlers in the main thread only, so elsewhere there is nothing to hold back."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list = []
    previous = {}
    for signum in (signal.SIGINT, signal.SIGTERM):
        handler = signal.getsignal(signum)
        if callable(handler):
            previous[signum] = handler
            signal.signal(signum, lambda number, frame: caught.append((number, frame)))
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        for signum, frame in caught[:1]:
            previous[signum](signum, frame)


def _on_dask(payload: Payload, items: Sequence[Item], client: Any, window: int | None,
             ordered: bool = False) -> Iterator[Outcome]:
    from distributed import as_completed

    if window is None:
        workers = len(client.scheduler_info().get("workers", {})) or 1
        window = max(2, 2 * workers)
    tag = uuid.uuid4().hex
    # the payload as a task, not scattered data: Dask keeps one copy of data no task waits for on many
    # workers, and a worker killed with the only scattered copy failed every run still to come; a task's
    # result is made again elsewhere. A fresh key: never one being released
    shared = client.submit(tasks.held, payload, pure=False, key=f"rankscope-payload-{tag}")
    finished = as_completed(loop=client.loop)  # this client's, not a default one

    def submit(item: Item) -> None:
        finished.add(client.submit(tasks.evaluate_source, shared, *item, pure=False,
                                   key=f"rankscope-run-{tag}-{item[0]}"))

    def next_done() -> Outcome:
        future = next(finished)
        outcome = future.result()
        future.release()
        return outcome

    try:
        yield from _drive(items, window, submit, next_done, ordered)
    finally:
        left = list(getattr(finished, "futures", ()))
        finished.clear()
        for future in left:
            future.cancel()
        shared.release()


def items_of(runs: Any) -> list[Item]:
    """``(index, source, name)`` for each run of a source, a sequence, or a mapping {system name: source}."""
    if isinstance(runs, Mapping):
        items = [(i, source, str(name)) for i, (name, source) in enumerate(runs.items())]
    elif isinstance(runs, (str, bytes, bytearray)) or hasattr(runs, "__fspath__"):
        items = [(0, runs, None)]
    else:
        items = [(i, source, None) for i, source in enumerate(runs)]
    if not items:
        raise ValidationError("no runs given")
    return items


def payload_of(qrels: Qrels, pairs: Sequence, tabulate: Callable, conventions: Conventions) -> Payload:
    """The :class:`Payload` of an evaluation: the qrels indexed once, here, for every worker."""
    from metrics.rankings import Judgments

    return Payload(Judgments.from_qrels(qrels), tuple(pairs), conventions, tabulate, current_limits())


def raise_outcome(outcome: Outcome) -> None:
    """Raise the error a task reported, as the :class:`~metrics.errors.RankscopeError` subclass it was."""
    import metrics.errors as errors

    cls = getattr(errors, outcome.error_type or "", None)
    if not (isinstance(cls, type) and issubclass(cls, RankscopeError)):
        cls = RankscopeError
    error = cls.__new__(cls)
    Exception.__init__(error, outcome.error)
    if isinstance(error, ParseError):
        error.source, error.line, error.message = outcome.label, None, outcome.error
    raise error


def collect(payload: Payload, runs: Any, keep: Callable[[Outcome], None], *, jobs: int | None = None,
            client: Any = None, keep_going: bool = False, on_outcome: Callable[[Outcome], None] | None = None,
            window: int | None = None) -> list[Outcome]:
    """Evaluate every run, hand each good outcome to ``keep`` as it finishes, return the failed ones.

    Raises the first failure unless ``keep_going``, and a ValidationError for two runs with one system name.
    """
    failures, seen = [], {}
    for outcome in outcomes(payload, items_of(runs), jobs=jobs, client=client, window=window):
        if on_outcome is not None:
            on_outcome(outcome)
        if outcome.error is not None:
            if not keep_going:
                raise_outcome(outcome)
            failures.append(outcome)
            continue
        if outcome.system in seen:
            raise ValidationError(f"two runs share the system name {outcome.system!r} "
                                  f"({seen[outcome.system]} and {outcome.label}); rename one")
        seen[outcome.system] = outcome.label
        keep(outcome)
    return sorted(failures, key=lambda o: o.index)


def evaluate_spread(qrels: Qrels, runs: Any, pairs: Sequence, tabulate: Callable, conventions: Conventions, *,
                    jobs: int | None = None, client: Any = None, keep_going: bool = False,
                    on_outcome: Callable[[Outcome], None] | None = None,
                    window: int | None = None) -> "pd.DataFrame | None":
    """The per-query tables of all runs, computed by :func:`outcomes`, put together sorted by system name.

    The tables are put together :data:`BATCH` runs at a time as they arrive: a table of a few rows costs
    kilobytes of its own (100,000 tiny runs held one table each: 1.2 GB), rows in one table cost their values.

    Returns None when no run could be evaluated (only with ``keep_going``).
    """
    import numpy as np
    import pandas as pd

    batches: list = []
    pending: list = []

    def keep(outcome: Outcome) -> None:  # the runs' tables put together as they come, BATCH at a time
        pending.append(outcome.frame)
        if len(pending) >= BATCH:
            batches.append(pd.concat(pending, ignore_index=True))
            pending.clear()

    collect(payload_of(qrels, pairs, tabulate, conventions), runs, keep, jobs=jobs, client=client,
            keep_going=keep_going, on_outcome=on_outcome, window=window)
    if pending:
        batches.append(pd.concat(pending, ignore_index=True))
    if not batches:
        return None
    table = pd.concat(batches, ignore_index=True)
    order = np.argsort(table["system"].to_numpy(dtype=object), kind="stable")  # by name, each run's rows in order
    return table.iloc[order].reset_index(drop=True)
