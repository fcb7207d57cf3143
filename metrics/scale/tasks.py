"""Evaluating one run wherever it runs: in this process, in a local worker process, or on a Dask worker.

A task is given the source of one run (a path, an fsspec URL, bytes or a :class:`~metrics.io.Run`), reads
it itself, ranks it against judgments it already holds, and returns an :class:`Outcome`: the run's
per-query table, or the one-line message of the error that stopped it. Errors travel as text because the
worker's exception object need not survive pickling; the client raises or reports them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from urllib.parse import urlsplit
from typing import TYPE_CHECKING, Any, Callable, Optional, Sequence

from metrics.conventions import Conventions
from metrics.errors import ParseError, RankscopeError
from metrics.io import Run, read_run, system_name
from metrics.io.readers import ReadLimits, read_stream
from metrics.io.redaction import redact

if TYPE_CHECKING:
    import pandas as pd

    from metrics.measures import Measure
    from metrics.rankings import Judgments, Rankings

__all__ = ["Outcome", "Payload", "evaluate_installed", "evaluate_source", "install", "is_url", "label_of", "read_source"]


@dataclass(frozen=True)
class Payload:
    """What every task needs besides its run: sent once per worker, never once per task.

    Attributes
    ----------
    judgments : Judgments
        The qrels, indexed once by the client.
    pairs : tuple of (str, Measure)
        The resolved measures, labels first.
    conventions : Conventions
    tabulate : callable
        ``tabulate(rankings, pairs)``: the per-query table of one ranked run
        (:func:`metrics.measures.per_query.per_query_frame`, or a function of the caller's).
    limits : ReadLimits, optional
        How much a run's reader takes (the caller's :func:`~metrics.io.readers.current_limits`).
    """

    judgments: "Judgments"
    pairs: tuple[tuple[str, "Measure"], ...]
    conventions: Conventions
    tabulate: Callable[["Rankings", Sequence[tuple[str, "Measure"]]], "pd.DataFrame"]
    limits: Optional[ReadLimits] = None  # the caller's reading limits (metrics.io.readers.reading_limits)


@dataclass(frozen=True)
class Outcome:
    """The result of one task.

    Attributes
    ----------
    index : int
        Position of the run among those given.
    label : str
        The run's name in messages (its file name, or the system name given).
    system : str or None
        The system name; None when the run could not be read.
    frame : pandas.DataFrame or None
        The run's per-query table (columns ``system, query, measure, value``), or whatever the payload's
        ``tabulate`` returned (:func:`metrics.scale.map_runs`); None on error.
    error : str or None
        The one-line message of the :class:`~metrics.errors.RankscopeError` that stopped the run.
    error_type : str or None
        The name of that error's class (``ParseError``, ``ValidationError``, ...).
    """

    index: int
    label: str
    system: Optional[str]
    frame: Optional["pd.DataFrame"]
    error: Optional[str] = None
    error_type: Optional[str] = None


def is_url(source: Any) -> bool:
    """Whether ``source`` is an fsspec URL (``s3://``, ``file://``, ``memory://`` ...) rather than a path."""
    return isinstance(source, str) and "://" in source.split("\n", 1)[0] and "\n" not in source


def label_of(source: Any, name: str | None = None) -> str:
    """The name of a run in messages: the name given, else its file name, else ``<bytes>``/``<run>``."""
    if name is not None:
        return name
    if isinstance(source, Run):
        return source.name
    if is_url(source):  # the last part of its path: neither its query nor anything before the host
        return urlsplit(source).path.rstrip("/").rsplit("/", 1)[-1] or "<run>"
    if isinstance(source, (str, os.PathLike)) and "\n" not in str(source):
        return os.path.basename(os.fspath(source))
    return "<bytes>"


def read_source(source: Any, name: str | None = None, limits: ReadLimits | None = None) -> Run:
    """Read one run from a path, an fsspec URL, bytes, text or a Run (named ``name`` when given).

    Raises
    ------
    ParseError
        The run cannot be read or parsed (the message names the file).
    """
    if isinstance(source, Run):
        return source if name is None else source.renamed(name)
    if is_url(source):
        label = label_of(source)
        try:
            import fsspec

            with fsspec.open(source, "rb") as handle:
                data = read_stream(handle, label)  # in pieces, at most GZIP_LIMIT bytes
        except (OSError, ValueError, ImportError) as err:
            why = " ".join(str(err).split())  # one line: fsspec's messages run over several
            raise ParseError(label, None, redact(f"cannot read {source}: {why}", source)) from None
        return read_run(data, name=name or system_name(label), limits=limits)
    return read_run(source, name=name, limits=limits)


def evaluate_source(payload: Payload, index: int, source: Any, name: str | None = None) -> Outcome:
    """Read, rank and evaluate one run; a :class:`RankscopeError` becomes the outcome's message."""
    from metrics.rankings import rank

    label = label_of(source, name)
    try:
        run = read_source(source, name, payload.limits)
        frame = payload.tabulate(rank(payload.judgments, run, payload.conventions), payload.pairs)
    except RankscopeError as err:
        return Outcome(index, label, None, None, str(err), type(err).__name__)
    return Outcome(index, label, run.name, frame)


def held(payload: Payload) -> Payload:
    """A cluster's task that gives back its argument: the payload as a task's result, which the scheduler
    makes again from the task if the worker holding it dies (scattered data would be lost with it)."""
    return payload


_PAYLOAD: Payload | None = None  # a local worker's copy, set once by its initializer


def install(payload: Payload, threads: int | None = None) -> None:
    """Initializer of a local worker process: keep the payload for every task it runs, and read with
    ``threads`` threads (the cores shared out among the workers: more would only take turns on them)."""
    global _PAYLOAD
    _PAYLOAD = payload
    if threads is not None:
        import pyarrow as pa

        pa.set_cpu_count(threads)


def evaluate_installed(index: int, source: Any, name: str | None = None) -> Outcome:
    """A local worker's task: :func:`evaluate_source` with the payload its initializer kept."""
    if _PAYLOAD is None:  # pragma: no cover - the pool always installs it first
        raise RuntimeError("worker started without its payload")
    return evaluate_source(_PAYLOAD, index, source, name)
