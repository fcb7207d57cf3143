"""Subcommands of the ``rankscope`` command line, one module each.

The options that set the evaluation conventions and the significance tests are the rows of one table,
:mod:`metrics.review.flags`: :func:`add_convention_flags` and :func:`add_significance_flags` add them to a
command's parser, :func:`conventions_of` and :func:`significance_settings_of` read the parsed values back,
and :func:`convention_args` and :func:`significance_args` write them again (the command line a report
records).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from metrics.review.flags import (
    CONVENTION_FLAGS,
    Flag,
    convention_argv,
    conventions_from,
    settings_from,
    significance_argv,
    significance_flags,
)

if TYPE_CHECKING:
    from metrics.conventions import Conventions

MAX_RESAMPLES = 10_000_000
"""The most resamples ``--resamples`` takes: the permutation and bootstrap tests loop over them."""


def _add(p: argparse.ArgumentParser, rows: Iterable[Flag], help: Mapping[str, str]) -> None:
    """Add the rows to a parser: their flag, destination, type, default, choices and help."""
    for row in rows:
        text = help.get(row.field, row.help)
        if row.type is bool:
            p.add_argument(row.flag, dest=row.dest, action="store_true", default=row.default,
                           help=text.replace("%", "%%"))
            continue
        if row.default is not None:
            text += f"; default {row.default}"
        p.add_argument(row.flag, dest=row.dest, type=row.type, default=row.default, metavar=row.metavar,
                       choices=row.choices, help=text.replace("%", "%%"))


def add_convention_flags(p: argparse.ArgumentParser, fields: Iterable[str] | None = None) -> None:
    """trec_eval's convention flags, shared by every command that evaluates: --compat, -l, -M, -J and -c (or
    those of the conventions ``fields`` only)."""
    wanted = None if fields is None else set(fields)
    _add(p, tuple(row for row in CONVENTION_FLAGS if wanted is None or row.field in wanted), {})


def add_significance_flags(p: argparse.ArgumentParser, settings: Iterable[str] | None = None, *,
                   help: Mapping[str, str] | None = None) -> None:
    """The significance-test flags: every one, or those of ``settings`` (in the table's order).

    ``help`` replaces the help text of a setting whose meaning the command narrows (e.g. its baseline's
    default).
    """
    rows = significance_flags()
    if settings is not None:
        wanted = set(settings)
        unknown = sorted(wanted - {row.field for row in rows})
        if unknown:
            raise ValueError(f"no test flag for {unknown}")
        rows = tuple(row for row in rows if row.field in wanted)
    _add(p, rows, help or {})


def conventions_of(args: argparse.Namespace) -> Conventions:
    """The conventions the convention flags of ``args`` give; a value out of range names its flag."""
    from metrics.conventions import DEPTHS, RELEVANCE_LEVELS

    values = vars(args)
    for row in CONVENTION_FLAGS:
        bounds = {"depth": DEPTHS, "relevance_level": RELEVANCE_LEVELS}.get(row.field)
        value = values.get(row.dest)
        if bounds is not None and value is not None and (row.minimum is None or value >= row.minimum):
            check_range(row.flag, value, *bounds)  # below the flag's minimum: the flag's own message
    return conventions_from(values)


def significance_settings_of(args: argparse.Namespace) -> dict[str, Any]:
    """The significance-test settings the test flags of ``args`` give (keywords of ``compare_systems``)."""
    if getattr(args, "n_resamples", None) is not None:
        check_range("--resamples", args.n_resamples, 1, MAX_RESAMPLES)
    return settings_from(vars(args))


def check_range(flag: str, value: int, low: int, high: int, also: str = "") -> int:
    """``value`` if ``low <= value <= high``, else a one-line :class:`~metrics.errors.ValidationError` that
    names the flag and the range (``also``: what else the flag takes, e.g. "; omit it for ...")."""
    from metrics.errors import ValidationError

    if not low <= value <= high:
        shown = f"an integer of {value.bit_length()} bits" if abs(value) >= 10**30 else str(value)
        raise ValidationError(f"{flag}: expected an integer from {low} to {high}{also}, found {shown}")
    return value


def convention_args(args: argparse.Namespace) -> list[str]:
    """The convention flags that reproduce ``args``."""
    return convention_argv(conventions_of(args))


def significance_args(args: argparse.Namespace) -> list[str]:
    """The test flags that reproduce ``args``."""
    return significance_argv(significance_settings_of(args))


def rank(args: argparse.Namespace, paths: list[str]):
    """Read the qrels and runs named on the command line and rank them under the convention flags."""
    from metrics.evaluate import rank_runs
    from metrics.io import read_run
    from metrics.io.readers import as_qrels

    conventions = conventions_of(args)
    return rank_runs(as_qrels(args.qrels), [read_run(path) for path in paths], conventions)


def json_scalar(value: Any) -> Any:
    """A JSON-ready scalar: numpy types unwrapped, NaN and infinities as null."""
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def json_records(frame) -> list[dict]:
    """The rows of a frame as JSON-ready dicts (:func:`json_scalar` on every cell)."""
    return [{k: json_scalar(v) for k, v in row.items()} for row in frame.to_dict("records")]


def text_table(rows: list[list[str]], left: set[int]) -> str:
    """Rows of cells as aligned text: columns in ``left`` flush left, the others right."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "".join("  ".join(c.ljust(widths[i]) if i in left else c.rjust(widths[i])
                             for i, c in enumerate(row)).rstrip() + "\n" for row in rows)


def topics_differ(err, *, dataset: bool = False):
    """A :class:`metrics.errors.MissingTopicsError` in the command line's words: it names the flag that
    makes the topics complete (``-c``), or, for a dataset already evaluated, the command that would."""
    from metrics.errors import ValidationError

    flag = next(row.flag for row in CONVENTION_FLAGS if row.field == "complete")
    how = (f"evaluate the dataset again with 'rankscope eval {flag} --output DIR'" if dataset
           else f"pass {flag} (a judged topic a run does not answer then scores 0, as with trec_eval {flag})")
    return ValidationError(f"{err.detail}; {how}")


def write_output(path: str, data: bytes) -> None:
    """``data`` written to ``path`` (``-``: standard output) by the one rule of :mod:`metrics.io.files`: whole
    or not at all, over nothing but a regular file; a line on stderr says what was written.

    Raises
    ------
    RankscopeError
        The file cannot be written, or something other than a regular file is at ``path``.
    """
    import shlex
    import sys

    from metrics.errors import RankscopeError
    from metrics.io.files import write_atomic

    if path == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return
    try:
        write_atomic(path, data)
    except OSError as err:
        raise RankscopeError(f"cannot write {path}: {err.strerror or err}") from None
    size = f"{len(data) / 1024:.0f} KB" if len(data) >= 10240 else f"{len(data)} bytes"
    print(f"wrote {shlex.quote(path)} ({size})", file=sys.stderr)
