#!/usr/bin/env python3
"""Many people on one dashboard server: browser sessions that upload files and change pages at once.

    .venv/bin/python benchmarks/dashboard_load.py [--sessions 20] [--seconds 100] [--think 0] [--lines 100000] [--same]
    .venv/bin/python benchmarks/dashboard_load.py --driver websocket [--sessions 20] [--seconds 100] [--think 0]
    .venv/bin/python benchmarks/dashboard_load.py --server-only [--sessions 20] [--rounds 5]

One ``streamlit run dashboard/app.py`` on the loopback interface (its own process group, stopped as a group
at the end) and one Chromium (Debian's, through Playwright) with a browser context per session: no cookie or
storage is shared, so each is a session of its own on the server, as separate people are. Sessions start
half a second apart. Each opens the data page, uploads a qrels file (about 12,000 judgments) and then a run
(``--lines`` lines, 250 topics; with ``--same`` every session uploads the same two files, else each its own,
which the server parses separately), then changes pages (overview, curves, gain, queries, data, again and
again) until ``--seconds`` have passed since the first session started, and for at least half that after its
own uploads. With ``--think S`` each person looks at a page for a while before the next click (between half
and one and a half times S, each session's pauses drawn from its own seed), as people in a meeting do;
without it every session clicks again the moment a page is drawn, which keeps the machine saturated and
measures throughput more than the wait of a person. Every action is timed from the
click (or the file handed to the uploader) until the server's answer is shown (``answered``: the title is the
expected one, the script has stopped running, nothing is stale) and until, besides, every chart of the page
is drawn (one Chromium draws for all sessions, on the server's cores: on a shared machine the drawing, not
the server, takes most of the time; ``--browser-nice 19`` starts the browser at the lowest priority, so that
the server has the cores whenever it needs them, as it would if each person's browser ran on their own
machine, and the ``answered`` times are then mostly the server's). An action that does not
settle within ``--action-seconds`` fails; an upload that fails is named.

The server's memory (resident, summed over its process group: the server, the guard's fork server and
workers) is sampled every half second: before the first session, its peak, and after the sessions closed
and the server dropped them (``server.disconnectedSessionTTL`` and the memory sweeper's period). The load
average of the machine is printed at the start and at the end: the browser shares the machine's cores with
the server, as it would not on a real deployment, so the figures are an upper bound.

Prints the table rows of docs/performance.md: per kind of action, how many, failed, median and 95th percentile.

``--driver websocket`` drives the same people without a browser: each session speaks Streamlit's own
websocket protocol from this process (``streamlit_client.py`` beside this file): it opens ``/_stcore/stream``
with the XSRF token, runs the data page (the message a browser sends for ``/data``), learns the pages' script
hashes from the ``navigation`` message and the file uploaders' widget ids from the deltas, uploads each file
as the frontend does (upload address asked for, multipart PUT, rerun with the uploader's state) and changes
pages in the same order, with the same pauses. Each action is timed from the message sent until the run's
``script_finished`` (``answered``: the server's whole answer received, queueing behind the other sessions
included; nothing is drawn, so these rows have no ``drawn`` twin). An action fails on an exception or error
shown in the deltas, a run that did not finish successfully, another title than the page's (its first level
one heading, which the browser's ``answered`` also checks), a missing text (after the qrels, the request for
a run; after the run, ``1 system · qrels NAME`` and the run's system), fewer charts than the page draws, or
no ``script_finished`` within ``--action-seconds``. The clients' CPU is printed beside the server's.

``--server-only`` measures the server's share alone, without a browser or a network: the same sessions and
files driven by Streamlit's AppTest in this process, one action at a time, interleaved across sessions (every
session opens the data page, then every session uploads its qrels, then its run, then ``--rounds`` rounds of
page changes), each action timed in CPU seconds of this process (which runs the scripts as the server
would, with the caches shared across sessions). The first run of a session includes AppTest's own start.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import resource
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from upload_cycles import session_rss_kib, session_ttl, start_server, stop_server  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", "--renderer-process-limit=8"]
PAGES = ["Overview", "Curves", "Gain", "Queries", "Data"]
CHARTS = {"Overview": 1, "Curves": 3, "Gain": 1, "Queries": 3, "Data": 1}
SWEEP_SECONDS = 10  # dashboard.server.memory.SWEEP_SECONDS
SETTLED = """([title, charts]) => {
  const h1 = document.querySelector('[data-testid="stMain"] h1');
  if (!h1 || !h1.textContent.startsWith(title)) return false;
  if (document.querySelector('[data-testid="stStatusWidget"]')) return false;
  if (document.querySelector('[data-stale="true"]')) return false;
  if (document.querySelector('[data-testid="stException"]')) return true;  // settled, on an error
  const shown = [...document.querySelectorAll('[data-testid="stPlotlyChart"]')].filter(e => e.offsetParent);
  return shown.length >= charts && shown.every(e => e.querySelector('.main-svg'));
}"""


def write_files(folder: Path, sessions: int, lines: int, same: bool) -> list[tuple[Path, Path]]:
    """A qrels file and a run per session (the same pair for all with ``same``): 250 topics, ``lines`` lines."""
    import numpy as np

    topics = 250
    depth = max(lines // topics, 1)
    out = []
    for s in range(1 if same else sessions):
        rng = np.random.default_rng(1000 + s)
        qrels, run = folder / f"qrels-{s}.txt", folder / f"run-{s}.txt"
        with qrels.open("w") as q, run.open("w") as r:
            for t in range(topics):
                docs = rng.choice(depth * 4, size=depth, replace=False)
                judged = rng.choice(depth * 4, size=48, replace=False)
                q.write("".join(f"{301 + t} 0 doc{d} {int(g)}\n" for d, g in zip(judged, rng.integers(0, 3, 48))))
                scores = np.sort(rng.normal(10, 2, depth))[::-1]
                r.write("".join(f"{301 + t} Q0 doc{d} {i + 1} {v:.4f} s{s}\n" for i, (d, v) in enumerate(zip(docs, scores))))
        out.append((qrels, run))
    return out * sessions if same else out


def group_cpu_seconds(leader: int) -> float:
    """CPU seconds (user and system) of the live processes of the session ``leader`` heads, with those of
    their children that ended (the guard's workers, counted by the fork server that waited for them)."""
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[3]) == leader:
            total += sum(int(f) for f in fields[11:15])
    return total / os.sysconf("SC_CLK_TCK")


