"""``rankscope compare``: paired significance tests between runs, corrected for multiple comparisons."""

from __future__ import annotations

import argparse
import json
import sys

from metrics.io.spreadsheet import csv_text
from rankscope.commands import (add_convention_flags, add_significance_flags, conventions_of, json_records,
                                significance_settings_of, topics_differ)
from rankscope.commands._seeds import add_seed_flags, run_seeded
from rankscope.datasets import add_dataset_flag
from rankscope.runs import add_run_flags

__all__ = ["register", "run"]

DEFAULT_MEASURES = ("AP", "nDCG@10")
FORMATS = ("table", "csv", "latex", "json")
PYTERRIER_NOTE = ("the values are PyTerrier's, read from {}: the evaluation conventions on the provenance line are "
                  "rankscope's and did not make them")


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "compare", help="paired significance tests between runs",
        description="Evaluate runs and test every pair of them (or each against a baseline) on each measure "
                    "with a paired test over queries; p-values are corrected for multiple comparisons. "
                    "Each system is named after its run file (bm25.run.gz is bm25). Runs must answer the "
                    "same queries unless -c scores missing queries 0.")
    p.error = lambda message: p.exit(2, f"rankscope compare: {message}\n")  # one line, no usage block
    p.add_argument("qrels", nargs="?", help="qrels file (qid iter docid rel), plain or gzip")
    p.add_argument("runs", nargs="*", metavar="run",
                   help="two or more run files: paths, globs, directories, @FILE listing one per line")
    p.add_argument("--input", metavar="DIR",
                   help="compare the per-query results of a dataset written by 'rankscope eval --output DIR' "
                        "instead of evaluating runs (systems sorted by name)")
    p.add_argument("--per-query", dest="per_query", metavar="CSV",
                   help="compare the per-query table PyTerrier's pt.Experiment(..., perquery=True) returns, saved as "
                        "CSV (columns name, qid, measure, value) instead of evaluating runs; measures in "
                        "ir_measures' or trec_eval's names, PyTerrier's mrt left out")
    p.add_argument("-m", dest="measures", action="append", metavar="MEASURE",
                   help="measure(s), as for 'rankscope eval'; repeatable; default AP and nDCG@10")
    add_significance_flags(p)
    p.add_argument("--format", choices=FORMATS, default="table", metavar="FORMAT",
                   help="table (default): results table and the tests; latex: the results table (booktabs); "
                        "csv: the tests' tidy table; json: settings, means, the tests, the provenance card and "
                        "the warnings")
    p.add_argument("--risk-alpha", dest="risk_alpha", type=float, default=None, metavar="A",
                   help="also compare each run with the baseline (--baseline, else the first run) by risk: "
                        "URisk, TRisk (flagged when its two-sided p-value is below --alpha), ZRisk and GeoRisk, a loss "
                        "weighing 1 + A (A >= 0); with --format table or json")
    add_seed_flags(p)
    add_dataset_flag(p)
    add_convention_flags(p)
    add_run_flags(p, output=False)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from metrics.review.compare import summary_table, to_latex, to_text
    from metrics.errors import MissingTopicsError, ValidationError
    from metrics.evaluate import aggregate
    from metrics.stats.significance import compare_systems

    from rankscope.commands._pyterrier import per_query_of_pyterrier
    from rankscope.runs import evaluate_runs, expand_runs, per_query_of_dataset

    given = args.input is not None or args.per_query is not None
    if args.input is not None and args.per_query is not None:
        raise ValidationError("compare: expected --input DIR or --per-query CSV, found both")
    runs = [] if given else expand_runs(args.runs)
    if not given and (args.qrels is None or len(runs) < 2):
        raise ValidationError("compare needs qrels and at least two runs, --input DIR or --per-query CSV")
    if args.risk_alpha is not None and args.format not in ("table", "json"):
        raise ValidationError(f"--risk-alpha: expected --format table or json, found {args.format}")
    settings = significance_settings_of(args)
    conventions = conventions_of(args)
    if args.per_query is not None:
        per_query, status = per_query_of_pyterrier(args, args.measures or DEFAULT_MEASURES), 0
    elif args.input is not None:
        per_query, status = per_query_of_dataset(args, args.measures or DEFAULT_MEASURES), 0
    else:  # one task per run, on --jobs workers or --scheduler's cluster: metrics.evaluate's table either way
        per_query, status = evaluate_runs(args, args.qrels, runs, list(args.measures or DEFAULT_MEASURES),
                                          conventions, "compare")
    if args.seeds or args.seeds_rule is not None or args.group:
        run_seeded(args, per_query, settings)
        return status
    try:
        comparison = compare_systems(per_query, **settings)
        risk = _risk(per_query, comparison, args.risk_alpha, settings["alpha"])
    except MissingTopicsError as err:
        if args.per_query is not None:  # PyTerrier's table: not ours to evaluate again
            raise ValidationError(f"--per-query {args.per_query}: {err.detail}") from None
        raise topics_differ(err, dataset=args.input is not None) from None
    means = aggregate(per_query)
    card, cautions = _card(per_query, comparison, conventions, args)
    out = sys.stdout
    if args.format == "csv":
        out.write(csv_text(comparison.frame))
    elif args.format == "latex":
        out.write(to_latex(summary_table(comparison, means), provenance=card))
        out.write(_grouped_latex(comparison))
    elif args.format == "json":
        document = {"settings": _settings(comparison, args),
                    "means": json_records(means), "comparisons": json_records(comparison.frame),
                    "provenance": card.as_dict(), "warnings": [c.as_dict() for c in cautions]}
        if risk is not None:
            document["risk"] = json_records(risk)
        if args.per_query is not None:
            document["warnings"].append({"code": "pyterrier-values", "sentence": PYTERRIER_NOTE.format(args.per_query)})
        json.dump(document, out, indent=1, allow_nan=False)
        out.write("\n")
    else:
        out.write(to_text(summary_table(comparison, means)))
        out.write("\n" + _family_text(comparison) + "\n" + _tests_text(comparison.frame))
        if risk is not None:
            out.write("\n" + _risk_text(risk, settings["alpha"], comparison))
        out.write("\nprovenance: " + card.compact() + "\n" + "".join(f"note: {c.sentence}\n" for c in cautions))
        if args.per_query is not None:
            out.write(f"note: {PYTERRIER_NOTE.format(args.per_query)}\n")
    if args.format in ("csv", "latex"):
        for caution in cautions:
            print(f"note: {caution.sentence}", file=sys.stderr)
    return status


