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

    .venv/bin/python benchmarks/workspace_overview.py --browser [--repeat 3] [--topics 300]

``--browser`` measures the same as a user sees it: a real server (``streamlit run``, started with
``tests.processes.serve_dashboard`` on the temporary workspace, in a process group of its own, stopped at the
end) and Debian's Chromium through Playwright, each open in a new browser context, timed from ``page.goto`` of
``/overview?collection=ID`` to the overview drawn (the leaderboard table visible, its chart drawn, Streamlit idle,
nothing stale: ``dashboard_speed.settled``). Rows: the first open after the collection was added (fresh server:
tables computed and stored); an open after a restart (a new server for each of ``--repeat``: stored tables
read back); a second open in a new context on that warm server; and, once, the same for a tiny collection (the
demo's qrels and two of its runs: the overview's own cost on any collection) and for the learn page (no
collection: the floor of the browser and Streamlit, loading the page, the session, the app's imports on a
fresh server), each on a fresh and on a warm server, to subtract. ``--topics N`` keeps the
first N topics of both runs (both modes; for a quick check).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
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


def scaled(qrels: Path, runs: list[Path], topics: int, out: Path) -> tuple[Path, list[Path]]:
    """The first ``topics`` topics of the first run (in its order) cut from the qrels and every run, written
    to ``out`` under the same file names (so the systems keep their names)."""
    out.mkdir(parents=True)
    kept: set[str] = set()
    paths = []
    for i, run in enumerate(runs):
        seen: set[str] = set()
        with run.open() as src, (out / run.name).open("w") as dst:
            for line in src:
                topic = line.split(" ", 1)[0]
                if i == 0 and topic not in kept and len(kept) < topics:
                    kept.add(topic)
                if topic in kept:
                    seen.add(topic)
                    dst.write(line)
                elif len(seen) == len(kept):  # runs are ordered by topic: every kept one written
                    break
        paths.append(out / run.name)
    with qrels.open() as src, (out / qrels.name).open("w") as dst:
        dst.writelines(line for line in src if line.split(" ", 1)[0] in kept)
    return out / qrels.name, paths


TIMEOUT = 900_000  # ms: the first open of the full-size collection computes its tables
LEARN = "learn"  # not a collection id: the learn page (no collection, no table), the lowest floor
VIEWPORT = {"width": 1440, "height": 3000}  # as dashboard_speed: the overview's chart in view, so drawn