class Memory(threading.Thread):
    """Samples the server group's resident memory (and the machine's load average) every half second."""

    def __init__(self, leader: int) -> None:
        super().__init__(daemon=True)
        self.leader, self.samples, self.running = leader, [], True

    def run(self) -> None:
        while self.running:
            self.samples.append((time.monotonic(), session_rss_kib(self.leader) / 1024, os.getloadavg()[0]))
            time.sleep(0.5)


async def settled(page, title: str, seconds: float, charts: int | None = None) -> None:
    charts = CHARTS.get(title, 0) if charts is None else charts
    await page.wait_for_function(SETTLED, arg=[title, charts], polling=200, timeout=seconds * 1000)


async def session(number: int, browser, url: str, files: tuple[Path, Path], until: float, minimum: float,
                  seconds: float, think: float, log: list) -> None:
    """One person: open the data page, upload the qrels and the run, then change pages until ``until``, and
    for at least ``minimum`` seconds after the uploads, looking at each page for about ``think`` seconds."""
    context = await browser.new_context(viewport={"width": 1280, "height": 2400})
    page = await context.new_page()

    async def act(kind: str, action, title: str, check=None, charts: int | None = None) -> bool:
        start = time.monotonic()
        try:
            await action()
            await asyncio.sleep(0.05)  # let the action reach the server before the page can look settled
            if check is not None:
                await check()
            await settled(page, title, seconds, 0)  # the server's answer is shown; the browser may still draw
            log.append((f"{kind}: answered", time.monotonic() - start, None))
            await settled(page, title, seconds, charts)
            log.append((kind, time.monotonic() - start, None))
            print(f"session {number}: {kind} ({title}) {time.monotonic() - start:.2f} s", file=sys.stderr, flush=True)
            return True
        except Exception as err:  # a timeout, or the page gone: counted as failed, named
            log.append((kind, time.monotonic() - start, f"session {number}: {kind}: {str(err).splitlines()[0][:120]}"))
            print(log[-1][2], file=sys.stderr, flush=True)
            return False

    try:
        if not await act("open the data page", lambda: page.goto(f"{url}/data", timeout=seconds * 1000), "Data"):
            return
        uploader = page.locator('[data-testid="stFileUploaderDropzoneInput"]')
        qrels, run = files
        if not await act("upload qrels", lambda: uploader.nth(1).set_input_files(str(qrels)), "Data",
                         lambda: page.get_by_text("at least one run", exact=False).first.wait_for(timeout=seconds * 1000),
                         charts=0):  # own qrels and no run yet: the page asks for a run, and draws no chart
            return
        if not await act("upload run", lambda: uploader.nth(0).set_input_files(str(run)), "Data",
                         lambda: page.get_by_text(f"1 system · qrels {qrels.name}", exact=False).first.wait_for(
                             timeout=seconds * 1000)):
            return
        i, until = number % len(PAGES), max(until, time.monotonic() + minimum)
        pause = random.Random(number)  # each person's own pauses, the same in every run
        while time.monotonic() < until:
            name = PAGES[i % len(PAGES)]
            link = page.locator('[data-testid="stSidebarNavLink"]', has_text=name)
            await act("page change", link.click, name)
            i += 1
            if think:  # looking at the page before the next click: between half and one and a half times think
                await asyncio.sleep(think * pause.uniform(0.5, 1.5))
    finally:
        await context.close()


