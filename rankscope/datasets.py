"""ir_datasets ids where the command line takes a qrels file: ``irds:ID`` in its place, or ``--dataset ID``.

:func:`resolve` runs once for every command, after its arguments are parsed and before it runs
(:func:`rankscope.cli.main`): a qrels argument ``irds:ID`` becomes the dataset's judgments, read from
ir_datasets' local store (:mod:`metrics.io.irds`), so that every command taking qrels takes an id the same
way. ``--dataset ID`` (on the commands that offer it) says the same; the positional arguments are then all
runs. Unless ``-l`` is given, the dataset's own relevance level is used (its official measures' ``rel=``, else
its grade definitions, else 1), and one line on stderr says which level applies and why. :func:`qrels_of` is
the same rule for a single value (the qrels files of ``rankscope judges``, a workspace's qrels).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["add_dataset_flag", "is_dataset", "qrels_of", "relevance_given", "resolve"]


def add_dataset_flag(p: argparse.ArgumentParser) -> None:
    """``--dataset ID``: the qrels of an ir_datasets id; every positional argument is then a run."""
    p.add_argument("--dataset", metavar="ID", default=None,
                   help="take the qrels from ir_datasets' local store by id (e.g. cranfield, "
                        "msmarco-passage/trec-dl-2019); the same as giving irds:ID in place of the qrels file. "
                        "Unless -l is given, the dataset's own relevance level applies")


def is_dataset(value: Any) -> bool:
    """Whether a qrels argument names an ir_datasets id (``irds:ID``) rather than a file."""
    from metrics.io.irds import is_dataset as named

    return named(value)


def qrels_of(value: Any):
    """A qrels argument as the readers take it: the dataset's :class:`~metrics.io.Qrels` for ``irds:ID``,
    anything else unchanged (a path, read where it always was)."""
    if not is_dataset(value):
        return value
    from metrics.io.irds import load_qrels

    return load_qrels(value)


def relevance_given(args: argparse.Namespace) -> bool:
    """Whether the command line sets ``-l`` itself."""
    for token in getattr(args, "command_line", ()):
        if token == "--":
            return False
        if token == "-l" or (token.startswith("-l") and not token.startswith("--")):
            return True
    return False


def resolve(args: argparse.Namespace) -> None:
    """Read the ir_datasets id a command was given (``irds:ID`` as its qrels, or ``--dataset ID``) into
    ``args.qrels``; keep what was said in ``args.qrels_source`` and the qrels file's name and bytes in
    ``args.qrels_file``; apply the dataset's relevance level unless
    ``-l`` was given, and say which applies on stderr.

    Raises
    ------
    RankscopeError
        One line: the id's shape, an unknown id, ir_datasets not installed, a file missing from the store,
        or both ``--dataset`` and a qrels argument that is itself an id.
    """
    from metrics.errors import ValidationError
    from metrics.io.irds import PREFIX, dataset_id, relevance_default

    dataset = getattr(args, "dataset", None)
    if dataset is not None:
        given = getattr(args, "qrels", None)
        if is_dataset(given):
            raise ValidationError(f"--dataset {dataset}: expected runs after it, found the qrels {given}")
        if given is not None:  # every positional argument is a run
            args.runs = [given, *(getattr(args, "runs", None) or [])]
        args.qrels = PREFIX + dataset_id(dataset)
    value = getattr(args, "qrels", None)
    args.qrels_source = value
    if not is_dataset(value):
        return
    from metrics.io import read_qrels
    from metrics.io.irds import qrels_bytes

    data = qrels_bytes(value)
    args.qrels_file = (value, data)  # the file itself, for the commands that store or hash it
    args.qrels = read_qrels(data, name=value)
    default = relevance_default(value)
    command = f"rankscope {getattr(args, 'command', '')}".rstrip()
    if not hasattr(args, "relevance_level"):
        print(f"{command}: {value}: {default.reason}", file=sys.stderr)
    elif relevance_given(args):
        print(f"{command}: {value}: relevance level {args.relevance_level} (-l, given); the dataset's: "
              f"{default.reason}", file=sys.stderr)
    else:
        args.relevance_level = default.level
        print(f"{command}: {value}: {default.reason} (-l sets another)", file=sys.stderr)
