"""``rankscope measures``: the registry — names, aliases, trec_eval names, parameters, formulas."""

from __future__ import annotations

import argparse
import json
import sys

__all__ = ["register", "run"]


def register(subparsers) -> None:
    p = subparsers.add_parser("measures", help="list every measure rankscope computes",
                              description="List the measure registry: names, aliases, trec_eval names, "
                                          "parameters with defaults, descriptions and formulas.")
    p.add_argument("--format", choices=("table", "json"), default="table")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from metrics.measures import list_measures

    described = [cls.describe() for cls in list_measures()]
    if args.format == "json":
        json.dump(described, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    for d in described:
        names = ", ".join([d["name"], *d["aliases"]])
        trec = ", ".join(d["trec_eval"]) or "-"
        params = ", ".join(f"{p['name']}={p['default']!r}" + (f" {p['choices']}" if p["choices"] else "")
                           for p in d["params"]) or "-"
        better = "higher is better" if d["higher_is_better"] else "lower is better"
        sys.stdout.write(f"{names}\n  {d['pretty_name']}: {d['description']} ({better}; {d['aggregation']})\n"
                         f"  trec_eval: {trec}\n  parameters: {params}\n  formula: {d['latex']}\n\n")
    return 0
