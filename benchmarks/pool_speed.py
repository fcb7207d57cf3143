#!/usr/bin/env python3
"""Time what to judge next with 100 runs x 50 topics read to depth 100: the depth-k pool beside trectools',
and the decision between runs (the next document, a judgment, every pair's probability).

    .venv/bin/python benchmarks/pool_speed.py [--repeat 5] [--runs 100] [--topics 50] [--depth 100]

The runs are made here with a fixed seed and written as TREC files to a temporary folder: 5,000 documents
per topic, each run's scores a shared base plus its own noise (so that runs overlap as real ones do), the top
``--depth`` of each. Every row is the median of ``--repeat`` timed calls after an untimed warm-up, as wall
time and CPU time of this process (on a shared machine, read the CPU column).

Rows:

* read the runs: ``metrics.read_run`` of each file; trectools' ``TrecRun(path)`` of each file.
* depth-100 pool: ``make_pool(runs, method="depth", order="trectools")`` (ranking, the candidates, the pool's
  order and its statistics: size per topic, documents each run alone brings, Judged@10 before and after);
  trectools' ``TrecPoolMaker().make_pool(runs, strategy="topX", topX=100)`` on the runs it read. The two pools
  are checked to hold the same documents.
* the decision between runs (AP, every pair): ranking and setting it up (``gather`` + ``Decision``); the
  next document (``propose(1)``); a judgment and the next document after it; every pair's probability
  (``probabilities()``, AP's exact cross terms included, the first call).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from metrics.io import read_run  # noqa: E402
from metrics.judgments.candidates import gather  # noqa: E402
from metrics.judgments.decide import Decision  # noqa: E402
from metrics.judgments.pooling import make_pool  # noqa: E402

SEED = 20261129
DOCUMENTS = 5000


def write_runs(folder: Path, runs: int, topics: int, depth: int) -> list[Path]:
    rng = np.random.default_rng(SEED)
    base = rng.random((topics, DOCUMENTS))
    paths = []
    for s in range(runs):
        scores = base + 0.7 * rng.random((topics, DOCUMENTS))
        lines = []
        for t in range(topics):
            top = np.argsort(-scores[t], kind="stable")[:depth]
            lines += [f"{t + 1} Q0 D{d} {r} {scores[t, d]:.6f} s{s}" for r, d in enumerate(top, 1)]
        path = folder / f"s{s}.run"
        path.write_text("\n".join(lines) + "\n")
        paths.append(path)
    return paths


def timed(call, repeat: int, warm: bool = True):
    if warm:
        call()
    wall, cpu, result = [], [], None
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        result = call()
        wall.append(time.perf_counter() - w)
        cpu.append(time.process_time() - c)
    return statistics.median(wall), statistics.median(cpu), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--topics", type=int, default=50)
    parser.add_argument("--depth", type=int, default=100)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        paths = write_runs(Path(tmp), args.runs, args.topics, args.depth)
        wall, cpu, runs = timed(lambda: [read_run(p) for p in paths], args.repeat)
        rows.append(("read the runs", "rankscope", wall, cpu))
        try:
            from trectools import TrecPoolMaker, TrecRun
        except ImportError:
            TrecRun = None
        if TrecRun is not None:
            wall, cpu, theirs = timed(lambda: [TrecRun(str(p)) for p in paths], args.repeat)
            rows.append(("read the runs", "trectools", wall, cpu))
        wall, cpu, pool = timed(lambda: make_pool(runs, method="depth", depth=args.depth, order="trectools"),
                                args.repeat)
        rows.append((f"depth-{args.depth} pool", "rankscope", wall, cpu))
        if TrecRun is not None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                wall, cpu, found = timed(lambda: TrecPoolMaker().make_pool(theirs, strategy="topX", topX=args.depth),
                                         args.repeat)
            rows.append((f"depth-{args.depth} pool", "trectools", wall, cpu))
            ours = {}
            for topic, docid in zip(pool.documents["topic"], pool.documents["docid"]):
                ours.setdefault(topic, set()).add(docid)
            if ours != {str(t): set(d) for t, d in found.pool.items()}:
                raise SystemExit("the two depth-k pools differ")

        def setup():
            return Decision(gather(runs, None, depth=args.depth))

        wall, cpu, decision = timed(setup, args.repeat)
        rows.append(("decision: rank, set up (AP, every pair)", "rankscope", wall, cpu))
        wall, cpu, _ = timed(lambda: decision.propose(1), args.repeat)
        rows.append(("decision: the next document", "rankscope", wall, cpu))
        grades = iter(np.random.default_rng(SEED).integers(0, 2, size=10 * args.repeat + 10))

        def judge_next():
            index = decision.propose(1)[0]
            decision.judge_candidate(int(index[0]), int(next(grades)))
            return decision.propose(1)

        wall, cpu, _ = timed(judge_next, args.repeat)
        rows.append(("decision: a judgment, then the next document", "rankscope", wall, cpu))
        wall, cpu, table = timed(lambda: setup().probabilities(), 1, warm=False)
        rows.append((f"decision: every pair's probability ({len(table):,} pairs, first call)", "rankscope",
                     wall, cpu))
    pairs = args.runs * (args.runs - 1) // 2
    print(f"{args.runs} runs x {args.topics} topics, depth {args.depth} ({pairs:,} pairs); median of {args.repeat}; "
          f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    if TrecRun is None:
        print("trectools is not installed: its rows are left out (pip install trectools)")
    width = max(len(r[0]) for r in rows)
    print(f"{'':<{width}}  {'tool':<10} {'wall s':>8} {'CPU s':>8}")
    for what, tool, wall, cpu in rows:
        print(f"{what:<{width}}  {tool:<10} {wall:>8.3f} {cpu:>8.3f}")


if __name__ == "__main__":
    main()
