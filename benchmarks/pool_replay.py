#!/usr/bin/env python3
"""Replay judging on Cranfield (225 topics) and NPL (93 topics) with eight real runs: how many judgments each
method needs until Kendall's tau of the runs' order reaches 0.9, and until every pair is decided at 95%.

    .venv/bin/python benchmarks/pool_replay.py [--collections cranfield,npl] [--methods depth,...] [--depth 100]
                                               [--priors 0.5,0.1,0.05,0.01] [--json PATH]

The runs are made by ``tests/pool_runs.py`` from the documents and queries in ``../shared/data`` (eight rankers:
BM25 twice, tf-idf, word overlap, idf, BM25 on titles, Dirichlet and Jelinek-Mercer query likelihood), the top
100 per topic; the complete judgments are the collections' own. Each method starts from no judgment and asks
for one document at a time (``rankscope pool --simulate``, :func:`metrics.judgments.simulation.simulate`), a
check every one judgment per topic; AP is the measure, the decision model's prior its default.

``--priors`` then replays the depth-k order again under each prior of the decision model: how many judgments
until every pair is decided, and how many of those decisions contradict the complete judgments.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from metrics.io import read_qrels, read_run  # noqa: E402
from metrics.judgments.pooling import METHODS  # noqa: E402
from metrics.judgments.simulation import simulate  # noqa: E402
from tests import pool_runs  # noqa: E402


def number(x) -> str:
    return "-" if x != x else f"{int(x):,}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--collections", default="cranfield,npl")
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--priors", default="0.5,0.1,0.05,0.01")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    results = {}
    for name in args.collections.split(","):
        if not pool_runs.available(name):
            print(f"{name}: not found at {pool_runs.COLLECTIONS[name]}")
            continue
        runs = [read_run(text, name=ranker) for ranker, text in pool_runs.runs(name).items()]
        complete = read_qrels(pool_runs.collection(name)[3], name=name)
        started = time.perf_counter()
        found = simulate(runs, complete, methods=args.methods.split(","), depth=args.depth)
        took = time.perf_counter() - started
        print(f"\n{name}: {len(runs)} runs ({found.pairs} pairs), {found.pool:,} documents to judge, "
              f"{found.relevant:,} relevant; a check every {found.step} judgments; {took:.0f} s")
        print("| method | judgments to tau >= 0.9 | to every pair decided (95%) | wrong decisions then |")
        print("|---|---:|---:|---:|")
        for r in found.summary.itertuples(index=False):
            print(f"| {r.method} | {number(r.to_tau)} | {number(r.to_decided)} | {number(r.wrong)} |")
        sweep = []
        for prior in [float(p) for p in args.priors.split(",") if p]:
            row = simulate(runs, complete, methods=["depth"], depth=args.depth, prior=prior).summary.iloc[0]
            sweep.append({"prior": prior, "to_decided": row.to_decided, "wrong": row.wrong})
        if sweep:
            print(f"\n{name}, the depth-k order under each prior: | prior | judgments to every pair decided | "
                  f"wrong decisions then |")
            for s in sweep:
                print(f"| {s['prior']:g} | {number(s['to_decided'])} | {number(s['wrong'])} |")
        results[name] = {"pool": found.pool, "relevant": found.relevant, "pairs": found.pairs, "step": found.step,
                         "seconds": took, "summary": found.summary.to_dict("records"),
                         "checks": found.checks.to_dict("records"), "priors": sweep}
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1, default=float))


if __name__ == "__main__":
    main()
