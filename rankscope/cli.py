"""The ``rankscope`` command: ``eval``, ``measures``, ``compare``, ``dashboard`` and more.

Each subcommand lives in ``rankscope/commands/<name>.py`` with ``register(subparsers)`` and ``run(args)``;
this module only assembles them. Errors rankscope raises on bad input (``RankscopeError``) print one line
on stderr and exit with status 2; no traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys

from metrics.errors import RankscopeError

__all__ = ["main", "build_parser"]


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``rankscope`` parser with every subcommand, or only ``command``'s (a faster start: the other
    subcommands' modules, and what they import, are not loaded)."""
    from rankscope import commands

    parser = argparse.ArgumentParser(prog="rankscope", description="Evaluate and compare retrieval runs.")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    names = sorted(m.name for m in pkgutil.iter_modules(commands.__path__) if not m.name.startswith("_"))
    for name in ([command] if command in names else names):
        importlib.import_module(f"rankscope.commands.{name}").register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``rankscope`` console script."""
    if argv is None:  # run as the `rankscope` program: this process is ours to configure
        _use_system_allocator()
    argv = sys.argv[1:] if argv is None else list(argv)
    command = next((a for a in argv if not a.startswith("-")), None)
    args = build_parser(command).parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except RankscopeError as err:
        print(f"rankscope {args.command}: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `rankscope eval ... | head`
        sys.stderr.close()
        return 0


def _use_system_allocator() -> None:
    """Give pyarrow the C library's allocator unless ARROW_DEFAULT_MEMORY_POOL chooses one: on a 7M-line run
    its default pool (mimalloc) spent twice the kernel time in page faults and peaked 70-130 MB higher."""
    if "ARROW_DEFAULT_MEMORY_POOL" not in os.environ:
        import pyarrow as pa

        pa.set_memory_pool(pa.system_memory_pool())


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
