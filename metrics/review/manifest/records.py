"""The manifest's records: what was read (digests), how (measures, conventions, tests) and how to redo it.

Plain frozen data. :meth:`Manifest.to_dict` / :meth:`Manifest.to_json` give the JSON every export embeds;
:meth:`Manifest.from_dict` reads it back with every field checked (it may come from a file a user
uploads); :func:`comment_lines` writes it as comment lines for LaTeX, Markdown or CSV side files.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from metrics.checks import (Boolean, Field, Integer, ListOf, MapOf, Number, Object, OneOf, Options, Pattern, Text, Tree,
                            read, refuse, shown)
from metrics.errors import Refused, ValidationError
from metrics.io.redaction import redact_all

__all__ = ["FileRecord", "Manifest", "MeasureRecord", "comment_lines"]

MAX_TEXT = 100_000
MAX_ITEMS = 10_000


@dataclass(frozen=True)
class FileRecord:
    """One input file: where it came from and the digest of its bytes.

    Attributes
    ----------
    role : {"qrels", "run"}
    name : str
        The file name (no directory).
    path : str
        The path as given (what the reproduce command uses); the file name when the bytes were given.
    sha256 : str
        Hex SHA-256 of the file's bytes, exactly as stored (a gzip file is hashed compressed).
    size : int
        Size in bytes.
    system : str or None
        The system name of a run (None for the qrels).
    ir_metadata : dict or None
        A run's ir_metadata block as read (:mod:`metrics.io.metadata`): how the run was made; None without one.
    """

    role: str
    name: str
    path: str
    sha256: str
    size: int
    system: str | None = None
    ir_metadata: dict[str, Any] | None = field(default=None, compare=False, hash=False)

    def to_dict(self) -> dict[str, Any]:
        """The record as a JSON-ready dict."""
        out = {"role": self.role, "name": self.name, "path": self.path, "sha256": self.sha256, "size": self.size}
        if self.system is not None:
            out["system"] = self.system
        if self.ir_metadata is not None:
            out["ir_metadata"] = self.ir_metadata
        return out


@dataclass(frozen=True)
class MeasureRecord:
    """One measure: its label in the tables, canonical name, trec_eval name and every parameter value.

    Attributes
    ----------
    label : str
        The column label in the results (``map``, ``nDCG@10``).
    name : str
        ``str(measure)``: the canonical ir_measures-style name with non-default parameters.
    trec_label : str or None
        What trec_eval prints for it, or None when trec_eval has no such measure.
    params : tuple of (str, object)
        Every parameter with its value, defaults included, sorted by name.
    """

    label: str
    name: str
    trec_label: str | None
    params: tuple[tuple[str, Any], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The record as a JSON-ready dict."""
        return {"label": self.label, "name": self.name, "trec_label": self.trec_label,
                "params": {k: _jsonable(v) for k, v in self.params}}


