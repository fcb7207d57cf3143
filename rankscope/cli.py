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
from typing import NoReturn

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
    """Entry point of the ``rankscope`` console script; called with ``argv``, it returns the exit status."""
    if argv is not None:
        return _run(list(argv))
    _use_system_allocator()  # run as the `rankscope` program: this process is ours to configure
    if not _is_program():
        return _run(sys.argv[1:])
    try:  # ... and to end
        status = _run(sys.argv[1:])
    except SystemExit as exit_:  # argparse: --help, or a usage error
        status = exit_.code if isinstance(exit_.code, int) else 0 if exit_.code is None else 1
        if not isinstance(exit_.code, (int, type(None))):
            print(exit_.code, file=sys.stderr)
    _end_process(status)


def _is_program() -> bool:
    """Whether the program running is rankscope itself: its console script or ``python -m rankscope``."""
    path = getattr(sys.modules.get("__main__"), "__file__", None) or ""
    name = os.path.basename(path)
    return name == "rankscope" or (name == "__main__.py" and os.path.basename(os.path.dirname(path)) == "rankscope")


def _run(argv: list[str]) -> int:
    command = next((a for a in argv if not a.startswith("-")), None)
    args = build_parser(command).parse_args(argv)
    args.command_line = tuple(argv)  # what was said, for a command whose defaults differ from a value given
    try:
        return int(args.func(args) or 0)
    except RankscopeError as err:
        print(f"rankscope {args.command}: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `rankscope eval ... | head`
        sys.stderr.close()
        return 0


def _end_process(status: int) -> NoReturn:
    """Flush the output and end the process at once, without the interpreter's shutdown.

    pyarrow's native threads (the workers of its CPU and I/O thread pools, which its CSV reader and compute
    functions start, and jemalloc's background thread) are still alive when the interpreter finalises;
    C++ destructors of the library then run while they are, and now and then one meets a worker still
    joinable and calls ``std::terminate``: "terminate called without an active exception", status 134,
    after all the output was written. Nothing is left to clean up at this point (the output is flushed
    here, the kernel closes the files and ends every thread at once), so the shutdown is skipped.
    """
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None and not stream.closed:
                stream.flush()
        except (BrokenPipeError, OSError):  # the reader has gone (`| head`): what is left is not wanted
            pass
    os._exit(status)


def _use_system_allocator() -> None:
    """Give pyarrow the C library's allocator unless ARROW_DEFAULT_MEMORY_POOL chooses one: on a 7M-line run
    its default pool (mimalloc) spent twice the kernel time in page faults and peaked 70-130 MB higher."""
    if "ARROW_DEFAULT_MEMORY_POOL" not in os.environ:
        import pyarrow as pa

        pa.set_memory_pool(pa.system_memory_pool())


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
