#!/usr/bin/env python3
"""Time rankscope's paired significance tests on 10 systems x 6,980 topics (all 45 pairs), beside scipy and ranx,
and the randomisation test on all 44,850 pairs of 300 systems x 250 topics.

    .venv/bin/python benchmarks/significance.py [--quick] [--repeat 5] [--resamples 10000] [--dask] [--json PATH]

The workload is made here with a fixed seed: per-topic scores of 10 systems shaped like AP on MS MARCO's
6,980 dev topics (most topics hard, a few easy, 8% of scores exactly 0, systems 0.002-0.02 apart), as the
tidy per-query table ``metrics.evaluate`` returns. Every row times one call in this process, after one
untimed warm-up call (imports, first-touch memory); the number is the median wall time of ``--repeat``
calls.

Rows:

* rankscope: ``compare_systems(per_query, test=..., n_resamples=10000, seed=0)`` for t, wilcoxon, sign,
  permutation, bootstrap (BCa) and tukey, all 45 pairs, Holm-corrected; the whole call (alignment,
  effect sizes, intervals, corrections, the tidy frame).
* scipy: ``ttest_rel`` and ``wilcoxon`` in one vectorised call over the 45 pairs (the test alone);
  ``permutation_test`` (``permutation_type='samples'``) and ``bootstrap`` (BCa) on one pair, multiplied
  by 45 and labelled as extrapolated. The permutation p-value of that pair is printed next to
  rankscope's as a check (they differ by Monte Carlo noise only).
* rankscope at scale: ``compare_systems(..., test="permutation", n_resamples=10000)`` on every pair of 300
  systems x 250 topics (44,850 pairs, Holm over all of them), one timed call after a small warm-up call;
  with ``--dask`` also the same call spread over a ``distributed.LocalCluster(n_workers=2)`` started here
  (the cluster's start is not timed), whose p-values are checked to equal the local ones.
* ranx: the test step of ``ranx.compare`` (``compute_statistical_significance`` with its Fisher
  randomisation test and 10,000 permutations, which tests each pair in both directions), when ranx is
  importable; otherwise a line saying so.

``--quick`` runs each row once and gives scipy's permutation test 2,000 resamples (extrapolated to
10,000 as well): about half a minute. Run nothing else on the machine meanwhile: the times are wall-clock.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from metrics.stats.significance import compare_systems  # noqa: E402

SYSTEMS, TOPICS, SEED = 10, 6980, 20261123
SCALE_SYSTEMS, SCALE_TOPICS = 300, 250
TESTS = ("t", "wilcoxon", "sign", "permutation", "bootstrap", "tukey")


def workload(systems: int = SYSTEMS, topics: int = TOPICS, seed: int = SEED) -> pd.DataFrame:
    """A tidy per-query table (system, query, measure, value) of ``systems`` x ``topics`` AP-like scores."""
    rng = np.random.default_rng(seed)
    difficulty = rng.beta(0.7, 1.6, topics)  # most topics hard, a few easy
    effect = np.linspace(0.0, 0.02, systems)
    noise = rng.normal(0.0, 0.12, (systems, topics))
    values = np.clip(difficulty[None, :] + effect[:, None] + noise, 0.0, 1.0)
    values[rng.random((systems, topics)) < 0.08] = 0.0  # nothing relevant retrieved
    values = np.round(values, 4)  # as trec_eval prints them: ties and zero differences happen
    names = [f"sys{i:02d}" for i in range(systems)]
    queries = [str(300000 + j) for j in range(topics)]
    return pd.DataFrame({"system": np.repeat(names, topics), "query": np.tile(queries, systems), "measure": "AP",
                         "value": values.ravel()})


def timed(call, repeat: int) -> tuple[float, object]:
    """Median wall time of ``repeat`` calls after one untimed warm-up call, and the last result."""
    result = call()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = call()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def rankscope_rows(per_query: pd.DataFrame, repeat: int, resamples: int) -> tuple[list[dict], dict]:
    rows, frames = [], {}
    for test in TESTS:
        seconds, comparison = timed(lambda: compare_systems(per_query, test=test, n_resamples=resamples, seed=0),
                                    repeat)
        frames[test] = comparison.frame
        what = f"{test}, {resamples:,} resamples" if test in ("permutation", "bootstrap") else test
        rows.append({"tool": "rankscope compare_systems", "test": what, "pairs": len(comparison.frame),
                     "seconds": seconds, "note": "measured, all pairs in one call"})
    return rows, frames


def scale_rows(resamples: int, dask: bool) -> list[dict]:
    """All pairs of 300 systems x 250 topics, randomisation test: here, and over a local Dask cluster."""
    per_query = workload(SCALE_SYSTEMS, SCALE_TOPICS)
    pairs = SCALE_SYSTEMS * (SCALE_SYSTEMS - 1) // 2
    compare_systems(workload(4, SCALE_TOPICS), test="permutation", n_resamples=resamples, seed=0)  # warm-up
    what = f"permutation, {resamples:,} resamples, {SCALE_SYSTEMS} systems x {SCALE_TOPICS} topics"
    start = time.perf_counter()
    here = compare_systems(per_query, test="permutation", n_resamples=resamples, seed=0).frame
    rows = [{"tool": "rankscope compare_systems", "test": what, "pairs": pairs, "seconds": time.perf_counter() - start,
             "note": "measured, one call, all pairs, Holm over all"}]
    if dask:
        import dask
        from distributed import Client, LocalCluster

        dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None})  # see docs/guides/organisers.md
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
                Client(cluster) as client:
            compare_systems(workload(4, SCALE_TOPICS), test="permutation", n_resamples=resamples, seed=0,
                            client=client)
            start = time.perf_counter()
            there = compare_systems(per_query, test="permutation", n_resamples=resamples, seed=0,
                                    client=client).frame
            seconds = time.perf_counter() - start
        same = bool(np.array_equal(there["p_value"].to_numpy(), here["p_value"].to_numpy()))
        rows.append({"tool": "rankscope compare_systems, client=", "test": what, "pairs": pairs, "seconds": seconds,
                     "note": f"measured, LocalCluster of 2 worker processes; p-values equal the local ones: {same}"})
    return rows


def scipy_rows(per_query: pd.DataFrame, repeat: int, resamples: int, quick: bool, ours: dict) -> list[dict]:
    from scipy import stats

    X = per_query.pivot(index="system", columns="query", values="value").to_numpy()
    ia, ib = np.triu_indices(X.shape[0], 1)
    A, B = X[ia], X[ib]
    pairs = len(ia)
    rows = []
    seconds, _ = timed(lambda: stats.ttest_rel(B, A, axis=1), repeat)
    rows.append({"tool": "scipy ttest_rel", "test": "t", "pairs": pairs, "seconds": seconds,
                 "note": "measured, one vectorised call, the test alone"})
    seconds, _ = timed(lambda: stats.wilcoxon(B - A, axis=1), repeat)
    rows.append({"tool": "scipy wilcoxon", "test": "wilcoxon", "pairs": pairs, "seconds": seconds,
                 "note": "measured, one vectorised call, the test alone"})

    a, b = A[0], B[0]
    n_perm = 2000 if quick else resamples

    def permutation():
        return stats.permutation_test((a, b), lambda x, y, axis: np.mean(y - x, axis=axis), vectorized=True,
                                      permutation_type="samples", n_resamples=n_perm, rng=0)

    seconds, result = timed(permutation, 1)
    scale = pairs * resamples / n_perm
    ref = ours["permutation"].iloc[0]
    rows.append({"tool": "scipy permutation_test", "test": f"permutation, {resamples:,} resamples",
                 "pairs": pairs, "seconds": seconds * scale,
                 "note": f"EXTRAPOLATED: 1 pair x {n_perm:,} resamples measured ({seconds:.2f} s), x {scale:g}; "
                         f"p = {result.pvalue:.4f} vs rankscope {ref.p_value:.4f} ({ref.system_a} vs {ref.system_b})"})

    def bootstrap():
        return stats.bootstrap((b - a,), np.mean, n_resamples=resamples, method="BCa", rng=0)

    seconds, _ = timed(bootstrap, 1)
    rows.append({"tool": "scipy bootstrap (BCa)", "test": f"bootstrap, {resamples:,} resamples", "pairs": pairs,
                 "seconds": seconds * pairs,
                 "note": f"EXTRAPOLATED: 1 pair measured ({seconds:.2f} s), x {pairs}; interval only, no p-value"})
    return rows


def ranx_rows(per_query: pd.DataFrame, resamples: int) -> list[dict]:
    try:
        import ranx  # noqa: F401
        from ranx.statistical_tests import compute_statistical_significance
    except ImportError:
        return [{"tool": "ranx", "test": "fisher", "pairs": None, "seconds": None,
                 "note": "ranx is not installed (pip install ranx to add this row)"}]
    table = per_query.pivot(index="system", columns="query", values="value")
    names = [str(s) for s in table.index]
    scores = {name: {"map": table.loc[name].to_numpy(dtype=np.float64)} for name in names}
    pairs = len(names) * (len(names) - 1) // 2
    try:
        seconds, _ = timed(lambda: compute_statistical_significance(names, scores, "fisher", resamples, 0.05, 42), 1)
    except Exception as err:  # an API that moved: say so instead of stopping the other rows
        return [{"tool": "ranx", "test": "fisher", "pairs": None, "seconds": None, "note": f"failed: {err!r}"}]
    return [{"tool": "ranx compare's test step", "test": f"fisher, {resamples:,} permutations", "pairs": pairs,
             "seconds": seconds, "note": "measured (numba compiled in the warm-up); each pair tested twice"}]


def table(rows: list[dict]) -> str:
    lines = ["| tool | test | pairs | median wall time | note |", "|---|---|---:|---:|---|"]
    for r in rows:
        seconds = "--" if r["seconds"] is None else f"{r['seconds']:.3f} s"
        pairs = "--" if r["pairs"] is None else str(r["pairs"])
        lines.append(f"| {r['tool']} | {r['test']} | {pairs} | {seconds} | {r['note']} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="one call per row; scipy's permutation test on 2,000")
    parser.add_argument("--repeat", type=int, default=5, help="timed calls per rankscope and vectorised-scipy row")
    parser.add_argument("--resamples", type=int, default=10000, help="permutations / bootstrap resamples")
    parser.add_argument("--dask", action="store_true", help="also time the 44,850 pairs over a local Dask cluster")
    parser.add_argument("--json", type=Path, help="also write the rows and the machine's details here")
    args = parser.parse_args(argv)
    repeat = 1 if args.quick else max(1, args.repeat)
    import scipy

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    machine = {"python": platform.python_version(), "numpy": np.__version__, "pandas": pd.__version__,
               "scipy": scipy.__version__, "cpus": os.cpu_count(), "load_average_1min": load,
               "systems": SYSTEMS, "topics": TOPICS, "seed": SEED, "repeat": repeat, "quick": args.quick}
    per_query = workload()
    print(f"workload: {SYSTEMS} systems x {TOPICS:,} topics, {SYSTEMS * (SYSTEMS - 1) // 2} pairs; "
          f"python {machine['python']}, numpy {machine['numpy']}, scipy {machine['scipy']}, "
          f"{machine['cpus']} cpus, load average {load:.2f}", flush=True)
    rows, frames = rankscope_rows(per_query, repeat, args.resamples)
    rows += scipy_rows(per_query, repeat, args.resamples, args.quick, frames)
    rows += ranx_rows(per_query, args.resamples)
    rows += scale_rows(args.resamples, args.dask)
    print(table(rows))
    if load > 0.5 * (os.cpu_count() or 1):
        print(f"\nThe machine was busy (load average {load:.2f} on {os.cpu_count()} cpus): treat these times as "
              "provisional.")
    if args.json:
        args.json.write_text(json.dumps({"machine": machine, "rows": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