async def drive(url: str, files: list[tuple[Path, Path]], seconds: float, action_seconds: float,
                think: float = 0.0) -> list:
    from playwright.async_api import async_playwright

    log: list = []
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        until = time.monotonic() + seconds
        tasks = []
        for number, pair in enumerate(files):
            tasks.append(asyncio.create_task(session(number, browser, url, pair, until, seconds / 2, action_seconds,
                                                     think, log)))
            await asyncio.sleep(0.5)
        await asyncio.gather(*tasks)
        await browser.close()
    return log


async def ws_session(number: int, url: str, files: tuple[Path, Path], until: float, minimum: float,
                     seconds: float, think: float, log: list) -> None:
    """:func:`session` without a browser: the same person's actions in Streamlit's websocket protocol, each
    timed from the message sent until the run's ``script_finished`` (``answered``: nothing is drawn)."""
    from streamlit_client import ProtocolError, Session

    client = Session(url, seconds)

    async def act(kind: str, action, title: str, text: str | list[str] | None = None, charts: int = 0):
        start = time.monotonic()
        try:
            answer = await action()
            wrong = [*answer.problems]
            if not (answer.title or "").startswith(title):
                wrong.append(f"title {answer.title!r}, expected {title!r}")
            for expected in [text] if isinstance(text, str) else text or []:
                if not any(expected in t for t in answer.texts):
                    wrong.append(f"no text {expected!r}")
            if answer.charts < charts:
                wrong.append(f"{answer.charts} charts, expected {charts}")
            if wrong:
                raise ProtocolError("; ".join(wrong))
            log.append((f"{kind}: answered", time.monotonic() - start, None))
            print(f"session {number}: {kind} ({title}) {time.monotonic() - start:.2f} s", file=sys.stderr, flush=True)
            return answer
        except Exception as err:  # a time-out, an error shown, the wrong page: counted as failed, named
            why = str(err).splitlines()[0][:160] if str(err) else type(err).__name__
            log.append((f"{kind}: answered", time.monotonic() - start, f"session {number}: {kind}: {why}"))
            print(log[-1][2], file=sys.stderr, flush=True)
            return None

    async def first_run():
        await client.connect()
        return await client.run(page_name="data")  # what the browser sends for /data

    try:
        qrels, run = files
        if (answer := await act("open the data page", first_run, "Data")) is None:
            return
        if (answer := await act("upload qrels", lambda: client.upload("Qrels", [qrels], answer), "Data",
                                "at least one run")) is None:
            return
        # the run's system, named after its file (in the field to rename it), and the collection's line
        if await act("upload run", lambda: client.upload("Runs", [run], answer), "Data",
                     [f"1 system · qrels {qrels.name}", run.stem], CHARTS["Data"]) is None:
            return
        i, until = number % len(PAGES), max(until, time.monotonic() + minimum)
        pause = random.Random(number)
        while time.monotonic() < until and not client.late:
            name = PAGES[i % len(PAGES)]
            await act("page change", lambda: client.run(name.lower()), name, charts=CHARTS[name])
            i += 1
            if think:
                await asyncio.sleep(think * pause.uniform(0.5, 1.5))
    finally:
        await client.close()


