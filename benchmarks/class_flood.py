#!/usr/bin/env python3
"""A live class flooded from one address: what each new student session costs the server, and what the teacher sees.

    .venv/bin/python benchmarks/class_load.py --flood 300 [--timeout 600]
    RANKSCOPE_CLASS_JOINS=1000000 RANKSCOPE_CLASS_ANSWERS=1000000 .venv/bin/python benchmarks/class_load.py --flood 300

Loopback only: every session comes from this machine's one address, as a flood from one machine would. A server
on a temporary workspace holding a saved lesson starts in a process group of its own; the teacher (Chromium,
:func:`class_load._teacher`'s way) starts the class and opens question 1 at once; then ``N`` new sessions (the
light protocol clients of ``class_load.py``, :data:`AT_ONCE` at a time) each open the class's link and answer
once, closing when their answer is acknowledged or their page says it was refused. The second command lifts
the bounds (the server's settings), which is what the server did before it had them.

Printed: the sessions admitted and refused, the server's CPU seconds over the flood (its process group, from
``/proc``) and per new session, the teacher's count of answers and the line it shows about refusals, and the
answers stored.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from class_load import ARGS, CHROMIUM, ROOT, Student, _cpu_seconds, _lesson, start_class  # noqa: E402

sys.path.insert(0, str(ROOT))
from tests import processes  # noqa: E402

AT_ONCE = 25  # sessions connected at the same time
REFUSED = "Too many new sessions"


class Flooder(Student):
    """A new session that answers once and closes: acknowledged, or refused in one line."""

    refused = False
    exception = False  # the page showed an exception (a traceback)

    def finished(self) -> bool:
        return self.refused or self.exception or self.acknowledged is not None

    def _element(self, element, fragment: str) -> None:
        super()._element(element, fragment)
        kind = element.WhichOneof("type")
        if kind == "alert" and element.alert.body.startswith(REFUSED):
            self.refused = True
        self.exception = self.exception or kind == "exception"


def send(base: str, code: str, sessions: int, timeout: float, source: str | None = None) -> list[Flooder]:
    """``sessions`` new sessions (from ``source``, another loopback address, when given), :data:`AT_ONCE` at a
    time, each answering question 1 of class ``code`` (open already) once; returned when each has finished."""
    opened = threading.Event()
    opened.set()
    clock = {"opened": time.monotonic()}
    crowd = [Flooder(base, code, 0.0, opened, clock) for _ in range(sessions)]
    for student in crowd:
        student.source = source

    async def everyone() -> None:
        gate = asyncio.Semaphore(AT_ONCE)
        deadline = time.monotonic() + timeout

        async def one(student: Flooder) -> None:
            async with gate:
                await student.run(deadline)

        await asyncio.gather(*(one(s) for s in crowd))

    asyncio.run(everyone())
    return crowd


def _teacher(base: str, ready: threading.Event, done: threading.Event, clock: dict, timeout: float) -> None:
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page, clock["code"] = start_class(browser, base, timeout)
        page.get_by_role("button", name="Open question 1").click()
        expect(page.get_by_role("button", name="Reveal the answer")).to_be_visible()
        clock["opened"] = time.monotonic()
        ready.set()
        done.wait(timeout)
        page.wait_for_timeout(3000)  # the count is drawn again every second
        clock["count"] = page.locator('[data-testid="stMetricValue"]').first.inner_text().strip()
        warning = page.locator('[data-testid="stAlertContentWarning"]')
        clock["warning"] = warning.first.inner_text().strip().splitlines()[-1] if warning.count() else "(none)"
        browser.close()


def flood(sessions: int, timeout: float) -> int:
    folder = tempfile.mkdtemp(prefix="rankscope-flood-")
    _lesson(folder)
    port = processes.free_port()
    server = processes.serve_dashboard(port, env={**os.environ, "RANKSCOPE_WORKSPACE": folder})
    base = f"http://127.0.0.1:{port}"
    ready, done = threading.Event(), threading.Event()
    clock: dict = {}
    teacher = threading.Thread(target=_teacher, args=(base, ready, done, clock, timeout), daemon=True)
    try:
        teacher.start()
        if not ready.wait(timeout):
            raise SystemExit("the teacher's page did not open question 1")
        cpu_before, started = _cpu_seconds(server.pid), time.monotonic()
        crowd = send(base, clock["code"], sessions, timeout)
        cpu, seconds = _cpu_seconds(server.pid) - cpu_before, time.monotonic() - started
        done.set()
        teacher.join(timeout)
    finally:
        done.set()
        processes.stop(server)
    from workspace import open_workspace
    from workspace.classroom import Classroom

    with open_workspace(folder) as ws:
        stored = Classroom(ws).count(clock["code"], 0)
    shutil.rmtree(folder, ignore_errors=True)
    admitted = sum(s.acknowledged is not None for s in crowd)
    refused = sum(s.refused for s in crowd)
    print(f"{sessions} new sessions from one address in {seconds:.1f} s: {admitted} answered, {refused} refused, "
          f"{sessions - admitted - refused} neither")
    print(f"server CPU over the flood: {cpu:.1f} s, {cpu / sessions:.3f} s per new session")
    print(f"teacher's count: {clock.get('count')}; answers stored: {stored}; the teacher's line: "
          f"{clock.get('warning')}")
    return 0 if str(stored) == clock.get("count") and admitted == stored else 1


if __name__ == "__main__":
    sys.exit(flood(int(sys.argv[1]) if len(sys.argv) > 1 else 300, 600.0))
