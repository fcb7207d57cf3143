#!/usr/bin/env python3
"""Twenty assessors judging at once on one server: every judgment stored, and how long each waits for the next
document.

    .venv/bin/python benchmarks/judging_load.py [--assessors 20] [--judgments 20] [--think 1.0] [--seed 7]

Loopback only. A server (``tests.processes.serve_dashboard``) starts on a temporary workspace holding one
collection (40 topics, two runs of 30 documents each, their texts) and one judging task (depth 30, every
assessor named, a tenth of the documents given to two), in a process group of its own, stopped (with
everything it started) at the end.

Each assessor is a light client speaking Streamlit's own protocol over the WebSocket a browser uses (as the
class benchmark's phones do, :mod:`class_load`): it opens ``/judge?task=ID``, types its name in the sidebar's
field, and then, ``--judgments`` times, waits a seeded think time (uniform in 0..``--think`` seconds) and
presses the grade button of the document shown (its key's button: the page's fragment reruns alone), timing
from the press until the next document's caption arrives (the server's part of "the next document on screen";
a browser adds its drawing). Twenty Chromium pages would take the 2-core machine's CPU from the server measured.

Printed: judgments sent and stored (graded rows of the task in the store, read afterwards), the median, 95th
percentile and largest time from a grade to the next document, the judgments per second over the run, and
the server's CPU seconds (its session and the children it waited for, from ``/proc``) over the judging.
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
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from dashboard_load import group_cpu_seconds  # noqa: E402  (CPU seconds of a server and its children)

from tests import processes  # noqa: E402  (servers in a process group of their own, stopped as a group)

TOPICS, DEPTH = 40, 30
NAME_FIELD = "Your name (for notes and saved collections)"
CAPTION = "Words of the topic are marked."


def _task(folder: str, assessors: list[str]) -> str:
    from workspace import open_workspace
    from workspace.judging import Judging

    rng = random.Random(3)
    qrels, runs, docs, topics = [], {"a": [], "b": []}, [], []
    for t in range(1, TOPICS + 1):
        topics.append(f"{t}\tthe wings of topic {t}\n")
        pool = [f"t{t}d{i}" for i in range(50)]
        qrels.append(f"{t} 0 {pool[0]} 1\n")
        docs += [f"{d}\ttitle {d}\tthe text of {d}, about wings and their lift\n" for d in pool]
        for system in runs:
            ranked = rng.sample(pool, DEPTH)
            runs[system] += [f"{t} Q0 {d} {r} {DEPTH - r} {system}\n" for r, d in enumerate(ranked, 1)]
    with open_workspace(folder) as ws:
        info = ws.add_collection("judged", qrels=("q.qrels", "".join(qrels).encode()),
                                 runs=[(f"{s}.run", "".join(lines).encode()) for s, lines in runs.items()],
                                 topics=("topics.tsv", "".join(topics).encode()),
                                 documents=("docs.tsv", "".join(docs).encode()), author="bench")
        return Judging(ws).start(info.id, method="depth", assessors=assessors, overlap=0.1 if len(assessors) > 1 else 0.0, depth=DEPTH,
                                 author="bench").id


class Assessor:
    """One assessor's page, as the Streamlit protocol sees it."""

    def __init__(self, base: str, tid: str, name: str, think: list[float]) -> None:
        self.url = base.replace("http://", "ws://") + "/_stcore/stream"
        self.tid, self.name, self.think = tid, name, think
        self.page_hash = ""
        self.values: dict[str, tuple[str, object]] = {}  # widget id -> (field, value): sent with every rerun
        self.fields: dict[str, str] = {}  # text input label -> widget id
        self.grades: dict[str, tuple[str, str]] = {}  # grade -> (button id, fragment id)
        self.shown: str | None = None  # the document on the page
        self.waits: list[float] = []
        self.sent = 0
        self.problems: list[str] = []

    async def _rerun(self, ws, *, fragment: str = "", states=()) -> None:
        from streamlit.proto.BackMsg_pb2 import BackMsg

        msg = BackMsg()
        state = msg.rerun_script
        state.query_string = f"task={self.tid}"
        state.page_script_hash = self.page_hash
        if not self.page_hash:
            state.page_name = "judge"
        state.fragment_id = fragment
        for widget_id, field, value in [*((i, f, v) for i, (f, v) in self.values.items()), *states]:
            w = state.widget_states.widgets.add()
            w.id = widget_id
            setattr(w, field, value)
        await ws.send(msg.SerializeToString())

    async def _until_finished(self, ws, deadline: float) -> None:
        """Read the run's messages until it has finished (a rerun it asked for included)."""
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        while True:
            raw = await asyncio.wait_for(ws.recv(), timeout=max(deadline - time.monotonic(), 0.01))
            msg = ForwardMsg()
            msg.ParseFromString(raw)
            kind = msg.WhichOneof("type")
            if kind == "navigation" and msg.navigation.page_script_hash:
                self.page_hash = msg.navigation.page_script_hash
            elif kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
                self._element(msg.delta.new_element, msg.delta.fragment_id)
            elif kind == "script_finished":
                if ForwardMsg.ScriptFinishedStatus.Name(msg.script_finished) != "FINISHED_EARLY_FOR_RERUN":
                    return

    def _element(self, element, fragment: str) -> None:
        kind = element.WhichOneof("type")
        if kind == "text_input":
            self.fields[element.text_input.label] = element.text_input.id
        elif kind == "button" and "judge_grade_" in element.button.id:
            self.grades[element.button.id.rsplit("judge_grade_", 1)[1]] = (element.button.id, fragment)
        elif kind == "markdown" and CAPTION in element.markdown.body:
            self.shown = element.markdown.body.split()[1].rstrip(".")
        elif kind == "alert" and element.alert.format == 1:
            self.problems.append(element.alert.body[:120])
        elif kind == "exception":
            self.problems.append(f"{element.exception.type}: {element.exception.message[:120]}")

    async def run(self, timeout: float) -> None:
        import websockets

        deadline = time.monotonic() + timeout
        async with websockets.connect(self.url, subprotocols=["streamlit"], max_size=None, ping_interval=None,
                                      open_timeout=120) as ws:
            await self._rerun(ws)
            await self._until_finished(ws, deadline)
            self.values[self.fields[NAME_FIELD]] = ("string_value", self.name)  # the name typed, then kept
            await self._rerun(ws)
            await self._until_finished(ws, deadline)
            for think in self.think:
                if self.shown is None or self.problems:
                    return
                await asyncio.sleep(think)
                before, grade = self.shown, str(int(self.shown.rsplit("d", 1)[1]) % 2)
                button, fragment = self.grades[grade]
                self.shown = None
                start = time.monotonic()
                await self._rerun(ws, fragment=fragment, states=[(button, "trigger_value", True)])
                self.sent += 1
                await self._until_finished(ws, deadline)
                if self.shown is not None:
                    if self.shown == before:
                        self.problems.append(f"{before} shown again after its grade")
                    self.waits.append(time.monotonic() - start)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--assessors", type=int, default=20)
    parser.add_argument("--judgments", type=int, default=20, help="judgments each assessor makes")
    parser.add_argument("--think", type=float, default=1.0, help="seconds an assessor reads, at most (uniform)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds before the benchmark gives up")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    names = [f"assessor{i:02d}@example.org" for i in range(args.assessors)]
    folder = tempfile.mkdtemp(prefix="rankscope-judging-")
    tid = _task(folder, names)
    port = processes.free_port()
    server = processes.serve_dashboard(port, env={**os.environ, "RANKSCOPE_WORKSPACE": folder})
    base = f"http://127.0.0.1:{port}"
    crowd = [Assessor(base, tid, n, [rng.uniform(0, args.think) for _ in range(args.judgments)]) for n in names]
    try:
        cpu_before, started = group_cpu_seconds(server.pid), time.monotonic()

        async def everyone() -> None:
            await asyncio.gather(*(a.run(args.timeout) for a in crowd))

        asyncio.run(everyone())
        elapsed, cpu = time.monotonic() - started, group_cpu_seconds(server.pid) - cpu_before
    finally:
        processes.stop(server)
    from workspace import open_workspace
    from workspace.judging import Judging

    with open_workspace(folder) as ws:
        rows = Judging(ws).judgments(tid)
    shutil.rmtree(folder, ignore_errors=True)
    stored, sent = int(rows["grade"].notna().sum()), sum(a.sent for a in crowd)
    waits = sorted(w for a in crowd for w in a.waits)
    problems = [f"{a.name}: {p}" for a in crowd for p in a.problems]
    print(f"assessors: {args.assessors}, judgments each: {args.judgments}, think time: 0-{args.think:g} s")
    print(f"judgments sent: {sent}, stored: {stored} (rows judged twice by one assessor: "
          f"{int(rows.duplicated(['topic', 'docid', 'assessor']).sum())})")
    if waits:
        p95 = waits[min(len(waits) - 1, int(0.95 * len(waits)))]
        print(f"from a grade to the next document: median {statistics.median(waits):.3f} s, p95 {p95:.3f} s, "
              f"largest {waits[-1]:.3f} s ({len(waits)} timed)")
    print(f"{sent / elapsed:.1f} judgments a second over {elapsed:.1f} s; server CPU over the run: {cpu:.1f} s")
    for problem in problems[:10]:
        print("problem:", problem)
    return 0 if stored == sent == args.assessors * args.judgments and not problems else 1


if __name__ == "__main__":
    sys.exit(main())
