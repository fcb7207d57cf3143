"""Building a manifest: digests of the files as read, and the command lines that recompute the numbers.

:func:`build_manifest` hashes the qrels and every run (:func:`sha256_of`, the bytes exactly as stored,
gzip included), records the measures with every parameter, the conventions, the seeds and the test
settings, and writes the ``rankscope eval`` (and ``rankscope compare``) command lines in the flags of
:mod:`metrics.review.flags`; what those commands cannot express becomes a caveat in words.
"""

from __future__ import annotations

import hashlib
import os
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Union

from metrics.conventions import Conventions
from metrics.checks import Integer, check, refuse, where
from metrics.errors import Refused, ValidationError
from metrics.io import system_name
from metrics.review.flags import convention_argv, expressed, significance_argv, significance_flags
from metrics.review.manifest.records import FileRecord, Manifest, MeasureRecord, _jsonable
from metrics.io.redaction import redact_all

__all__ = ["build_manifest", "sha256_of"]

FileSource = Union[str, os.PathLike, bytes, bytearray, memoryview]
_CHUNK = 1 << 20


def sha256_of(source: FileSource) -> tuple[str, int]:
    """SHA-256 (hex) and size in bytes of a file's bytes or of a path's content (read in chunks).

    Examples
    --------
    >>> sha256_of(b"abc")[0][:16], sha256_of(b"abc")[1]
    ('ba7816bf8f01cfea', 3)
    """
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        return hashlib.sha256(data).hexdigest(), len(data)
    if isinstance(source, (str, os.PathLike)):
        digest, size = hashlib.sha256(), 0
        try:
            with open(source, "rb") as handle:
                for chunk in iter(lambda: handle.read(_CHUNK), b""):
                    digest.update(chunk)
                    size += len(chunk)
        except OSError as err:
            raise ValidationError(f"cannot read {os.fspath(source)!s}: {err.strerror or err}") from None
        return digest.hexdigest(), size
    raise refuse("a file", "a path or bytes", source)


