"""``rankscope curves``: the points of a curve for one or more runs, per query and averaged, as CSV or JSON."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from metrics.conventions import INTERPOLATIONS
from metrics.interpolation import RULE_REGISTRY
from metrics.gains import BASE, DISCOUNTS, GAINS, IDEALS, TREC_EVAL, describe
from rankscope.commands import add_convention_flags, check_range, rank
from rankscope.commands.anatomy import write_frame

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["register", "run", "KINDS"]

KINDS = {
    "pr": "precision and recall at every rank (the raw precision-recall curve)",
    "interpolated": "interpolated precision at every rank's recall, and its envelope over recall 0..1",
    "11pt": "interpolated precision at recall 0.0, 0.1, ..., 1.0, per query and averaged (11pt_avg)",
    "dcg": "DCG@k, ideal DCG@k and nDCG@k for k = 1..depth, per query and averaged",
    "pk": "P@k and R@k for k = 1..depth, per query and averaged",
}


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "curves", help="points of precision-recall, 11-point, P@k/R@k and DCG curves",
        description="Print the points of a curve, one row per (system, query, point); rows of query 'all' "
                    "average the queries. Kinds: " + "; ".join(f"{k}: {v}" for k, v in KINDS.items()) + ".")
    p.add_argument("qrels", help="qrels file (qid iter docid rel), plain or gzip")
    p.add_argument("runs", nargs="+", metavar="run", help="run file(s) (qid Q0 docid rank score tag)")
    p.add_argument("--kind", choices=list(KINDS), required=True, help="which curve")
    p.add_argument("--query", metavar="Q", default=None,
                   help="only this query's rows (default: every query, and the averages)")
    p.add_argument("--depth", dest="curve_depth", type=int, default=None, metavar="K",
                   help="largest k of the dcg and pk curves, 1 to 100000 (default: the longest ranking)")
    p.add_argument("--interpolation", choices=INTERPOLATIONS, default=None,
                   help="interpolation rule of the interpolated and 11pt curves: "
                        + "; ".join(f"{rule.name}: {rule.help}" for rule in RULE_REGISTRY) + " (default: that of --compat)")
    p.add_argument("--gain", choices=list(GAINS), default=TREC_EVAL["gain"],
                   help=f"dcg: gain of grade g: {describe(GAINS)}")
    p.add_argument("--discount", choices=list(DISCOUNTS), default=TREC_EVAL["discount"],
                   help=f"dcg: divisor at rank i: {describe(DISCOUNTS)}")
    p.add_argument("--base", type=float, default=BASE, help="dcg: logarithm base of the jk discount (default 2)")
    p.add_argument("--ideal", choices=list(IDEALS), default=TREC_EVAL["ideal"],
                   help=f"dcg: documents of the ideal ranking: {describe(IDEALS)}")
    add_convention_flags(p)
    p.add_argument("--format", choices=("csv", "json"), default="csv",
                   help="output format (json: a list of row records)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from metrics import curves
    from metrics.errors import ValidationError

    if args.curve_depth is not None:
        check_range("--depth", args.curve_depth, 1, curves.MAX_DEPTH, " (omit it for the longest ranking)")
    rankings = rank(args, args.runs)
    if args.query is not None and not any(args.query in set(r.queries.tolist()) for r in rankings):
        raise ValidationError(f"query {args.query!r} was not evaluated for any run (a run must answer it and "
                              f"the qrels judge it)")
    average = args.query is None
    if args.kind == "pr":
        frame = curves.pr_curve(rankings)
    elif args.kind == "interpolated":
        frame = one_table(curves.interpolated_pr(rankings, rule=args.interpolation), rankings)
    elif args.kind == "11pt":
        frame = curves.eleven_point(rankings, rule=args.interpolation, average=average)
    elif args.kind == "dcg":
        frame = curves.gain_curves(rankings, gain=args.gain, discount=args.discount, base=args.base,
                                   ideal=args.ideal, depth=args.curve_depth, average=average)
    else:
        frame = curves.precision_recall_at_k(rankings, depth=args.curve_depth, average=average)
    if args.query is not None:
        frame = frame[frame["query"] == args.query].reset_index(drop=True)
    write_frame(frame, args.format, sys.stdout)
    return 0


def one_table(curve, rankings) -> pd.DataFrame:
    """The two tables of :func:`metrics.curves.interpolated_pr` as the one table this command prints: per
    system and query, the rank points (``kind`` "rank"), then the envelope's vertices (``kind`` "envelope"),
    with the columns of the points left empty on the envelope's rows."""
    import numpy as np
    import pandas as pd

    columns = ["system", "query", "x", "y", "kind", "recall", "iprec", "needed", "precision", "rank", "docid",
               "grade", "relevant"]
    both = pd.concat([curve.points.assign(kind="rank"), curve.envelope.assign(kind="envelope")],
                     ignore_index=True).reindex(columns=columns)
    both["rank"] = both["rank"].astype("Int64")
    both["relevant"] = both["relevant"].astype("boolean")
    both["docid"] = both["docid"].astype(object).where(both["kind"] == "rank", None)
    place = {(r.system, q): (s, i) for s, r in enumerate(rankings) for i, q in enumerate(r.queries.tolist())}
    keys = np.array([place[pair] for pair in zip(both["system"], both["query"])], dtype=np.int64).reshape(-1, 2)
    order = np.lexsort((np.arange(len(both)), both["kind"] == "envelope", keys[:, 1], keys[:, 0]))
    return both.iloc[order].reset_index(drop=True)
