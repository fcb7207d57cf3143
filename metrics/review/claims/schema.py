"""An expectations file as plain data: the qrels, the runs, the conventions and the claims to check.

The command line reads the file (YAML) and hands this module the plain mapping it holds, with the line
of each part; this module checks it and builds the claims. The form::

    name: nightly                     # optional: the suite's name in JUnit XML (default: the file's name)
    qrels: qrels.txt                  # paths relative to the file
    runs: {bm25: bm25.run, dense: dense.run}   # or a list of paths, each named as rankscope names a run file
    conventions: {relevance_level: 2, complete: true}   # optional: fields of metrics.conventions.Conventions
    tolerance: 0.0005                 # optional: the tolerance of a threshold entry that states none
    expect:
      - {system: bm25, measure: AP, value: 0.2572, tolerance: 0.0005}
      - {system: bm25, measure: P@10, at_least: 0.3}
      - {better: dense, than: bm25, measure: nDCG@10, test: t, correction: holm, alpha: 0.05}
      - {system: dense, measure: AP, rank_at_most: 1}

Every refusal is one line that names the file, the line and the part (``expect[2]``), what was expected
and what was found (a :class:`~metrics.errors.ParseError`). Nothing read from the file sizes anything but
the list of its own entries.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from metrics.conventions import Conventions
from metrics.errors import ParseError, RankscopeError
from metrics.review.claims.kinds import SETTINGS, Better, Claim, Rank, Threshold

__all__ = ["ENTRY_KEYS", "Expectations", "TOP_KEYS", "claim_from_entry", "expectations_data", "read_expectations"]

TOP_KEYS = ("name", "qrels", "runs", "conventions", "tolerance", "expect")
"""The keys of an expectations file."""

ENTRY_KEYS: dict[str, tuple[str, ...]] = {
    "threshold": ("system", "measure", "value", "at_least", "at_most", "tolerance"),
    "better": ("better", "than", "measure", "test", "correction", "alpha", "pairs") + SETTINGS,
    "rank": ("system", "measure", "rank_at_most", "ties"),
}
"""The keys each kind of ``expect:`` entry takes."""

_REQUIRED = {"threshold": ("system", "measure"), "better": ("better", "than", "measure"),
             "rank": ("system", "measure", "rank_at_most")}


@dataclass(frozen=True)
class Expectations:
    """A checked expectations file.

    Parameters
    ----------
    source : str
        The file's name, for messages.
    name : str
        The suite's name (``name:``, else ``source``'s last part).
    qrels : str
        The qrels' path, joined to the file's folder.
    runs : tuple of (str, str) pairs
        Each system's name and run path, in the file's order.
    conventions : Conventions
    claims : tuple of Threshold, Better or Rank
    lines : tuple of int or None
        The line of each claim's entry in the file (None when unknown).
    """

    source: str
    name: str
    qrels: str
    runs: tuple[tuple[str, str], ...]
    conventions: Conventions
    claims: tuple[Claim, ...]
    lines: tuple[int | None, ...]

    @property
    def measures(self) -> list[str]:
        """The measures the claims name, each once, in order of first mention."""
        return list(dict.fromkeys(claim.measure for claim in self.claims))


def _found(value: Any) -> str:
    text = repr(value) if isinstance(value, (str, int, float, bool)) or value is None else type(value).__name__
    if isinstance(value, list):
        text = "a list" if value else "an empty list"
    elif isinstance(value, dict):
        text = "a mapping"
    return text if len(text) <= 60 else text[:57] + "..."


def _scalars(values: Mapping[Any, Any]) -> None:
    """Refuse a value that is a list or a mapping before anything shows it: through YAML's aliases a few
    lines can stand for a structure too large to write out."""
    for key, value in values.items():
        if not isinstance(value, (str, int, float, bool, type(None))):
            raise ValueError(f"{_found(key)}: expected a single value, found {_found(value)}")


def _kind_of(entry: Mapping[str, Any]) -> str:
    """Which kind of claim an entry states, from its keys (a ValueError says what was expected)."""
    if "better" in entry or "than" in entry:
        return "better"
    if "rank_at_most" in entry:
        return "rank"
    if any(k in entry for k in ("value", "at_least", "at_most")):
        return "threshold"
    raise ValueError(f"expected a claim with value, at_least or at_most (a threshold), better and than (a "
                     f"comparison) or rank_at_most (a rank), found the keys {sorted(map(str, entry))}")


def claim_from_entry(entry: Mapping[str, Any], tolerance: float | None = None) -> Claim:
    """The claim an ``expect:`` entry states.

    Parameters
    ----------
    entry : mapping
        Its keys are those of :data:`ENTRY_KEYS` for one kind.
    tolerance : float, optional
        A threshold's tolerance when the entry states none (default 0).

    Returns
    -------
    Threshold, Better or Rank

    Raises
    ------
    ValueError
        An entry that is not a mapping, an unknown or missing key (a plain ``ValueError``), or a value the
        claim does not accept (:class:`~metrics.errors.ValidationError`, or
        :class:`~metrics.errors.UnknownMeasureError` for a measure; both are ``RankscopeError``).

    Examples
    --------
    >>> claim_from_entry({"system": "bm25", "measure": "map", "value": 0.2572, "tolerance": 0.0005})
    Threshold(system='bm25', measure='map', value=0.2572, at_least=None, at_most=None, tolerance=0.0005)
    >>> print(claim_from_entry({"better": "dense", "than": "bm25", "measure": "nDCG@10", "test": "t"}).describe())
    dense is better than bm25 on nDCG@10, significantly (t test, alpha 0.05, holm correction over all pairs of systems)
    """
    if not isinstance(entry, Mapping):
        raise ValueError(f"expected a mapping of keys to values, found {_found(entry)}")
    _scalars(entry)
    kind = _kind_of(entry)
    allowed = ENTRY_KEYS[kind]
    unknown = [k for k in entry if k not in allowed]
    if unknown:
        raise ValueError(f"unknown key {_found(unknown[0])} in a {kind} claim; expected keys among {list(allowed)}")
    missing = [k for k in _REQUIRED[kind] if k not in entry]
    if missing:
        raise ValueError(f"expected the key {missing[0]!r} in a {kind} claim, found the keys {list(map(str, entry))}")
    if kind == "threshold":
        given = dict(entry)
        if "tolerance" not in given and tolerance is not None:
            given["tolerance"] = tolerance
        return Threshold(**given)
    if kind == "rank":
        return Rank(entry["system"], entry["measure"], entry["rank_at_most"], entry.get("ties", "best"))
    if "test" not in entry:
        needing = [k for k in entry if k not in ("better", "than", "measure")]
        if needing:
            from metrics.stats.significance import TESTS

            raise ValueError(f"{needing[0]!r} needs a test (test: {', '.join(TESTS[:-1])} or {TESTS[-1]}), "
                             "found none")
        return Better(entry["better"], entry["than"], entry["measure"])
    options = {k: entry[k] for k in ("correction", "alpha", "pairs") if k in entry}
    return Better(entry["better"], entry["than"], entry["measure"], entry["test"], **options,
                  settings=tuple(sorted((k, entry[k]) for k in SETTINGS if k in entry)))


def read_expectations(data: Any, *, source: str, base: str = "",
                      lines: Mapping[str, int] | None = None) -> Expectations:
    """Check the plain data of an expectations file and build its claims.

    Parameters
    ----------
    data : object
        What the file holds (a mapping, if it is right).
    source : str
        The file's name, for messages.
    base : str, default=""
        The folder the file's relative paths start from.
    lines : mapping, optional
        The line of each part, by key: ``"qrels"``, ``"runs"``, ``"runs.NAME"``, ``"conventions"``,
        ``"expect"``, ``"expect.0"``, ... (absent parts: the message names no line).

    Returns
    -------
    Expectations

    Raises
    ------
    ParseError
        ``"<source>:<line>: <part>: expected ..., found ..."`` for the first problem found.
    """
    lines = lines or {}

    def fail(part: str, message: str, key: str | None = None) -> ParseError:
        return ParseError(source, lines.get(key or part), f"{part}: {message}")

    if not isinstance(data, Mapping):
        raise ParseError(source, 1, f"expected a mapping with the keys qrels, runs and expect, found {_found(data)}")
    unknown = [k for k in data if k not in TOP_KEYS]
    if unknown:
        raise fail(str(unknown[0]), f"unknown key; expected keys among {list(TOP_KEYS)}")
    for key in ("qrels", "runs", "expect"):
        if key not in data:
            raise ParseError(source, None, f"expected the key {key!r}, found the keys {list(map(str, data))}")
    qrels = _path(data["qrels"], base, lambda m: fail("qrels", m))
    runs = _runs(data["runs"], base, fail)
    conventions = _conventions(data.get("conventions", {}), fail)
    tolerance = data.get("tolerance")
    if tolerance is not None and (isinstance(tolerance, bool) or not isinstance(tolerance, (int, float))
                                  or not 0 <= tolerance < float("inf")):
        raise fail("tolerance", f"expected a non-negative number, found {_found(tolerance)}")
    name = data.get("name", os.path.basename(source) or source)
    if not isinstance(name, str) or not name.strip():
        raise fail("name", f"expected the suite's name as text, found {_found(name)}")
    entries = data["expect"]
    if not isinstance(entries, list) or not entries:
        raise fail("expect", f"expected a list of one or more claims, found {_found(entries)}")
    claims = []
    for i, entry in enumerate(entries):
        try:
            claims.append(claim_from_entry(entry, tolerance))
        except (ValueError, RankscopeError) as err:
            raise fail(f"expect[{i}]", str(err), f"expect.{i}") from None
    return Expectations(source, name, qrels, runs, conventions, tuple(claims),
                        tuple(lines.get(f"expect.{i}") for i in range(len(claims))))


def expectations_data(qrels: str, runs: Sequence[tuple[str, str]] | Mapping[str, str], claims: Sequence[Claim], *,
                      conventions: Conventions | None = None, name: str | None = None) -> dict[str, Any]:
    """The plain data of an expectations file: what :func:`read_expectations` reads back (e.g. a collection's
    claims exported to a file for ``rankscope check``).

    Parameters
    ----------
    qrels : str
        The qrels' path, as the file should state it (relative to the file).
    runs : mapping or sequence of (str, str) pairs
        Each system's name and run path.
    claims : sequence of Threshold, Better or Rank
    conventions : Conventions, optional
        Stated when they differ from the defaults (only the fields that differ).
    name : str, optional
        The suite's name.

    Returns
    -------
    dict
        Keys in the order of :data:`TOP_KEYS`; ready for ``yaml.safe_dump(..., sort_keys=False)``.

    Examples
    --------
    >>> data = expectations_data("qrels.txt", {"bm25": "bm25.run"}, [Rank("bm25", "AP", 1)])
    >>> data["runs"], data["expect"]
    ({'bm25': 'bm25.run'}, [{'system': 'bm25', 'measure': 'AP', 'rank_at_most': 1}])
    >>> read_expectations(data, source="e.yaml").claims == (Rank("bm25", "AP", 1),)
    True
    """
    data: dict[str, Any] = {}
    if name is not None:
        data["name"] = name
    data["qrels"] = qrels
    data["runs"] = dict(runs.items() if isinstance(runs, Mapping) else runs)
    if conventions is not None:
        defaults = Conventions()
        changed = {f.name: getattr(conventions, f.name) for f in fields(Conventions)
                   if getattr(conventions, f.name) != getattr(defaults, f.name)}
        if changed:
            data["conventions"] = changed
    data["expect"] = [claim.entry() for claim in claims]
    return data


def _path(value: Any, base: str, fail) -> str:
    if not isinstance(value, str) or not value.strip() or "\0" in value:
        raise fail(f"expected a file's path, found {_found(value)}")
    if value.startswith("irds:"):  # an ir_datasets id (metrics.io.irds), not a path
        return value
    return os.path.join(base, value)


def _runs(value: Any, base: str, fail) -> tuple[tuple[str, str], ...]:
    from metrics.io import system_name

    if isinstance(value, list) and value:
        pairs = []
        for i, path in enumerate(value):
            pairs.append((None, _path(path, base, lambda m, i=i: fail(f"runs[{i}]", m, "runs"))))
        pairs = [(system_name(os.path.basename(p)), p) for _, p in pairs]
    elif isinstance(value, Mapping) and value:
        pairs = []
        for name, path in value.items():
            if isinstance(name, int) and not isinstance(name, bool):
                name = str(name)
            if not isinstance(name, str) or not name.strip():
                raise fail("runs", f"expected a system's name as text, found {_found(name)}")
            pairs.append((name, _path(path, base, lambda m, n=name: fail(f"runs.{n}", m))))
    else:
        raise fail("runs", f"expected a mapping of system names to run files, or a list of run files, found "
                           f"{_found(value)}")
    names = [n for n, _ in pairs]
    twice = next((n for n in names if names.count(n) > 1), None)
    if twice is not None:
        raise fail("runs", f"expected one run per system name, found two named {twice!r}")
    return tuple(pairs)


def _conventions(value: Any, fail) -> Conventions:
    if not isinstance(value, Mapping):
        raise fail("conventions", f"expected a mapping of conventions to values, found {_found(value)}")
    try:
        _scalars(value)
    except ValueError as err:
        raise fail("conventions", str(err)) from None
    known = {f.name: f.default for f in fields(Conventions)}
    for key, given in value.items():
        if key not in known:
            raise fail("conventions", f"unknown convention {_found(key)}; expected one of {list(known)}")
        if isinstance(known[key], bool) and not isinstance(given, bool):
            raise fail("conventions", f"{key}: expected true or false, found {_found(given)}")
    try:
        return Conventions(**value)
    except RankscopeError as err:
        raise fail("conventions", str(err)) from None
