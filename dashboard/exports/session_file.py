"""Session files: what a session had loaded, under which conventions, its review notes, view and manifest.

A session file holds names and digests of the loaded files, never the files: it is small, and loading it
back expects the same files (the digests say whether they are). It is JSON, read with the care of any
other upload (:func:`session_from_json`): a size limit, strict UTF-8, strict JSON
(:func:`metrics.checks.load_json`: no duplicate keys, no NaN, no number longer than :data:`MAX_NUMBER_CHARS`
characters), every field checked against its declaration (:data:`SESSION`: type, length, the range its
widget accepts) with a wrong one named by its path, unknown fields refused, and nothing evaluated or
unpickled. Reading is linear in the size of the file.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from metrics import Conventions, ValidationError
from metrics.checks import (Boolean, Field, Integer, Kind, ListOf, MapOf, Number, Object, OneOf, Options, Pattern, Text,
                            load_json, read, refuse, shown, where)
from metrics.conventions import FIELDS
from metrics.errors import Refused
from metrics.review.manifest import Manifest
from metrics.review.notes import normalise_notes

__all__ = ["JUDGING", "MAX_JUDGMENTS", "MAX_NUMBER_CHARS", "MAX_SESSION_BYTES", "MAX_TASKS", "SESSION", "SESSION_FORMAT",
           "SESSION_VERSION", "Session", "session_from_json", "session_to_json"]

SESSION_FORMAT = "rankscope-session"
SESSION_VERSION = 1
MAX_SESSION_BYTES = 8 * 1024 * 1024
MAX_NAME = 256
MAX_RUNS = 1000
MAX_VIEW_KEYS = 64
MAX_VIEW_TEXT = 1000
MAX_VIEW_LIST = 1000
MAX_NUMBER_CHARS = 64
MAX_TASKS = 20
MAX_JUDGMENTS = 20_000
"""The judging tasks, and the judgments of each, a session file holds at most (the qrels exports hold any number)."""
"""The longest number a session file may hold, in characters: longer ones are refused before conversion."""


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
    judging : tuple of dict
        The collection's judging tasks, as :data:`JUDGING` declares them: ``task``, ``method``, ``scale``
        (``grade``, ``label``), ``judgments`` (``topic``, ``docid``, ``assessor``, ``grade`` or None, ``skipped``,
        ``judged_at``) and ``adjudications`` (``topic``, ``docid``, ``grade``, ``decided_by``, ``decided_at``).
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
    judging: tuple = ()

    @property
    def systems(self) -> tuple[str, ...]:
        """The system names, in order."""
        return tuple(name for name, _ in self.runs)


def session_to_json(loaded_names: Mapping[str, str] | Sequence[str], conventions: Conventions | None = None,
                    notes: Mapping[str, Any] | None = None, view: Mapping[str, Any] | None = None, *,
                    qrels_name: str | None = None, digests: Mapping[str, str] | None = None,
                    manifest: Manifest | Mapping[str, Any] | None = None,
                    judging: Sequence[Mapping[str, Any]] = ()) -> bytes:
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
    judging : sequence of mapping, optional
        The judging tasks (:func:`dashboard.exports.judgments.session_judging`), as :data:`JUDGING` declares them.

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
        raise refuse("loaded_names", "a mapping {system: file name} or a list of system names", loaded_names)
    if manifest is not None and not isinstance(manifest, Manifest):
        manifest = Manifest.from_dict(manifest) if isinstance(manifest, Mapping) else None
        if manifest is None:
            raise refuse("manifest", "a Manifest or its to_dict() mapping", manifest)
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
    if judging:
        document["judging"] = list(judging)
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
        raise refuse("a session file", "bytes or text", data)
    data = bytes(data)
    if len(data) > MAX_SESSION_BYTES:
        raise ValidationError(f"not a session file: expected at most {MAX_SESSION_BYTES} bytes, found {len(data)}")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise ValidationError(f"not a session file: expected UTF-8 text, found the byte 0x{data[err.start]:02x} "
                              f"at byte {err.start}") from None

    try:
        document = load_json(text, longest_number=MAX_NUMBER_CHARS)
    except ValidationError as err:
        raise ValidationError(f"not a session file: {err}") from None
    return _check_session(document)


def _version() -> str:
    from metrics import __version__

    return __version__


_NAME = Text(MAX_NAME, blank=False, line=True)
_VIEW_TEXT = Text(MAX_VIEW_TEXT, line=True)
_TEXT = Text(MAX_VIEW_TEXT, blank=False, line=True)
_GRADE = Integer(0, 9)
JUDGING = ListOf(Object({
    "task": Text(120, blank=False, line=True),
    "method": Text(64, blank=False, line=True),
    "scale": ListOf(Object({"grade": _GRADE, "label": Text(60, blank=False, line=True)}), 10, 2),
    "judgments": ListOf(Object({"topic": _TEXT, "docid": _TEXT, "assessor": _TEXT,
                                "grade": Integer(0, 9, none=True), "skipped": Boolean(),
                                "judged_at": Text(64, line=True)}), MAX_JUDGMENTS),
    "adjudications": ListOf(Object({"topic": _TEXT, "docid": _TEXT, "grade": _GRADE, "decided_by": _TEXT,
                                    "decided_at": Text(64, line=True)}), MAX_JUDGMENTS),
}), MAX_TASKS)
"""A session file's judging tasks: each one's judgments with their assessor and time, and the adjudications."""
_VIEW_KEY = Pattern(r"[A-Za-z_][A-Za-z0-9_.-]{0,63}", "a plain name (a letter or _, then letters, digits, _ . -)")
SESSION = Object({
    "format": Options(SESSION_FORMAT),
    "version": Options(SESSION_VERSION),
    "rankscope_version": Text(64, line=True),
    "saved_utc": Text(64, line=True),
    "loaded": Object({"qrels": Text(MAX_NAME, blank=False, line=True, none=True),
                      "runs": ListOf(Object({"system": _NAME, "file": _NAME}), MAX_RUNS)}),
    "digests": MapOf(_NAME, Pattern(r"[0-9a-f]{64}", "a SHA-256 in lower-case hex"), MAX_RUNS + 1),
    "conventions": FIELDS,
    "notes": Kind(dict, "a mapping of review notes"),
    "view": MapOf(_VIEW_KEY,
                  OneOf(_VIEW_TEXT, Integer(), Number(), Boolean(), ListOf(_VIEW_TEXT, MAX_VIEW_LIST), none=True,
                        what="text, a number, true or false, or a list of text"), MAX_VIEW_KEYS),
    "manifest": Field(Kind(dict, "a manifest", none=True), required=False),
    "judging": Field(JUDGING, required=False),
}, first=("format", "version"), what="a session file (a mapping)")
"""The fields of a session file, declared once: :func:`session_from_json` reads every file against it."""


def _check_session(document: Any) -> Session:
    """A parsed session file, checked against :data:`SESSION`, as a :class:`Session`."""
    d = read(document, SESSION)
    runs = tuple((run["system"], run["file"]) for run in d["loaded"]["runs"])
    systems = {system for system, _ in runs}
    if len(systems) != len(runs):
        seen: set = set()
        twice = next(system for system, _ in runs if system in seen or seen.add(system))
        raise Refused("loaded.runs", "one run per system name", f"{shown(twice)} twice")
    for key in d["digests"]:
        if key != "qrels" and key not in systems:
            raise refuse(where("digests", [key]), "'qrels' or the name of a loaded system", key)
    conventions = Conventions(**d["conventions"])  # every field checked by its rule already
    manifest = None if d.get("manifest") is None else Manifest.from_dict(d["manifest"])
    return Session(qrels=d["loaded"]["qrels"], runs=runs, conventions=conventions, notes=normalise_notes(d["notes"]),
                   view=d["view"], digests=d["digests"], saved_utc=d["saved_utc"],
                   rankscope_version=d["rankscope_version"], manifest=manifest,
                   judging=tuple(d.get("judging", ())))

