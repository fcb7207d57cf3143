"""The manifest's records: what was read (digests), how (measures, conventions, tests) and how to redo it.

Plain frozen data. :meth:`Manifest.to_dict` / :meth:`Manifest.to_json` give the JSON every export embeds;
:meth:`Manifest.from_dict` reads it back with every field checked (it may come from a file a user
uploads); :func:`comment_lines` writes it as comment lines for LaTeX, Markdown or CSV side files.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from metrics.errors import ValidationError
from metrics.io.redaction import redact_all

__all__ = ["FileRecord", "Manifest", "MeasureRecord", "comment_lines"]

_SHA256 = re.compile(r"[0-9a-f]{64}\Z")
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
        raise ValidationError(f"kind must be 'eval', 'compare' or 'all', got {kind!r}")

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
        ValidationError
            A missing, unknown or mistyped field, text that is too long, a digest that is not SHA-256 hex;
            the message names the field.
        """
        d = _object(document, "manifest", _KEYS, _KEYS - {"invocation", "caveats"})
        qrels = _file(d["qrels"], "qrels")
        runs = tuple(_file(r, f"runs[{i}]") for i, r in enumerate(_list(d["runs"], "runs")))
        measures = []
        for i, item in enumerate(_list(d["measures"], "measures")):
            where = f"measures[{i}]"
            m = _object(item, where, {"label", "name", "trec_label", "params"}, {"label", "name", "params"})
            params = _object(m["params"], f"{where}.params")
            measures.append(MeasureRecord(
                label=_text(m["label"], f"{where}.label"), name=_text(m["name"], f"{where}.name"),
                trec_label=_text(m.get("trec_label"), f"{where}.trec_label", none=True),
                params=tuple(sorted((str(k), _value(v, f"{where}.params.{k}")) for k, v in params.items()))))
        seeds = []
        for key, value in _object(d["seeds"], "seeds").items():
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValidationError(f"manifest: 'seeds.{key}' must be an integer")
            seeds.append((str(key), value))
        commands = _object(d["commands"], "commands", {"eval", "compare"}, {"eval"})
        invocation = _text(d.get("invocation"), "invocation", none=True)
        try:
            argv = tuple(shlex.split(invocation)) if invocation else ()
        except ValueError as err:
            raise ValidationError(f"manifest: 'invocation' is not a command line ({err})") from None
        return cls(
            rankscope_version=_text(d["rankscope_version"], "rankscope_version"),
            created_utc=_text(d["created_utc"], "created_utc"), qrels=qrels, runs=runs, measures=tuple(measures),
            conventions=tuple(sorted((str(k), _value(v, f"conventions.{k}"))
                                     for k, v in _object(d["conventions"], "conventions").items())),
            eval_command=_text(commands["eval"], "commands.eval"), seeds=tuple(seeds),
            tests=tuple((str(k), _value(v, f"tests.{k}")) for k, v in _object(d["tests"], "tests").items()),
            compare_commands=tuple(_text(c, f"commands.compare[{i}]")
                                   for i, c in enumerate(_list(commands.get("compare", []), "commands.compare"))),
            invocation=tuple(redact_all(argv)),
            caveats=tuple(_text(c, f"caveats[{i}]") for i, c in enumerate(_list(d.get("caveats", []), "caveats"))))


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
            raise ValidationError(f"expected a Manifest or a mapping, got {type(manifest).__name__}")
        manifest = Manifest.from_dict(manifest)
    if not isinstance(prefix, str) or any(c in prefix for c in "\r\n"):
        raise ValidationError("the comment prefix must be text on one line")
    lines = ["rankscope manifest: SHA-256 of the inputs and the commands that reproduce these numbers",
             *manifest.to_json(indent=1).splitlines()]
    return "".join(prefix + line + "\n" for line in lines)


# ---- checks ---------------------------------------------------------------------------------------------

_KEYS = {"rankscope_version", "created_utc", "qrels", "runs", "measures", "conventions", "seeds", "tests",
         "commands", "invocation", "caveats"}


