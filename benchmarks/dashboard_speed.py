#!/usr/bin/env python3
"""Time the dashboard in Chromium on four Cranfield-size runs, or on two MS MARCO-size runs: a page change and a
widget change, each from the action (the click, the choice) to the last chart drawn.

    .venv/bin/python benchmarks/dashboard_speed.py [--workload cranfield|msmarco] [--repeat 5] [--port 0]
                                                   [--server-only]

The collection is Cranfield's graded qrels (/work/shared/data/cranfield/derived, or the copy given with
``--qrels``): 225 topics. Four runs of 1,000 documents per topic are simulated from it with fixed seeds
(relevant documents get higher scores, by a margin that differs per run), written to ``benchmarks/data/``.

A server (``streamlit run dashboard/app.py``) starts in a process group of its own and the whole group is
killed at the end. Chromium (Debian's, through Playwright) uploads the qrels and the runs on the data page,
opens the overview, then repeats:

- page change: a click on a sidebar link (overview -> curves, curves -> gain, gain -> overview), timed until
  the page's title is the new one, Streamlit has stopped running, nothing is stale and every chart of the
  page has its plot drawn;
- widget change: the interpolation rule on the curves page and the cutoff on the gain page, timed until the
  chart shows the new value and the page has settled.

With ``--workload msmarco`` the collection is the ``sparse`` workload of ``benchmarks/generate.py`` (6,980
topics x 1,000 documents, 6.98 million lines, 231 MiB, generated when missing) and a second run made from it with
seeded noise on the scores, listed and ranked by them (``benchmarks/dashboard.py``'s ``sparse_second.run``).
Both go through the browser's upload, and the time from the choice of the two files to the data page showing
them, then to the overview drawn, is reported too.

With ``--server-only`` no browser and no server are started: each round, a fresh process drives one session
with Streamlit's AppTest (the qrels, then the runs uploaded, then the overview opened) and times the data page's
rerun after the upload and the overview's first run, wall seconds: the server's share of the first two
figures above, cold caches every round.

The medians (with minimum and maximum) are printed in seconds. Goal: each under 1 s on Cranfield, under 2 s on
the MS MARCO size.
"""

from __future__ import annotations

import argparse
import json
import shutil
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from upload_cycles import start_server, stop_server  # noqa: E402  (the same server, started and stopped alike)
DATA = HERE / "data"
CRANFIELD = Path("/work/shared/data/cranfield/derived/cranfield.graded.qrels")
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
SYSTEMS = {"bm25": 2.0, "lm_dirichlet": 1.6, "dense": 2.4, "tfidf": 1.0}  # name -> margin of the relevant
DOCUMENTS = 1400
DEPTH = 1000
# a viewport tall enough for every chart of a page to be in view (Streamlit draws a chart when it is shown)
# every chart of the page drawn, the app idle, nothing stale, the title the expected one
SETTLED = """([title, charts, text]) => {
  const h1 = document.querySelector('[data-testid="stMain"] h1');
  if (!h1 || !h1.textContent.startsWith(title)) return false;
  if (document.querySelector('[data-testid="stStatusWidget"]')) return false;
  if (document.querySelector('[data-stale="true"]')) return false;
  const shown = [...document.querySelectorAll('[data-testid="stPlotlyChart"]')].filter(e => e.offsetParent);
  if (shown.length !== charts) return false;
  if (!shown.every(e => e.querySelector('.main-svg'))) return false;
  if (text && ![...document.querySelectorAll('.gtitle, .annotation-text')].some(e => e.textContent.includes(text))) return false;
  return true;
}"""
CHARTS = {"Overview": 1, "Curves": 3, "Gain": 1}


