#!/usr/bin/env python3
"""Upload a 1-million-line run in a fresh browser session, close the session, and again: does the server keep memory?

    .venv/bin/python benchmarks/upload_cycles.py [--cycles 20] [--lines 1000000] [--distinct]

Starts ``streamlit run dashboard/app.py`` in a process session of its own (stopped as a group at the end),
writes the run into a temporary folder, and through Playwright (Debian's Chromium) opens the data page in
a new browser context, uploads the run, waits until the page has read it, and closes the context. After
each cycle it prints the resident memory (VmRSS) of the server and of every process of its session (the
workers of dashboard.server.guard and their fork server). With ``--distinct`` every cycle's run differs in its
last line, so every cycle is read anew instead of coming from the cache. Each step of a cycle has its own
time limit (``--step-seconds``): past it the benchmark names the step, saves a screenshot and stops. After
the cycles it waits longer than the session TTL (``server.disconnectedSessionTTL`` of
.streamlit/config.toml, or ``--idle`` seconds) and prints the memory again. It ends by saying whether the
last figure is within 10% of the one after the first cycle.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]


def write_run(path: Path, lines: int, cycle: int = 0) -> Path:
    """``lines`` lines: 1,000 documents for each of ``lines // 1000`` topics; the last score carries ``cycle``."""
    topics = max(lines // 1000, 1)
    with path.open("w") as out:
        for q in range(topics):
            out.write("".join(f"{q + 1} Q0 doc{q}_{i} {i + 1} {1000 - i * 0.5:.4f} bench\n" for i in range(1000)))
        out.write(f"{topics + 1} Q0 last 1 {cycle}.0 bench\n")
    return path


def session_rss_kib(leader: int) -> int:
    """VmRSS (KiB) summed over the live processes of the session ``leader`` heads."""
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            if int(stat[stat.rindex(")") + 2:].split()[3]) != leader:
                continue
            status = (entry / "status").read_text()
        except (OSError, ValueError):
            continue
        total += next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")), 0)
    return total


def start_server(port: int) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(ROOT / "dashboard" / "app.py"), "--server.port", str(port),
         "--server.address", "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
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
            if not session_rss_kib(proc.pid):
                break
        except subprocess.TimeoutExpired:
            pass
    proc.wait()


def session_ttl() -> int:
    """``server.disconnectedSessionTTL`` of .streamlit/config.toml (Streamlit's default, 120, without it)."""
    import tomllib

    config = ROOT / ".streamlit" / "config.toml"
    settings = tomllib.loads(config.read_text()) if config.exists() else {}
    return int(settings.get("server", {}).get("disconnectedSessionTTL", 120))


class StepFailed(Exception):
    """A step of a cycle did not finish in its time."""


def cycle_once(browser, port: int, run: Path, step_seconds: float, cycle: int, shots: Path) -> None:
    """Open the data page in a new context, upload ``run``, wait until it is read, close the context."""
    from playwright.sync_api import Error, expect

    context = browser.new_context()
    tab = context.new_page()
    step = "open the data page"
    try:
        tab.goto(f"http://127.0.0.1:{port}/data", timeout=step_seconds * 1000)
        step = "find the run uploader"
        uploader = tab.locator('[data-testid="stFileUploaderDropzoneInput"]').first
        expect(uploader).to_be_attached(timeout=step_seconds * 1000)
        # the first run of the page has to finish: a file given to the input while the page still redraws
        # is dropped without a word, and the page then waits forever for a file it never got
        step = "see the page's first run finish"
        expect(tab.locator('[data-testid="stStatusWidget"]')).to_have_count(0, timeout=step_seconds * 1000)
        step = "upload the run (its name listed under the uploader)"
        listed = tab.locator('[data-testid="stFileUploader"]').first.get_by_text(run.name)
        for attempt in range(3):
            uploader.set_input_files(str(run), timeout=step_seconds * 1000)
            try:
                expect(listed.first).to_be_visible(timeout=30_000)
                break
            except AssertionError:
                if attempt == 2:
                    raise
                print(f"cycle {cycle}: the uploader did not list {run.name}; giving it again", flush=True)
        step = "see the run read (the page asks for a qrels file)"
        expect(tab.get_by_text("Load a qrels file", exact=False).first).to_be_visible(timeout=step_seconds * 1000)
        step = "see the script finish (no status widget)"
        expect(tab.locator('[data-testid="stStatusWidget"]')).to_have_count(0, timeout=step_seconds * 1000)
        step = "see no exception"
        expect(tab.locator('[data-testid="stException"]')).to_have_count(0, timeout=5000)
    except (AssertionError, Error) as err:
        shot = shots / f"cycle-{cycle}.png"
        try:
            tab.screenshot(path=str(shot), full_page=True)
            text = " ".join(tab.locator("body").inner_text(timeout=5000).split())[:600]
        except Error:
            text = "(the page did not answer)"
        raise StepFailed(f"cycle {cycle}: could not {step} within {step_seconds:.0f} s; screenshot {shot}; "
                         f"the page said: {text}\n{str(err).splitlines()[0]}") from None
    finally:
        context.close()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cycles", type=int, default=20)
    p.add_argument("--lines", type=int, default=1_000_000)
    p.add_argument("--distinct", action="store_true", help="a different run in every cycle (no cache hit)")
    p.add_argument("--step-seconds", type=float, default=180, help="time limit of each step of a cycle")
    p.add_argument("--idle", type=float, default=None,
                   help="seconds to wait after the last cycle (default: the session TTL plus 60)")
    args = p.parse_args(argv)
    from playwright.sync_api import sync_playwright

    ttl = session_ttl()
    idle = ttl + 60 if args.idle is None else args.idle
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    shots = Path(tempfile.mkdtemp(prefix="upload-cycles-"))
    series: list[int] = []
    failure = None
    with tempfile.TemporaryDirectory() as tmp:
        run = write_run(Path(tmp) / "big.run", args.lines)
        print(f"run: {args.lines:,} lines, {run.stat().st_size / 1e6:.0f} MB; server.disconnectedSessionTTL {ttl} s",
              flush=True)
        proc = start_server(port)
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                print(f"server before any session: {session_rss_kib(proc.pid) / 1024:.0f} MiB", flush=True)
                for cycle in range(1, args.cycles + 1):
                    if args.distinct and cycle > 1:
                        write_run(run, args.lines, cycle)
                    start = time.perf_counter()
                    try:
                        cycle_once(browser, port, run, args.step_seconds, cycle, shots)
                    except StepFailed as err:
                        failure = str(err)
                        print(failure, flush=True)
                        break
                    time.sleep(2)  # the server notices the closed connection
                    series.append(session_rss_kib(proc.pid))
                    print(f"cycle {cycle:2d}: {series[-1] / 1024:7.0f} MiB  ({time.perf_counter() - start:.1f} s)",
                          flush=True)
                browser.close()
            idle_rss = None
            if series and not failure and idle > 0:
                print(f"idle for {idle:.0f} s (session TTL {ttl} s)…", flush=True)
                end = time.monotonic() + idle
                while time.monotonic() < end:
                    time.sleep(min(30.0, max(end - time.monotonic(), 0)))
                    print(f"  idle {idle - max(end - time.monotonic(), 0):4.0f} s: "
                          f"{session_rss_kib(proc.pid) / 1024:7.0f} MiB", flush=True)
                idle_rss = session_rss_kib(proc.pid)
        finally:
            stop_server(proc)
    if not series:
        print("no cycle finished")
        return 2
    first, last = series[0], series[-1]
    within = last <= first * 1.10
    print("series (MiB): " + " ".join(f"{x / 1024:.0f}" for x in series))
    print(f"last {last / 1024:.0f} MiB vs {first / 1024:.0f} MiB after cycle 1: {last / first - 1:+.1%}, "
          f"{'within' if within else 'NOT within'} 10%")
    if idle_rss is not None:
        print(f"after {idle:.0f} s idle (TTL {ttl} s): {idle_rss / 1024:.0f} MiB, {idle_rss / first - 1:+.1%} "
              f"against cycle 1")
    if failure:
        print(f"stopped early: {failure}")
        return 2
    return 0 if within else 1


if __name__ == "__main__":
    sys.exit(main())
