"""Runs named on the command line, and evaluating many of them: expansion, workers, output, errors.

A run argument is a path, a glob (``runs/*.txt``), a directory (every file in it not starting with a
dot), ``@FILE`` (a file listing one path, glob or directory per line; blank lines and lines starting
with ``#`` are skipped), or an fsspec URL (``s3://bucket/run.txt``, read by the worker that evaluates it).
Globs and directories expand in sorted order.
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from metrics.errors import ParseError, RankscopeError, ValidationError

__all__ = ["add_run_flags", "connect", "expand_runs", "per_query_of_dataset", "read_runs", "write_output"]

GLOB_CHARS = frozenset("*?[")


def add_run_flags(p: argparse.ArgumentParser, *, output: bool = True) -> None:
    """Add ``--jobs``, ``--scheduler``, ``--keep-going``, ``--quiet`` (and ``--output``) to a command."""
    p.add_argument("--jobs", type=int, default=None, metavar="N",
                   help="worker processes evaluating runs with --output (default: the number of CPUs)")
    p.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                   help="evaluate on this Dask cluster instead of local processes (with --output)")
    if output:
        p.add_argument("--output", metavar="DIR",
                       help="write per-query results as a partitioned Parquet dataset (DIR/system=NAME/"
                            "part-0.parquet, manifest last) instead of printing them")
    p.add_argument("--keep-going", action="store_true",
                   help="report a run that cannot be read and go on with the others (exit status 1 at the "
                        "end); default: stop at the first such run (exit status 2)")
    p.add_argument("--quiet", action="store_true", help="no progress bar on stderr")


def _is_url(argument: str) -> bool:
    return "://" in argument


def _expand_one(argument: str, where: str) -> list[str]:
    if _is_url(argument):
        return [argument]
    path = Path(argument)
    if path.is_dir():
        found = sorted(str(p) for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
        if not found:
            raise ValidationError(f"{where}: expected run files in directory {argument}, found none")
        return found
    if GLOB_CHARS & set(argument) and not path.exists():
        found = sorted(p for p in glob.glob(argument) if os.path.isfile(p))
        if not found:
            raise ValidationError(f"{where}: expected run files matching {argument!r}, found none")
        return found
    return [argument]


def expand_runs(arguments: list[str]) -> list[str]:
    """Expand run arguments (paths, globs, directories, ``@FILE``, URLs) into the runs they name, in order.

    A plain path is kept as given, even if it does not exist (reading it then says so), so a command line
    of plain paths evaluates exactly those.

    Raises
    ------
    ValidationError
        A glob that matches no file, an empty directory, an ``@FILE`` that lists nothing.
    ParseError
        An ``@FILE`` that cannot be read (the message names it).
    """
    out: list[str] = []
    for argument in arguments:
        if not argument.startswith("@") or len(argument) == 1:
            out.extend(_expand_one(argument, "run argument"))
            continue
        listing = argument[1:]
        try:
            text = Path(listing).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as err:
            raise ParseError(listing, None, f"expected a list of run files, one per line; cannot read it: "
                                            f"{getattr(err, 'strerror', None) or err}") from None
        listed = 0
        for number, line in enumerate(text.splitlines(), start=1):
            line = line.strip()
            if line and not line.startswith("#"):
                out.extend(_expand_one(line, f"{listing}:{number}"))
                listed += 1
        if not listed:
            raise ValidationError(f"{listing}:1: expected run files, one per line, found none")
    return out


def read_runs(paths: list[str], *, keep_going: bool, command: str) -> tuple[list, list[str], int]:
    """Read runs in this process; with ``keep_going`` a run that fails prints its error and is left out.

    Returns
    -------
    (runs, paths, status)
        The runs read, their paths, and 1 if any was left out, else 0.
    """
    from metrics.io import read_run

    runs, kept, status = [], [], 0
    for path in paths:
        try:
            runs.append(read_run(path))
        except RankscopeError as err:
            if not keep_going:
                raise
            print(f"rankscope {command}: {err}", file=sys.stderr)
            status = 1
            continue
        kept.append(path)
    if not runs:
        raise ValidationError("no run could be read")
    return runs, kept, status


@contextlib.contextmanager
def connect(address: str | None) -> Iterator[Any]:
    """A Dask client of the scheduler at ``address`` for the duration, or None when no address is given."""
    if address is None:
        yield None
        return
    try:
        from distributed import Client
    except ImportError:
        raise ValidationError(f"--scheduler {address}: expected the 'distributed' package, found it not "
                              "installed (pip install 'dask[distributed]')") from None
    try:
        client = Client(address, timeout=10, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as err:
        raise ValidationError(f"--scheduler {address}: expected a Dask scheduler, found none answering "
                              f"({type(err).__name__}: {err})") from None
    try:
        yield client
    finally:
        client.close()


def write_output(args: argparse.Namespace, qrels, paths: list[str], measures: list[str], conventions,
                 command: str) -> int:
    """Evaluate ``paths`` into the dataset ``args.output`` on workers, with a progress bar and error reports.

    Returns the exit status: 0, or 1 when ``--keep-going`` left runs out.
    """
    from metrics.scale import write_dataset
    from rankscope.progress import Progress

    jobs = args.jobs if args.jobs is not None else (os.cpu_count() or 1)
    if jobs < 1:
        raise ValidationError(f"--jobs: expected a whole number >= 1, found {jobs}")
    with Progress(len(paths), quiet=args.quiet) as progress, connect(args.scheduler) as client:
        def report(outcome) -> None:
            if outcome.error is not None and args.keep_going:
                if progress.enabled:
                    sys.stderr.write("\n")
                print(f"rankscope {command}: {outcome.error}", file=sys.stderr)
            progress.advance()

        summary = write_dataset(args.output, qrels, paths, measures, conventions=conventions, jobs=jobs,
                                client=client, keep_going=args.keep_going, on_outcome=report)
    return 1 if summary.failures else 0


def per_query_of_dataset(args: argparse.Namespace, measures) -> Any:
    """The per-query table of the dataset ``args.input``, keeping only the measures named by ``measures``.

    ``measures`` are the command's defaults when ``args.measures`` is empty: then those the dataset holds
    are kept (all of them if it holds none); named with ``-m``, each must be in the dataset.

    Qrels and runs must not be given with it: the dataset already holds their results.
    """
    from metrics.evaluate import resolve_measures
    from metrics.scale import read_dataset

    if args.qrels is not None or args.runs:
        given = " ".join([args.qrels or "", *args.runs]).strip()
        raise ValidationError(f"--input {args.input}: expected no qrels or runs beside it, found {given}")
    frame = read_dataset(args.input)
    present = {label: measure for label, measure in resolve_measures(list(frame["measure"].unique()))}
    labels, missing = [], []
    for label, measure in resolve_measures(list(measures)):  # AP asked, map stored: the same measure
        found = label if label in present else next((k for k, m in present.items() if m == measure), None)
        (missing.append(label) if found is None else labels.append(found))
    if not args.measures:  # the command's defaults: those the dataset holds, else all it holds
        labels, missing = (labels or list(present)), []
    if missing:
        raise ValidationError(f"--input {args.input}: expected measure(s) {missing} in the dataset, found "
                              f"{sorted(present)}")
    return frame[frame["measure"].isin(labels)].reset_index(drop=True)