def browser_rows(folder: Path, cid: str, tiny: str, repeat: int) -> dict[str, list[float]]:
    """Wall seconds of each open in Chromium, from ``page.goto`` to the overview drawn, on real servers."""
    from dashboard_speed import settled
    from playwright.sync_api import sync_playwright

    from tests.processes import free_port, serve_dashboard, stop

    # a plain SIGTERM (``timeout``, a CI job cancelled) ends Python without its ``finally``: make it an exit that
    # runs them, so the servers (in sessions of their own, not signalled with this process) and Chromium stop
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    env = {**os.environ, "RANKSCOPE_WORKSPACE": str(folder)}
    rows: dict[str, list[float]] = {}
    starts: list[float] = []

    def serve() -> tuple[object, int]:
        port = free_port()
        began = time.perf_counter()
        proc = serve_dashboard(port, env=env)
        starts.append(time.perf_counter() - began)
        return proc, port

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium",
                                    args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])

        def open_page(port: int, target: str) -> float:
            """One open in a new context (no cookies, no cached page) of the overview of collection ``target``,
            or of the learn page when ``target`` is ``LEARN``."""
            context = browser.new_context(viewport=VIEWPORT)
            try:
                page = context.new_page()
                url = f"http://127.0.0.1:{port}/" + ("learn" if target == LEARN else f"overview?collection={target}")
                start = time.perf_counter()
                page.goto(url, wait_until="commit", timeout=TIMEOUT)
                if target != LEARN:  # the leaderboard
                    page.locator('[data-testid="stDataFrame"]').first.wait_for(state="visible", timeout=TIMEOUT)
                settled(page, "Learn" if target == LEARN else "Overview", timeout=TIMEOUT)
                seconds = time.perf_counter() - start
                if page.locator('[data-testid="stException"]').count():
                    raise SystemExit(f"{url} shows an exception: "
                                     f"{page.locator('[data-testid=stException]').first.inner_text()[:500]}")
                print(f"  {url}: {seconds:.2f} s", file=sys.stderr, flush=True)
                return seconds
            finally:
                context.close()

        def on_server(opens: list[tuple[str | None, str]]) -> None:
            """A fresh server; each (row or None: not timed, collection) opened in turn; the server stopped."""
            proc, port = serve()
            try:
                for row, collection in opens:
                    seconds = open_page(port, collection)
                    if row:
                        rows.setdefault(row, []).append(seconds)
            finally:
                stop(proc)

        try:
            on_server([("first open after it was added (tables computed, stored)", cid),
                       (None, tiny)])  # the tiny collection's tables stored too
            for _ in range(repeat):
                on_server([("open after a restart (stored tables read back)", cid),
                           ("second open, new context, same warm server", cid)])
            on_server([("floor: tiny collection, after a restart", tiny),
                       ("floor: tiny collection, warm server", tiny)])
            on_server([("floor: /learn (no collection), after a restart", LEARN),
                       ("floor: /learn (no collection), warm server", LEARN)])
        finally:
            browser.close()
    rows["server start (until it accepts connections; not in opens)"] = starts
    return rows


def report_browser(qrels: Path, runs: list[Path], size: float, added: float, rows: dict[str, list[float]]) -> None:
    with qrels.open() as f:
        topics = len({line.split(" ", 1)[0] for line in f if line.strip()})
    print(f"{len(runs)} runs ({size:.0f} MiB, {topics:,} judged topics) stored in a SQLite workspace; Chromium on "
          f"`streamlit run`; wall seconds from page.goto to the overview drawn")
    print(f"{'what':58} {'median':>7} {'min':>7} {'max':>7} {'n':>3}")
    print(f"{'store: add the collection (parse, Arrow cache)':58} {added:7.2f} {added:7.2f} {added:7.2f} {1:3}")
    for name, values in rows.items():
        print(f"{name:58} {statistics.median(values):7.2f} {min(values):7.2f} {max(values):7.2f} {len(values):3}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--browser", action="store_true",
                        help="time the opens in Chromium on real `streamlit run` servers instead of AppTest")
    parser.add_argument("--topics", type=int, help="keep the first N topics of the runs (default: all 6,980)")
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
        if args.topics:
            qrels, runs = scaled(qrels, runs, args.topics, Path(tmp) / "scaled")
        size = sum(r.stat().st_size for r in runs) / 2**20  # before a scaled copy is removed with the folder
        folder = Path(tmp) / "ws"
        ws = open_workspace(str(folder))
        wall, cpu = time.perf_counter(), time.process_time()
        cid = ws.add_collection("msmarco-size", qrels=(qrels.name, qrels.read_bytes()),
                                runs=[(r.name, r.read_bytes()) for r in runs], author="benchmark").id
        rows["store: add the collection (parse, Arrow cache)"] = [(time.perf_counter() - wall,
                                                                  time.process_time() - cpu)]
        if args.browser:
            from sample_data import demo_paths

            demo_qrels, demo_runs = demo_paths()
            tiny = ws.add_collection("tiny", qrels=(demo_qrels.name, demo_qrels.read_bytes()),
                                     runs=[(r.name, r.read_bytes()) for r in demo_runs[:2]], author="benchmark").id
            ws.close()
            added = rows.popitem()[1][0][0]
            report_browser(qrels, runs, size, added, browser_rows(folder, cid, tiny, args.repeat))
            return
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