def write_collection(qrels_source: Path) -> tuple[Path, list[Path]]:
    """Cranfield's qrels and four simulated runs (225 topics x 1,000 documents each), written once."""
    DATA.mkdir(exist_ok=True)
    qrels = DATA / "cranfield.qrels"
    qrels.write_bytes(qrels_source.read_bytes())
    judged: dict[str, dict[int, int]] = {}
    for line in qrels_source.read_text().splitlines():
        if line.strip():
            q, _, d, g = line.split()
            judged.setdefault(q, {})[int(d)] = int(g)
    paths = []
    for i, (system, margin) in enumerate(SYSTEMS.items()):
        path = DATA / f"cranfield_{system}.run"
        paths.append(path)
        if path.exists():
            continue
        rng = np.random.default_rng(100 + i)
        lines = []
        for q, grades in judged.items():
            boost = np.zeros(DOCUMENTS + 1)
            for d, g in grades.items():
                boost[d] = margin * max(g, 0) / 3
            scores = rng.normal(0.0, 1.0, DOCUMENTS + 1) + boost
            order = np.argsort(-scores[1:], kind="stable")[:DEPTH] + 1
            lines += [f"{q} Q0 {d} {r} {scores[d]:.4f} {system}" for r, d in enumerate(order, 1)]
        path.write_text("\n".join(lines) + "\n")
    return qrels, paths


