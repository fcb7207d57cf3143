"""How many local worker processes pay off: a model of one process against several, from measured costs.

One process already keeps more than one core busy while it reads (pyarrow parses a run on as many threads
as there are cores: on 2 cores, 14.1 s of CPU in 11.1 s of wall time), so ``n`` workers on ``c`` free cores
speed the reading and ranking up by at most ``min(n, c) / ONE_PROCESS_CORES``, not ``n``, and starting
them costs :data:`START_SECONDS` before the first run is read. :func:`default_jobs` weighs the two from
the cores this process may use, the cores other work is using now (the load average), and the bytes of
the runs, and picks workers only where the model says they gain at least :data:`MARGIN`; otherwise one
process, which is never slower than itself. Each worker reads with ``cores // workers`` threads
(:func:`threads_per_worker`), so that workers do not fight over the cores one process would use alone.

The constants were measured on a 2-core AMD EPYC with ``benchmarks/many_runs.py`` (docs/performance.md gives
the figures): 6.4 ns of one process's wall time per byte of run (Robust04-size runs of 8.7 MB, 0.056 s each),
1.2 cores busy on average, about 0.5 s to start the workers (a fresh interpreter each, importing numpy,
pyarrow and ``metrics``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable

__all__ = ["MARGIN", "ONE_PROCESS_CORES", "SECONDS_PER_BYTE", "START_SECONDS", "default_jobs", "estimate",
           "free_cores", "threads_per_worker", "usable_cores"]

SECONDS_PER_BYTE = 6.4e-9
"""One process's wall time per byte of run files (reading, ranking, measures, writing the result)."""
ONE_PROCESS_CORES = 1.2
"""Cores one process keeps busy on average (pyarrow's reading threads), on 2 cores."""
START_SECONDS = 0.5
"""Seconds before the workers read their first run: starting them and sending them the judgments."""
MARGIN = 0.8
"""Workers are chosen only when the model's time with them is at most this share of one process's time."""


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def free_cores(cores: int | None = None, load: float | None = None) -> float:
    """Cores not used by other work: ``cores`` minus the 1-minute load average, at least 1."""
    cores = usable_cores() if cores is None else cores
    if load is None:
        try:
            load = os.getloadavg()[0]
        except (AttributeError, OSError):
            load = 0.0
    return max(1.0, cores - load)


def estimate(total_bytes: int, jobs: int, cores: float) -> float:
    """The model's wall time (s) for runs of ``total_bytes`` on ``jobs`` workers (1: this process) with
    ``cores`` free cores.

    Examples
    --------
    >>> round(estimate(200 * 8_700_000, 1, 2), 1), round(estimate(200 * 8_700_000, 2, 2), 1)
    (11.1, 7.2)
    >>> estimate(200 * 8_700_000, 2, 1) > estimate(200 * 8_700_000, 1, 1)  # a busy machine: no gain
    True
    """
    alone = total_bytes * SECONDS_PER_BYTE
    if jobs <= 1:
        return alone
    return START_SECONDS + alone * ONE_PROCESS_CORES / min(jobs, cores)


def default_jobs(sizes: Iterable[int], cores: int | None = None, load: float | None = None) -> int:
    """Worker processes for runs of these sizes (bytes): 1 (this process) unless the model gains
    :data:`MARGIN` with more, then as many as there are free cores (at most one per run).

    Examples
    --------
    >>> default_jobs([8_700_000] * 200, cores=2, load=0.0)  # 200 Robust04-size runs on an idle machine
    2
    >>> default_jobs([8_700_000] * 200, cores=2, load=3.0)  # the same while other work fills the cores
    1
    >>> default_jobs([8_700_000] * 4, cores=2, load=0.0)  # four: starting workers costs more than it gains
    1
    >>> default_jobs([250_000_000] * 8, cores=16, load=0.0)  # eight MS MARCO-size runs on 16 cores
    8
    """
    sizes = list(sizes)
    total = sum(sizes)
    free = free_cores(cores, load)
    jobs = min(int(free), len(sizes))
    if jobs < 2 or estimate(total, jobs, free) > MARGIN * estimate(total, 1, free):
        return 1
    return jobs


def threads_per_worker(jobs: int, cores: int | None = None) -> int:
    """Reading threads for each of ``jobs`` workers: the cores shared out, at least one each."""
    return max(1, (usable_cores() if cores is None else cores) // max(1, jobs))
