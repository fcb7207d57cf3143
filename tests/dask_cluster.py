"""Dask clusters for the tests: the scheduler CI starts (``RANKSCOPE_TEST_DASK_SCHEDULER``), else a local one.

A plugin of the whole suite (``tests/conftest.py``): the ``dask_client`` fixture serves every folder.

Under ``CI=true`` a cluster that cannot be had is a failure; elsewhere the tests that need one are skipped
with the reason. Every cluster started here is closed by its fixture, and its worker processes are checked
gone.
"""

from __future__ import annotations

import os
import time

import pytest

from tests.processes import alive

SCHEDULER_ENV = "RANKSCOPE_TEST_DASK_SCHEDULER"


def missing(reason: str) -> None:
    """Fail under ``CI=true``, else skip, naming what is missing."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"Dask tests must run in CI; {reason}", pytrace=False)
    pytest.skip(reason)


def wait_gone(pids, timeout: float = 20.0) -> list[int]:
    """The processes of ``pids`` still alive after up to ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    left = [p for p in pids if alive(p)]
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = [p for p in left if alive(p)]
    return left


def local_cluster(trim: str | None = None):
    """A LocalCluster of two single-threaded worker processes (with their nannies), no dashboard.

    ``trim``: the ``MALLOC_TRIM_THRESHOLD_`` its nannies give the workers; by default none, as docs/guides/organisers.md
    advises (Dask's own default, 65536, makes the command line print a note). A nanny sets the variable in
    its own process too, the one calling this: set it only under ``monkeypatch``.
    """
    try:
        import dask
        from distributed import LocalCluster
    except ImportError as err:
        missing(f"the 'distributed' package is missing ({err})")
    with dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": trim}):
        return LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=":0",
                            silence_logs=40)


def worker_pids(client) -> list[int]:
    return sorted(client.run(os.getpid).values())


@pytest.fixture(scope="module")
def dask_client():
    """A client of CI's scheduler when ``RANKSCOPE_TEST_DASK_SCHEDULER`` is set, else of a LocalCluster."""
    from distributed import Client

    address = os.environ.get(SCHEDULER_ENV)
    if address:
        try:
            client = Client(address, timeout=30, set_as_default=False)
        except (OSError, TimeoutError) as err:
            missing(f"no Dask scheduler answers at {SCHEDULER_ENV}={address} ({err})")
        yield client
        client.close()
        return
    cluster = local_cluster()
    client = Client(cluster, set_as_default=False)
    pids = worker_pids(client)
    yield client
    client.close()
    cluster.close()
    assert wait_gone(pids) == []