def msmarco_collection() -> tuple[Path, list[Path]]:
    """The sparse workload's qrels and run, and its copy with seeded noise on the scores (made when missing)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("dashboard_benchmark", HERE / "dashboard.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    qrels, run = bench.ensure_workload()
    return qrels, [run, bench.second_run(run)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def settled(page, title: str, text: str | None = None, timeout: float = 120_000) -> None:
    page.wait_for_function(SETTLED, arg=[title, CHARTS.get(title, 0), text], polling="raf", timeout=timeout)


def timed(action, page, title: str, text: str | None = None) -> float:
    start = time.perf_counter()
    action()
    page.wait_for_timeout(50)  # let the click reach the server before the page can look settled
    settled(page, title, text)
    return time.perf_counter() - start - 0.05


def nav(page, name: str):
    return lambda: page.locator('[data-testid="stSidebarNavLink"]', has_text=name).click()


def select(page, label: str, option: str):
    def act():
        page.locator(f'input[aria-label="{label}"]').click()
        page.keyboard.type(option)
        page.keyboard.press("Enter")
    return act


def number(page, label: str, value: int):
    def act():
        box = page.locator(f'input[aria-label="{label}"]')
        box.fill(str(value))
        box.press("Enter")
    return act


def server_share(qrels: Path, runs: list[Path]) -> dict[str, float]:
    """The server's share of one cold upload, in this process: a session driven by Streamlit's AppTest uploads
    the qrels, then the runs, and opens the overview; wall seconds of the upload's rerun of the data page (the
    runs parsed, ranked and checked) and of the overview's first run, nothing sent to a browser or drawn."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=900)
    at.run()
    at.switch_page("app_pages/data.py")
    at.run()

    def uploader(label: str):
        return next(u for u in at.get("file_uploader") if u.proto.label == label)

    def timed_run(run) -> float:
        start = time.perf_counter()
        run()
        seconds = time.perf_counter() - start
        problems = [str(e.value).splitlines()[0] for e in (*at.exception, *at.error)]
        if problems:
            raise SystemExit(f"the dashboard showed an error: {problems[0]}")
        return seconds

    uploader("Qrels").set_value((qrels.name, qrels.read_bytes(), "text/plain"))
    at.run()
    uploader("Runs").set_value([(run.name, run.read_bytes(), "text/plain") for run in runs])
    data = timed_run(at.run)
    at.switch_page("app_pages/overview.py")
    overview = timed_run(at._run)  # a page change sends no widget state of the page left (as a browser)
    return {"upload runs: data page run": data, "then: overview run": overview, "upload to overview": data + overview}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--qrels", type=Path, default=CRANFIELD)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--workload", choices=("cranfield", "msmarco"), default="cranfield",
                        help="four Cranfield-size runs (default) or two MS MARCO-size runs (7M lines each)")
    parser.add_argument("--server-only", action="store_true",
                        help="the server's share of the upload and the overview, without a browser: each of "
                             "--repeat rounds a fresh process (cold caches) driving one AppTest session")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)  # one --server-only round, as JSON
    args = parser.parse_args()
    qrels, runs = msmarco_collection() if args.workload == "msmarco" else write_collection(args.qrels)
    if args.server_only:
        server_only(args, qrels, runs)
        return
    from playwright.sync_api import sync_playwright

    loading: dict[str, float] = {}
    port = args.port or free_port()
    proc = start_server(port)
    times: dict[str, list[float]] = {}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_context(viewport={"width": 1440, "height": 3000}).new_page()
            page.goto(f"http://127.0.0.1:{port}/data")
            page.wait_for_selector('[data-testid="stFileUploaderDropzoneInput"]', state="attached", timeout=60_000)
            inputs = page.locator('[data-testid="stFileUploaderDropzoneInput"]')
            inputs.nth(1).set_input_files(str(qrels))
            page.get_by_text("at least one run", exact=False).first.wait_for(timeout=120_000)
            sent: list[float] = []  # when each file's upload request has its answer
            page.on("requestfinished",
                    lambda request: sent.append(time.perf_counter()) if "/upload_file/" in request.url else None)
            start = time.perf_counter()
            inputs.nth(0).set_input_files([str(r) for r in runs])
            page.get_by_text(f"{len(runs)} systems · qrels", exact=False).first.wait_for(timeout=600_000)
            page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')",
                                   timeout=600_000)
            loading["upload runs: data page shows them"] = time.perf_counter() - start
            if len(sent) >= len(runs):
                loading["  of which the files' transfer"] = max(sent) - start
            overview = time.perf_counter()
            nav(page, "Overview")()
            settled(page, "Overview", timeout=600_000)
            loading["then: overview drawn"] = time.perf_counter() - overview
            loading["upload to overview drawn"] = time.perf_counter() - start
            print(", ".join(f"{k} {v:.2f}" for k, v in loading.items()), file=sys.stderr, flush=True)
            rules = ["textbook", "trec_eval 10", "trec_eval 9"]
            for i in range(args.repeat + 1):  # the first round fills the caches and is not counted
                steps = {
                    "page: overview -> curves": timed(nav(page, "Curves"), page, "Curves"),
                    "widget: curves, interpolation rule": timed(
                        select(page, "Interpolation rule", rules[i % 3]), page, "Curves",
                        f"({rules[i % 3].replace(' ', '-')} rule)"),
                    "page: curves -> gain": timed(nav(page, "Gain"), page, "Gain"),
                    "widget: gain, cutoff k": timed(number(page, "Cutoff k", 5 + i), page, "Gain", f"k = {5 + i}"),
                    "page: gain -> overview": timed(nav(page, "Overview"), page, "Overview"),
                }
                print(f"round {i}: " + ", ".join(f"{s:.2f}" for s in steps.values()), file=sys.stderr, flush=True)
                if i:
                    for name, seconds in steps.items():
                        times.setdefault(name, []).append(seconds)
            browser.close()
    finally:
        stop_server(proc)
    size = sum(r.stat().st_size for r in runs) / 2**20
    print(f"{len(runs)} runs ({size:.0f} MiB) of {DEPTH:,} documents on {len({line.split()[0] for line in qrels.read_text().splitlines()})} "
          f"topics, {args.repeat} repetitions, seconds from the action to the last chart drawn")
    for name, seconds in loading.items():
        print(f"{name:40} {seconds:7.2f}  (once)")
    print(f"{'step':40} {'median':>7} {'min':>7} {'max':>7}")
    for name, values in times.items():
        print(f"{name:40} {statistics.median(values):7.2f} {min(values):7.2f} {max(values):7.2f}")


def server_only(args: argparse.Namespace, qrels: Path, runs: list[Path]) -> None:
    """``--server-only``: print the server's share, each round in a process of its own (``--one``)."""
    if args.one:
        print(json.dumps(server_share(qrels, runs)))
        return
    rounds = []
    for i in range(args.repeat):
        out = subprocess.run([sys.executable, __file__, "--server-only", "--one", "--workload", args.workload,
                              "--qrels", str(args.qrels)], capture_output=True, text=True, check=True)
        rounds.append(json.loads(out.stdout.strip().splitlines()[-1]))
        print(f"round {i}: " + ", ".join(f"{k} {v:.2f}" for k, v in rounds[-1].items()), file=sys.stderr, flush=True)
    size = sum(r.stat().st_size for r in runs) / 2**20
    print(f"{len(runs)} runs ({size:.0f} MiB), the server's share without a browser (AppTest, a fresh process each "
          f"round), {args.repeat} rounds, wall seconds")
    print(f"{'step':40} {'median':>7} {'min':>7} {'max':>7}")
    for name in rounds[0]:
        values = [r[name] for r in rounds]
        print(f"{name:40} {statistics.median(values):7.2f} {min(values):7.2f} {max(values):7.2f}")


if __name__ == "__main__":
    main()
