#!/usr/bin/env python3
"""Reading grows linearly with the input: a run and a qrels file of 10^5, 10^6 and 10^7 lines.

    .venv/bin/python benchmarks/read_scaling.py [--sizes 100000 1000000 10000000]

Each size is read in a fresh process (``metrics.read_run`` / ``metrics.read_qrels`` from a path, as the CLI
reads), which reports its wall time, CPU time and peak resident memory (``ru_maxrss``) beyond what the
process held after its imports. Prints one row per file and size, with seconds and megabytes per MB of input.
The files go to a temporary folder that is removed at the end.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

PROBE = """
import json, resource, sys, time
import metrics
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
reader = getattr(metrics, sys.argv[1])
wall, cpu = time.perf_counter(), time.process_time()
table = reader(sys.argv[2])
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"rows": len(table), "wall": wall, "cpu": cpu, "extra_mb": (peak - base) / 1024}))
"""


def write(path: Path, lines: int, kind: str) -> None:
    """``lines`` lines of 1,000 documents per topic (runs) or 100 judgments per topic (qrels)."""
    per = 1000 if kind == "run" else 100
    with path.open("w") as out:
        block = 100_000
        for start in range(0, lines, block):
            rows = range(start, min(start + block, lines))
            if kind == "run":
                out.write("".join(f"{i // per} Q0 d{i % per * 7919 % 100003} {i % per + 1} {1000 - i % per * 0.37:.4f} r\n"
                                  for i in rows))
            else:
                out.write("".join(f"{i // per} 0 d{i % per * 7919 % 100003} {i % 3}\n" for i in rows))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000, 10_000_000])
    args = p.parse_args(argv)
    print(f"{'file':<6} {'lines':>10} {'MB':>8} {'wall s':>8} {'cpu s':>8} {'s/MB':>7} {'extra MB':>9} {'MB/MB':>6}")
    with tempfile.TemporaryDirectory() as folder:
        for kind, reader in (("run", "read_run"), ("qrels", "read_qrels")):
            for lines in args.sizes:
                path = Path(folder) / f"{kind}-{lines}.txt"
                write(path, lines, kind)
                size = path.stat().st_size / 2**20
                done = subprocess.run([sys.executable, "-c", PROBE, reader, str(path)], capture_output=True,
                                      text=True, check=True)
                r = json.loads(done.stdout)
                print(f"{kind:<6} {lines:>10,} {size:>8.1f} {r['wall']:>8.3f} {r['cpu']:>8.3f} "
                      f"{r['wall'] / size:>7.4f} {r['extra_mb']:>9.1f} {r['extra_mb'] / size:>6.2f}", flush=True)
                path.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