async def ws_drive(url: str, files: list[tuple[Path, Path]], seconds: float, action_seconds: float,
                   think: float = 0.0) -> list:
    """:func:`drive` with :func:`ws_session`: the sessions start half a second apart, in this one process."""
    log: list = []
    until = time.monotonic() + seconds
    tasks = []
    for number, pair in enumerate(files):
        tasks.append(asyncio.create_task(ws_session(number, url, pair, until, seconds / 2, action_seconds, think,
                                                    log)))
        await asyncio.sleep(0.5)
    await asyncio.gather(*tasks)
    return log


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def server_only(files: list[tuple[Path, Path]], rounds: int) -> list:
    """The actions of the sessions run by AppTest in this process: [(kind, CPU seconds, error or None)]."""
    from streamlit.testing.v1 import AppTest

    app = str(HERE.parent / "dashboard" / "app.py")
    log: list = []

    def timed(kind: str, at, action) -> None:
        start = time.process_time()
        action()
        spent = time.process_time() - start
        problems = [str(e.value).splitlines()[0] for e in (*at.exception, *at.error)]
        log.append((kind, spent, f"{kind}: {problems[0][:120]}" if problems else None))

    def upload(at, label: str, path: Path) -> None:
        next(u for u in at.get("file_uploader") if u.proto.label == label).set_value(
            [(path.name, path.read_bytes(), "text/plain")] if label == "Runs" else (path.name, path.read_bytes(),
                                                                                      "text/plain"))
        at.run()

    sessions = [AppTest.from_file(app, default_timeout=600) for _ in files]
    for at in sessions:
        timed("first run of a session", at, at.run)
    for at in sessions:
        timed("open the data page", at, lambda: (at.switch_page("app_pages/data.py"), at.run()))
    for at, (qrels, _) in zip(sessions, files):
        timed("upload qrels", at, lambda: upload(at, "Qrels", qrels))
    for at, (_, run) in zip(sessions, files):
        timed("upload run", at, lambda: upload(at, "Runs", run))
    for r in range(rounds):
        for i, at in enumerate(sessions):
            name = PAGES[(i + r) % len(PAGES)].lower()
            # without the old page's widget states (a browser that changes pages sends none of them; AppTest
            # cannot restate a select box whose shown label differs from its option)
            timed("page change", at, lambda: (at.switch_page(f"app_pages/{name}.py"), at._run()))
    return log


