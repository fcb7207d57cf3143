"""Session files: what a session had loaded, under which conventions, its review notes, view and manifest.

A session file holds names and digests of the loaded files, never the files: it is small, and loading it
back expects the same files (the digests say whether they are). It is JSON, read with the care of any
other upload (:func:`session_from_json`): a size limit, strict UTF-8, no duplicate keys, no NaN, no number
longer than :data:`MAX_NUMBER_CHARS` characters, every field checked for type, length and the range its
widget accepts, unknown fields refused, and nothing evaluated or unpickled. Reading is linear in the size
of the file.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from metrics import Conventions, ValidationError
from metrics.conventions import DEPTHS, RELEVANCE_LEVELS
from metrics.review.manifest import Manifest
from metrics.review.notes import normalise_notes

__all__ = ["MAX_NUMBER_CHARS", "MAX_SESSION_BYTES", "SESSION_FORMAT", "SESSION_VERSION", "Session", "session_from_json",
           "session_to_json"]

SESSION_FORMAT = "rankscope-session"
SESSION_VERSION = 1
MAX_SESSION_BYTES = 8 * 1024 * 1024
MAX_NAME = 256
MAX_RUNS = 1000
MAX_VIEW_KEYS = 64
MAX_VIEW_TEXT = 1000
MAX_VIEW_LIST = 1000
MAX_CONVENTION_TEXT = 64
MAX_NUMBER_CHARS = 64
"""The longest number a session file may hold, in characters: longer ones are refused before conversion."""
_SHA256 = re.compile(r"[0-9a-f]{64}\Z")
_VIEW_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,63}\Z")
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f]")


@dataclass(frozen=True)
class Session:
    """A session file read back: what was loaded, under which conventions, the notes and the view.

    Attributes
    ----------
    qrels : str or None
        The qrels file name.
    runs : tuple of (str, str)
        ``(system name, file name)`` in order.
    digests : dict
        ``{"qrels" or system name: SHA-256}`` where the file recorded them (to check the same files are
        loaded again).
    conventions : Conventions
    notes : dict
        As :func:`metrics.review.notes.normalise_notes` returns.
    view : dict
        ``{key: str | int | float | bool | None | list of str}``.
    saved_utc : str
    rankscope_version : str
    manifest : Manifest or None
        The manifest of the numbers the session showed, when it was saved with one.
    """

    qrels: str | None
    runs: tuple[tuple[str, str], ...]
    conventions: Conventions
    notes: dict = field(default_factory=dict)
    view: dict = field(default_factory=dict)
    digests: dict = field(default_factory=dict)
    saved_utc: str = ""
    rankscope_version: str = ""
    manifest: Manifest | None = None

    @property
    def systems(self) -> tuple[str, ...]:
        """The system names, in order."""
        return tuple(name for name, _ in self.runs)


def session_to_json(loaded_names: Mapping[str, str] | Sequence[str], conventions: Conventions | None = None,
                    notes: Mapping[str, Any] | None = None, view: Mapping[str, Any] | None = None, *,
                    qrels_name: str | None = None, digests: Mapping[str, str] | None = None,
                    manifest: Manifest | Mapping[str, Any] | None = None) -> bytes:
    """A session as a JSON file: names (and digests) of the loaded files, conventions, notes, view, manifest.

    The files themselves are not included: a session file is small, and reloading it expects the same
    files (the digests say whether they are).

    Parameters
    ----------
    loaded_names : mapping of str to str, or sequence of str
        ``{system name: file name}`` of the loaded runs, or just the system names.
    conventions : Conventions, optional
        Default ``Conventions()``.
    notes : mapping, optional
        Review notes (see :func:`metrics.review.notes.normalise_notes`).
    view : mapping, optional
        The view: page, measure, topic, selected systems... (text, numbers, booleans, lists of text).
    qrels_name : str, optional
    digests : mapping of str to str, optional
        ``{"qrels" or system name: SHA-256 hex}`` (default: from ``manifest``, for the loaded systems).
    manifest : Manifest or mapping, optional
        The evaluation manifest (:func:`metrics.review.manifest.build_manifest`), stored as its JSON.

    Returns
    -------
    bytes
        UTF-8 JSON; :func:`session_from_json` reads it back.

    Raises
    ------
    ValidationError
        When an argument would not pass :func:`session_from_json`.
    """
    conventions = Conventions.coerce(conventions)
    if isinstance(loaded_names, Mapping):
        runs = [{"system": s, "file": f} for s, f in loaded_names.items()]
    elif isinstance(loaded_names, Sequence) and not isinstance(loaded_names, (str, bytes)):
        runs = [{"system": s, "file": s} for s in loaded_names]
    else:
        raise ValidationError("loaded_names must be a mapping {system: file name} or a list of system names")
    if manifest is not None and not isinstance(manifest, Manifest):
        manifest = Manifest.from_dict(manifest) if isinstance(manifest, Mapping) else None
        if manifest is None:
            raise ValidationError("manifest must be a Manifest or its to_dict() mapping")
    if digests is None and manifest is not None:
        systems = {str(r["system"]) for r in runs}
        digests = {"qrels": manifest.qrels.sha256,
                   **{r.system: r.sha256 for r in manifest.runs if r.system in systems}}
    document = {
        "format": SESSION_FORMAT,
        "version": SESSION_VERSION,
        "rankscope_version": _version(),
        "saved_utc": datetime.now(timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z"),
        "loaded": {"qrels": qrels_name, "runs": runs},
        "digests": dict(digests or {}),
        "conventions": conventions.as_dict(),
        "notes": normalise_notes(notes),
        "view": dict(view or {}),
        "manifest": None if manifest is None else manifest.to_dict(),
    }
    try:
        data = json.dumps(document, ensure_ascii=False, allow_nan=False, indent=1).encode("utf-8")
    except (TypeError, ValueError) as err:
        raise ValidationError(f"the session cannot be saved as JSON: {err}") from None
    session_from_json(data)  # what is written must read back
    return data


def session_from_json(data: bytes | str) -> Session:
    """Read a session file written by :func:`session_to_json`, checking every field.

    Parameters
    ----------
    data : bytes or str

    Returns
    -------
    Session

    Raises
    ------
    ValidationError
        Not JSON, too large, another format or version, a missing, unknown or mistyped field, text too
        long, duplicate keys, NaN or infinite numbers. The message names the field. Nothing in the file is
        ever executed or unpickled.
    """
    if isinstance(data, str):
        data = data.encode("utf-8")
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise ValidationError(f"a session file is bytes or text, got {type(data).__name__}")
    data = bytes(data)
    if len(data) > MAX_SESSION_BYTES:
        raise ValidationError(f"not a session file: {len(data)} bytes, the limit is {MAX_SESSION_BYTES}")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise ValidationError(f"not a session file: not UTF-8 text ({err.reason} at byte {err.start})") from None

    try:
        document = json.loads(text, parse_constant=_no_constant, parse_int=_integer, parse_float=_float,
                              object_pairs_hook=_unique)
    except json.JSONDecodeError as err:
        raise ValidationError(f"not a session file: invalid JSON at line {err.lineno}, column {err.colno}: "
                              f"{err.msg}") from None
    except _BadNumber as err:
        raise ValidationError(f"not a session file: {_where(text, err.token)}{err}") from None
    except RecursionError:
        raise ValidationError("not a session file: nested too deeply") from None
    return _check_session(document, len(data))


class _BadNumber(Exception):
    """A JSON number refused while parsing (the parser does not say where; :func:`_where` finds it)."""

    def __init__(self, token: str, message: str) -> None:
        super().__init__(message)
        self.token = token


def _no_constant(name: str):
    raise _BadNumber(name, f"expected a finite number, found {name}")


def _integer(token: str) -> int:
    if len(token) > MAX_NUMBER_CHARS:
        raise _BadNumber(token, f"expected a number of at most {MAX_NUMBER_CHARS} characters, found one of "
                                f"{len(token)}")
    return int(token)


def _float(token: str) -> float:
    if len(token) > MAX_NUMBER_CHARS:
        raise _BadNumber(token, f"expected a number of at most {MAX_NUMBER_CHARS} characters, found one of "
                                f"{len(token)}")
    value = float(token)
    if not math.isfinite(value):
        raise _BadNumber(token, f"expected a finite number, found {token}")
    return value


def _where(text: str, token: str) -> str:
    """``line L, column C: `` of the first occurrence of ``token`` as a JSON value in ``text`` (empty when not
    found)."""
    found = re.search(r"(?:^|(?<=[\[:,\s]))" + re.escape(token) + r"(?=[\s,\]}]|\Z)", text)
    if found is None:
        return ""
    at = found.start()
    line = text.count("\n", 0, at) + 1
    column = at - text.rfind("\n", 0, at)
    return f"line {line}, column {column}: "


def _unique(pairs: list) -> dict:
    """A JSON object as a dict, refusing a key that appears twice (in linear time)."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set = set()
        dupes = sorted({k for k, _ in pairs if k in seen or seen.add(k)})
        raise ValidationError(f"not a session file: duplicate key(s) {_names(dupes)}")
    return out


