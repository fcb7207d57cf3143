#!/usr/bin/env python3
"""``rankscope compare`` over very many tiny runs: does its memory stay bounded?

    .venv/bin/python benchmarks/compare_many_runs.py [--runs 100000] [--every 60]

Writes ``--runs`` runs of fifteen lines (three topics, five documents each) into a temporary folder, then runs
``rankscope compare QRELS FOLDER`` twice: every pair (refused before any run is read: the count of pairs alone
is past the bound) and each run against the first (``--baseline``, ``--format csv``). For each it prints the
exit status, the wall time and the peak resident memory of the command; while the second runs, its resident
memory every ``--every`` seconds.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def write(folder: Path, runs: int) -> Path:
    """The qrels and ``runs`` runs in ``folder``; returns the qrels' path."""
    rnd = random.Random(0)
    qrels = folder / "q.qrels"
    qrels.write_text("".join(f"{t} 0 d{d} {(t + d) % 3}\n" for t in range(1, 4) for d in range(10)))
    (folder / "runs").mkdir()
    for i in range(runs):
        (folder / "runs" / f"r{i:06d}.run").write_text(
            "".join(f"{t} Q0 d{d} {d + 1} {rnd.random():.4f} r{i}\n" for t in range(1, 4) for d in range(5)))
    return qrels


def rss_mb(pid: int) -> float:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0.0
    return next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")), 0) / 1024


def measure(argv: list[str], every: float) -> None:
    probe = ("import resource, subprocess, sys\n"
             "done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)\n"
             "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024, flush=True)\n"
             "sys.stdout.write(done.stderr.splitlines()[0] if done.stderr else '')\n")
    start = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-c", probe, *argv], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    while proc.poll() is None:
        try:
            proc.wait(every)
        except subprocess.TimeoutExpired:
            children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
            print(f"  {time.monotonic() - start:6.0f} s: {sum(rss_mb(int(c)) for c in children):7.0f} MB", flush=True)
    head, _, first = proc.stdout.read().partition("\n")
    status, peak = head.split()
    print(f"exit {status}, {time.monotonic() - start:.0f} s, peak {peak} MB; {first[:200]}", flush=True)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=100_000)
    p.add_argument("--every", type=float, default=60.0, help="seconds between two memory readings")
    args = p.parse_args(argv)
    rankscope = [sys.executable, "-m", "rankscope", "compare"]
    with tempfile.TemporaryDirectory() as tmp:
        qrels = write(Path(tmp), args.runs)
        print(f"{args.runs:,} runs of 15 lines", flush=True)
        print("every pair:", flush=True)
        measure([*rankscope, str(qrels), str(Path(tmp) / "runs"), "--format", "csv"], args.every)
        print("each against r000000:", flush=True)
        measure([*rankscope, str(qrels), str(Path(tmp) / "runs"), "--baseline", "r000000", "--format", "csv"],
                args.every)
    return 0


if __name__ == "__main__":
    sys.exit(main())