def table(log: list, kinds: list[str]) -> None:
    print("| action | done | failed | median s | 95th percentile s |")
    print("|---|---:|---:|---:|---:|")
    for kind in kinds:
        done = [s for k, s, err in log if k == kind and err is None]
        failed = [err for k, s, err in log if k == kind and err is not None]
        if not done and not failed:
            continue
        med = f"{statistics.median(done):.2f}" if done else "-"
        p95 = f"{percentile(done, 0.95):.2f}" if done else "-"
        print(f"| {kind} | {len(done)} | {len(failed)} | {med} | {p95} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=100.0, help="how long the sessions change pages")
    parser.add_argument("--lines", type=int, default=100_000, help="lines of each session's run")
    parser.add_argument("--same", action="store_true", help="every session uploads the same qrels and run")
    parser.add_argument("--action-seconds", type=float, default=60.0, help="an action not settled by then fails")
    parser.add_argument("--think", type=float, default=0.0,
                        help="seconds each person looks at a page before the next click (on average; 0: at once)")
    parser.add_argument("--browser-nice", type=int, default=0,
                        help="run the browser at this niceness (19: the server first, as when each person's "
                             "browser runs on their own machine)")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--driver", choices=["browser", "websocket"], default="browser",
                        help="browser: Chromium contexts; websocket: Streamlit's protocol spoken from this process, "
                             "nothing drawn (the server's answer alone)")
    parser.add_argument("--server-only", action="store_true",
                        help="the server's CPU per action, sessions driven by AppTest in this process")
    parser.add_argument("--rounds", type=int, default=5, help="--server-only: page changes per session")
    args = parser.parse_args(argv)
    if args.server_only:
        sys.path.insert(0, str(HERE.parent))
        with tempfile.TemporaryDirectory(prefix="rankscope-load-") as tmp:
            files = write_files(Path(tmp), args.sessions, args.lines, args.same)
            load_start = os.getloadavg()
            log = server_only(files, args.rounds)
            load_end = os.getloadavg()
        print(f"{args.sessions} AppTest sessions in one process (the server's share: CPU seconds per action), runs "
              f"of {args.lines:,} lines; load average {load_start[0]:.1f} before, {load_end[0]:.1f} after, on "
              f"{os.cpu_count()} CPUs")
        table(log, ["first run of a session", "open the data page", "upload qrels", "upload run", "page change"])
        for kind, seconds, err in log:
            if err is not None:
                print(f"failed: {err}")
        return 1 if any(err for _, _, err in log) else 0
    import socket

    websocket = args.driver == "websocket"
    with tempfile.TemporaryDirectory(prefix="rankscope-load-") as tmp:
        files = write_files(Path(tmp), args.sessions, args.lines, args.same)
        port = args.port
        if not port:
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                port = s.getsockname()[1]
        load_start = os.getloadavg()
        proc = start_server(port)
        if args.browser_nice:  # this process and the browser it starts yield the cores to the server
            os.nice(args.browser_nice)
        memory = Memory(proc.pid)
        try:
            time.sleep(2)
            memory.start()
            time.sleep(1)
            before = memory.samples[-1][1]
            started, cpu_start = time.monotonic(), group_cpu_seconds(proc.pid)
            who = resource.RUSAGE_SELF if websocket else resource.RUSAGE_CHILDREN
            mine_start = resource.getrusage(who)
            log = asyncio.run((ws_drive if websocket else drive)(f"http://127.0.0.1:{port}", files, args.seconds,
                                                                  args.action_seconds, args.think))
            ended, server_cpu = time.monotonic(), group_cpu_seconds(proc.pid) - cpu_start
            mine = resource.getrusage(who)  # the browser and its driver (which have ended), or this process
            browser_cpu = mine.ru_utime + mine.ru_stime - mine_start.ru_utime - mine_start.ru_stime
            wait = session_ttl() + 2 * SWEEP_SECONDS + 5
            print(f"sessions closed; waiting {wait} s for the server to drop them", file=sys.stderr, flush=True)
            time.sleep(wait)
            after = memory.samples[-1][1]
        finally:
            memory.running = False
            stop_server(proc)
        load_end = os.getloadavg()
    peak = max(mb for t, mb, _ in memory.samples if started <= t <= ended + 5)
    busiest = max(load for t, _, load in memory.samples if started <= t <= ended)
    print(f"{args.sessions} sessions on one server, {args.seconds:g} s of page changes, runs of {args.lines:,} lines "
          f"({'the same files' if args.same else 'different files'} per session)"
          f"{f', about {args.think:g} s on each page before the next click' if args.think else ''}"
          f"{f', the browser at niceness {args.browser_nice}' if args.browser_nice else ''}"
          f"{', no browser: Streamlit websocket clients in one process' if websocket else ''}; load average "
          f"{load_start[0]:.1f} before, at most {busiest:.1f} while the sessions ran, {load_end[0]:.1f} after, on "
          f"{os.cpu_count()} CPUs")
    table(log, [k + end for k in ("open the data page", "upload qrels", "upload run", "page change")
                for end in (": answered", "")])
    print(f"| server memory (MB): before, peak, after | {before:,.0f} | {peak:,.0f} | {after:,.0f} | |")
    print(f"\nwhile the sessions ran ({ended - started:.0f} s): the server used {server_cpu:.0f} s of CPU, the "
          f"{'websocket clients' if websocket else 'browser'} {browser_cpu:.0f} s ({os.cpu_count()} CPUs: "
          f"{os.cpu_count() * (ended - started):.0f} CPU seconds in all)")
    for kind, seconds, err in log:
        if err is not None:
            print(f"failed after {seconds:.1f} s: {err}")
    return 1 if any(err for _, _, err in log if "upload" in (err or "")) else 0


if __name__ == "__main__":
    sys.exit(main())
