"""Run a small ``rankscope eval`` many times, a few processes at a time, and require exit status 0 from each.

A process that aborts at exit (e.g. a native thread still running while the interpreter shuts down, which
ends in "terminate called without an active exception" and status 134) shows up here as a failed run,
however rare. Needs only the standard library:

    python3 benchmarks/stress_eval.py                    # 500 runs, 2 at a time, with .venv/bin/rankscope
    python3 benchmarks/stress_eval.py --runs 2000 --parallel 4 --rankscope /path/to/rankscope

It prints one line: runs, failures (with their exit statuses), wall time; exit status 1 if any run failed.
"""

from __future__ import annotations

import argparse
import collections
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
QRELS = "5 0 a 1\n5 0 b 1\n5 0 c 0\n"
RUN = "5 Q0 c 1 3 t\n5 Q0 a 2 3 t\n5 Q0 b 3 3 t\n"
FLAGS = ["-l", "2", "-M", "3", "-J", "-c"]


def stress(rankscope: str, runs: int, parallel: int) -> tuple[int, collections.Counter, float, str]:
    """Run ``rankscope eval`` ``runs`` times, ``parallel`` at once; the failures' statuses and the wall time."""
    with tempfile.TemporaryDirectory() as folder:
        qrels, run = Path(folder) / "qrels.txt", Path(folder) / "run.txt"
        qrels.write_text(QRELS)
        run.write_text(RUN)
        command = [rankscope, "eval", *FLAGS, str(qrels), str(run)]
        expected = subprocess.run(command, capture_output=True, text=True).stdout

        def once(_: int) -> tuple[int, str, str]:
            done = subprocess.run(command, capture_output=True, text=True)
            return done.returncode, done.stdout, done.stderr

        start = time.perf_counter()
        with ThreadPoolExecutor(parallel) as pool:
            results = list(pool.map(once, range(runs)))
        wall = time.perf_counter() - start
    failures = collections.Counter(code for code, out, _ in results if code != 0 or out != expected)
    example = next((err.strip().splitlines()[-1] for code, out, err in results
                    if (code != 0 or out != expected) and err.strip()), "")
    return runs, failures, wall, example


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=500, help="number of runs (default 500)")
    parser.add_argument("--parallel", type=int, default=2, help="runs at a time (default 2)")
    parser.add_argument("--rankscope", default=str(ROOT / ".venv" / "bin" / "rankscope"),
                        help="the rankscope program (default .venv/bin/rankscope)")
    args = parser.parse_args(argv)
    runs, failures, wall, example = stress(args.rankscope, args.runs, args.parallel)
    failed = sum(failures.values())
    statuses = ", ".join(f"status {code}: {n}" for code, n in sorted(failures.items()))
    print(f"{runs} runs, {args.parallel} at a time: {failed} failed{f' ({statuses})' if failed else ''}; "
          f"wall time {wall:.1f} s ({wall / runs * args.parallel * 1000:.0f} ms per run)"
          + (f"; last error line: {example}" if example else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