def _version() -> str:
    from metrics import __version__

    return __version__


_REQUIRED = {"format", "version", "rankscope_version", "saved_utc", "loaded", "digests", "conventions", "notes",
             "view"}
_TOP = _REQUIRED | {"manifest"}


def _check_session(document: Any, size: int) -> Session:
    if not isinstance(document, dict):
        raise ValidationError("not a session file: expected a JSON object at the top level")
    if document.get("format") != SESSION_FORMAT:
        raise ValidationError(f"not a session file: 'format' must be {SESSION_FORMAT!r}, "
                              f"got {str(document.get('format'))[:40]!r}")
    version = document.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version != SESSION_VERSION:
        raise ValidationError(f"session file version {_shown(version)} is not supported (this rankscope reads "
                              f"version {SESSION_VERSION})")
    missing = sorted(_REQUIRED - set(document))
    unknown = sorted(set(document) - _TOP)
    if missing or unknown:
        problems = ([f"missing field(s) {missing}"] if missing else []) + \
            ([f"unknown field(s) {_names(unknown)}"] if unknown else [])
        raise ValidationError("; ".join(problems))
    rankscope_version = _text(document["rankscope_version"], "rankscope_version", 64)
    saved = _text(document["saved_utc"], "saved_utc", 64)
    loaded = document["loaded"]
    if not isinstance(loaded, dict) or set(loaded) != {"qrels", "runs"}:
        raise ValidationError("'loaded' must be an object with exactly 'qrels' and 'runs'")
    qrels = None if loaded["qrels"] is None else _text(loaded["qrels"], "loaded.qrels", MAX_NAME, empty=False)
    runs_in = loaded["runs"]
    if not isinstance(runs_in, list):
        raise ValidationError("'loaded.runs' must be a list")
    if len(runs_in) > MAX_RUNS:
        raise ValidationError(f"at most {MAX_RUNS} runs, got {len(runs_in)}")
    runs: list[tuple[str, str]] = []
    for i, run in enumerate(runs_in):
        if not isinstance(run, dict) or set(run) != {"system", "file"}:
            raise ValidationError(f"loaded.runs[{i}] must be an object with exactly 'system' and 'file'")
        runs.append((_text(run["system"], f"loaded.runs[{i}].system", MAX_NAME, empty=False),
                     _text(run["file"], f"loaded.runs[{i}].file", MAX_NAME, empty=False)))
    systems = {s for s, _ in runs}
    if len(systems) != len(runs):
        seen: set = set()
        dupes = sorted({s for s, _ in runs if s in seen or seen.add(s)})
        raise ValidationError(f"system name(s) {_names(dupes)} appear twice in loaded.runs")
    digests_in = document["digests"]
    if not isinstance(digests_in, dict):
        raise ValidationError("'digests' must be an object {name: sha256}")
    digests = {}
    for key, value in digests_in.items():
        if key != "qrels" and key not in systems:
            raise ValidationError(f"digests names {key[:40]!r}, which is neither 'qrels' nor a "
                                  "loaded system")
        if not isinstance(value, str) or not _SHA256.match(value):
            raise ValidationError(f"digests[{key[:40]!r}] must be a SHA-256 in lower-case hex")
        digests[key] = value
    conventions = _conventions(document["conventions"])
    notes = normalise_notes(_object(document["notes"], "notes"))
    view = _view(document["view"])
    manifest = None
    if document.get("manifest") is not None:
        manifest = Manifest.from_dict(_object(document["manifest"], "manifest"))
    return Session(qrels=qrels, runs=tuple(runs), conventions=conventions, notes=notes, view=view,
                   digests=digests, saved_utc=saved, rankscope_version=rankscope_version, manifest=manifest)


