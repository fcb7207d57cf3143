#!/usr/bin/env python3
"""Reading PyTerrier's per-query table: ``perquery.csv`` of 10^5 and 10^6 rows.

    .venv/bin/python benchmarks/pyterrier_read.py [--rows 100000 1000000]

Writes, with a fixed numpy seed, a ``name,qid,measure,value`` table of 20 systems and five measures
(``nDCG@10, AP, P@5, RR, R@1000``) over as many topics as the size needs, and reads it in a fresh process
each time with :func:`metrics.io.pyterrier.read_pyterrier_per_query` (pandas' C reader, the columns checked
at once) and with the line reader it falls back on to name a bad line. Prints wall and CPU seconds per
reader and size. The files go to a temporary folder that is removed at the end.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

MEASURES = ("nDCG@10", "AP", "P@5", "RR", "R@1000")
SYSTEMS = 20
PROBE = """
import json, sys, time
from metrics.io.pyterrier import _per_query_exact, read_pyterrier_per_query
read = {"columns": read_pyterrier_per_query, "lines": lambda p: _per_query_exact(p, None, "error")}[sys.argv[1]]
wall, cpu = time.perf_counter(), time.process_time()
rows = len(read(sys.argv[2]).frame)
print(json.dumps({"rows": rows, "wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu}))
"""


def write(path: Path, rows: int) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    topics = max(1, rows // (SYSTEMS * len(MEASURES)))
    with path.open("w") as out:
        out.write("name,qid,measure,value\n")
        for s in range(SYSTEMS):
            values = rng.random((topics, len(MEASURES)))
            out.write("".join(f"sys{s},{q},{m},{values[q, i]:.6f}\n"
                              for q in range(topics) for i, m in enumerate(MEASURES)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[100_000, 1_000_000])
    args = parser.parse_args()
    print(f"{'rows':>9}  {'reader':<8} {'wall s':>7} {'cpu s':>7}")
    with tempfile.TemporaryDirectory() as folder:
        for rows in args.rows:
            path = Path(folder) / f"perquery-{rows}.csv"
            write(path, rows)
            for reader in ("columns", "lines"):
                done = subprocess.run([sys.executable, "-c", PROBE, reader, str(path)], capture_output=True,
                                      text=True, check=True)
                result = json.loads(done.stdout)
                print(f"{result['rows']:>9}  {reader:<8} {result['wall']:>7.2f} {result['cpu']:>7.2f}")


if __name__ == "__main__":
    main()