def _card(per_query, comparison, conventions, args: argparse.Namespace):
    """The provenance card and the warnings of a comparison (the table and JSON outputs state nDCG's gain)."""
    from metrics.review.cautions import comparison_cautions
    from metrics.evaluate import resolve_measures
    from metrics.review.provenance import build_provenance, topic_counts

    pairs = resolve_measures(list(dict.fromkeys(per_query["measure"])))  # those compared (--input: those it holds)
    topics = topic_counts(per_query)
    card = build_provenance(conventions, pairs, topics=topics, test=comparison.test, correction=comparison.correction,
                            family=comparison.family)
    cautions = comparison_cautions(pairs, test=comparison.test, correction=comparison.correction,
                                   tests=len(comparison.frame), topics=max(topics.values(), default=0),
                                   gain_stated=args.format in ("table", "json"))
    return card, cautions


def _grouped_latex(comparison) -> str:
    """Each measure's grouped leaderboard (compact letter display) when every pair was tested, else nothing."""
    if comparison.baseline is not None or len(comparison.systems) < 3:
        return ""
    from metrics.review.compare.render import leaderboard_to_latex
    from metrics.stats.significance import grouped_leaderboard

    return "".join("\n" + leaderboard_to_latex(grouped_leaderboard(comparison, m), m) for m in comparison.measures)


def _risk(per_query, comparison, alpha, level):
    """The risk table against the comparison's baseline (else the first system), or None without ``alpha``;
    TRisk flagged at the tests' level (``--alpha``)."""
    if alpha is None:
        return None
    from metrics.stats.risk import risk_table

    return risk_table(per_query, comparison.baseline or comparison.systems[0], alpha=alpha,
                      measures=list(comparison.measures), level=level)


def _risk_text(risk, level: float, comparison) -> str:
    """The risk table as aligned text, under lines that name the baseline, alpha, the flag's test (uncorrected,
    unlike the comparison's tests) and the systems ZRisk and GeoRisk are computed against."""
    first = risk.iloc[0]
    systems = risk["system"].nunique() + 1
    if comparison.test == "tukey":
        tests = "adjusted by Tukey's HSD"
    elif comparison.correction == "none":
        tests = "not corrected either"
    else:
        tests = f"{comparison.correction}-corrected"
    head = ["measure", "system", "URisk", "TRisk", "p", "flag", "ZRisk", "GeoRisk", "W/T/L", "L x (1+alpha)"]
    rows = [head] + [[str(r.measure), str(r.system), f"{r.urisk:+.4f}", f"{r.trisk:+.3f}", f"{r.p_value:.4g}",
                      r.flag, f"{r.zrisk:+.3f}", f"{r.georisk:.4f}", f"{r.wins}/{r.ties}/{r.losses}",
                      f"{r.weighted_loss_count:g}"] for r in risk.itertuples(index=False)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    lines = ("  ".join(c.ljust(widths[i]) if i in (0, 1, 5) else c.rjust(widths[i]) for i, c in enumerate(row)).rstrip()
             for row in rows)
    return (f"Risk against {first.baseline} (alpha = {first.alpha:g}: a loss weighs {1 + first.alpha:g}; "
            f"L x (1+alpha) is the number of losses times {1 + first.alpha:g}).\n"
            f"flag: riskier or safer when TRisk's two-sided p-value is below {level:g} (|TRisk| beyond "
            f"{first.t_critical:.3g} at {first.n} topics), uncorrected for the {systems - 1} systems compared with "
            f"{first.baseline}, while the tests above are {tests}.\n"
            f"ZRisk and GeoRisk: against all {systems} systems listed, {first.baseline} included (each topic's "
            "expected value comes from the whole table: adding or leaving out a system changes them).\n"
            + "".join(line + "\n" for line in lines))


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
