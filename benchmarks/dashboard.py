#!/usr/bin/env python3
"""Time the dashboard on an MS MARCO-size run: from the end of the upload to the overview drawn, and a change
of measure or page on the loaded data.

    .venv/bin/python benchmarks/dashboard.py [--systems 1|2] [--repeat 3] [--json out.json]

The run is the ``sparse`` workload of ``benchmarks/generate.py`` (6,980 topics x 1,000 documents, 6.98 million
lines, 231 MiB), generated first when missing. With ``--systems 2`` a second run is made from it by adding
seeded noise to every score (same topics and documents, another order), so the queries and significance
pages have two systems to compare.

Each repetition is a fresh Python process (a cold Streamlit cache, as after a server start) that drives the
app headless with Streamlit's AppTest, exactly as a browser session would: the files are set on the data
page's uploaders and the script runs; then the overview page runs; then the chart's measure changes, a
measure is added, and every other page is visited, then visited again. Each step is timed from the
moment the script run is requested to the moment it returns with every element of the page built (the
browser's drawing of the elements is not included). Steps that raise an exception or show an error are
reported as failures. The medians over the repetitions are printed, with the minimum and maximum.

Targets (issue 7): upload to overview drawn under 10 s; a change of measure or of page under 1 s.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
APP = ROOT / "dashboard" / "app.py"
DATA = HERE / "data"
PAGES = ("curves", "gain", "queries", "significance", "learn", "data")


def ensure_workload() -> tuple[Path, Path]:
    """The sparse workload's qrels and run (written by generate.py when missing or stale)."""
    subprocess.run([sys.executable, str(HERE / "generate.py"), "--only", "sparse"], check=True,
                   stdout=subprocess.DEVNULL)
    return DATA / "sparse.qrels", DATA / "sparse.run"


def second_run(run: Path) -> Path:
    """A second system: the run's scores with seeded noise, each topic's documents listed by the new score
    (descending) and ranked 1, 2, 3 ... again, as a system writes its run (made once, next to it)."""
    out = DATA / "sparse_second.run"
    if out.exists() and out.stat().st_mtime >= run.stat().st_mtime:
        return out
    import numpy as np
    import pyarrow as pa
    import pyarrow.csv as pacsv

    table = pacsv.read_csv(run, read_options=pacsv.ReadOptions(column_names=["q", "q0", "d", "r", "s", "t"]),
                           parse_options=pacsv.ParseOptions(delimiter=" "),
                           convert_options=pacsv.ConvertOptions(column_types={"q": pa.string(), "d": pa.string()}))
    noise = np.random.default_rng(7).normal(0.0, 0.5, len(table))
    scores = np.round(table.column("s").to_numpy() + noise, 4)
    query = table.column("q").to_numpy(zero_copy_only=False).astype(object)
    block = np.cumsum(np.r_[True, query[1:] != query[:-1]])  # the generator lists each topic once
    order = np.lexsort((-scores, block))
    starts = np.flatnonzero(np.r_[True, block[order][1:] != block[order][:-1]])
    ranks = np.arange(len(order)) - np.repeat(starts, np.diff(np.r_[starts, len(order)])) + 1
    lines = (query[order] + " Q0 " + table.column("d").to_numpy(zero_copy_only=False).astype(object)[order] + " "
             + ranks.astype(str).astype(object) + " " + np.char.mod("%.4f", scores[order]).astype(object)
             + " noisy\n")
    out.write_text("".join(lines.tolist()))
    return out


def measure_once(qrels: Path, runs: list[Path]) -> dict:
    """One cold session: every step's seconds (this runs in a fresh process)."""
    from streamlit.testing.v1 import AppTest

    sys.path.insert(0, str(ROOT))
    times: dict[str, float] = {}
    failures: list[str] = []
    at = AppTest.from_file(str(APP), default_timeout=900)
    at.run()
    at.switch_page("app_pages/data.py").run()  # the app opens on the overview; the uploaders are on the data page

    def step(name: str, action) -> None:
        action()
        start = time.perf_counter()
        at.run()
        times[name] = time.perf_counter() - start
        problems = [e.value for e in at.exception] + [e.value for e in at.error]
        if problems:
            failures.append(f"{name}: {problems[0][:200]}")

    def upload(label: str, files) -> None:
        next(u for u in at.get("file_uploader") if u.proto.label == label).set_value(files)

    def switch(page: str):
        return lambda: at.switch_page(f"app_pages/{page}.py")

    qrels_file = (qrels.name, qrels.read_bytes(), "text/plain")
    run_files = [(p.name, p.read_bytes(), "text/plain") for p in runs]
    step("upload qrels: data page drawn", lambda: upload("Qrels", qrels_file))
    step("upload runs: data page drawn", lambda: upload("Runs", run_files))
    step("overview drawn", switch("overview"))
    times["upload to overview drawn"] = times["upload runs: data page drawn"] + times["overview drawn"]
    step("change of the chart's measure", lambda: at.selectbox(key="measure").select("RR"))
    step("a measure added (P@20)", lambda: at.multiselect(key="measures").select("P@20"))
    step("change of the baseline", lambda: at.selectbox(key="baseline").select(at.selectbox(key="baseline").options[-1]))
    for page in PAGES:
        step(f"page {page}, first visit", switch(page))
    for page in ("overview", *PAGES):
        step(f"page {page}, again", switch(page))
    return {"times": times, "failures": failures}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--systems", type=int, choices=(1, 2), default=1, help="runs uploaded (default 1, the target's case)")
    p.add_argument("--repeat", type=int, default=3, help="fresh sessions measured (default 3)")
    p.add_argument("--json", type=Path, help="also write every measurement here")
    p.add_argument("--one", action="store_true", help=argparse.SUPPRESS)  # internal: one measurement, as JSON
    args = p.parse_args(argv)
    qrels, run = ensure_workload()
    runs = [run] + ([second_run(run)] if args.systems == 2 else [])
    if args.one:
        print("BENCH " + json.dumps(measure_once(qrels, runs)))
        return 0
    results = []
    for i in range(args.repeat):
        done = subprocess.run([sys.executable, __file__, "--one", "--systems", str(args.systems)], cwd=ROOT,
                              capture_output=True, text=True, check=True)
        line = next(x for x in done.stdout.splitlines() if x.startswith("BENCH "))
        results.append(json.loads(line[6:]))
        print(f"session {i + 1}/{args.repeat} measured", file=sys.stderr)
    size = sum(r.stat().st_size for r in runs) / 2**20
    print(f"dashboard on {args.systems} run(s) of the sparse workload ({size:.0f} MiB, "
          f"{6_980_000 * args.systems:,} lines), {args.repeat} cold sessions (AppTest; seconds)")
    print(f"{'step':48s} {'median':>8s} {'min':>8s} {'max':>8s}")
    for name in results[0]["times"]:
        values = [r["times"][name] for r in results]
        target = 10.0 if name == "upload to overview drawn" else 1.0 if name.startswith(("change", "a measure", "page")) \
            else None
        flag = "" if target is None else ("  ok" if statistics.median(values) < target else f"  over {target:g} s")
        print(f"{name:48s} {statistics.median(values):8.2f} {min(values):8.2f} {max(values):8.2f}{flag}")
    failures = sorted({f for r in results for f in r["failures"]})
    for failure in failures:
        print("FAILED", failure)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
