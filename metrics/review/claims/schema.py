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

from metrics.checks import Field, Integer, Kind, ListOf, MapOf, Number, Object, OneOf, Text, read, refuse, shown, where
from metrics.checks.words import SHOWN_ITEMS
from metrics.conventions import FIELDS, Conventions
from metrics.errors import ParseError, RankscopeError, Refused
from metrics.review.claims.kinds import RULES, SETTINGS, Better, Claim, Rank, Threshold

__all__ = ["ENTRY_KEYS", "EXPECTATIONS", "ENTRIES", "Expectations", "MAX_CLAIMS", "MAX_RUNS", "TOP_KEYS",
           "claim_from_entry", "expectations_data", "read_expectations"]

MAX_RUNS = 10_000
"""The most runs an expectations file names."""
MAX_CLAIMS = 10_000
"""The most claims an expectations file states."""

_SCALAR = Kind((str, int, float, bool), "a single value", none=True)
_SYSTEM = Kind((str, int), "a system's name")
_MEASURE = Kind(str, "a measure's name")
_PATH = Text(blank=False, line=True, what="a file's path")


def _entry(required: tuple[str, ...], optional: tuple[str, ...], **kinds: Any) -> Object:
    """An ``expect:`` entry of one kind: its fields, each with its rule (:data:`~metrics.review.claims.kinds.RULES`
    where one says it whole; a single value checked by the claim where not)."""
    rule = {**RULES, **kinds}
    return Object({**{k: rule.get(k, _SCALAR) for k in required},
                   **{k: Field(rule.get(k, _SCALAR), required=False) for k in optional}})


ENTRIES: dict[str, Object] = {
    "threshold": _entry(("system", "measure"), ("value", "at_least", "at_most", "tolerance"), system=_SYSTEM,
                        measure=_MEASURE),
    "better": _entry(("better", "than", "measure"), ("test", "correction", "alpha", "pairs") + SETTINGS,
                     better=_SYSTEM, than=_SYSTEM, measure=_MEASURE, test=Kind(str, "a test's name"),
                     correction=Kind(str, "a correction's name")),
    "rank": _entry(("system", "measure", "rank_at_most"), ("ties",), system=_SYSTEM, measure=_MEASURE),
}
"""The fields of each kind of ``expect:`` entry, declared once."""
ENTRY_KEYS: dict[str, tuple[str, ...]] = {kind: tuple(entry.fields) for kind, entry in ENTRIES.items()}
"""The keys each kind of ``expect:`` entry takes."""

EXPECTATIONS = Object({
    "name": Field(Text(blank=False, what="the suite's name as text"), required=False),
    "qrels": _PATH,
    "runs": OneOf(MapOf(OneOf(Text(blank=False), Integer(), what="a system's name"), _PATH, MAX_RUNS, shortest=1),
                  ListOf(_PATH, MAX_RUNS, shortest=1),
                  what="a mapping of system names to run files, or a list of run files"),
    "conventions": Field(FIELDS, required=False),
    "tolerance": Field(Number(0, none=True), required=False),
    "expect": ListOf(Kind(Mapping, "a claim (a mapping)"), MAX_CLAIMS, shortest=1,
                     what="a list of one or more claims"),
}, what="a mapping with the keys qrels, runs and expect")
"""The fields of an expectations file, declared once (each entry of ``expect`` by :data:`ENTRIES`)."""
TOP_KEYS = tuple(EXPECTATIONS.fields)
"""The keys of an expectations file."""


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


