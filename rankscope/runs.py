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
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from metrics.errors import ParseError, RankscopeError, ValidationError
from metrics.io.readers import read_path

__all__ = ["DEFAULT_TIMEOUT", "TIMEOUT_ENV", "TRIM_VARIABLE", "add_run_flags", "allocator_note",
           "connect", "evaluate_runs", "expand_runs", "jobs_of", "per_query_for_report", "per_query_of_dataset",
           "select_measures", "spread", "write_output"]

GLOB_CHARS = frozenset("*?[")
TIMEOUT_ENV = "RANKSCOPE_SCHEDULER_TIMEOUT"
DEFAULT_TIMEOUT = 10.0
"""Seconds ``--scheduler`` waits for the cluster to answer (override with ``$RANKSCOPE_SCHEDULER_TIMEOUT``)."""


def add_run_flags(p: argparse.ArgumentParser, *, output: bool = True, keep_going: bool = True) -> None:
    """Add ``--jobs``, ``--scheduler``, ``--quiet`` (and ``--output``, ``--keep-going``) to a command."""
    p.add_argument("--jobs", type=int, default=None, metavar="N",
                   help="worker processes evaluating the runs, one run at a time each (default: chosen from the "
                        "free CPUs and the runs' total size, this process unless workers would gain a fifth of "
                        "the time); one run, or --jobs 1, is evaluated in this process. What is printed is the "
                        "same for any N")
    p.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                   help="evaluate the runs on this Dask cluster instead of local processes (it must answer "
                        f"within ${TIMEOUT_ENV} seconds, default {DEFAULT_TIMEOUT:g})")
    if output:
        p.add_argument("--output", metavar="DIR",
                       help="write per-query results as a partitioned Parquet dataset (DIR/system=NAME/"
                            "part-0.parquet, manifest last) instead of printing them")
    if keep_going:
        p.add_argument("--keep-going", action="store_true",
                       help="report a run that cannot be read and go on with the others (exit status 1 at "
                            "the end); default: stop at the first such run (exit status 2)")
    p.add_argument("--quiet", action="store_true", help="no progress bar on stderr (it is drawn only on a terminal)")


def jobs_of(args: argparse.Namespace, runs: Sequence[str]) -> int | None:
    """The worker processes for ``runs``: None (this process) for one run or ``--jobs 1``.

    Without ``--jobs``, :func:`metrics.scale.plan.default_jobs` of the runs' sizes: workers only where the
    model, from the free CPUs now and the bytes to read, says they gain; else this process. With
    ``--scheduler`` the cluster's workers do the work and this number is not used.
    """
    if args.jobs is None:
        from metrics.scale.plan import default_jobs

        jobs = default_jobs(_size(run) for run in runs)
    else:
        jobs = args.jobs
    if jobs < 1:
        raise ValidationError(f"--jobs: expected a whole number >= 1, found {jobs}")
    return jobs if jobs > 1 and len(runs) > 1 else None


def _size(run: str) -> int:
    """Bytes of a run file (a gzip file: four times its size, about what it expands to); 0 if unknown."""
    try:
        size = os.stat(run).st_size
    except (OSError, TypeError, ValueError):
        return 0
    return 4 * size if str(run).endswith(".gz") else size


def spread(args: argparse.Namespace, runs: Sequence[str]) -> bool:
    """Whether the runs go to workers (local processes or ``--scheduler``) rather than this process."""
    return getattr(args, "scheduler", None) is not None or jobs_of(args, runs) is not None


