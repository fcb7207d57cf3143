#!/usr/bin/env python3
"""A live class of 60 students on one server: how long until the teacher's screen shows every answer.

    .venv/bin/python benchmarks/class_load.py [--students 60] [--spread 30] [--seed 7] [--timeout 240]
    .venv/bin/python benchmarks/class_load.py --flood 300 [--timeout 600]     (benchmarks/class_flood.py)

Loopback only. A server (``tests.processes.serve_dashboard``) starts on a temporary workspace holding a saved
lesson, in a process group of its own, stopped (with everything it started) at the end.

- The teacher is Debian's Chromium (Playwright) at 1024x768 in presentation mode: it opens the live-class
  page, chooses the lesson, starts the class and opens question 1, then waits for its answers count to
  read the number of students (the count is a fragment the page reruns every second).
- Each student is a light client speaking Streamlit's own protocol over the same WebSocket a browser uses
  (``/_stcore/stream``, protobuf ``BackMsg``/``ForwardMsg``): it opens ``/class?code=...``, keeps the page's
  auto-rerun timer as the browser does (a rerun of the class's fragment every 3 s, so the server does the
  same polling work as 60 phones), and when question 1 appears it waits a seeded think time (uniform in
  0..``--spread`` seconds from the opening), fills the answer box, presses "Send my answer", and waits for
  "Sent:". Sixty full Chromium pages (a JavaScript app each, drawn in software) would take the 2-core
  machine's CPU away from the server being measured; the light clients cost the server what phones cost it.

Printed: the time for every student to join, the time question 1 took to reach the phones (their pages
follow the teacher by polling the class's revision), each answer's time from the opening, the time until the
teacher's screen shows every answer (from the opening, and from the last answer acknowledged), the answers
stored, the server's CPU seconds (its process group, from ``/proc``) over the question, and the students'
polls served.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests import processes  # noqa: E402  (servers in a process group of their own, stopped as a group)

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking"]
ANSWER = "0.42"


def _lesson(folder: str) -> None:
    from metrics.teaching.questions import Question, Ranking
    from workspace import open_workspace
    from workspace.classroom import Classroom

    with open_workspace(folder) as ws:
        Classroom(ws).save_lesson("load", [Question("value", "AP", (Ranking((1, 0, 1, 0, 0), (1, 1)),))],
                                  author="bench")


def _cpu_seconds(pgid: int) -> float:
    """User and system CPU seconds of every live process of the group (or session) ``pgid``."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in processes.group_members(pgid):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / ticks