def _kind_of(entry: Mapping[str, Any]) -> str:
    """Which kind of claim an entry states, from its keys (a refusal says what was expected)."""
    if "better" in entry or "than" in entry:
        return "better"
    if "rank_at_most" in entry:
        return "rank"
    if any(k in entry for k in ("value", "at_least", "at_most")):
        return "threshold"
    found = f"the keys {shown([str(k) for k in entry])}" if len(entry) <= SHOWN_ITEMS else shown(entry)
    raise Refused("a claim", "value, at_least or at_most (a threshold), better and than (a comparison) or "
                             "rank_at_most (a rank)", found)


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
    RankscopeError
        An entry that is not a mapping, an unknown or missing key, a value of the wrong kind
        (:class:`~metrics.errors.Refused`, naming the key), a value the claim does not accept
        (:class:`~metrics.errors.ValidationError`), or an unknown measure
        (:class:`~metrics.errors.UnknownMeasureError`).

    Examples
    --------
    >>> claim_from_entry({"system": "bm25", "measure": "map", "value": 0.2572, "tolerance": 0.0005})
    Threshold(system='bm25', measure='map', value=0.2572, at_least=None, at_most=None, tolerance=0.0005)
    >>> print(claim_from_entry({"better": "dense", "than": "bm25", "measure": "nDCG@10", "test": "t"}).describe())
    dense is better than bm25 on nDCG@10, significantly (t test, alpha 0.05, holm correction over all pairs of systems)
    """
    if not isinstance(entry, Mapping):
        raise refuse("a claim", "a mapping of keys to values", entry, json=True)
    kind = _kind_of(entry)
    entry = read(entry, ENTRIES[kind])
    if isinstance(entry.get("system"), int):
        entry["system"] = str(entry["system"])
    if kind == "threshold":
        if "tolerance" not in entry and tolerance is not None:
            entry["tolerance"] = tolerance
        return Threshold(**entry)
    if kind == "rank":
        return Rank(entry["system"], entry["measure"], entry["rank_at_most"], entry.get("ties", "best"))
    if "test" not in entry:
        needing = [k for k in entry if k not in ("better", "than", "measure")]
        if needing:
            raise Refused(needing[0], "a test beside it (test: t, wilcoxon, sign, permutation, bootstrap or tukey)",
                          "none")
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

    def line(path: tuple) -> int | None:
        """The line of the deepest part of ``path`` the file's lines name (``expect.3``, ``runs.bm25``)."""
        parts = [str(p) for p in path]
        for k in range(len(parts), 0, -1):
            if ".".join(parts[:k]) in lines:
                return lines[".".join(parts[:k])]
        return 1 if not path else None

    try:
        data = read(data, EXPECTATIONS)
    except Refused as err:
        raise ParseError(source, line(err.path), str(err)) from None
    qrels = _path(data["qrels"], base)
    runs = _runs(data["runs"], base, lambda message: ParseError(source, lines.get("runs"), f"runs: {message}"))
    conventions = Conventions(**data.get("conventions", {}))  # every field checked by its rule already
    tolerance = data.get("tolerance")
    name = data.get("name", os.path.basename(source) or source)
    claims = []
    for i, entry in enumerate(data["expect"]):
        try:
            claims.append(claim_from_entry(entry, tolerance))
        except Refused as err:
            parts = list(err.path) if err.path else [err.where] if err.where and err.where != "a claim" else []
            raise ParseError(source, lines.get(f"expect.{i}"), f"{where('expect', [i, *parts])}: {err.detail}") from None
        except (ValueError, RankscopeError) as err:
            raise ParseError(source, lines.get(f"expect.{i}"), f"expect[{i}]: {err}") from None
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


def _path(value: str, base: str) -> str:
    if value.startswith("irds:"):  # an ir_datasets id (metrics.io.irds), not a path
        return value
    return os.path.join(base, value)


def _runs(value: Any, base: str, fail) -> tuple[tuple[str, str], ...]:
    from metrics.io import system_name

    if isinstance(value, list):
        pairs = [(system_name(os.path.basename(p)), _path(p, base)) for p in value]
    else:
        pairs = [(str(name), _path(path, base)) for name, path in value.items()]
    names = [n for n, _ in pairs]
    seen: set = set()
    twice = next((n for n in names if n in seen or seen.add(n)), None)
    if twice is not None:
        raise fail(f"expected one run per system name, found two named {twice!r}")
    return tuple(pairs)
