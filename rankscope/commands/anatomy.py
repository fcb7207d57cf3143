"""``rankscope anatomy``: one query of one run, rank by rank, with the running value of every measure."""

from __future__ import annotations

import argparse
import json
import math
import sys

import numpy as np
import pandas as pd

from metrics.gains import BASE, DISCOUNTS, GAINS, TREC_EVAL, describe
from rankscope.commands import add_convention_flags, rank

__all__ = ["register", "run", "write_frame"]

def register(subparsers) -> None:
    p = subparsers.add_parser(
        "anatomy", help="one query of one run, rank by rank",
        description="Show one query of one run rank by rank: grade, precision, recall, F1, AP, DCG, ideal DCG, "
                    "nDCG, RR and ERR of every prefix of the ranking. The last row holds the measures of the "
                    "whole ranking, as `rankscope eval` computes them, except ERR on graded qrels: its top "
                    "grade here is the query's highest (or --max-grade), in `rankscope eval` the highest "
                    "grade of the whole qrels.")
    p.add_argument("qrels", help="qrels file (qid iter docid rel), plain or gzip")
    p.add_argument("run", help="run file (qid Q0 docid rank score tag)")
    p.add_argument("--query", required=True, metavar="Q", help="the query id")
    p.add_argument("--gain", choices=list(GAINS), default=TREC_EVAL["gain"],
                   help=f"gain of grade g: {describe(GAINS)}")
    p.add_argument("--discount", choices=list(DISCOUNTS), default=TREC_EVAL["discount"],
                   help=f"divisor at rank i: {describe(DISCOUNTS)}")
    p.add_argument("--base", type=float, default=BASE, help="logarithm base of the jk discount (default 2)")
    p.add_argument("--max-grade", dest="max_grade", type=int, default=None, metavar="G",
                   help="top grade g_max of ERR's stop probabilities (default: the query's highest grade)")
    add_convention_flags(p)
    p.add_argument("--format", choices=("table", "csv", "json"), default="table",
                   help="output format (json: a list of row records)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from metrics.teaching.anatomy import anatomy

    (rankings,) = rank(args, [args.run])
    table = anatomy(rankings, args.query, gain=args.gain, discount=args.discount, base=args.base,
                    err_max_grade=args.max_grade)
    if args.format == "table":
        table = table.assign(grade=[("-" if np.isnan(g) else str(int(g))) for g in table["grade"]])
    write_frame(table, args.format, sys.stdout)
    return 0


def write_frame(frame: pd.DataFrame, fmt: str, out) -> None:
    """Write a table as CSV, as JSON (a list of row records; missing values as null) or as aligned text."""
    if fmt == "csv":
        frame.to_csv(out, index=False)
    elif fmt == "json":
        json.dump(records(frame), out, indent=1, allow_nan=False)
        out.write("\n")
    else:
        text = frame.to_string(index=False, na_rep="-", float_format=lambda v: f"{v:.4f}") if len(frame) \
            else "(no documents ranked)"
        out.write(text + "\n")


def records(frame: pd.DataFrame) -> list[dict]:
    """The rows as plain Python values, missing and non-finite numbers as None."""
    out = []
    for row in frame.astype(object).to_dict("records"):
        out.append({key: _plain(value) for key, value in row.items()})
    return out


def _plain(value):
    if value is None or value is pd.NA:
        return None
    if hasattr(value, "item"):  # numpy scalar
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
