#!/usr/bin/env python3
"""Evaluating many runs: one process, local worker processes, and a Dask cluster, into a Parquet dataset.

    .venv/bin/python benchmarks/many_runs.py [--runs 200] [--jobs 2] [--repeat 3] [--bandwidth-mb 1000]

N runs of Robust04 size (the ``mid`` workload of benchmarks/generate.py: 250 topics x 1,000 documents,
250,000 lines each, so N=200 is 50M lines) are evaluated with trec_eval's official measures and written
with ``metrics.write_dataset`` four ways, each in a fresh process: in one process, with ``--jobs`` local
worker processes, with the number of workers ``rankscope`` picks when not given ``--jobs``
(``metrics.scale.plan.default_jobs``: from the free cores at that moment and the bytes of the runs), and on
a Dask ``LocalCluster`` with ``--jobs`` single-threaded workers. The ways take turns, ``--repeat`` rounds;
each row is the median of its rounds (and the fastest), with its CPU time, lines/s, the speed-up over one
process, and the peak resident memory of the client and of the workers. The load average at the start and
the end is printed too: workers gain only on idle cores.

From the measured cost per run (reading, ranking, measures), the bytes a task reads and returns, and the
client's cost of writing one partition, it then prints a model of 1,000 MS MARCO-size runs (6,980 queries
x 1,000 documents) on 1, 8 and 64 workers, and which part limits each: the workers, reading the runs
(at ``--bandwidth-mb`` MB/s of shared storage), the scheduler (about 1 ms per task), or the client
writing. The run files are hard links of one generated run, in a temporary folder removed at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
MSMARCO_QUERIES, ROBUST_QUERIES = 6980, 250
SCHEDULER_SECONDS_PER_TASK = 0.001  # Dask's documented overhead per task, order of magnitude

PROBE = r"""
import json, os, resource, sys, time
from pathlib import Path
import metrics

mode, jobs, qrels, listing, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
runs = Path(listing).read_text().split()
client = cluster = None
if mode == "default":  # what rankscope picks without --jobs
    from metrics.scale.plan import default_jobs
    jobs = default_jobs(os.stat(r).st_size for r in runs)
    mode = "jobs" if jobs > 1 else "one"
if mode == "dask":
    import dask
    from distributed import Client, LocalCluster
    # workers as docs/guides/organisers.md advises: without Dask's MALLOC_TRIM_THRESHOLD_, which doubles the CPU of a task
    dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None})
    cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=":0",
                           silence_logs=40)
    client = Client(cluster)
wall = time.perf_counter()
summary = metrics.write_dataset(out, qrels, runs, ["official"], jobs=jobs if mode == "jobs" else None,
                                client=client)
wall = time.perf_counter() - wall
def usage(who):
    u = resource.getrusage(who)
    return u.ru_maxrss / 1024, u.ru_utime + u.ru_stime

workers, cpu = [], usage(resource.RUSAGE_SELF)[1]
if client is not None:
    found = list(client.run(lambda: usage(resource.RUSAGE_SELF)).values())
    workers, cpu = [w[0] for w in found], cpu + sum(w[1] for w in found)
    client.close(); cluster.close()
elif mode == "jobs":
    workers, cpu = [usage(resource.RUSAGE_CHILDREN)[0]], cpu + usage(resource.RUSAGE_CHILDREN)[1]
print(json.dumps({"wall": wall, "cpu": cpu, "rows": summary.rows, "client_mb": usage(resource.RUSAGE_SELF)[0],
                  "workers_mb": workers, "jobs": jobs if mode == "jobs" else 1}))
"""

COSTS = r"""
import json, sys, time
import metrics
from metrics.scale.dataset import DatasetWriter
qrels, run, out = sys.argv[1], sys.argv[2], sys.argv[3]
q = metrics.read_qrels(qrels)
metrics.evaluate(q, {"x": metrics.read_run(run)}, ["official"])  # warm: imports, first calls
DatasetWriter(out + "-warm", [], {}).add(metrics.evaluate(q, {"x": run}, ["P_5"]), "x")
t = time.process_time(); r = metrics.read_run(run); read = time.process_time() - t
t = time.process_time(); frame = metrics.evaluate(q, {"x": r}, ["official"]); compute = time.process_time() - t
writer = DatasetWriter(out, [], {})
t = time.process_time(); writer.add(frame, "x"); write = time.process_time() - t
import pickle
print(json.dumps({"read": read, "compute": compute, "write": write, "frame_bytes": len(pickle.dumps(frame)),
                  "rows": len(frame)}))