def _object(value: Any, where: str) -> dict:
    if not isinstance(value, dict):
        raise ValidationError(f"'{where}' must be an object, got {_json_type(value)}")
    return value


def _json_type(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "text", bool: "true/false", int: "an integer",
            float: "a decimal number", type(None): "null"}.get(type(value), type(value).__name__)


def _text(value: Any, where: str, limit: int, empty: bool = True) -> str:
    if not isinstance(value, str):
        raise ValidationError(f"'{where}' must be text, got {_json_type(value)}")
    if len(value) > limit:
        raise ValidationError(f"'{where}' is longer than {limit} characters")
    if not empty and not value.strip():
        raise ValidationError(f"'{where}' must not be empty")
    if _CONTROL.search(value):
        raise ValidationError(f"'{where}' contains control characters")
    return value


_LEVELS = "an integer from {} to {}".format(*RELEVANCE_LEVELS)
_DEPTHS = "an integer from {} to {} or null".format(*DEPTHS)
_CONVENTION_TYPES = {"preset": ((str,), "text"), "relevance_level": ((int,), _LEVELS),
                     "depth": ((int, type(None)), _DEPTHS), "judged_only": ((bool,), "true or false"),
                     "complete": ((bool,), "true or false"), "score_dtype": ((str, type(None)), "text or null"),
                     "interpolation": ((str, type(None)), "text or null")}


