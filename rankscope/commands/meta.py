"""``rankscope meta RUN``: the ir_metadata block of a run (how the run was made), as YAML or JSON."""

from __future__ import annotations

import argparse
import json
import sys

__all__ = ["register", "run"]


def register(subparsers) -> None:
    p = subparsers.add_parser("meta", help="print a run's ir_metadata block",
                              description="Print the ir_metadata block (PRIMAD: platform, research goal, "
                                          "implementation, method, actor, data) at the top of a run file, "
                                          "checked against the schema. A run without one prints one line and "
                                          "exits 0; a malformed block prints one line and exits 2.")
    p.add_argument("run", metavar="RUN", help="the run file (plain or gzip)")
    p.add_argument("--format", choices=("yaml", "json"), default="yaml")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from metrics.io import read_run
    from metrics.io.metadata import metadata_yaml
    from metrics.io.redaction import redact

    read = read_run(args.run)  # the whole run is checked: a block above a broken ranking is no good either
    if read.metadata is None:
        sys.stdout.write(redact(f"{args.run}: no ir_metadata block") + "\n")
        return 0
    if args.format == "json":
        json.dump(read.metadata, sys.stdout, indent=1, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(metadata_yaml(read.metadata))
    return 0