def evaluate_runs(args: argparse.Namespace, qrels, paths: list[str], measures, conventions,
                  command: str) -> tuple[Any, int]:
    """The per-query table of ``paths``, systems in the order given, evaluated on workers with a progress bar.

    The table is :func:`metrics.evaluate`'s for the same runs in one process (the workers' tables are put
    back in the order given). With ``--keep-going`` a run that fails prints its one-line error and is left
    out.

    Returns
    -------
    (pandas.DataFrame, int)
        The table, and the exit status: 0, or 1 when runs were left out.
    """
    from metrics.scale import evaluate_parallel
    from rankscope.progress import Progress

    index: dict[str, int] = {}
    with Progress(len(paths), quiet=args.quiet) as progress, connect(args.scheduler) as client:
        def report(outcome) -> None:
            if outcome.error is not None and getattr(args, "keep_going", False):
                progress.clear()
                print(f"rankscope {command}: {outcome.error}", file=sys.stderr)
            elif outcome.error is None:
                index[outcome.system] = outcome.index
            progress.advance()

        frame = evaluate_parallel(qrels, paths, measures, conventions=conventions,
                                  jobs=jobs_of(args, paths) or 1, client=client,
                                  keep_going=getattr(args, "keep_going", False), on_outcome=report)
    if frame.empty and not index:
        raise ValidationError("no run could be read")
    order = frame["system"].map(index).to_numpy()
    frame = frame.iloc[order.argsort(kind="stable")].reset_index(drop=True)
    return frame, 1 if len(index) < len(paths) else 0


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
            text = read_path(listing, listing).decode("utf-8")
        except (OSError, UnicodeDecodeError) as err:
            raise ParseError(listing, None, f"expected a list of run files, one per line; cannot read it: "
                                            f"{getattr(err, 'strerror', None) or err}") from None
        if "\x00" in text:
            raise ParseError(listing, text.count("\n", 0, text.index("\x00")) + 1,
                             "expected a list of run files, one per line, found a NUL byte (binary file?)")
        listed = 0
        for number, line in enumerate(text.splitlines(), start=1):
            line = line.strip()
            if line and not line.startswith("#"):
                out.extend(_expand_one(line, f"{listing}:{number}"))
                listed += 1
        if not listed:
            raise ValidationError(f"{listing}:1: expected run files, one per line, found none")
    return out


def scheduler_timeout() -> float:
    """Seconds to wait for a scheduler: ``$RANKSCOPE_SCHEDULER_TIMEOUT``, else :data:`DEFAULT_TIMEOUT`."""
    text = os.environ.get(TIMEOUT_ENV)
    if text is None or not text.strip():
        return DEFAULT_TIMEOUT
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value > 0 or value == float("inf"):
        raise ValidationError(f"${TIMEOUT_ENV}: expected a number of seconds > 0, found {text!r}")
    return value


@contextlib.contextmanager
def connect(address: str | None, *, timeout: float | None = None) -> Iterator[Any]:
    """A Dask client of the scheduler at ``address`` for the duration, or None when no address is given.

    ``timeout``: seconds to wait for it to answer (default :func:`scheduler_timeout`). A scheduler that does
    not answer in time is a ValidationError of one line.
    """
    if address is None:
        yield None
        return
    try:
        from distributed import Client
    except ImportError:
        raise ValidationError(f"--scheduler {address}: expected the 'distributed' package, found it not "
                              "installed (pip install 'dask[distributed]')") from None
    seconds = scheduler_timeout() if timeout is None else timeout
    try:
        client = Client(address, timeout=seconds, set_as_default=False)
    except (OSError, TimeoutError, ValueError, TypeError) as err:
        why = " ".join(str(err).split()) or type(err).__name__
        raise ValidationError(f"--scheduler {address}: expected a Dask scheduler answering within {seconds:g} s, "
                              f"found none ({type(err).__name__}: {why})") from None
    try:
        note = allocator_note(client, timeout=seconds)
        if note is not None:
            print(f"rankscope: note: {note}", file=sys.stderr)
        yield client
    finally:
        client.close()


TRIM_VARIABLE = "MALLOC_TRIM_THRESHOLD_"


def allocator_note(client: Any, timeout: float = DEFAULT_TIMEOUT) -> str | None:
    """A sentence for a cluster whose workers run with ``MALLOC_TRIM_THRESHOLD_`` set (Dask's nannies set it
    by default), else None. With it every large array is freshly mapped memory, and a run takes about twice
    the CPU (measured: 0.13 s instead of 0.06 s per Robust04-size run). Workers that do not answer within
    ``timeout`` seconds are not waited for (no note): the tasks will say what is wrong with them."""
    import threading

    answers: list = []

    def ask() -> None:
        try:
            answers.append(client.run(os.getenv, TRIM_VARIABLE))
        except Exception:  # noqa: BLE001  (a cluster that cannot answer this is left to the tasks to report)
            pass

    asking = threading.Thread(target=ask, name="rankscope-allocator-note", daemon=True)
    asking.start()
    asking.join(timeout)
    if not answers:
        return None
    found = answers[0]
    trimming = {address: value for address, value in found.items() if value is not None}
    if not trimming:
        return None
    values = ", ".join(sorted(set(trimming.values())))
    return (f"{len(trimming)} of the cluster's {len(found)} workers run with {TRIM_VARIABLE}={values}, which "
            f"about doubles the CPU of each run; start them without it (docs/guides/organisers.md, \"Hundreds of runs\")")


