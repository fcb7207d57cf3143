"""Evaluating hundreds of runs: on local worker processes or a Dask cluster, into memory or to disk.

:func:`evaluate_parallel` is :func:`metrics.evaluate` spread over workers (``metrics.evaluate(...,
jobs=N)`` and ``client=`` call the same code); :func:`write_dataset` streams each run's per-query table
into a partitioned Parquet dataset as soon as it is computed, so the client holds a bounded number of
tables whatever the number of runs; :func:`read_dataset` loads one back; :func:`map_runs` hands each
ranked run to a function of the caller's on the workers and yields the results in the order of the runs
(the command line prints each run's text as the workers finish it).

The result never depends on the number of workers, on which worker ran what, or on the order the runs are
given: every run is evaluated alone against the same judgments, and the tables are put together sorted by
system name. Dask is imported only when a client is given.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from metrics.conventions import Conventions
from metrics.evaluate import COLUMNS, DEFAULT_MEASURES, per_query_frame, resolve_measures
from metrics.io.readers import as_qrels
from metrics.measures import Measure
from metrics.scale.dataset import DatasetWriter, read_dataset
from metrics.scale.pool import collect, evaluate_spread, items_of, outcomes, payload_of
from metrics.scale.tasks import Outcome

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["DatasetSummary", "Outcome", "evaluate_parallel", "map_runs", "read_dataset", "write_dataset"]


@dataclasses.dataclass(frozen=True)
class DatasetSummary:
    """What :func:`write_dataset` wrote.

    Attributes
    ----------
    directory : str
    systems : tuple of str
        The systems written, sorted by name.
    failures : tuple of Outcome
        The runs that could not be evaluated (only with ``keep_going``), in the order given.
    rows : int
        Rows written over all partitions.
    """

    directory: str
    systems: tuple[str, ...]
    failures: tuple[Outcome, ...]
    rows: int


def evaluate_parallel(qrels: Any, runs: Any, measures: Any = DEFAULT_MEASURES, *,
                      conventions: Conventions | None = None, jobs: int | None = None, client: Any = None,
                      keep_going: bool = False, on_outcome: Callable[[Outcome], None] | None = None,
                      window: int | None = None, **options: Any) -> "pd.DataFrame":
    """Evaluate runs on several workers: the table of :func:`metrics.evaluate`, systems sorted by name.

    Parameters
    ----------
    qrels : Qrels or path, bytes, text
        Read and indexed once by the client, sent once to each worker.
    runs : path, fsspec URL, bytes or Run, or a sequence of them, or a mapping {system name: run}
        Each worker reads its runs itself; only bytes and Run objects travel with the task.
    measures : str, Measure or a sequence of them, default=metrics.DEFAULT_MEASURES
        As for :func:`metrics.evaluate`.
    conventions : Conventions, optional
    jobs : int, optional
        Local worker processes (each a fresh interpreter: ``spawn``); None or 1: this process.
    client : dask.distributed.Client, optional
        Evaluate on that Dask cluster instead (``jobs`` is then ignored).
    keep_going : bool, default=False
        A run that cannot be read or evaluated is left out (and reported to ``on_outcome``) instead of
        stopping everything with its error.
    on_outcome : callable, optional
        Called with each run's :class:`Outcome` as it finishes (progress, error reports).
    window : int, optional
        Tasks out at once; default twice the number of workers.
    **options
        Fields of :class:`~metrics.conventions.Conventions`, overriding ``conventions``.

    Returns
    -------
    pandas.DataFrame
        Columns ``system``, ``query``, ``measure``, ``value``; systems sorted by name, then each run's rows
        as :func:`metrics.evaluate` orders them. Identical, bit for bit, for any ``jobs``, any cluster and
        any order of ``runs``. Empty when every run failed (only with ``keep_going``).

    Raises
    ------
    RankscopeError
        The first run that failed (unless ``keep_going``), or two runs with one system name.
    """
    import pandas as pd

    frame = evaluate_spread(as_qrels(qrels), runs, resolve_measures(measures), per_query_frame,
                            Conventions.coerce(conventions, **options), jobs=jobs, client=client,
                            keep_going=keep_going, on_outcome=on_outcome, window=window)
    if frame is None:
        return pd.DataFrame({c: pd.Series([], dtype="float64" if c == "value" else "str") for c in COLUMNS})
    return frame


def map_runs(qrels: Any, runs: Any, tabulate: Callable, measures: Any = DEFAULT_MEASURES, *,
             conventions: Conventions | None = None, jobs: int | None = None, client: Any = None,
             window: int | None = None, **options: Any) -> Iterator[Outcome]:
    """Rank each run on a worker, apply ``tabulate`` there, and yield the outcomes in the order of the runs.

    Parameters
    ----------
    qrels : Qrels or path, bytes, text
        Read and indexed once by the client, sent once to each worker.
    runs : path, fsspec URL, bytes or Run, or a sequence of them, or a mapping {system name: run}
    tabulate : callable
        ``tabulate(rankings, pairs)`` for one ranked run and the resolved ``(label, measure)`` pairs; its
        value is the outcome's ``frame``. It travels to the workers, so it must pickle (a module-level
        function or an instance of a module-level class).
    measures : str, Measure or a sequence of them, or resolved ``(label, Measure)`` pairs
        As for :func:`metrics.evaluate`; pairs are used as given (labels of the caller's choosing).
    conventions : Conventions, optional
    jobs : int, optional
        Local worker processes; None or 1: this process.
    client : dask.distributed.Client, optional
        Evaluate on that Dask cluster instead (``jobs`` is then ignored).
    window : int, optional
        Outcomes out on workers or held at once; default twice the number of workers. A run that finishes
        before those given ahead of it is held until they are yielded, so the client holds at most
        ``window`` outcomes whatever the number of runs.
    **options
        Fields of :class:`~metrics.conventions.Conventions`, overriding ``conventions``.

    Yields
    ------
    Outcome
        One per run, in the order given, failed runs included (their ``error`` set): the caller decides
        whether one stops the rest.
    """
    resolved = (list(measures) if isinstance(measures, (list, tuple))  # [] : nothing but what tabulate prints
                and all(isinstance(p, tuple) and len(p) == 2 and isinstance(p[1], Measure) for p in measures)
                else resolve_measures(measures))
    payload = payload_of(as_qrels(qrels), resolved, tabulate, Conventions.coerce(conventions, **options))
    yield from outcomes(payload, items_of(runs), jobs=jobs, client=client, window=window, ordered=True)


def write_dataset(directory: Any, qrels: Any, runs: Any, measures: Any = DEFAULT_MEASURES, *,
                  conventions: Conventions | None = None, jobs: int | None = None, client: Any = None,
                  keep_going: bool = False, on_outcome: Callable[[Outcome], None] | None = None,
                  window: int | None = None, **options: Any) -> DatasetSummary:
    """Evaluate runs as :func:`evaluate_parallel` does, writing each run's table to disk as it finishes.

    Parameters
    ----------
    directory : str or path-like
        The dataset (layout in :mod:`metrics.scale.dataset`); its manifest is written last.
    qrels, runs, measures, conventions, jobs, client, keep_going, on_outcome, window, **options
        As for :func:`evaluate_parallel`.

    Returns
    -------
    DatasetSummary

    Notes
    -----
    The client holds at most ``window`` finished tables (those not yet written) and writes one partition
    at a time, so its memory does not grow with the number of runs. :func:`read_dataset` gives back the
    frame :func:`evaluate_parallel` returns.
    """
    conventions = Conventions.coerce(conventions, **options)
    payload = payload_of(as_qrels(qrels), resolve_measures(measures), per_query_frame, conventions)
    writer = DatasetWriter(directory, [label for label, _ in payload.pairs], dataclasses.asdict(conventions))
    rows = [0]

    def keep(outcome: Outcome) -> None:
        writer.add(outcome.frame, outcome.system)
        rows[0] += len(outcome.frame)

    failures = collect(payload, runs, keep, jobs=jobs, client=client, keep_going=keep_going,
                       on_outcome=on_outcome, window=window)
    writer.close([{"run": o.label, "error": o.error} for o in failures])
    return DatasetSummary(str(directory), tuple(sorted(writer.partitions)), tuple(failures), rows[0])
