#!/usr/bin/env python3
"""Time checking a large session file against its declaration, beside jsonschema and pydantic doing the same.

    .venv/bin/python benchmarks/document_checks.py [--topics 100000] [--repeat 3]

The file is ``session_scaling.py``'s (one review note per topic: 100,000 topics make about 7.9 MB). Each
checker gets the parsed document and the same fields: the session file's (``SESSION``) with its notes
declared in full (topic ids, at most 32 tags of 64 characters, comments of 20,000 characters). The times
are the best of ``--repeat`` calls, in CPU time, after one untimed call. A peer that is not installed is
left out (both come with the test extra's dependencies). Last, each checker's message for a comment of
30,000 characters: its length says whether the offending value is quoted whole.
"""

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Callable  # no __future__ annotations: pydantic reads the classes' annotations as written

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from session_scaling import best_time, session_file  # noqa: E402

from dashboard.exports.session import MAX_NAME, MAX_RUNS, SESSION  # noqa: E402
from metrics.checks import Field, ListOf, MapOf, Object, Text, read  # noqa: E402
from metrics.review.notes import MAX_COMMENT, MAX_NOTES, MAX_TAG, MAX_TAGS, MAX_TOPIC  # noqa: E402

NOTES = MapOf(Text(MAX_TOPIC), Object({"tags": Field(ListOf(Text(MAX_TAG), MAX_TAGS), required=False),
                                       "comment": Field(Text(MAX_COMMENT), required=False)}), MAX_NOTES)
DECLARED = Object({**SESSION.fields, "notes": NOTES}, first=SESSION.first)


def rankscope_checker() -> Callable[[Any], None]:
    return lambda document: read(document, DECLARED)


def jsonschema_checker() -> Callable[[Any], None]:
    import jsonschema

    line = {"type": "string", "maxLength": MAX_NAME, "pattern": "^[^\\x00-\\x08\\x0a-\\x1f]*$"}
    schema = {"type": "object", "additionalProperties": False, "required": ["format", "version", "loaded"],
              "properties": {
                  "format": {"const": "rankscope-session"}, "version": {"const": 1},
                  "rankscope_version": {"type": "string", "maxLength": 64}, "saved_utc": {"type": "string"},
                  "loaded": {"type": "object", "additionalProperties": False, "properties": {
                      "qrels": {"type": ["string", "null"]},
                      "runs": {"type": "array", "maxItems": MAX_RUNS, "items": {
                          "type": "object", "additionalProperties": False, "required": ["system", "file"],
                          "properties": {"system": line, "file": line}}}}},
                  "digests": {"type": "object", "additionalProperties": {"type": "string",
                                                                         "pattern": "^[0-9a-f]{64}$"}},
                  "conventions": {"type": "object"}, "view": {"type": "object", "maxProperties": 64},
                  "manifest": {"type": ["object", "null"]},
                  "notes": {"type": "object", "maxProperties": MAX_NOTES, "additionalProperties": {
                      "type": "object", "additionalProperties": False, "properties": {
                          "tags": {"type": "array", "maxItems": MAX_TAGS,
                                   "items": {"type": "string", "maxLength": MAX_TAG}},
                          "comment": {"type": "string", "maxLength": MAX_COMMENT}}}}}}
    validator = jsonschema.Draft202012Validator(schema)

    def check(document: Any) -> None:
        error = next(validator.iter_errors(document), None)
        if error is not None:
            raise ValueError(error.message)

    return check


def pydantic_checker() -> Callable[[Any], None]:
    from typing import Annotated, Literal, Optional

    from pydantic import ConfigDict, Field as Size, StringConstraints, TypeAdapter
    from typing_extensions import TypedDict

    strict = ConfigDict(extra="forbid", strict=True)
    line = Annotated[str, StringConstraints(max_length=MAX_NAME, pattern=r"^[^\x00-\x08\x0a-\x1f]*$")]

    class Run(TypedDict):
        __pydantic_config__ = strict  # type: ignore[misc]
        system: line
        file: line

    class Loaded(TypedDict):
        __pydantic_config__ = strict  # type: ignore[misc]
        qrels: Optional[str]
        runs: Annotated[list[Run], Size(max_length=MAX_RUNS)]

    class Note(TypedDict, total=False):
        __pydantic_config__ = strict  # type: ignore[misc]
        tags: Annotated[list[Annotated[str, StringConstraints(max_length=MAX_TAG)]], Size(max_length=MAX_TAGS)]
        comment: Annotated[str, StringConstraints(max_length=MAX_COMMENT)]

    class Session(TypedDict, total=False):
        __pydantic_config__ = strict  # type: ignore[misc]
        format: Literal["rankscope-session"]
        version: Literal[1]
        rankscope_version: str
        saved_utc: str
        loaded: Loaded
        digests: dict[str, Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]]
        conventions: dict
        notes: Annotated[dict[str, Note], Size(max_length=MAX_NOTES)]
        view: dict
        manifest: Optional[dict]

    return TypeAdapter(Session).validate_python


CHECKERS = {"rankscope": rankscope_checker, "jsonschema": jsonschema_checker, "pydantic": pydantic_checker}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=100_000, help="noted topics in the file")
    parser.add_argument("--repeat", type=int, default=3, help="calls per checker; the best is shown")
    args = parser.parse_args(argv)
    data = session_file(args.topics)
    document = json.loads(data)
    bad = json.loads(data)
    bad["notes"][next(iter(bad["notes"]))]["comment"] = "x" * 30_000
    print(f"{len(data) / 1e6:.2f} MB, {args.topics:,} noted topics")
    print(f"{'checker':>10} {'seconds':>8} {'s/MB':>6} {'message of a 30,000-character comment':>40}")
    for name, make in CHECKERS.items():
        try:
            check = make()
        except ImportError:
            print(f"{name:>10} {'not installed':>15}")
            continue
        seconds = best_time(document, args.repeat, check)
        try:
            check(bad)
            message = "(none)"
        except Exception as err:  # each library's own error class
            message = f"{len(str(err)):,} characters"
        print(f"{name:>10} {seconds:>8.3f} {seconds / (len(data) / 1e6):>6.3f} {message:>40}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