class Student:
    """One phone, as the Streamlit protocol sees it."""

    def __init__(self, base: str, code: str, think: float, opened: threading.Event, clock: dict) -> None:
        self.url = base.replace("http://", "ws://") + "/_stcore/stream"
        self.code, self.think, self.opened, self.clock = code, think, opened, clock
        self.page_hash = ""
        self.widgets: dict[str, tuple[str, str]] = {}  # label -> (widget id, fragment id)
        self.values: dict[str, tuple[str, object]] = {}  # widget id -> (field, value): sent with every rerun
        self.timers: dict[str, asyncio.Task] = {}
        self.joined = self.seen = self.sent = self.acknowledged = None
        self.polls = 0
        self.source: str | None = None  # the address this phone connects from (None: the system's choice)

    async def _rerun(self, ws, *, fragment: str = "", auto: bool = False, states=()) -> None:
        from streamlit.proto.BackMsg_pb2 import BackMsg

        msg = BackMsg()
        state = msg.rerun_script
        state.query_string = f"code={self.code}"
        state.page_script_hash = self.page_hash
        if not self.page_hash:
            state.page_name = "class"
        state.fragment_id = fragment
        state.is_auto_rerun = auto
        for widget_id, field, value in [*((i, f, v) for i, (f, v) in self.values.items()), *states]:
            w = state.widget_states.widgets.add()
            w.id = widget_id
            setattr(w, field, value)
        await ws.send(msg.SerializeToString())

    async def _tick(self, ws, fragment: str, interval: float) -> None:
        while True:
            await asyncio.sleep(interval)
            self.polls += 1
            await self._rerun(ws, fragment=fragment, auto=True)

    async def run(self, deadline: float) -> None:
        import websockets
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        # no keep-alive pings: a browser sends none, and a busy server would be timed out by them
        source = {"local_addr": (self.source, 0)} if self.source else {}  # another loopback address: 127.0.0.N
        async with websockets.connect(self.url, subprotocols=["streamlit"], max_size=None, ping_interval=None,
                                      open_timeout=120, **source) as ws:
            await self._rerun(ws)
            answering = None
            try:
                # a phone that answered keeps polling, as a page left open does, until the teacher sees all
                while time.monotonic() < deadline and not self.finished():
                    try:
                        raw = await asyncio.wait_for(ws.recv(), timeout=1.0)
                    except asyncio.TimeoutError:
                        continue
                    msg = ForwardMsg()
                    msg.ParseFromString(raw)
                    kind = msg.WhichOneof("type")
                    if kind == "navigation" and msg.navigation.page_script_hash:
                        # the page shown (as a browser does, every later rerun names it: a rerun of the
                        # whole page that a fragment asks for runs the page its request named)
                        self.page_hash = msg.navigation.page_script_hash
                    elif kind == "auto_rerun" and msg.auto_rerun.fragment_id not in self.timers:
                        fid = msg.auto_rerun.fragment_id
                        self.timers[fid] = asyncio.create_task(self._tick(ws, fid, msg.auto_rerun.interval))
                    elif kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
                        self._element(msg.delta.new_element, msg.delta.fragment_id)
                    if answering is None and "Your answer" in self.widgets and "Send my answer" in self.widgets:
                        self.seen = time.monotonic()  # question 1 reached this phone
                        answering = asyncio.create_task(self._answer(ws))
            finally:
                for task in [*self.timers.values(), *([answering] if answering else [])]:
                    task.cancel()

    def finished(self) -> bool:
        """Whether this phone can close: the teacher's screen has shown every answer."""
        return "all_shown" in self.clock

    def _element(self, element, fragment: str) -> None:
        kind = element.WhichOneof("type")
        if kind in ("text_input", "button"):
            widget = getattr(element, kind)
            self.widgets[widget.label] = (widget.id, fragment)
        elif kind == "alert" and os.environ.get("CLASS_LOAD_DEBUG"):
            print(round(time.monotonic() - self.clock.get("opened", 0), 1), element.alert.body[:80], flush=True)
        if kind == "alert" and element.alert.body.startswith("Sent:") and self.sent is not None:
            self.acknowledged = self.acknowledged or time.monotonic()
        elif kind == "alert" and "Waiting for the teacher" in element.alert.body and self.joined is None:
            self.joined = time.monotonic()

    async def _answer(self, ws) -> None:
        await asyncio.get_running_loop().run_in_executor(None, self.opened.wait)
        await asyncio.sleep(max(0.0, self.clock["opened"] + self.think - time.monotonic()))
        box, fragment = self.widgets["Your answer"]
        button, _ = self.widgets["Send my answer"]
        self.sent = time.monotonic()
        self.values[box] = ("string_value", ANSWER)  # as a browser does, the box keeps its text in later reruns
        await self._rerun(ws, fragment=fragment, states=[(button, "trigger_value", True)])


def start_class(browser, base: str, timeout: float):
    """The teacher's page at 1024x768 in presentation mode, the lesson "load" chosen and its class started;
    returns the page and the class's code."""
    from playwright.sync_api import expect

    page = browser.new_page(viewport={"width": 1024, "height": 768})
    page.set_default_timeout(timeout * 1000)
    page.goto(f"{base}/teach?present=1", timeout=timeout * 1000)
    expect.set_options(timeout=timeout * 1000)
    page.locator('[data-testid="stSelectbox"]').filter(has_text="Lesson").click()
    page.get_by_role("option", name="load (1 questions", exact=False).click()
    page.get_by_role("button", name="Start the class").click()
    heading = page.locator("h2", has_text="Code: ")
    expect(heading).to_be_visible()
    return page, heading.inner_text().split(": ", 1)[1].strip()


