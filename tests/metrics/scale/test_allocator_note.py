"""The command line names a cluster whose workers run with Dask's MALLOC_TRIM_THRESHOLD_ (a run then takes about
twice the CPU), and says nothing of a cluster started without it. Real LocalClusters, closed afterwards."""

from __future__ import annotations

import contextlib
import io

from rankscope.runs import TRIM_VARIABLE, allocator_note, connect
from tests.dask_cluster import local_cluster, wait_gone, worker_pids


@contextlib.contextmanager
def _cluster(trim: str | None, monkeypatch):
    """A LocalCluster whose nannies give their workers ``MALLOC_TRIM_THRESHOLD_=trim`` (None: not set). A nanny
    also sets the variable in its own process, here this one: the test's environment is restored after."""
    # (setenv records the variable's state before, set or not, so that it is restored after; delenv alone
    # records nothing when the variable is not set)
    monkeypatch.setenv(TRIM_VARIABLE, "")
    monkeypatch.delenv(TRIM_VARIABLE)
    cluster = local_cluster(trim)
    try:
        yield cluster
    finally:
        from distributed import Client

        with Client(cluster, set_as_default=False) as client:
            pids = worker_pids(client)
        cluster.close()
        assert wait_gone(pids) == []


def test_a_cluster_with_the_trim_threshold_is_named_on_stderr(monkeypatch):
    with _cluster("65536", monkeypatch) as cluster:
        err = io.StringIO()
        with contextlib.redirect_stderr(err), connect(cluster.scheduler_address) as client:
            assert sorted(client.run(lambda: 1).values()) == [1, 1]
        assert err.getvalue() == (
            f"rankscope: note: 2 of the cluster's 2 workers run with {TRIM_VARIABLE}=65536, which about doubles "
            'the CPU of each run; start them without it (docs/guides/organisers.md, "Hundreds of runs")\n')


def test_a_cluster_without_it_gets_no_note(monkeypatch):
    with _cluster(None, monkeypatch) as cluster:
        err = io.StringIO()
        with contextlib.redirect_stderr(err), connect(cluster.scheduler_address) as client:
            assert allocator_note(client) is None
        assert err.getvalue() == ""


def test_workers_that_do_not_answer_are_not_waited_for():
    import threading
    import time

    release = threading.Event()

    class Stuck:  # a cluster whose workers never answer (released at the end, so no thread is left waiting)
        def run(self, *args):
            release.wait(30)
            return {}

    began = time.monotonic()
    try:
        assert allocator_note(Stuck(), timeout=0.3) is None
        assert time.monotonic() - began < 5
    finally:
        release.set()
