"""``rankscope check``: the claims of an expectations file, checked against its runs and qrels, for CI.

The file is YAML, read with PyYAML's ``safe_load`` (plain data only: no tag builds an object) and, for the
line of each part, its ``compose`` with the safe loader (nodes only); :mod:`metrics.review.claims` checks the
plain data, evaluates the runs through :func:`metrics.evaluate` and checks each claim.
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
from typing import Any

from metrics.review.claims.kinds import FAILS, HOLDS, UNCHECKABLE

__all__ = ["EXIT_CODES", "MAX_BYTES", "load_yaml", "parse_yaml", "register", "run"]

MAX_BYTES = 1 << 20
"""The largest expectations file read (1 MiB: tens of thousands of claims)."""

EXIT_CODES = ((0, f"every claim {HOLDS}"),
              (1, f"a claim {FAILS} or {UNCHECKABLE} (a system or measure missing): a check that did not run "
                  "is not a pass"),
              (2, "bad input: the file, a path it names, a run or the qrels cannot be read"))
"""The exit statuses, for the help text and the documentation."""

HELP = "check the claims of an expectations file (regression checks for CI)"
DESCRIPTION = ("Evaluate the runs an expectations file names against its qrels (paths relative to the file) and "
               "check each of its claims: an expected value with a tolerance (value, tolerance), a bound "
               "(at_least, at_most), one system better than another, optionally significantly (better, than, "
               "test, correction, alpha), or a rank (rank_at_most). Prints one line per claim: its status, the "
               "claim in words and the numbers behind it.")


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "check", help=HELP, description=DESCRIPTION,
        epilog="exit status: " + "; ".join(f"{code} when {text}" for code, text in EXIT_CODES))
    p.error = lambda message: p.exit(2, f"rankscope check: {message}\n")  # one line, no usage block
    p.add_argument("expectations", metavar="EXPECTATIONS.yaml",
                   help="the expectations file: qrels, runs, optional conventions, and the claims under expect")
    p.add_argument("--junit", metavar="FILE",
                   help="also write the results as JUnit XML (one test case per claim) to FILE, for a CI system")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from metrics.errors import ParseError
    from metrics.evaluate import evaluate
    from metrics.io import read_run
    from metrics.io.readers import as_qrels
    from rankscope.datasets import qrels_of
    from metrics.review.claims import check_claims, junit_xml, read_expectations
    from rankscope.commands import write_output

    data, lines = load_yaml(args.expectations)
    spec = read_expectations(data, source=args.expectations, base=os.path.dirname(args.expectations),
                             lines=lines)
    for part, path in [("qrels", spec.qrels)] + [(f"runs.{name}", path) for name, path in spec.runs]:
        if "://" not in path and not path.startswith("irds:") and not os.path.isfile(path):
            line = lines.get(part, lines.get("runs"))
            raise ParseError(spec.source, line, f"{part}: expected a file, found no file at {path}")
    qrels = as_qrels(qrels_of(spec.qrels))  # read here, by path (or ir_datasets id), so that an error names it
    runs = {name: read_run(path).renamed(name) for name, path in spec.runs}
    per_query = evaluate(qrels, runs, spec.measures, conventions=spec.conventions)
    results = check_claims(per_query, spec.claims)
    out = sys.stdout
    for result in results:
        out.write(result.line() + "\n")
    counts = {status: sum(r.status == status for r in results) for status in (HOLDS, FAILS, UNCHECKABLE)}
    out.write(f"{len(results)} claim{'s' if len(results) != 1 else ''}: " + ", ".join((
        f"{counts[HOLDS]} held", f"{counts[FAILS]} failed", f"{counts[UNCHECKABLE]} could not be checked")) + "\n")
    out.flush()
    if args.junit is not None:
        write_output(args.junit, junit_xml(results, suite=spec.name, lines=spec.lines, source=spec.source))
    return 0 if counts[HOLDS] == len(results) else 1


def load_yaml(path: str) -> tuple[Any, dict[str, int]]:
    """The plain data of a YAML file and the line of each part an expectations file names.

    Returns
    -------
    data : object
        ``yaml.safe_load``'s result.
    lines : dict
        1-based lines by part: ``"qrels"``, ``"runs"``, ``"runs.NAME"``, ``"expect"``, ``"expect.0"``, ...

    Raises
    ------
    ParseError
        No such file, not a regular file, larger than :data:`MAX_BYTES`, not UTF-8, not YAML, or a key given
        twice in one mapping (YAML would keep the last silently).
    """
    from metrics.errors import ParseError

    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # a FIFO or a device is never opened: it could block
            raise ParseError(path, None, "expected a regular file, found something else at that path")
        with open(path, "rb") as f:
            raw = f.read(MAX_BYTES + 1)
    except OSError as err:
        raise ParseError(path, None, f"expected a readable file, found {err.strerror or err}") from None
    if len(raw) > MAX_BYTES:
        raise ParseError(path, None, f"expected at most {MAX_BYTES} bytes, found more")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw[:err.start].count(b"\n") + 1
        raise ParseError(path, line, f"expected UTF-8 text, found the byte 0x{raw[err.start]:02x}") from None
    return parse_yaml(text, path)


def parse_yaml(text: str, path: str) -> tuple[Any, dict[str, int]]:
    """:func:`load_yaml` of a text already read; ``path`` names it in messages."""
    import yaml

    from metrics.errors import ParseError

    try:
        data = yaml.safe_load(text)
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        raise ParseError(path, mark.line + 1 if mark else None,
                         f"expected YAML, found an error: {err.problem or err.context}") from None
    except yaml.YAMLError as err:
        raise ParseError(path, None, f"expected YAML, found an error: {err}") from None
    except RecursionError:
        raise ParseError(path, None, "expected YAML, found lists or mappings nested too deep") from None
    return data, _lines(path, node)


def _lines(path: str, node) -> dict[str, int]:
    """The line of each part the schema names, from the composed nodes (top level, runs, each claim)."""
    import yaml

    lines: dict[str, int] = {}
    if not isinstance(node, yaml.MappingNode):
        return lines
    for key, value in _pairs(path, node, ""):
        lines[key] = value.start_mark.line + 1
        if key == "runs" and isinstance(value, yaml.MappingNode):
            for name, run in _pairs(path, value, "runs"):
                lines[f"runs.{name}"] = run.start_mark.line + 1
        elif key == "conventions" and isinstance(value, yaml.MappingNode):
            _pairs(path, value, "conventions")
        elif key == "expect" and isinstance(value, yaml.SequenceNode):
            for i, entry in enumerate(value.value):
                lines[f"expect.{i}"] = entry.start_mark.line + 1
                if isinstance(entry, yaml.MappingNode):
                    _pairs(path, entry, f"expect[{i}]")
    return lines


def _pairs(path: str, node, part: str) -> list[tuple[str, Any]]:
    """A mapping node's (key text, value node) pairs; a key given twice is a one-line error."""
    from metrics.errors import ParseError

    seen: set[str] = set()
    pairs = []
    for key, value in node.value:
        text = str(key.value)
        if text in seen:
            where = f"{part}: " if part else ""
            raise ParseError(path, key.start_mark.line + 1, f"{where}expected each key once, found {text!r} twice")
        seen.add(text)
        pairs.append((text, value))
    return pairs