def _teacher(base: str, students: int, ready: threading.Event, opened: threading.Event, clock: dict,
             timeout: float) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page, clock["code"] = start_class(browser, base, timeout)
        ready.set()
        clock["joined_wait"].wait(timeout)
        button = page.get_by_role("button", name="Open question 1")
        button.click()
        clock["opened"] = time.monotonic()
        opened.set()
        page.wait_for_function(
            f"""() => [...document.querySelectorAll('[data-testid="stMetricValue"]')]
                     .some(e => e.innerText.trim() === '{students}')""", timeout=timeout * 1000, polling=100)
        clock["all_shown"] = time.monotonic()
        browser.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flood", type=int, default=0, metavar="N",
                        help="instead: N new sessions from this one address, each answering once (class_flood.py)")
    parser.add_argument("--students", type=int, default=60)
    parser.add_argument("--spread", type=float, default=30.0, help="answers come within this many seconds")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--timeout", type=float, default=240.0, help="seconds before the benchmark gives up")
    args = parser.parse_args(argv)
    if args.flood:
        from class_flood import flood

        return flood(args.flood, args.timeout)
    rng = random.Random(args.seed)
    folder = tempfile.mkdtemp(prefix="rankscope-class-")
    _lesson(folder)
    port = processes.free_port()
    server = processes.serve_dashboard(port, env={**os.environ, "RANKSCOPE_WORKSPACE": folder})
    base = f"http://127.0.0.1:{port}"
    ready, opened = threading.Event(), threading.Event()
    clock: dict = {"joined_wait": threading.Event()}
    teacher = threading.Thread(target=_teacher, args=(base, args.students, ready, opened, clock, args.timeout),
                               daemon=True)
    try:
        teacher.start()
        if not ready.wait(args.timeout):
            raise SystemExit("the teacher's page did not start the class")
        thinks = [rng.uniform(0, args.spread) for _ in range(args.students)]
        crowd = [Student(base, clock["code"], think, opened, clock) for think in thinks]
        started = time.monotonic()

        async def everyone() -> None:
            deadline = time.monotonic() + args.timeout
            tasks = [asyncio.create_task(s.run(deadline)) for s in crowd]
            while any(s.joined is None for s in crowd) and time.monotonic() < deadline:
                await asyncio.sleep(0.1)
            clock["all_joined"] = time.monotonic()
            print(f"{sum(s.joined is not None for s in crowd)} of {len(crowd)} students joined in "
                  f"{clock['all_joined'] - started:.1f} s", flush=True)
            clock["joined_wait"].set()
            await asyncio.gather(*tasks)

        cpu_before = _cpu_seconds(server.pid)
        asyncio.run(everyone())
        teacher.join(args.timeout)
        cpu = _cpu_seconds(server.pid) - cpu_before
    finally:
        clock["joined_wait"].set()
        processes.stop(server)
    from workspace import open_workspace
    from workspace.classroom import Classroom

    with open_workspace(folder) as ws:
        stored = Classroom(ws).count(clock["code"], 0)
    shutil.rmtree(folder, ignore_errors=True)
    if "all_shown" not in clock:
        print(f"the teacher's screen did not show {args.students} answers within {args.timeout:g} s "
              f"({stored} stored)")
        return 1
    opened_at = clock["opened"]
    sent = sorted(s.sent - opened_at for s in crowd if s.sent)
    acked = sorted(s.acknowledged - s.sent for s in crowd if s.acknowledged)
    last_ack = max(s.acknowledged for s in crowd if s.acknowledged)
    print(f"students: {args.students}, all joined in {clock['all_joined'] - started:.1f} s")
    seen = sorted(s.seen - opened_at for s in crowd if s.seen)
    print(f"question 1 on the phones after the opening: median {statistics.median(seen):.1f} s, "
          f"last {seen[-1]:.1f} s ({len(seen)} phones)")
    print(f"answers sent from the opening: first {sent[0]:.1f} s, last {sent[-1]:.1f} s; "
          f"acknowledged (\"Sent:\") after a median {statistics.median(acked):.2f} s, at most {max(acked):.2f} s")
    print(f"teacher's screen shows all {args.students} answers: {clock['all_shown'] - opened_at:.1f} s after "
          f"the opening, {clock['all_shown'] - last_ack:.1f} s after the last answer was acknowledged")
    print(f"answers stored: {stored}; students' polls served: {sum(s.polls for s in crowd)}; "
          f"server CPU over the run: {cpu:.1f} s")
    return 0 if stored == args.students else 1


if __name__ == "__main__":
    sys.exit(main())