@dataclass(frozen=True)
class Manifest:
    """What produced a set of numbers, enough to recompute them.

    Attributes
    ----------
    rankscope_version : str
    created_utc : str
        ISO 8601 time in UTC, e.g. ``2025-01-31T12:00:00Z``.
    qrels : FileRecord
    runs : tuple of FileRecord
        In the order the systems were given.
    measures : tuple of MeasureRecord
    conventions : tuple of (str, object)
        :meth:`Conventions.as_dict` as sorted items.
    seeds : tuple of (str, int)
        The random seeds used (e.g. by randomisation or bootstrap tests), by what used them.
    tests : tuple of (str, object)
        The significance-test settings (test, correction, alpha, baseline, ...); empty when none ran.
    eval_command : str
        The ``rankscope eval`` command line (shell-quoted) that prints the per-query and mean values.
    compare_commands : tuple of str
        The ``rankscope compare`` command lines that recompute the significance tests (empty when none).
    invocation : tuple of str
        The command line that produced the artefact this manifest describes, as given (may be empty).
    caveats : tuple of str
        Anything the commands cannot reproduce exactly, in words (empty when they reproduce everything).
    """

    rankscope_version: str
    created_utc: str
    qrels: FileRecord
    runs: tuple[FileRecord, ...]
    measures: tuple[MeasureRecord, ...]
    conventions: tuple[tuple[str, Any], ...]
    eval_command: str
    seeds: tuple[tuple[str, int], ...] = ()
    tests: tuple[tuple[str, Any], ...] = ()
    compare_commands: tuple[str, ...] = ()
    invocation: tuple[str, ...] = ()
    caveats: tuple[str, ...] = field(default=())

    @property
    def systems(self) -> tuple[str, ...]:
        """The system names, in order."""
        return tuple(r.system or r.name for r in self.runs)

    def reproduce_command(self, kind: str = "eval") -> str:
        """The shell command that recomputes the numbers.

        Parameters
        ----------
        kind : {"eval", "compare", "all"}, default="eval"
            ``eval``: the ``rankscope eval`` line (per-query values and means, CSV); ``compare``: the first
            ``rankscope compare`` line (the significance tests; raises when no test was run); ``all``:
            every line, one per line.

        Returns
        -------
        str
        """
        if kind == "eval":
            return self.eval_command
        if kind == "compare":
            if not self.compare_commands:
                raise ValidationError("no significance test was run, so there is no compare command")
            return self.compare_commands[0]
        if kind == "all":
            return "\n".join((self.eval_command, *self.compare_commands))
        raise refuse("kind", "one of 'eval', 'compare', 'all'", kind)

    def to_dict(self) -> dict[str, Any]:
        """The manifest as a JSON-ready dict (key order fixed)."""
        return {
            "rankscope_version": self.rankscope_version,
            "created_utc": self.created_utc,
            "qrels": self.qrels.to_dict(),
            "runs": [r.to_dict() for r in self.runs],
            "measures": [m.to_dict() for m in self.measures],
            "conventions": {k: _jsonable(v) for k, v in self.conventions},
            "seeds": {k: v for k, v in self.seeds},
            "tests": {k: _jsonable(v) for k, v in self.tests},
            "commands": {"eval": self.eval_command, "compare": list(self.compare_commands)},
            "invocation": shlex.join(self.invocation) if self.invocation else None,
            "caveats": list(self.caveats),
        }

    def to_json(self, indent: int | None = 2) -> str:
        """The manifest as JSON text (UTF-8 safe, no NaN)."""
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False, allow_nan=False)

    @classmethod
    def from_dict(cls, document: Mapping[str, Any]) -> Manifest:
        """Read back :meth:`to_dict`'s JSON, checking every field.

        Parameters
        ----------
        document : mapping
            As :meth:`to_dict` returns (e.g. parsed from a report or a session file).

        Returns
        -------
        Manifest

        Raises
        ------
        Refused
            A missing, unknown or mistyped field, text that is too long, a digest that is not SHA-256 hex:
            ``"manifest.<path>: expected ..., found ..."`` (the fields are declared in :data:`MANIFEST`).
        """
        d = read(document, MANIFEST, at="manifest")
        measures = tuple(MeasureRecord(label=m["label"], name=m["name"], trec_label=m.get("trec_label"),
                                       params=tuple(sorted(m["params"].items()))) for m in d["measures"])
        invocation = d.get("invocation")
        try:
            argv = tuple(shlex.split(invocation)) if invocation else ()
        except ValueError as err:
            raise Refused("manifest.invocation", "a shell command line", f"{shown(invocation)} ({err})") from None
        return cls(
            rankscope_version=d["rankscope_version"], created_utc=d["created_utc"], qrels=_file(d["qrels"]),
            runs=tuple(_file(r) for r in d["runs"]), measures=measures,
            conventions=tuple(sorted(d["conventions"].items())), eval_command=d["commands"]["eval"],
            seeds=tuple(d["seeds"].items()), tests=tuple(d["tests"].items()),
            compare_commands=tuple(d["commands"].get("compare", [])), invocation=tuple(redact_all(argv)),
            caveats=tuple(d.get("caveats", [])))


