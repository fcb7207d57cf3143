"""``rankscope power``: minimum detectable effects, topics needed, and each pair's post hoc power."""

from __future__ import annotations

import argparse
import json
import math
import sys

from metrics.stats.power import VARIANCES
from rankscope.commands import add_convention_flags, conventions_of, json_records, text_table, topics_differ

__all__ = ["register", "run"]

FORMATS = ("table", "json")


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "power", help="topic-set size and statistical power (Sakai 2016)",
        description="From the per-topic variance of the runs (the residual variance of the system x topic "
                    "ANOVA, which is also half the mean variance of the pairs' differences, or the within-system "
                    "variance): the smallest difference a paired t-test and a one-way ANOVA (its degrees of freedom; "
                    "with the residual variance, the two-way ANOVA's variance, and so named) detect with the given "
                    "power at the current number of topics, the topics needed to detect --effect, and each pair's "
                    "post hoc power (at its own observed difference: a function of its p-value, so it adds "
                    "nothing to it).")
    p.error = lambda message: p.exit(2, f"rankscope power: {message}\n")
    p.add_argument("qrels", help="qrels file (qid iter docid rel), plain or gzip")
    p.add_argument("runs", nargs="+", metavar="run",
                   help="two or more run files: paths, globs, directories, @FILE listing one per line")
    p.add_argument("-m", dest="measure", default="AP", metavar="MEASURE", help="the measure; default AP")
    p.add_argument("--alpha", type=float, default=0.05, metavar="A", help="significance level; default 0.05")
    p.add_argument("--power", type=float, default=0.8, metavar="P", help="power 1 - beta aimed at; default 0.8")
    p.add_argument("--effect", type=float, default=None, metavar="D",
                   help="a difference in the measure's units: the topics needed to detect it")
    p.add_argument("--systems", dest="n_systems", type=int, default=None, metavar="M",
                   help="systems of the ANOVA design (default: the number of runs)")
    p.add_argument("--variance", choices=VARIANCES, default="residual",
                   help="residual (default): the residual variance of the two-way system x topic ANOVA (on a "
                        "complete table exactly half the mean variance of the pairs' per-topic differences); "
                        "within: the within-system variance of the one-way ANOVA (Sakai 2016; topic difficulty "
                        "kept, so more topics)")
    p.add_argument("--format", choices=FORMATS, default="table", metavar="FORMAT", help="table (default) or json")
    add_convention_flags(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from metrics.errors import MissingTopicsError, ValidationError
    from metrics.evaluate import evaluate, resolve_measures
    from metrics.stats.power import power_analysis
    from rankscope.runs import expand_runs

    runs = expand_runs(args.runs)
    if len(runs) < 2:
        raise ValidationError(f"power needs at least two runs, found {len(runs)}")
    label = resolve_measures([args.measure])[0][0]
    per_query = evaluate(args.qrels, runs, [args.measure], conventions=conventions_of(args))
    try:
        result = power_analysis(per_query, label, alpha=args.alpha, power=args.power, effect=args.effect,
                                n_systems=args.n_systems, variance=args.variance)
    except MissingTopicsError as err:
        raise topics_differ(err) from None
    out = sys.stdout
    if args.format == "json":
        document = {"measure": result.measure, "variance": result.variance, "sigma2": result.sigma2,
                    "topics": result.n_topics, "systems": result.n_systems, "alpha": result.alpha,
                    "power": result.power,
                    "designs": json_records(result.summary),
                    "pairs": json_records(result.pairs)}
        json.dump(document, out, indent=1, allow_nan=False)
        out.write("\n")
        return 0
    out.write(f"{result.measure} on {result.n_topics} topics, {result.n_systems} runs; alpha {result.alpha:g}, "
              f"power {result.power:g}; {result.variance} variance sigma^2 = {result.sigma2:.6g} "
              f"(paired differences: {2 * result.sigma2:.6g})\n")
    rows = [["design", "systems", "topics", "min detectable", "standardised", "effect", "topics needed"]]
    for r in result.summary.itertuples(index=False):
        rows.append([r.design, str(r.systems), str(r.topics), f"{r.min_effect:.4f}", f"{r.min_effect_std:.4f}",
                     "" if math.isnan(r.effect) else f"{r.effect:g}",
                     "" if math.isnan(r.topics_needed) else str(int(r.topics_needed))])
    out.write(text_table(rows, {0}))
    rows = [["system_a", "system_b", "mean_diff", "sd_diff", "d_z", "post hoc power"]]
    for r in result.pairs.itertuples(index=False):
        rows.append([str(r.system_a), str(r.system_b), f"{r.mean_diff:+.4f}", f"{r.sd_diff:.4f}",
                     f"{r.effect_size:.3g}", f"{r.post_hoc_power:.3f}"])
    out.write("\npost hoc power of each pair (paired t-test at its own observed d_z; a function of its p-value, "
              "so it adds nothing to it):\n" + text_table(rows, {0, 1}))
    return 0
