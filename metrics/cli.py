"""The ``rankscope`` command: ``eval``, ``measures``, ``compare``, ``dashboard`` and more.

Each subcommand lives in ``metrics/commands/<name>.py`` with ``register(subparsers)`` and ``run(args)``;
this module only assembles them. Errors rankscope raises on bad input (``RankscopeError``) print one line
on stderr and exit with status 2; no traceback.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

from metrics.errors import RankscopeError

__all__ = ["main", "build_parser"]


def build_parser() -> argparse.ArgumentParser:
    from metrics import commands

    parser = argparse.ArgumentParser(prog="rankscope", description="Evaluate and compare retrieval runs.")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        if not info.name.startswith("_"):
            importlib.import_module(f"metrics.commands.{info.name}").register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``rankscope`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except RankscopeError as err:
        print(f"rankscope {args.command}: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `rankscope eval ... | head`
        sys.stderr.close()
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
