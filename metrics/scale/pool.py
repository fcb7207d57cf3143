"""Running the tasks of :mod:`metrics.scale.tasks`: in this process, on local worker processes, or on Dask.

Every way yields the same :class:`~metrics.scale.tasks.Outcome` objects, one per run, in the order they
finish. At most ``window`` tasks are out at once, so the client holds at most that many finished tables
before it consumes them, whatever the number of runs.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from metrics.conventions import Conventions
from metrics.errors import ParseError, RankscopeError, ValidationError
from metrics.io import Qrels
import metrics.scale.tasks as tasks
from metrics.scale.tasks import Outcome, Payload

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["START_METHOD", "collect", "evaluate_spread", "items_of", "outcomes", "payload_of", "raise_outcome"]

START_METHOD = "spawn"
"""How local workers start: a fresh interpreter each, never a fork of the client (whose threads, open files
and memory a plain fork would copy), and no server process left running after the pool ("forkserver")."""

Item = tuple[int, Any, "str | None"]


def outcomes(payload: Payload, items: Sequence[Item], *, jobs: int | None = None, client: Any = None,
             window: int | None = None) -> Iterator[Outcome]:
    """Evaluate every run of ``items`` (``(index, source, name)``) and yield their outcomes as they finish.

    Parameters
    ----------
    payload : Payload
        Judgments, measures and conventions; sent once to each worker.
    items : sequence of (int, source, str or None)
    jobs : int, optional
        Local worker processes; None or 1 evaluates in this process. Ignored when ``client`` is given.
    client : dask.distributed.Client, optional
        Evaluate on that cluster: the payload is scattered to every worker, one task per run.
    window : int, optional
        Tasks out at once; default twice the number of workers (at least 2).

    Yields
    ------
    Outcome
        In the order the tasks finish (which depends on timing; callers sort what they keep).
    """
    if jobs is not None and (not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1):
        raise ValidationError(f"jobs: expected a whole number of worker processes >= 1, got {jobs!r}")
    if window is not None and window < 1:
        raise ValidationError(f"window: expected a whole number >= 1, got {window!r}")
    if client is not None:
        yield from _on_dask(payload, items, client, window)
    elif jobs is None or jobs == 1:
        for item in items:
            yield tasks.evaluate_source(payload, *item)
    else:
        yield from _on_processes(payload, items, jobs, window or 2 * jobs)


def _on_processes(payload: Payload, items: Sequence[Item], jobs: int, window: int) -> Iterator[Outcome]:
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    context = multiprocessing.get_context(START_METHOD)
    pending: set = set()
    todo = iter(items)
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=tasks.install,
                             initargs=(payload,)) as pool:
        try:
            for item in todo:
                pending.add(pool.submit(tasks.evaluate_installed, *item))
                if len(pending) >= window:
                    break
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    outcome = future.result()
                    del future
                    for item in todo:  # refill before handing the result over: workers keep working
                        pending.add(pool.submit(tasks.evaluate_installed, *item))
                        break
                    yield outcome
                    del outcome
                done = None
        finally:
            for future in pending:
                future.cancel()


def _on_dask(payload: Payload, items: Sequence[Item], client: Any, window: int | None) -> Iterator[Outcome]:
    from distributed import as_completed

    if window is None:
        workers = len(client.scheduler_info().get("workers", {})) or 1
        window = max(2, 2 * workers)
    shared = client.scatter(payload, broadcast=True)
    tag = uuid.uuid4().hex
    todo = iter(items)

    def submit(item: Item):
        return client.submit(tasks.evaluate_source, shared, *item, pure=False, key=f"rankscope-run-{tag}-{item[0]}")

    first = [submit(item) for _, item in zip(range(window), todo)]  # range first: no item lost
    finished = as_completed(first, loop=client.loop)  # this client's, not a default one
    del first
    try:
        for future in finished:
            outcome = future.result()
            future.release()
            del future
            for item in todo:
                finished.add(submit(item))
                break
            yield outcome
            del outcome
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

    return Payload(Judgments.from_qrels(qrels), tuple(pairs), conventions, tabulate)


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

    Returns None when no run could be evaluated (only with ``keep_going``).
    """
    import pandas as pd

    frames: dict = {}
    collect(payload_of(qrels, pairs, tabulate, conventions), runs, lambda o: frames.__setitem__(o.system, o.frame),
            jobs=jobs, client=client, keep_going=keep_going, on_outcome=on_outcome, window=window)
    if not frames:
        return None
    return pd.concat([frames[s] for s in sorted(frames)], ignore_index=True)
