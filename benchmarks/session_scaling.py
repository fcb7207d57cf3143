#!/usr/bin/env python3
"""Time reading a session file as it grows tenfold twice: reading must cost the same per megabyte.

    .venv/bin/python benchmarks/session_scaling.py [--sizes 1000,10000,100000] [--repeat 3]

Each file is a valid session file (``dashboard.exports.session_to_json``) with one review note per topic:
a tag and a short comment each, so 100,000 noted topics make a file of about 7 MB, under the 8 MiB
limit of a session file. Every row is the best of ``--repeat`` calls of ``session_from_json`` on the same
bytes, in CPU time (``time.process_time``), after one untimed warm-up call. The last column, seconds per
MB, stays flat when reading is linear; the documented limit (docs/reference/limits.md) is about 1 s per MB.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dashboard.exports import session_from_json, session_to_json  # noqa: E402


def session_file(topics: int) -> bytes:
    """A valid session file noting ``topics`` topics."""
    notes = {str(100_000 + i): {"tags": [f"pool-{i % 7}"], "comment": "judge again"} for i in range(topics)}
    return session_to_json({"bm25": "bm25.run", "dense": "dense.run"}, None, notes,
                           {"page": "overview", "measures": ["AP", "nDCG@10"]}, qrels_name="qrels.txt")


def best_time(data: Any, repeat: int, read: Callable[[Any], Any] = session_from_json) -> float:
    """The least CPU time of ``repeat`` calls of ``read`` on ``data``, after one untimed call."""
    read(data)
    times = []
    for _ in range(repeat):
        start = time.process_time()
        read(data)
        times.append(time.process_time() - start)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000", help="noted topics per file, comma-separated")
    parser.add_argument("--repeat", type=int, default=3, help="calls per file; the best is shown")
    args = parser.parse_args(argv)
    print(f"{'topics':>8} {'bytes':>10} {'MB':>6} {'seconds':>8} {'s/MB':>6}")
    for topics in (int(n) for n in args.sizes.split(",")):
        data = session_file(topics)
        seconds = best_time(data, args.repeat)
        mb = len(data) / 1e6
        print(f"{topics:>8,} {len(data):>10,} {mb:>6.2f} {seconds:>8.3f} {seconds / mb:>6.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