def _object(value: Any, where: str, allowed: set[str] | None = None, required: set[str] = frozenset()) -> dict:
    if not isinstance(value, Mapping):
        raise ValidationError(f"manifest: '{where}' must be an object, got {type(value).__name__}")
    missing = sorted(required - set(value))
    unknown = sorted(set(value) - allowed) if allowed is not None else []
    if missing or unknown:
        raise ValidationError(f"manifest: '{where}' " + "; ".join(
            ([f"is missing {missing}"] if missing else []) + ([f"has unknown field(s) {unknown}"] if unknown else [])))
    if len(value) > MAX_ITEMS:
        raise ValidationError(f"manifest: '{where}' has more than {MAX_ITEMS} entries")
    return dict(value)


def _list(value: Any, where: str) -> list:
    if not isinstance(value, (list, tuple)):
        raise ValidationError(f"manifest: '{where}' must be a list, got {type(value).__name__}")
    if len(value) > MAX_ITEMS:
        raise ValidationError(f"manifest: '{where}' has more than {MAX_ITEMS} items")
    return list(value)


def _text(value: Any, where: str, none: bool = False) -> str | None:
    if value is None and none:
        return None
    if not isinstance(value, str):
        raise ValidationError(f"manifest: '{where}' must be text, got {type(value).__name__}")
    if len(value) > MAX_TEXT:
        raise ValidationError(f"manifest: '{where}' is longer than {MAX_TEXT} characters")
    return value


def _value(value: Any, where: str, depth: int = 0) -> Any:
    """A JSON scalar, or a list of them (one level deep), as a parameter or setting may be."""
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, str):
        return _text(value, where)
    if isinstance(value, (list, tuple)) and depth == 0:
        return [_value(v, f"{where}[{i}]", 1) for i, v in enumerate(_list(value, where))]
    raise ValidationError(f"manifest: '{where}' must be text, a number, true/false, null or a list of them")


def _file(value: Any, where: str) -> FileRecord:
    f = _object(value, where, {"role", "name", "path", "sha256", "size", "system", "ir_metadata"},
                {"role", "name", "path", "sha256", "size"})
    if f["role"] not in ("qrels", "run"):
        raise ValidationError(f"manifest: '{where}.role' must be 'qrels' or 'run'")
    if not isinstance(f["sha256"], str) or not _SHA256.match(f["sha256"]):
        raise ValidationError(f"manifest: '{where}.sha256' must be a SHA-256 in lower-case hex")
    if isinstance(f["size"], bool) or not isinstance(f["size"], int) or f["size"] < 0:
        raise ValidationError(f"manifest: '{where}.size' must be a non-negative integer")
    return FileRecord(role=f["role"], name=_text(f["name"], f"{where}.name"), path=_text(f["path"], f"{where}.path"),
                      sha256=f["sha256"], size=f["size"], system=_text(f.get("system"), f"{where}.system", none=True),
                      ir_metadata=_metadata(f.get("ir_metadata"), f"{where}.ir_metadata"))


def _metadata(value: Any, where: str) -> dict[str, Any] | None:
    """A run's ir_metadata as JSON: a mapping of text keys to text, numbers, true/false, null, lists and
    mappings, at most ``MAX_ITEMS`` values in all and 32 levels deep (walked without recursion)."""
    if value is None:
        return None
    _object(value, where)
    count, stack = 0, [(value, where, 0)]
    while stack:
        item, at, depth = stack.pop()
        count += 1
        if count > MAX_ITEMS or depth > 32:
            raise ValidationError(f"manifest: '{where}' is larger than {MAX_ITEMS} values or 32 levels")
        if isinstance(item, Mapping):
            stack.extend((v, f"{at}.{k}", depth + 1) for k, v in _object(item, at).items())
        elif isinstance(item, list):
            stack.extend((v, f"{at}[{i}]", depth + 1) for i, v in enumerate(item))
        elif isinstance(item, str):
            _text(item, at)
        elif item is not None and not isinstance(item, (bool, int, float)):
            raise ValidationError(f"manifest: '{at}' must be text, a number, true/false, null, a list or a mapping")
    return dict(value)



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
