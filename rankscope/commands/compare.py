"""``rankscope compare``: paired significance tests between runs, corrected for multiple comparisons."""

from __future__ import annotations

import argparse
import json
import math
import sys

from rankscope.commands import add_convention_flags, add_significance_flags, conventions_of, significance_settings_of

__all__ = ["register", "run"]

DEFAULT_MEASURES = ("AP", "nDCG@10")
FORMATS = ("table", "csv", "latex", "json")


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "compare", help="paired significance tests between runs",
        description="Evaluate runs and test every pair of them (or each against a baseline) on each measure "
                    "with a paired test over queries; p-values are corrected for multiple comparisons. "
                    "Each system is named after its run file (bm25.run.gz is bm25). Runs must answer the "
                    "same queries unless -c scores missing queries 0.")
    p.error = lambda message: p.exit(2, f"rankscope compare: {message}\n")  # one line, no usage block
    p.add_argument("qrels", help="qrels file (qid iter docid rel), plain or gzip")
    p.add_argument("runs", nargs="+", metavar="run", help="two or more run files")
    p.add_argument("-m", dest="measures", action="append", metavar="MEASURE",
                   help="measure(s), as for 'rankscope eval'; repeatable; default AP and nDCG@10")
    add_significance_flags(p)
    p.add_argument("--format", choices=FORMATS, default="table", metavar="FORMAT",
                   help="table (default): results table and the tests; latex: the results table (booktabs); "
                        "csv: the tests' tidy table; json: settings, means and the tests")
    add_convention_flags(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from metrics.compare import summary_table, to_latex, to_text
    from metrics.errors import ValidationError
    from metrics.evaluate import aggregate, evaluate
    from metrics.significance import compare_systems

    if len(args.runs) < 2:
        raise ValidationError("compare needs at least two runs")
    settings = significance_settings_of(args)
    per_query = evaluate(args.qrels, list(args.runs), list(args.measures or DEFAULT_MEASURES),
                         conventions=conventions_of(args))
    comparison = compare_systems(per_query, **settings)
    means = aggregate(per_query)
    out = sys.stdout
    if args.format == "csv":
        comparison.frame.to_csv(out, index=False, lineterminator="\n")
    elif args.format == "latex":
        out.write(to_latex(summary_table(comparison, means)))
    elif args.format == "json":
        document = {"settings": _settings(comparison, args),
                    "means": [{k: _json(v) for k, v in row.items()} for row in means.to_dict("records")],
                    "comparisons": [{k: _json(v) for k, v in row.items()}
                                    for row in comparison.frame.to_dict("records")]}
        json.dump(document, out, indent=1, allow_nan=False)
        out.write("\n")
    else:
        out.write(to_text(summary_table(comparison, means)))
        out.write("\n" + _family_text(comparison) + "\n" + _tests_text(comparison.frame))
    return 0


def _settings(comparison, args: argparse.Namespace) -> dict:
    return {"test": comparison.test, "correction": comparison.correction, "family": comparison.family,
            "family_sizes": comparison.family_sizes, "alpha": comparison.alpha, "baseline": comparison.baseline,
            "seed": comparison.seed, "n_resamples": comparison.n_resamples, "confidence": comparison.confidence,
            "zero_method": args.zero_method, "ci": args.ci, "tie_tolerance": args.tie_tolerance,
            "complete": bool(args.complete), "measures": list(comparison.measures),
            "systems": list(comparison.systems)}


def _family_text(comparison) -> str:
    """One line that says which tests were corrected together."""
    sizes = comparison.family_sizes
    if comparison.test == "tukey":
        return (f"Tukey's HSD adjusts each measure's p-values for all {next(iter(sizes.values()), 0)} pairs of "
                f"the {len(comparison.systems)} systems.")
    if comparison.correction == "none":
        return "p-values are not corrected for multiple comparisons (p_adj = p)."
    if comparison.family == "all":
        return f"{comparison.correction} correction over all {next(iter(sizes.values()), 0)} tests together."
    return f"{comparison.correction} correction within each measure: " + ", ".join(
        f"{m} {k} test{'s' if k != 1 else ''}" for m, k in sizes.items()) + "."


def _json(value):
    """A JSON-ready scalar: numpy types unwrapped, NaN and infinities as null."""
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _tests_text(frame) -> str:
    """The tests as an aligned text table."""
    head = ["measure", "system_a", "system_b", "mean_diff", "ci", "statistic", "p", "p_adj", "sig", "d_z",
            "W/T/L", "n"]
    rows = [head]
    for r in frame.itertuples(index=False):
        rows.append([str(r.measure), str(r.system_a), str(r.system_b), f"{r.mean_diff:+.4f}",
                     f"[{r.ci_low:+.4f}, {r.ci_high:+.4f}]", f"{r.statistic:.4g}", f"{r.p_value:.4g}",
                     f"{r.p_adjusted:.4g}", "*" if r.significant else "", f"{r.effect_size:.3g}",
                     f"{r.wins}/{r.ties}/{r.losses}", str(r.n)])
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    left = {0, 1, 2}
    cells = (("  ".join(c.ljust(widths[i]) if i in left else c.rjust(widths[i]) for i, c in enumerate(row))).rstrip()
             for row in rows)
    return "".join(line + "\n" for line in cells)
