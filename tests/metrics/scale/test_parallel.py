"""evaluate() on worker processes and on Dask: the same frame, bit for bit, whatever the workers and order."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import metrics
from metrics.errors import ParseError, ValidationError
from tests.metrics.scale.helpers import many_runs

MEASURES = ["map", "P_10", "ndcg_cut_10", "recip_rank", "num_rel_ret", "bpref", "gm_map", "R@100"]


def reference(qrels, runs):
    """The in-process evaluate() of the runs given in the order of their system names."""
    ordered = sorted(runs, key=lambda p: metrics.system_name(p.name))
    return metrics.evaluate(qrels, ordered, MEASURES)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_jobs_give_the_in_process_frame_whatever_the_order(tmp_path, seed):
    qrels, runs = many_runs(seed, 6, tmp_path)
    expected = reference(qrels, runs)
    rng = np.random.default_rng(seed)
    for jobs in (1, 2):
        shuffled = [runs[i] for i in rng.permutation(len(runs))]
        got = metrics.evaluate(qrels, shuffled, MEASURES, jobs=jobs)
        pd.testing.assert_frame_equal(got, expected, check_exact=True)
    assert list(dict.fromkeys(expected["system"])) == sorted(set(expected["system"]))


def test_values_match_pytrec_eval(tmp_path):
    pytrec_eval = pytest.importorskip("pytrec_eval", reason="pytrec_eval (pytrec-eval-terrier) is not installed")
    from tests.random_collections import random_collection

    qrels, runs = many_runs(11, 4, tmp_path)
    got = metrics.evaluate(qrels, runs, ["map", "P_10"], jobs=2)
    judged = random_collection(11).qrels
    evaluator = pytrec_eval.RelevanceEvaluator(judged, {"map", "P_10"})
    checked = 0
    for i, path in enumerate(runs):
        run = random_collection(11 * 1000 + i + 1).run
        run = {q: {d: float(np.float32(s)) for d, s in docs.items()} for q, docs in run.items()}
        oracle = evaluator.evaluate(run)
        mine = got[got["system"] == metrics.system_name(path.name)]
        for row in mine.itertuples(index=False):
            if row.query in oracle:
                want = oracle[row.query][row.measure]
                assert row.value == pytest.approx(want, abs=1e-12), (path.name, row)
                checked += 1
    assert checked > 0


def test_dask_gives_the_in_process_frame(tmp_path, dask_client):
    qrels, runs = many_runs(4, 8, tmp_path)
    expected = reference(qrels, runs)
    for order in (runs, runs[::-1]):
        got = metrics.evaluate(qrels, [str(p) for p in order], MEASURES, client=dask_client)
        pd.testing.assert_frame_equal(got, expected, check_exact=True)


def test_dask_reads_bytes_and_urls(tmp_path, dask_client):
    qrels, runs = many_runs(5, 3, tmp_path)
    expected = reference(qrels, runs)
    given = {metrics.system_name(runs[0].name): runs[0].read_bytes(),
             metrics.system_name(runs[1].name): runs[1].as_uri(),
             metrics.system_name(runs[2].name): str(runs[2])}
    got = metrics.evaluate(qrels, given, MEASURES, client=dask_client)
    pd.testing.assert_frame_equal(got, expected, check_exact=True)


def test_a_broken_run_raises_its_error_naming_the_file(tmp_path):
    qrels, runs = many_runs(6, 3, tmp_path)
    broken = tmp_path / "broken.run"
    broken.write_text("1 Q0 D1 1\n")
    with pytest.raises(ParseError, match=r"^broken\.run:1: expected 6 fields"):
        metrics.evaluate(qrels, [*runs, broken], MEASURES, jobs=2)


def test_keep_going_leaves_the_broken_run_out(tmp_path):
    qrels, runs = many_runs(7, 3, tmp_path)
    broken = tmp_path / "broken.run"
    broken.write_text("1 Q0 D1 1 x\n")
    seen = []
    got = metrics.evaluate_parallel(qrels, [runs[0], broken, *runs[1:]], MEASURES, jobs=2, keep_going=True,
                                    on_outcome=seen.append)
    pd.testing.assert_frame_equal(got, reference(qrels, runs), check_exact=True)
    errors = [o for o in seen if o.error is not None]
    assert [(o.label, o.error_type) for o in errors] == [("broken.run", "ParseError")]
    assert errors[0].error.startswith("broken.run:1: ") and "\n" not in errors[0].error


def test_two_runs_with_one_name_are_refused(tmp_path):
    qrels, runs = many_runs(8, 1, tmp_path)
    other = tmp_path / "copy"
    other.mkdir()
    (other / runs[0].name).write_bytes(runs[0].read_bytes())
    with pytest.raises(ValidationError, match="two runs share the system name"):
        metrics.evaluate(qrels, [runs[0], other / runs[0].name], MEASURES, jobs=1)


@pytest.mark.parametrize("jobs", [0, -1, 1.5, True])
def test_jobs_must_be_a_positive_whole_number(tmp_path, jobs):
    qrels, runs = many_runs(9, 1, tmp_path)
    with pytest.raises(ValidationError, match="^jobs: expected a positive integer or None, found "):
        metrics.evaluate(qrels, runs, MEASURES, jobs=jobs)


def test_metrics_imports_without_dask():
    import subprocess
    import sys

    code = ("import sys, metrics; bad = [m for m in ('dask', 'distributed', 'fsspec') if m in sys.modules]; "
            "print(bad)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def _reading_threads(ranked, pairs) -> pd.DataFrame:
    """A tabulate for the test below: the threads pyarrow reads with in the process that ran the task."""
    import pyarrow as pa

    return pd.DataFrame({"threads": [pa.cpu_count()]})


def test_each_worker_reads_with_its_share_of_the_cores(tmp_path):
    from metrics.conventions import Conventions
    from metrics.scale.plan import threads_per_worker
    from metrics.scale.pool import items_of, outcomes, payload_of

    qrels, runs = many_runs(4, 4, tmp_path)
    payload = payload_of(metrics.read_qrels(qrels), [], _reading_threads, Conventions())
    seen = {int(o.frame["threads"].iloc[0]) for o in outcomes(payload, items_of(runs), jobs=2)}
    assert seen == {threads_per_worker(2)}  # not pyarrow's default, one thread per core in each worker
    assert [threads_per_worker(j, cores=8) for j in (1, 2, 3, 8, 16)] == [8, 4, 2, 1, 1]
