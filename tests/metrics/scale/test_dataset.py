"""The partitioned Parquet dataset: round trip, atomic partitions, manifest last, bounded client memory."""

from __future__ import annotations

import json
import tracemalloc

import pandas as pd
import pytest

import metrics
from metrics.errors import ValidationError
from metrics.scale.dataset import MANIFEST, partition_path
from tests.metrics.scale.helpers import big_qrels_text, big_run_text, many_runs

MEASURES = ["map", "P_10", "ndcg_cut_10", "recip_rank", "num_rel_ret", "bpref", "gm_map", "R@100"]


@pytest.mark.parametrize("jobs", [None, 2])
def test_round_trip_equals_the_in_memory_frame(tmp_path, jobs):
    qrels, runs = many_runs(21, 5, tmp_path)
    expected = metrics.evaluate_parallel(qrels, runs, MEASURES)
    summary = metrics.write_dataset(tmp_path / "out", qrels, runs[::-1], MEASURES, jobs=jobs)
    got = metrics.read_dataset(tmp_path / "out")
    pd.testing.assert_frame_equal(got, expected, check_exact=True)
    assert summary.systems == tuple(sorted(set(expected["system"])))
    assert summary.rows == len(expected) and summary.failures == ()
    manifest = json.loads((tmp_path / "out" / MANIFEST).read_text())
    assert [s["system"] for s in manifest["systems"]] == list(summary.systems)
    assert manifest["measures"] == MEASURES
    for entry in manifest["systems"]:
        assert (tmp_path / "out" / entry["path"]).is_file()
        assert entry["path"] == f"system={entry['system']}/part-0.parquet"


def test_dask_writes_the_same_dataset(tmp_path, dask_client):
    qrels, runs = many_runs(22, 4, tmp_path)
    metrics.write_dataset(tmp_path / "out", qrels, [str(p) for p in runs], MEASURES, client=dask_client)
    pd.testing.assert_frame_equal(metrics.read_dataset(tmp_path / "out"),
                                  metrics.evaluate_parallel(qrels, runs, MEASURES), check_exact=True)


def test_a_name_that_is_no_file_name_gets_one_directory(tmp_path):
    qrels, runs = many_runs(23, 2, tmp_path)
    given = {"a/b c?": runs[0], "..": runs[1]}
    metrics.write_dataset(tmp_path / "out", qrels, given, MEASURES)
    assert partition_path(tmp_path / "out", "a/b c?").is_file()
    assert partition_path(tmp_path / "out", "a/b c?").parent.parent == tmp_path / "out"
    got = metrics.read_dataset(tmp_path / "out")
    assert sorted(set(got["system"])) == ["..", "a/b c?"]


def test_partitions_not_in_the_manifest_are_not_read(tmp_path):
    qrels, runs = many_runs(24, 3, tmp_path)
    metrics.write_dataset(tmp_path / "out", qrels, runs, MEASURES)
    metrics.write_dataset(tmp_path / "out", qrels, runs[:1], MEASURES)  # same directory, fewer runs
    got = metrics.read_dataset(tmp_path / "out")
    assert set(got["system"]) == {metrics.system_name(runs[0].name)}
    assert not list((tmp_path / "out").rglob(".*.tmp"))


def test_a_dataset_without_manifest_is_refused(tmp_path):
    qrels, runs = many_runs(25, 2, tmp_path)
    metrics.write_dataset(tmp_path / "out", qrels, runs, MEASURES)
    (tmp_path / "out" / MANIFEST).unlink()
    with pytest.raises(ValidationError, match=r"out: expected a dataset written by --output .* found no manifest"):
        metrics.read_dataset(tmp_path / "out")


def test_a_failed_run_leaves_no_manifest(tmp_path):
    qrels, runs = many_runs(26, 2, tmp_path)
    broken = tmp_path / "broken.run"
    broken.write_text("1 Q0\n")
    with pytest.raises(metrics.ParseError):
        metrics.write_dataset(tmp_path / "out", qrels, [*runs, broken], MEASURES)
    assert not (tmp_path / "out" / MANIFEST).exists()


def test_client_memory_stays_bounded_while_writing_50_runs(tmp_path):
    n_queries, depth = 120, 60
    qrels = big_qrels_text(1, n_queries, depth)
    runs = {f"run{i:02d}": big_run_text(100 + i, n_queries, depth).encode() for i in range(50)}
    measures = ["official"]
    one = metrics.evaluate(qrels, {"run00": runs["run00"]}, measures)
    frame_bytes = int(one.memory_usage(deep=True).sum())
    paths = []
    for name, data in runs.items():
        path = tmp_path / f"{name}.run"
        path.write_bytes(data)
        paths.append(path)
    del runs
    tracemalloc.start()
    try:
        metrics.write_dataset(tmp_path / "out", qrels, paths, measures, jobs=2, window=2)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert frame_bytes > 100_000  # big enough for the bound to mean something
    # holding every table would take 50 frames; what is held is a few, plus the judgments sent to workers
    assert peak < 8 * frame_bytes, (peak, frame_bytes)
    assert len(metrics.read_dataset(tmp_path / "out")) == 50 * len(one)