def comment_lines(manifest: Manifest | Mapping[str, Any], prefix: str = "# ") -> str:
    """The manifest as comment lines: a heading, then its JSON, every line starting with ``prefix``.

    Parameters
    ----------
    manifest : Manifest or mapping
        A mapping is checked with :meth:`Manifest.from_dict` first.
    prefix : str, default="# "
        ``"% "`` for LaTeX; ``""`` inside an HTML or Markdown comment.

    Returns
    -------
    str
        Ends with a newline. JSON escapes every control character, so no line of user text can end the
        comment early.

    Examples
    --------
    >>> from metrics.review.manifest import build_manifest
    >>> m = build_manifest(b"1 0 a 1\\n", {"x": b"1 Q0 a 1 1.0 x\\n"}, ["AP"], qrels_name="q.txt")
    >>> comment_lines(m, "% ").splitlines()[0]
    '% rankscope manifest: SHA-256 of the inputs and the commands that reproduce these numbers'
    """
    if not isinstance(manifest, Manifest):
        if not isinstance(manifest, Mapping):
            raise refuse("manifest", "a Manifest or a mapping", manifest)
        manifest = Manifest.from_dict(manifest)
    if not isinstance(prefix, str) or any(c in prefix for c in "\r\n"):
        raise refuse("prefix", "one line of text", prefix)
    lines = ["rankscope manifest: SHA-256 of the inputs and the commands that reproduce these numbers",
             *manifest.to_json(indent=1).splitlines()]
    return "".join(prefix + line + "\n" for line in lines)


# ---- the declaration of a manifest's JSON --------------------------------------------------------------

_TEXT = Text(MAX_TEXT)
_SCALAR = OneOf(_TEXT, Integer(), Number(), Boolean(), none=True)
_VALUE = OneOf(_TEXT, Integer(), Number(), Boolean(), ListOf(_SCALAR, MAX_ITEMS), none=True,
               what="text, a number, true or false, or a list of them")
_SETTINGS = MapOf(_TEXT, _VALUE, MAX_ITEMS)
_FILE = Object({
    "role": Options("qrels", "run"), "name": _TEXT, "path": _TEXT,
    "sha256": Pattern(r"[0-9a-f]{64}", "a SHA-256 in lower-case hex"), "size": Integer(0),
    "system": Field(Text(MAX_TEXT, none=True), required=False),
    "ir_metadata": Field(Tree(MAX_ITEMS, 32, _TEXT, none=True), required=False),
}, what="a file's record (role, name, path, sha256, size)")
MANIFEST = Object({
    "rankscope_version": _TEXT, "created_utc": _TEXT, "qrels": _FILE, "runs": ListOf(_FILE, MAX_ITEMS),
    "measures": ListOf(Object({"label": _TEXT, "name": _TEXT, "trec_label": Field(Text(MAX_TEXT, none=True),
                                                                                  required=False),
                               "params": _SETTINGS}), MAX_ITEMS),
    "conventions": _SETTINGS, "seeds": MapOf(_TEXT, Integer(), MAX_ITEMS), "tests": _SETTINGS,
    "commands": Object({"eval": _TEXT, "compare": Field(ListOf(_TEXT, MAX_ITEMS), required=False)}),
    "invocation": Field(Text(MAX_TEXT, none=True), required=False),
    "caveats": Field(ListOf(_TEXT, MAX_ITEMS), required=False),
}, what="a manifest (a mapping)")
"""The fields of a manifest's JSON (:meth:`Manifest.to_dict`), declared once: :meth:`Manifest.from_dict` reads
against it."""


def _file(f: dict[str, Any]) -> FileRecord:
    return FileRecord(role=f["role"], name=f["name"], path=f["path"], sha256=f["sha256"], size=f["size"],
                      system=f.get("system"), ir_metadata=f.get("ir_metadata"))


def _jsonable(value: Any) -> Any:
    """Plain JSON values: tuples become lists, numpy scalars plain numbers."""
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        return value.item()
    if isinstance(value, Iterable) and not isinstance(value, (str, bytes)):
        return [_jsonable(v) for v in value]
    return value
