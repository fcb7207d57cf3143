"""A Dask worker killed in the middle of an evaluation: nothing lost, nothing counted twice."""

from __future__ import annotations

import os
import signal

import pandas as pd

import metrics
from tests.dask_cluster import local_cluster, wait_gone, worker_pids
from tests.metrics.scale.helpers import big_qrels_text, big_run_text

MEASURES = ["official", "ndcg_cut.10,100"]


def _collection(folder, runs: int) -> tuple[str, list[str]]:
    """Qrels of 150 topics and ``runs`` run files of 200 documents per topic written to ``folder``."""
    paths = []
    for i in range(runs):
        path = folder / f"run{i:02d}.run"
        path.write_text(big_run_text(700 + i, 150, 200))
        paths.append(str(path))
    return big_qrels_text(7, 150, 200), paths


def _evaluate_while(qrels: str, paths: list[str], killer) -> tuple[pd.DataFrame, set[int]]:
    """The runs evaluated on a local cluster of its own, ``killer(client)`` called with each outcome; the
    frame, and the pids of every worker the cluster had (for :func:`wait_gone`)."""
    from distributed import Client

    cluster = local_cluster()
    client = Client(cluster, set_as_default=False)
    pids = set(worker_pids(client))
    try:
        got = metrics.evaluate_parallel(qrels, paths, MEASURES, client=client,
                                        on_outcome=lambda outcome: killer(client, outcome))
        pids.update(worker_pids(client))
    finally:
        client.close()
        cluster.close()
    return got, pids


def test_a_worker_killed_mid_job_loses_and_duplicates_nothing(tmp_path):
    qrels, paths = _collection(tmp_path, 20)
    expected = metrics.evaluate_parallel(qrels, paths, MEASURES)  # one process
    seen, killed = [], []

    def kill_a_busy_worker(client, outcome) -> None:
        seen.append(outcome.system)
        if len(seen) == 3 and not killed:
            busy = [address for address, keys in client.processing().items() if keys]
            pid = client.run(os.getpid, workers=busy[:1])[busy[0]]
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)

    got, pids = _evaluate_while(qrels, paths, kill_a_busy_worker)
    assert len(killed) == 1  # a worker that was evaluating a run when it died
    assert sorted(seen) == sorted(metrics.system_name(os.path.basename(p)) for p in paths)  # each once
    pd.testing.assert_frame_equal(got, expected, check_exact=True)
    assert wait_gone(pids) == []


def test_the_judgments_survive_the_death_of_every_worker_that_holds_them(tmp_path):
    # The judgments, measures and conventions reach the workers as one piece of data. Dask keeps one copy of
    # data that no task waits for (its memory manager drops the others), so killing the workers that hold
    # it must not fail the runs still to come: here every holder is killed after the first run is done.
    qrels, paths = _collection(tmp_path, 6)
    expected = metrics.evaluate_parallel(qrels, paths, MEASURES)
    killed = []

    def kill_the_holders(client, outcome) -> None:
        if killed:
            return
        holders = {w for key, where in client.who_has().items() if "payload" in str(key).lower() for w in where}
        assert holders, "no worker holds the judgments"
        for address, pid in client.run(os.getpid, workers=sorted(holders)).items():
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)

    got, pids = _evaluate_while(qrels, paths, kill_the_holders)
    assert killed
    pd.testing.assert_frame_equal(got, expected, check_exact=True)
    assert wait_gone(pids) == []
