#!/usr/bin/env python3
"""Time a stored collection of two MS MARCO-size runs (7M lines each) reopened by its link to the drawn overview,
in a fresh server process (cold Streamlit caches), with and without the tables the store keeps beside the files.

    .venv/bin/python benchmarks/workspace_overview.py [--repeat 3]

The collection is the ``sparse`` workload of ``benchmarks/generate.py`` and its noisy copy (made when missing,
as ``benchmarks/dashboard_speed.py --workload msmarco`` makes them). It is added to a fresh workspace in a
temporary folder through the store (timed: parse and Arrow cache, once). Then each measurement is a new Python
process, as a restarted server is: it imports the dashboard and the libraries its pages use (scipy's
``stats``) and sets up Streamlit's runtime (timed apart: a server does it once, when it starts), then runs the
app headless (Streamlit's AppTest, the same scripts a browser session runs) on ``?collection=ID``, which draws
the overview, and times that run and a second one (warm caches). Wall time and CPU time (``time.process_time``, this process and its threads;
the machine may be busy) are printed for:

- the first open ever: the per-query tables are computed (rank, evaluate, tie ranges) and stored;
- each open after a restart: the stored tables are read back;
- an open after a restart with the stored tables removed (what every restart cost before they were kept).

Goal: a reopened collection under 1 s to the drawn overview, also after a restart.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))


def child(folder: str, cid: str) -> None:
    """In a fresh process: the overview of collection ``cid`` drawn twice; prints the timings as JSON."""
    os.environ["RANKSCOPE_WORKSPACE"] = folder
    wall, cpu = time.perf_counter(), time.process_time()
    from scipy import stats  # noqa: F401  (imported by the first page that shows an interval)
    from streamlit.testing.v1 import AppTest

    import dashboard.data  # noqa: F401
    import dashboard.figures  # noqa: F401

    AppTest.from_string("import streamlit as st\nst.write('up')").run()  # the runtime set up, as at a server's start
    times = [(time.perf_counter() - wall, time.process_time() - cpu)]
    at = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=900)
    at.query_params["collection"] = cid
    for _ in range(2):
        wall, cpu = time.perf_counter(), time.process_time()
        at.run()
        times.append((time.perf_counter() - wall, time.process_time() - cpu))
        problems = [e.value for e in at.exception] + [e.value for e in at.error]
        if problems or not any(getattr(t, "value", "") == "Overview" for t in at.title):
            raise SystemExit(f"the overview was not drawn: {problems[:2]}")
    print(json.dumps(times))  # start of the process, first open, rerun


def measure(folder: Path, cid: str) -> list[tuple[float, float]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, __file__, "--child", str(folder), cid], env=env, cwd=ROOT,
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise SystemExit(out.stderr[-2000:])
    return [tuple(t) for t in json.loads(out.stdout.strip().splitlines()[-1])]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--child", nargs=2, metavar=("FOLDER", "ID"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    sys.path.insert(0, str(HERE))  # not in the child: benchmarks/dashboard.py would hide the package
    from dashboard_speed import msmarco_collection

    from workspace import open_workspace

    qrels, runs = msmarco_collection()
    rows: dict[str, list[tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="rankscope-bench-ws-") as tmp:
        folder = Path(tmp) / "ws"
        ws = open_workspace(str(folder))
        wall, cpu = time.perf_counter(), time.process_time()
        cid = ws.add_collection("msmarco-size", qrels=(qrels.name, qrels.read_bytes()),
                                runs=[(r.name, r.read_bytes()) for r in runs], author="benchmark").id
        rows["store: add the collection (parse, Arrow cache)"] = [(time.perf_counter() - wall,
                                                                  time.process_time() - cpu)]
        ws.close()
        first = measure(folder, cid)
        rows["first open ever (tables computed, stored)"] = [first[1]]
        rows["same process, rerun (warm caches)"] = [first[2]]
        again = [measure(folder, cid) for _ in range(args.repeat)]
        rows["server process start (imports, runtime; not in opens)"] = [first[0]] + [t[0] for t in again]
        rows["open after a restart (stored tables)"] = [t[1] for t in again]
        rows["  rerun in that process"] = [t[2] for t in again]
        stale = []
        for _ in range(args.repeat):
            for path in (folder / "files").rglob("*.frame"):
                path.unlink()
            stale.append(measure(folder, cid)[1])
        rows["open after a restart, no stored tables"] = stale
    size = sum(r.stat().st_size for r in runs) / 2**20
    print(f"{len(runs)} runs ({size:.0f} MiB) stored in a SQLite workspace; seconds, median (min-max) of n")
    print(f"{'step':48} {'wall':>20} {'cpu':>20} {'n':>3}")
    for name, values in rows.items():
        cells = []
        for k in (0, 1):
            v = [t[k] for t in values]
            cells.append(f"{statistics.median(v):6.2f} ({min(v):5.2f}-{max(v):5.2f})")
        print(f"{name:48} {cells[0]:>20} {cells[1]:>20} {len(values):3}")


if __name__ == "__main__":
    main()
