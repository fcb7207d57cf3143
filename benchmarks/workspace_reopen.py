#!/usr/bin/env python3
"""Reopening a stored collection: parsing two large runs once, then reading them back from the parse cache.

    .venv/bin/python benchmarks/workspace_reopen.py [--topics 6980]

Builds two runs shaped like the ``sparse`` workload of ``generate.py`` (6,980 topics x 1,000 documents, about
7 million lines each; two seeds), stores them in a new SQLite workspace in a temporary folder (parsed once
there, the parse cached as an Arrow IPC file beside the bytes), then, from a freshly opened workspace, times
``Workspace.parsed_run`` (memory-maps the cache) against ``metrics.io.read_run`` on the same bytes (a first
parse), checks that both give equal tables, and prints one row per run. For comparison it also times a
first light pass over the reopened table (summing lengths and scores, which pages it in) and reading the
same table from Parquet (zstd), the format first considered for the cache. ``--topics`` scales the runs
down.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from generate import WORKLOADS, build, write_space_separated  # noqa: E402

from metrics.io import read_run  # noqa: E402
from workspace import open_workspace  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--topics", type=int, default=WORKLOADS["sparse"].n_topics,
                   help="topics per run, 1,000 lines each (default 6980: about 7 million lines)")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="rankscope-reopen-") as folder:
        folder = Path(folder)
        files = []
        for i, tag in enumerate(("bm25", "dense")):
            w = dataclasses.replace(WORKLOADS["sparse"], seed=WORKLOADS["sparse"].seed + i, n_topics=args.topics,
                                    tag=tag)
            qrels, run, _ = build(w)
            write_space_separated(run, folder / f"{tag}.run")
            if i == 0:
                write_space_separated(qrels, folder / "qrels.txt")
            files.append(folder / f"{tag}.run")
        data = [(path.name, path.read_bytes()) for path in files]
        t0 = time.perf_counter()
        with open_workspace(folder / "ws") as ws:
            info = ws.add_collection("reopen", qrels=("qrels.txt", (folder / "qrels.txt").read_bytes()), runs=data,
                                     author="benchmark")
        stored_s = time.perf_counter() - t0
        rows = []
        with open_workspace(folder / "ws") as ws:
            for stored, (name, raw) in zip(ws.load(info.id).runs, data):
                t0 = time.perf_counter()
                parsed = read_run(raw, name=stored.system)
                parse_s = time.perf_counter() - t0
                t0 = time.perf_counter()
                cached = ws.parsed_run(stored.sha256)
                reopen_s = time.perf_counter() - t0
                t0 = time.perf_counter()
                for column in ("query", "docid"):  # touch every page: the lengths and the bytes' offsets
                    pc.sum(pc.binary_length(cached.table[column]))
                pc.sum(cached.table["score"]), pc.sum(cached.table["rank"])
                scan_s = reopen_s + time.perf_counter() - t0
                if not cached.table.equals(parsed.table, check_metadata=False):
                    raise SystemExit(f"{name}: the cached run differs from the parsed one")
                arrow = folder / "ws" / "files" / stored.sha256[:2] / f"{stored.sha256}.arrow"
                parquet = folder / f"{stored.system}.parquet"
                pq.write_table(parsed.table, parquet, compression="zstd")
                t0 = time.perf_counter()
                pq.read_table(pa.BufferReader(parquet.read_bytes()))
                parquet_s = time.perf_counter() - t0
                rows.append((stored.system, len(parsed), len(raw) / 1e6, arrow.stat().st_size / 1e6, parse_s,
                             reopen_s, scan_s, parquet.stat().st_size / 1e6, parquet_s))
    print(f"stored 2 runs + qrels (parse, bytes, cache, commit): {stored_s:.1f} s")
    print(f"{'run':<8}{'lines':>11}{'text MB':>9}{'arrow MB':>10}{'parse s':>9}{'reopen s':>10}"
          f"{'+scan s':>9}{'parquet MB':>12}{'parquet s':>11}")
    for system, lines, mb, arrow_mb, parse_s, reopen_s, scan_s, pq_mb, parquet_s in rows:
        print(f"{system:<8}{lines:>11,}{mb:>9.1f}{arrow_mb:>10.1f}{parse_s:>9.2f}{reopen_s:>10.3f}{scan_s:>9.2f}"
              f"{pq_mb:>12.1f}{parquet_s:>11.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