def build_manifest(qrels_source: FileSource, run_sources: Mapping[str, FileSource],
                   measures: Any = None, conventions: Conventions | None = None,
                   seeds: Mapping[str, int] | None = None, command: Sequence[str] | None = None, *,
                   qrels_name: str | None = None, file_names: Mapping[str, str] | None = None,
                   tests: Mapping[str, Any] | None = None, created: datetime | None = None,
                   ir_metadata: Mapping[str, Mapping[str, Any] | None] | None = None) -> Manifest:
    """Record what an evaluation read and how, with the commands that recompute it.

    Parameters
    ----------
    qrels_source : path or bytes
        The qrels file (a path, hashed as stored on disk) or its bytes.
    run_sources : mapping of str to path or bytes
        ``{system name: run file}`` in the order of the results.
    measures : str, Measure or a sequence of them, optional
        As for :func:`metrics.evaluate` (default: its default measures).
    conventions : Conventions, optional
        Default ``Conventions()``.
    seeds : mapping of str to int, optional
        Random seeds by what used them, e.g. ``{"compare": 0}``.
    command : sequence of str, optional
        The command line that produced the artefact (e.g. ``sys.argv``), recorded with every argument's
        credentials masked (:func:`metrics.io.redaction.redact`: a workspace's password never travels with a
        report).
    qrels_name : str, optional
        The qrels file name when ``qrels_source`` is bytes (default ``"qrels"``).
    file_names : mapping of str to str, optional
        ``{system name: file name}`` for runs given as bytes (default: the system name).
    tests : mapping, optional
        Significance-test settings: the keywords of :func:`metrics.stats.significance.compare_systems` that
        have a flag (:func:`metrics.review.flags.significance_flags`: ``test``, ``correction``, ``alpha``,
        ``baseline`` (None: all pairs), ``n_resamples``, ``family``, ...), ``complete`` (True: the tests
        were run with complete topics, ``-c``, whatever ``conventions`` say) and ``measures`` (labels
        tested; default all). When given, the manifest carries the
        ``rankscope compare`` command line(s); ``baselines`` (a list, None meaning all pairs) asks for one
        command per family.
    created : datetime, optional
        The time to record (default now); converted to UTC.
    ir_metadata : mapping of str to dict, optional
        ``{system name: ir_metadata block}`` (:attr:`metrics.io.Run.metadata`): how each run was made, kept
        in its record.

    Returns
    -------
    Manifest

    Raises
    ------
    ValidationError
        No runs, an unreadable path, a measure that does not parse, or a malformed option.

    Notes
    -----
    The eval command names each file by the path given (relative paths stay relative, so the command works
    from the same directory); files given as bytes appear by name. ``rankscope eval`` names systems after
    their files (``bm25.run.gz`` is ``bm25``); when a system was renamed, ``runs`` maps one to the other.

    Examples
    --------
    >>> m = build_manifest(b"1 0 a 1\\n", {"x": b"1 Q0 a 1 1.0 x\\n"}, ["AP"], qrels_name="q.txt",
    ...                    file_names={"x": "x.run"})
    >>> m.reproduce_command()
    'rankscope eval -q --format csv --compat trec_eval-9 -l 1 -m AP q.txt x.run'
    """
    from metrics import __version__
    from metrics.evaluate import DEFAULT_MEASURES, resolve_measures

    if not isinstance(run_sources, Mapping) or not run_sources:
        raise refuse("run_sources", "a non-empty mapping {system name: path or bytes}", run_sources)
    conventions = Conventions.coerce(conventions)
    file_names = dict(file_names or {})
    pairs = resolve_measures(DEFAULT_MEASURES if measures is None else measures)

    qrels = _record("qrels", qrels_source, qrels_name or "qrels", None)
    described = dict(ir_metadata or {})
    runs = tuple(replace(_record("run", src, file_names.get(str(system), str(system)), str(system)),
                         ir_metadata=_jsonable(described[system]) if described.get(system) is not None else None)
                 for system, src in run_sources.items())
    measure_records = tuple(
        MeasureRecord(label=label, name=str(m), trec_label=m.trec_label(),
                      params=tuple(sorted((k, _jsonable(v)) for k, v in m.values.items())))
        for label, m in pairs)
    seeds_items = _seed_items(seeds)
    caveats: list[str] = []
    convention_args = _convention_args(conventions, caveats)
    files = redact_all([qrels.path, *(r.path for r in runs)])  # what the commands show of a location
    labels = [label for label, _ in pairs]
    eval_argv = ["rankscope", "eval", "-q", "--format", "csv", *convention_args]
    for label in labels:
        eval_argv += ["-m", label]
    eval_command = shlex.join(eval_argv + files)

    test_items: tuple[tuple[str, Any], ...] = ()
    compare_commands: tuple[str, ...] = ()
    if tests:
        test_items, compare_commands = _compare(tests, labels, conventions, files, seeds)
    for r in runs:
        derived = system_name(r.name)
        if r.system is not None and derived != r.system:
            caveats.append(f"the commands name system {r.system!r} after its file: {derived!r}")
    created = created or datetime.now(timezone.utc)
    if created.tzinfo is None:
        raise refuse("created", "a timezone-aware datetime", created)
    stamp = created.astimezone(timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    return Manifest(
        rankscope_version=__version__, created_utc=stamp, qrels=qrels, runs=runs, measures=measure_records,
        conventions=tuple(sorted((k, _jsonable(v)) for k, v in conventions.as_dict().items())),
        eval_command=eval_command, seeds=seeds_items, tests=test_items, compare_commands=compare_commands,
        invocation=tuple(redact_all(str(a) for a in command)) if command else (), caveats=tuple(caveats))


# --------------------------------------------------------------------------------------------------------


def _record(role: str, source: FileSource, fallback_name: str, system: str | None) -> FileRecord:
    digest, size = sha256_of(source)
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        name = Path(path).name
    else:
        path = name = fallback_name
    return FileRecord(role=role, name=name, path=path, sha256=digest, size=size, system=system)


def _seed_items(seeds: Mapping[str, int] | None) -> tuple[tuple[str, int], ...]:
    if seeds is None:
        return ()
    if not isinstance(seeds, Mapping):
        raise refuse("seeds", "a mapping {name: int}", seeds)
    out = []
    for key, value in seeds.items():
        out.append((str(key), check(where("seeds", [str(key)]), value, Integer())))
    return tuple(out)


def _convention_args(conventions: Conventions, caveats: list[str]) -> list[str]:
    """The convention flags of ``conventions``; what they cannot say goes to ``caveats``."""
    said = expressed(conventions)
    differ = sorted(k for k, v in conventions.as_dict().items() if said.as_dict().get(k) != v)
    if differ:
        caveats.append("rankscope eval has no flag for " + ", ".join(
            f"{k}={conventions.as_dict()[k]!r}" for k in differ) + f"; the command evaluates under {said.preset}")
    return convention_argv(said)


def _compare(tests: Mapping[str, Any], labels: list[str], conventions: Conventions, files: list[str],
             seeds: Mapping[str, int] | None):
    """The recorded test settings and the ``rankscope compare`` command of each baseline."""
    flagged = {row.field: row.default for row in significance_flags()}
    known = set(flagged) | {"baselines", "measures", "complete"}
    unknown = sorted(set(tests) - known)
    if unknown:
        raise Refused(unknown[0], f"a test setting ({', '.join(sorted(known))})", "an unknown setting")
    settings = {key: tests.get(key, flagged[key]) for key in ("test", "correction", "alpha")}
    for key in [*flagged, "complete"]:
        if key in tests and key not in settings and key not in ("baseline", "seed"):
            settings[key] = tests[key]
    seed = tests.get("seed", (seeds or {}).get("compare", flagged["seed"]))
    settings["seed"] = check("the test seed", seed, Integer())
    tested = list(tests.get("measures") or labels)
    baselines = list(tests["baselines"]) if "baselines" in tests else [tests.get("baseline")]
    settings["measures"] = tested
    settings["baselines"] = baselines
    if settings.get("complete"):
        conventions = replace(conventions, complete=True)
    flags = {key: value for key, value in settings.items() if key in flagged}
    commands = []
    for baseline in baselines:
        argv = ["rankscope", "compare", "--format", "csv", *convention_argv(conventions)]
        for label in tested:
            argv += ["-m", label]
        argv += significance_argv({**flags, "baseline": baseline})
        commands.append(shlex.join(argv + files))
    return tuple((k, _jsonable(v)) for k, v in settings.items()), tuple(commands)