"""


def probe(script: str, *args: str) -> dict:
    done = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(f"benchmark step failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200, help="number of runs (default 200: 50M lines)")
    parser.add_argument("--jobs", type=int, default=2, help="local worker processes and Dask workers (default 2)")
    parser.add_argument("--repeat", type=int, default=3, help="rounds; each row is the median (default 3)")
    parser.add_argument("--bandwidth-mb", type=float, default=1000.0,
                        help="shared storage read bandwidth assumed by the model, MB/s (default 1000)")
    parser.add_argument("--data", type=Path, default=HERE / "data", help="where generate.py keeps the workload")
    args = parser.parse_args(argv)

    sys.path.insert(0, str(HERE))
    import generate

    print(generate.generate(generate.WORKLOADS["mid"], args.data), flush=True)
    qrels, run, _ = generate.paths(args.data, "mid")
    lines = sum(1 for _ in run.open("rb"))
    run_bytes = run.stat().st_size
    with tempfile.TemporaryDirectory(prefix="rankscope-many-runs-") as tmp:
        tmp = Path(tmp)
        runs = []
        for i in range(args.runs):
            path = tmp / f"run{i:04d}.txt"
            try:
                os.link(run, path)
            except OSError:
                shutil.copyfile(run, path)
            runs.append(str(path))
        listing = tmp / "runs.list"
        listing.write_text("\n".join(runs) + "\n")
        costs = probe(COSTS, str(qrels), str(run), str(tmp / "costs"))
        load_start = os.getloadavg()[0]
        ways = (("one", "one process"), ("jobs", f"--jobs {args.jobs}"), ("default", "no --jobs (chosen)"),
                ("dask", f"Dask LocalCluster, {args.jobs} workers"))
        rounds: dict[str, list[dict]] = {mode: [] for mode, _ in ways}
        for r in range(args.repeat):  # the ways take turns, so that drift on the machine spreads over all
            for mode, label in ways:
                out = tmp / f"out-{mode}"
                measured = probe(PROBE, mode, str(args.jobs), str(qrels), str(listing), str(out))
                rounds[mode].append(measured)
                shutil.rmtree(out, ignore_errors=True)
                print(f"round {r + 1}: {label}: {measured['wall']:.1f} s, {measured['cpu']:.1f} s CPU, "
                      f"{measured['jobs']} process(es)", file=sys.stderr, flush=True)
        load_end = os.getloadavg()[0]
        results = {}
        for mode, label in ways:
            walls = sorted(m["wall"] for m in rounds[mode])
            median = statistics.median(walls)
            results[mode] = {**min(rounds[mode], key=lambda m: abs(m["wall"] - median)), "label": label,
                             "wall": median, "best": walls[0], "cpu": statistics.median(m["cpu"] for m in rounds[mode]),
                             "jobs_seen": sorted({m["jobs"] for m in rounds[mode]})}

    total = lines * args.runs
    base = results["one"]["wall"]
    print(f"\n{args.runs} runs x {lines:,} lines = {total:,} lines; measures: official "
          f"({costs['rows'] // ROBUST_QUERIES} per query); {os.cpu_count()} CPUs; median of {args.repeat} rounds; "
          f"load average {load_start:.1f} at the start, {load_end:.1f} at the end\n")
    print("| way | seconds (median) | fastest | CPU s | lines/s | speed-up | client MB | each worker MB |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for mode, r in results.items():
        workers = ", ".join(f"{w:.0f}" for w in r["workers_mb"]) or "-"
        label = r["label"] + (f": {', '.join(map(str, r['jobs_seen']))} process(es)" if mode == "default" else "")
        print(f"| {label} | {r['wall']:.1f} | {r['best']:.1f} | {r['cpu']:.1f} | {total / r['wall'] / 1e6:.1f}M | "
              f"{base / r['wall']:.2f}x | {r['client_mb']:.0f} | {workers} |")
    print("(a speed-up needs idle CPUs; CPU seconds do not depend on other load)")

    per_run = results["one"]["cpu"] / args.runs
    print(f"\nper run (one process, CPU): {per_run:.3f} s; alone: reading {costs['read']:.3f} s, ranking + "
          f"measures {costs['compute']:.3f} s; the client writes its partition in {costs['write']:.3f} s; "
          f"a task reads {run_bytes / 1e6:.1f} MB and returns {costs['frame_bytes'] / 1e6:.2f} MB")
    scale = MSMARCO_QUERIES / ROBUST_QUERIES  # lines, result rows and bytes grow with the queries
    task, write = per_run * scale, costs["write"] * scale
    read_bytes = run_bytes * scale
    print(f"\nmodel: 1,000 MS MARCO-size runs ({MSMARCO_QUERIES:,} queries x 1,000 documents; {scale:.1f}x the "
          f"lines): {task:.1f} s of work per run, {read_bytes / 1e6:.0f} MB read and "
          f"{costs['frame_bytes'] * scale / 1e6:.0f} MB returned per task, {write:.2f} s to write it")
    print(f"{'workers':>8s} {'workers s':>10s} {'reading s':>10s} {'scheduler s':>12s} {'client s':>9s} "
          f"{'total s':>8s}  limit")
    for workers in (1, 8, 64):
        parts = {"the workers": 1000 * task / workers,
                 "reading the runs": 1000 * read_bytes / (args.bandwidth_mb * 1e6),
                 "the scheduler": 1000 * SCHEDULER_SECONDS_PER_TASK,
                 "the client writing": 1000 * write}
        limit = max(parts, key=parts.get)
        print(f"{workers:8d} {parts['the workers']:10.0f} {parts['reading the runs']:10.0f} "
              f"{parts['the scheduler']:12.0f} {parts['the client writing']:9.0f} {max(parts.values()):8.0f}  {limit}")
    print("\nThe parts overlap (workers compute while the client writes and the storage serves reads), so the "
          "total is the largest part; the client also receives every table over one connection.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
