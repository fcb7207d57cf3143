"""``rankscope report``: one self-contained HTML report, and optionally every export beside it.

Needs the ``dashboard`` extra (plotly; kaleido and Chromium for the figure images of ``--exports``).
"""

from __future__ import annotations

import argparse
import importlib.util
import shlex
import sys

from metrics.review.flags import convention_argv
from rankscope.commands import (add_convention_flags, add_significance_flags, convention_args, conventions_of,
                                significance_args, write_output)
from rankscope.datasets import add_dataset_flag
from rankscope.runs import add_run_flags

__all__ = ["register", "run"]

REPORT_SETTINGS = ("test", "correction", "family", "alpha", "seed", "baseline")  # the test flags the report takes


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "report", help="write a self-contained HTML report",
        description="Evaluate runs and write one HTML file that opens offline: the manifest (file digests, "
                    "measures, conventions, the commands that reproduce the numbers), the collection and its "
                    "lint findings, the results with confidence intervals and significance against a "
                    "baseline, precision-recall and DCG curves, the significance matrix and every per-topic "
                    "value.")
    p.add_argument("qrels", nargs="?", help="qrels file (qid iter docid rel), plain or gzip")
    p.add_argument("runs", nargs="*", metavar="run", help="run file(s); each system is named after its file")
    p.add_argument("--collection", metavar="ID", help="report on a stored collection instead of QRELS RUN...: its "
                   "files, its notes, and its conventions unless convention flags are given")
    p.add_argument("--workspace", metavar="LOC", help="with --collection: the workspace (default "
                   "$RANKSCOPE_WORKSPACE, else ./rankscope-workspace)")
    p.add_argument("--judgments", metavar="NAME", help="with --collection: evaluate under this judgment set of the "
                   "collection (default: its reference)")
    p.add_argument("-o", "--output", required=True, metavar="FILE", help="the HTML file to write ('-': stdout)")
    p.add_argument("-m", dest="measures", action="append", metavar="MEASURE",
                   help="measure(s), as for 'rankscope eval'; repeatable; default AP nDCG@10 P@10 R@100 RR")
    add_significance_flags(p, REPORT_SETTINGS,
                           help={"baseline": "system the others are tested against (default: the first)"})
    p.add_argument("--title", default="rankscope report", help="the report's title")
    p.add_argument("--exports", metavar="DIR",
                   help="also write every export into DIR: per-query and summary tables (CSV, Parquet), the "
                        "results table (LaTeX, Markdown, CSV), every paired test, manifest.json, a session file "
                        "and each figure as PNG and SVG")
    p.add_argument("--no-images", dest="images", action="store_false",
                   help="with --exports: skip the PNG and SVG figures (they need Chromium)")
    p.add_argument("--input", metavar="DIR",
                   help="take the per-topic values from a dataset written by 'rankscope eval --output DIR' "
                        "(with the same convention flags) instead of evaluating the runs. QRELS and RUN... are "
                        "still needed: the curves, the collection, the lint findings and the manifest's digests "
                        "come from the rankings and the files, which a per-query dataset does not hold")
    add_dataset_flag(p)
    add_convention_flags(p)
    add_run_flags(p, output=False, keep_going=False)
    p.set_defaults(func=run)


def _invocation(args: argparse.Namespace, conventions=None) -> list[str]:
    """The ``rankscope report`` command line of ``args`` (recorded in the manifest); ``conventions``: those
    used, when not the flags' (a stored collection's)."""
    said = convention_args(args) if conventions is None else convention_argv(conventions)
    argv = ["rankscope", "report", "-o", args.output, *said]
    for spec in args.measures or []:
        argv += ["-m", spec]
    argv += significance_args(args)
    if args.title != "rankscope report":
        argv += ["--title", args.title]
    if args.exports is not None:
        argv += ["--exports", args.exports] + ([] if args.images else ["--no-images"])
    if getattr(args, "input", None) is not None:
        argv += ["--input", args.input]
    if args.collection is not None:
        argv += ["--judgments", args.judgments] if args.judgments else []
        return argv + (["--workspace", args.workspace] if args.workspace else []) + ["--collection", args.collection]
    return argv + [getattr(args, "qrels_source", None) or args.qrels, *args.runs]


def _inputs(args: argparse.Namespace) -> dict:
    """The files, names, notes and conventions to report on: from the command line or a stored collection."""
    from metrics.conventions import Conventions
    from metrics.errors import RankscopeError

    conventions = conventions_of(args)
    if args.collection is None:
        if args.judgments is not None:
            raise RankscopeError("report: --judgments names a judgment set of a stored collection; give --collection")
        if args.qrels is None or not args.runs:
            raise RankscopeError("report: expected QRELS RUN... or --collection ID, found neither")
        if getattr(args, "qrels_file", None) is not None:  # an ir_datasets id: its judgments as a file
            name, data = args.qrels_file
            return {"qrels": data, "qrels_name": name, "runs": list(args.runs), "conventions": conventions}
        return {"qrels": args.qrels, "runs": list(args.runs), "conventions": conventions}
    if args.qrels is not None:
        raise RankscopeError(f"report: expected QRELS RUN... or --collection ID, found both ({args.qrels})")
    from rankscope.commands.workspace import stored_inputs

    stored = stored_inputs(args.workspace, args.collection, args.judgments)
    if conventions == Conventions():
        stored["conventions"] = Conventions.coerce(**stored["conventions"])
    else:
        stored["conventions"] = conventions
    return stored


def _per_query(args: argparse.Namespace, inputs: dict, measures, conventions):
    """The per-topic values from ``--input``'s dataset, or from workers (``--jobs``, ``--scheduler``) for several
    runs; None: :func:`metrics.review.report.compute_report` evaluates them in this process. The same numbers
    each way."""
    from rankscope.runs import evaluate_runs, per_query_for_report, spread

    if args.input is not None:
        return per_query_for_report(args.input, measures, conventions)
    if not spread(args, inputs["runs"]):
        return None
    return evaluate_runs(args, inputs["qrels"], inputs["runs"], measures, conventions, "report")[0]


def run(args: argparse.Namespace) -> int:
    from metrics.errors import RankscopeError
    from metrics.evaluate import DEFAULT_MEASURES
    from metrics.review.report import compute_report

    if importlib.util.find_spec("plotly") is None:
        raise RankscopeError("the report needs the dashboard extra: pip install 'rankscope[dashboard]'")
    try:
        from dashboard.report import render_report, report_files, write_files
    except ImportError as err:
        if getattr(err, "name", None) and str(err.name).split(".")[0] == "plotly":
            raise RankscopeError("the report needs the dashboard extra: pip install 'rankscope[dashboard]'") from None
        raise

    inputs = _inputs(args)
    conventions = inputs.pop("conventions")
    judging = inputs.pop("judging", ())
    measures = args.measures or list(DEFAULT_MEASURES)
    inputs["per_query"] = _per_query(args, inputs, measures, conventions)
    report = compute_report(inputs.pop("qrels"), inputs.pop("runs"), measures,
                            conventions, baseline=args.baseline, test=args.test, correction=args.correction,
                            family=args.family, alpha=args.alpha, seed=args.seed, command=_invocation(args, conventions), **inputs)
    for caution in report.cautions:
        print(f"note: {caution.sentence}", file=sys.stderr)
    write_output(args.output, render_report(report, title=args.title, judging=judging).encode("utf-8"))
    if args.exports is not None:
        written = write_files(args.exports, report_files(report, html=False, images=args.images, judging=judging))
        print(f"wrote {len(written)} files into {shlex.quote(args.exports)}", file=sys.stderr)
    return 0
