"""``rankscope repro``: how closely reproduced runs match the original ones (Breuer et al., SIGIR 2020)."""

from __future__ import annotations

import argparse
import json
import math
import sys

from rankscope.commands import add_convention_flags, conventions_of, json_records, text_table

__all__ = ["register", "run"]

DEFAULT_MEASURES = ("AP", "nDCG@10", "P@10")
FORMATS = ("table", "json")


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "repro", help="reproducibility and replicability measures of a baseline and an advanced run",
        description="Compare an original baseline and advanced run with their reproductions: per topic "
                    "Kendall's tau union and rank-biased overlap of the rankings, RMSE of the per-topic "
                    "scores, the effect ratio (ER) and delta relative improvement (DeltaRI), and the paired "
                    "t-test of each run's scores. With --replicability the reproduced runs are on another "
                    "collection: ER, DeltaRI and the unpaired t-test.")
    p.error = lambda message: p.exit(2, f"rankscope repro: {message}\n")
    p.add_argument("qrels", help="the original collection's qrels")
    for flag, what in (("--orig-b", "original baseline"), ("--orig-a", "original advanced"),
                       ("--rep-b", "reproduced baseline"), ("--rep-a", "reproduced advanced")):
        p.add_argument(flag, required=True, metavar="RUN", help=f"the {what} run")
    p.add_argument("-m", dest="measures", action="append", metavar="MEASURE",
                   help="measure(s); repeatable; default AP, nDCG@10 and P@10")
    p.add_argument("--replicability", metavar="QRELS2", default=None,
                   help="the qrels of the other collection the reproduced runs were made on")
    p.add_argument("--rbo-p", dest="rbo_p", type=float, default=0.95, metavar="P",
                   help="persistence of rank-biased overlap; default 0.95")
    p.add_argument("--depth", dest="repro_depth", type=int, default=1000, metavar="K",
                   help="documents compared per topic (tau union and RBO); default 1000")
    p.add_argument("--format", choices=FORMATS, default="table", metavar="FORMAT", help="table (default) or json")
    add_convention_flags(p)
    p.set_defaults(func=run)


def _number(value: float, spec: str) -> str:
    return "-" if not math.isfinite(value) else format(value, spec)


def run(args: argparse.Namespace) -> int:
    from metrics.stats.reproducibility import reproduce

    result = reproduce(args.qrels, args.orig_b, args.orig_a, args.rep_b, args.rep_a,
                       list(args.measures or DEFAULT_MEASURES), replication_qrels=args.replicability,
                       p=args.rbo_p, depth=args.repro_depth, conventions=conventions_of(args))
    out = sys.stdout
    if args.format == "json":
        document = {"kind": result.kind, "rbo_p": result.p, "depth": result.depth,
                    "effects": json_records(result.effects), "scores": json_records(result.scores),
                    "order": json_records(result.order)}
        json.dump(document, out, indent=1, allow_nan=False)
        out.write("\n")
        return 0
    paired = result.kind == "reproducibility"
    test = "paired" if paired else "unpaired"
    out.write(f"{result.kind}: ER = 1 and DeltaRI = 0 when the improvement is reproduced; p of the {test} "
              f"t-test between original and reproduced scores (large p: no evidence of a difference)\n")
    head = ["measure", "ER", "DeltaRI"] + (["RMSE base", "RMSE adv"] if paired else []) + ["p base", "p adv"]
    rows = [head]
    scores = result.scores.set_index(["run", "measure"])
    for r in result.effects.itertuples(index=False):
        cells = [str(r.measure), _number(r.er, ".4f"), _number(r.delta_ri, "+.4f")]
        if paired:
            cells += [_number(scores.loc[(run, r.measure), "rmse"], ".4f") for run in ("baseline", "advanced")]
        cells += [_number(scores.loc[(run, r.measure), "p_value"], ".4g") for run in ("baseline", "advanced")]
        rows.append(cells)
    out.write(text_table(rows, {0}))
    if paired:
        means = result.order.groupby("run", sort=False)[["ktu", "rbo"]].mean()
        rows = [["run", "topics", "mean KTU", f"mean RBO (p={result.p:g})"]]
        for run in ("baseline", "advanced"):
            topics = int((result.order["run"] == run).sum())
            ktu = means.loc[run, "ktu"] if run in means.index else float("nan")
            rbo = means.loc[run, "rbo"] if run in means.index else float("nan")
            rows.append([run, str(topics), _number(ktu, ".4f"), _number(rbo, ".4f")])
        out.write("\norder of documents, original against reproduced (mean over topics):\n" + text_table(rows, {0}))
    return 0
