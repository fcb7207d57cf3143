"""``rankscope compare --seeds``: systems of several runs (seeds, folds), their spread and the mixed-model test."""

from __future__ import annotations

import argparse
import json
import sys

from rankscope.commands import json_records, text_table

__all__ = ["add_seed_flags", "run_seeded"]


def add_seed_flags(p: argparse.ArgumentParser) -> None:
    """``--seeds``, ``--seeds-rule RULE`` and ``--group SYSTEM=RUN,RUN``.

    ``--seeds`` takes no value: an optional value would swallow the qrels that follows it
    (``--seeds qrels runs/*.run``), so the rule has a flag of its own.
    """
    p.add_argument("--seeds", action="store_true",
                   help="group runs into systems of several runs (seeds, folds): bm25.seed1.run and "
                        "bm25.seed2.run are two runs of bm25 (the rule: <system>.seed<N>, _fold<N>, -rep<N>, or "
                        "--seeds-rule). Prints each system's mean over its runs with the spread between them, and "
                        "compares systems with a mixed model (topics and seeds random; --baseline, --correction, "
                        "--alpha apply)")
    p.add_argument("--seeds-rule", dest="seeds_rule", default=None, metavar="RULE",
                   help="with or without --seeds, group the runs by RULE: a regular expression with a group "
                        "(?P<system>...) matched against each run's name")
    p.add_argument("--group", action="append", default=None, metavar="SYSTEM=RUN,RUN",
                   help="the runs of one system, named explicitly (with --seeds it overrides the rule; alone, only "
                        "these runs are grouped); repeatable")


def _groups_of(values: list[str] | None) -> dict[str, list[str]]:
    from metrics.errors import ValidationError

    groups: dict[str, list[str]] = {}
    for value in values or ():
        system, sep, runs = value.partition("=")
        members = [r.strip() for r in runs.split(",") if r.strip()]
        if not sep or not system.strip() or not members:
            raise ValidationError(f"--group: expected SYSTEM=RUN,RUN, found {value!r}")
        if system.strip() in groups:
            raise ValidationError(f"--group: system {system.strip()!r} given twice")
        groups[system.strip()] = members
    return groups


def run_seeded(args: argparse.Namespace, per_query, settings: dict) -> None:
    """Group the runs of ``per_query``, then print the spread and the tests in ``args.format``."""
    from metrics.errors import ValidationError
    from metrics.evaluate import aggregate
    from metrics.stats.seeds import SEED_RULE, compare_seeded, group_runs, seed_spread

    if args.format == "latex" or args.risk_alpha is not None:
        raise ValidationError("--seeds: expected --format table, csv or json, without --risk-alpha")
    rule = args.seeds_rule if args.seeds_rule is not None else SEED_RULE if args.seeds else None
    groups = group_runs(list(dict.fromkeys(per_query["system"].astype(str))), rule=rule, groups=_groups_of(args.group))
    spread = seed_spread(aggregate(per_query), groups)
    tests = compare_seeded(per_query, groups, baseline=settings.get("baseline"),
                           correction=settings.get("correction", "holm"), alpha=settings.get("alpha", 0.05))
    out = sys.stdout
    if args.format == "csv":
        from metrics.io.spreadsheet import csv_text

        out.write(csv_text(tests))
    elif args.format == "json":
        document = {"systems": {s: list(r) for s, r in groups.items()}, "means": json_records(spread),
                    "comparisons": json_records(tests),
                    "test": "linear mixed model, topics and seeds random (REML), Wald z"}
        json.dump(document, out, indent=1, allow_nan=False)
        out.write("\n")
    else:
        out.write(_spread_text(spread) + "\n" + _tests_text(tests, settings))


def _spread_text(spread) -> str:
    rows = [["measure", "system", "runs", "mean", "sd", "low", "high"]]
    rows += [[str(r.measure), str(r.system), str(r.runs), f"{r.value:.4f}", "-" if r.runs < 2 else f"{r.sd:.4f}",
              f"{r.low:.4f}", f"{r.high:.4f}"] for r in spread.sort_values("measure", kind="stable").itertuples()]
    return ("Each system's mean over its runs; sd, low and high: the spread of the runs' means (seeds).\n"
            + text_table(rows, {0, 1}))


def _tests_text(tests, settings: dict) -> str:
    rows = [["measure", "system_a", "system_b", "runs", "topics", "diff", "se", "z", "p", "p_adj", "sig",
             "var_seed"]]
    rows += [[str(r.measure), str(r.system_a), str(r.system_b), f"{r.runs_a}/{r.runs_b}", str(r.topics),
              f"{r.difference:+.4f}", f"{r.se:.4f}", f"{r.statistic:.3f}", f"{r.p_value:.4g}",
              f"{r.p_adjusted:.4g}", "*" if r.significant else "", f"{r.var_seed:.3g}"]
             for r in tests.itertuples()]
    return (f"Mixed model (topics and seeds random, REML; Wald z), {settings.get('correction', 'holm')} correction "
            f"within each measure, alpha {settings.get('alpha', 0.05):g}; each pair on the topics all its runs "
            "answer.\n" + text_table(rows, {0, 1, 2}))
