#!/usr/bin/env python3
"""Time a stored collection of two MS MARCO-size runs (7M lines each) reopened by its link to the drawn overview,
beside the first upload of the same files.

    .venv/bin/python benchmarks/workspace_overview.py [--repeat 3] [--upload]

The collection is the ``sparse`` workload of ``benchmarks/generate.py`` and its noisy copy (made when missing,
as ``benchmarks/dashboard_speed.py --workload msmarco`` makes them). It is added to a fresh workspace in a
temporary folder through the store (timed: parse and Parquet cache, once). A dashboard server on that workspace
starts in a process group of its own (killed as a group at the end); Chromium opens
``/overview?collection=ID`` and the time to the overview drawn is measured:

- first open in a fresh server process: the runs come from the store's Parquet cache, then ranked and
  evaluated;
- each further open (a new browser context, as another person opening the link): the server's caches hold
  the rankings;
- the same for the small demo collection: what loading the page itself costs (the app's scripts, the
  connection), for comparison.

With ``--upload`` the same two files are also uploaded through the data page of a fresh session (the first
upload: transfer, parse, ranking, saving in the workspace), timed to the overview drawn. Goal: a reopened
collection under 1 s to the drawn overview.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))
from dashboard_speed import ARGS, CHROMIUM, msmarco_collection, settled  # noqa: E402


def start_server(port: int, env: dict[str, str]) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(ROOT / "dashboard" / "app.py"), "--server.port", str(port),
         "--server.address", "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none", "--server.maxUploadSize", "2048"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 60
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return proc
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                stop_server(proc)
                raise SystemExit("streamlit did not start")
            time.sleep(0.3)


def stop_server(proc: subprocess.Popen) -> None:
    for signum in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, signum)
        except ProcessLookupError:
            break
        try:
            proc.wait(10)
            break
        except subprocess.TimeoutExpired:
            continue


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def open_link(browser, url: str) -> float:
    """Seconds from the link's request to the overview drawn, in a new browser context."""
    context = browser.new_context(viewport={"width": 1440, "height": 3000})
    page = context.new_page()
    start = time.perf_counter()
    page.goto(url)
    settled(page, "Overview", timeout=600_000)
    seconds = time.perf_counter() - start
    context.close()
    return seconds


def upload(browser, base: str, qrels: Path, runs: list[Path]) -> float:
    """Seconds from the choice of the runs (qrels already loaded) to the overview drawn, in a fresh session."""
    page = browser.new_context(viewport={"width": 1440, "height": 3000}).new_page()
    page.goto(f"{base}/data")
    box = page.get_by_role("textbox", name="Your name (for notes and saved collections)")
    box.fill("benchmark")
    box.press("Enter")
    inputs = page.locator('[data-testid="stFileUploaderDropzoneInput"]')
    inputs.nth(1).set_input_files(str(qrels))
    page.get_by_text("at least one run", exact=False).first.wait_for(timeout=120_000)
    start = time.perf_counter()
    inputs.nth(0).set_input_files([str(r) for r in runs])
    page.get_by_text(f"{len(runs)} systems · qrels", exact=False).first.wait_for(timeout=900_000)
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=900_000)
    page.locator('[data-testid="stSidebarNavLink"]', has_text="Overview").click()
    settled(page, "Overview", timeout=900_000)
    seconds = time.perf_counter() - start
    page.context.close()
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--upload", action="store_true", help="also time the first upload through the browser")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    from workspace import open_workspace

    qrels, runs = msmarco_collection()
    rows: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="rankscope-bench-ws-") as tmp:
        folder = Path(tmp) / "ws"
        ws = open_workspace(str(folder))
        start = time.perf_counter()
        cid = ws.add_collection("msmarco-size", qrels=(qrels.name, qrels.read_bytes()),
                                runs=[(r.name, r.read_bytes()) for r in runs], author="benchmark").id
        rows["store: add the collection (parse, Parquet cache)"] = [time.perf_counter() - start]
        ws.close()
        port = free_port()
        proc = start_server(port, {**os.environ, "RANKSCOPE_WORKSPACE": str(folder)})
        base = f"http://127.0.0.1:{port}"
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                link = f"{base}/overview?collection={cid}"
                rows["link opened, fresh server: overview drawn"] = [open_link(browser, link)]
                rows["link opened again (another person): overview drawn"] = [
                    open_link(browser, link) for _ in range(args.repeat)]
                open_link(browser, f"{base}/overview")  # the demo collection: its caches filled
                rows["same, demo collection (the page's own load)"] = [open_link(browser, f"{base}/overview")
                                                                        for _ in range(args.repeat)]
                if args.upload:
                    rows["first upload of the same runs: overview drawn"] = [upload(browser, base, qrels, runs)]
                browser.close()
        finally:
            stop_server(proc)
    size = sum(r.stat().st_size for r in runs) / 2**20
    print(f"{len(runs)} runs ({size:.0f} MiB) stored in a SQLite workspace; seconds")
    print(f"{'step':55} {'median':>7} {'min':>7} {'max':>7} {'n':>3}")
    for name, values in rows.items():
        print(f"{name:55} {statistics.median(values):7.2f} {min(values):7.2f} {max(values):7.2f} {len(values):3}")


if __name__ == "__main__":
    main()