def write_output(args: argparse.Namespace, qrels, paths: list[str], measures: list[str], conventions,
                 command: str) -> int:
    """Evaluate ``paths`` into the dataset ``args.output`` on workers, with a progress bar and error reports.

    Returns the exit status: 0, or 1 when ``--keep-going`` left runs out.
    """
    from metrics.scale import write_dataset
    from rankscope.progress import Progress

    jobs = jobs_of(args, paths) or 1
    with Progress(len(paths), quiet=args.quiet) as progress, connect(args.scheduler) as client:
        def report(outcome) -> None:
            if outcome.error is not None and args.keep_going:
                progress.clear()
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
    from metrics.scale import read_dataset

    if args.qrels is not None or args.runs:
        given = " ".join([args.qrels or "", *args.runs]).strip()
        raise ValidationError(f"--input {args.input}: expected no qrels or runs beside it, found {given}")
    return select_measures(read_dataset(args.input), measures, bool(args.measures), f"--input {args.input}",
                           "the dataset")


def select_measures(frame, measures, named: bool, where: str, holder: str) -> Any:
    """The rows of a per-query ``frame`` of the measures ``measures`` (``AP`` asked, ``map`` stored: the same).

    ``named``: the measures were named with ``-m``, so each must be in ``frame``; otherwise they are the
    command's defaults: those ``frame`` holds are kept, all of its measures if it holds none of them.
    """
    from metrics.evaluate import resolve_measures

    present = {label: measure for label, measure in resolve_measures(list(frame["measure"].unique()))}
    labels, missing = [], []
    for label, measure in resolve_measures(list(measures)):
        found = label if label in present else next((k for k, m in present.items() if m == measure), None)
        (missing.append(label) if found is None else labels.append(found))
    if not named:
        labels, missing = (labels or list(present)), []
    if missing:
        raise ValidationError(f"{where}: expected measure(s) {missing} in {holder}, found {sorted(present)}")
    return frame[frame["measure"].isin(labels)].reset_index(drop=True)


def per_query_for_report(directory: str, measures, conventions) -> Any:
    """The per-query table of the dataset at ``directory`` for a report: the measures asked, under their labels.

    A measure stored under another name (``map`` for ``AP``) is taken and relabelled. The dataset must
    have been evaluated under ``conventions`` (recorded in its manifest) and hold every measure asked.
    """
    from metrics.conventions import Conventions
    from metrics.evaluate import resolve_measures
    from metrics.scale import read_dataset
    from metrics.scale.dataset import read_manifest

    recorded = read_manifest(directory).get("conventions")
    try:
        found = Conventions.coerce(**recorded)
    except (RankscopeError, TypeError):
        found = None
    if found != conventions:
        raise ValidationError(f"--input {directory}: expected a dataset evaluated with the report's conventions "
                              f"({conventions.describe()}), found "
                              f"{recorded if found is None else '(' + found.describe() + ')'}; give the report "
                              "the convention flags the dataset was written with")
    frame = read_dataset(directory)
    present = dict(resolve_measures(list(frame["measure"].unique())))
    rename, missing = {}, []
    for label, measure in resolve_measures(measures):
        found = label if label in present else next((k for k, m in present.items() if m == measure), None)
        (missing.append(label) if found is None else rename.__setitem__(found, label))
    if missing:
        raise ValidationError(f"--input {directory}: expected measure(s) {missing} in the dataset, found "
                              f"{sorted(present)}")
    frame = frame[frame["measure"].isin(list(rename))].reset_index(drop=True)
    frame["measure"] = frame["measure"].map(rename)
    return frame