def _shown(value: Any) -> str:
    """A value as at most 40 characters of Python text, for a message."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _names(keys: list) -> list[str]:
    """At most five names, each cut to 40 characters, for a message."""
    return [str(k)[:40] for k in keys[:5]] + (["..."] if len(keys) > 5 else [])


def _conventions(value: Any) -> Conventions:
    value = _object(value, "conventions")
    fields = set(Conventions.__dataclass_fields__)
    unknown = sorted(set(value) - fields)
    if unknown:
        raise ValidationError(f"unknown convention(s) {_names(unknown)}; known: {sorted(fields)}")
    for key, item in value.items():
        allowed, expected = _CONVENTION_TYPES[key]
        if not isinstance(item, allowed) or (isinstance(item, bool) and bool not in allowed):
            raise ValidationError(f"conventions.{key}: wrong type: expected {expected}, found {_json_type(item)}")
        if isinstance(item, str):
            _text(item, f"conventions.{key}", MAX_CONVENTION_TEXT)
    try:
        return Conventions(**value)
    except ValidationError as err:
        raise ValidationError(f"conventions.{err}") from None


def _view(value: Any) -> dict:
    value = _object(value, "view")
    if len(value) > MAX_VIEW_KEYS:
        raise ValidationError(f"'view' has more than {MAX_VIEW_KEYS} keys")
    out = {}
    for key, item in value.items():
        if not _VIEW_KEY.match(key):
            raise ValidationError(f"view key {key[:40]!r} is not a plain name")
        where = f"view.{key}"
        if item is None or isinstance(item, bool):
            out[key] = item
        elif isinstance(item, (int, float)):
            if isinstance(item, float) and not math.isfinite(item):
                raise ValidationError(f"'{where}' must be finite")
            out[key] = item
        elif isinstance(item, str):
            out[key] = _text(item, where, MAX_VIEW_TEXT)
        elif isinstance(item, list):
            if len(item) > MAX_VIEW_LIST:
                raise ValidationError(f"'{where}' has more than {MAX_VIEW_LIST} items")
            out[key] = [_text(v, f"{where}[{i}]", MAX_VIEW_TEXT) for i, v in enumerate(item)]
        else:
            raise ValidationError(f"'{where}' must be text, a number, true/false, null or a list "
                                  f"of text, got {_json_type(item)}")
    return out
