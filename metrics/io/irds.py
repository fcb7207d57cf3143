"""Qrels and topics by ir_datasets id (``irds:cranfield``), read from ir_datasets' local store only.

:func:`load_qrels` gives the same :class:`~metrics.io.Qrels` that :func:`~metrics.io.read_qrels` gives for a
file, :func:`load_topics` the same :class:`~metrics.io.texts.Topics` as :func:`~metrics.io.texts.read_topics`,
and :func:`relevance_default` the binary relevance level the dataset itself implies, with the reason.

The ``ir_datasets`` package is an optional dependency (``pip install "rankscope[irds]"``), imported only
when an id is loaded. Nothing here ever asks the network for anything: before a dataset is read, the files
it needs are looked up in the local store (``IR_DATASETS_HOME``, by default ``~/.ir_datasets``), and when
one is missing a one-line :class:`DatasetUnavailable` names each missing file's expected path and where
ir_datasets would download it from (its address as text, never fetched). While a dataset is read, any
download ir_datasets would start anyway is refused the same way.

An id is user input: it must match :data:`DATASET_ID` (lower-case words joined by ``/``) and be in
ir_datasets' registry; it is never read as a path.
"""

from __future__ import annotations

import contextlib
import difflib
import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from metrics.errors import RankscopeError, ValidationError
from metrics.io.readers import Qrels, read_qrels
from metrics.io.texts import Topics

__all__ = ["DATASET_ID", "PREFIX", "DatasetUnavailable", "MissingFile", "RelevanceDefault", "check_store", "dataset_id",
           "is_dataset", "load_qrels", "load_topics", "missing_files", "qrels_bytes", "relevance_default", "topics_bytes"]

PREFIX = "irds:"
"""What marks an ir_datasets id where a path is accepted: ``irds:cranfield``."""
DATASET_ID = re.compile(r"[a-z0-9][a-z0-9._-]{0,99}(?:/[a-z0-9][a-z0-9._-]{0,99}){0,7}\Z")
"""The ids accepted: lower-case letters, digits, ``.``, ``_`` and ``-``, in at most 8 parts joined by ``/``
(every id in ir_datasets' registry has this shape)."""
_NEGATIVE = re.compile(r"\s*(not\b|non[- ]?relevant|irrelevant|no\b|of no\b)", re.IGNORECASE)
_OFFICIAL_REL = re.compile(r"\(\s*rel\s*=\s*(-?\d+)\s*\)")


class DatasetUnavailable(RankscopeError):
    """An ir_datasets id that cannot be read here: the package is not installed, the id is unknown, or the
    local store lacks a file the dataset needs. The message is one line."""


@dataclass(frozen=True)
class MissingFile:
    """A file the dataset needs that the local store does not have.

    Attributes
    ----------
    path : str
        Where ir_datasets expects it.
    source : str
        Where it normally comes from: a download address (as text) or ir_datasets' instructions.
    """

    path: str
    source: str


@dataclass(frozen=True)
class RelevanceDefault:
    """The binary relevance level a dataset implies, and why.

    Attributes
    ----------
    level : int
        Grades at or above it count as relevant.
    origin : {"official measures", "grade definitions", "default"}
        Where it comes from: the ``rel=`` of ir_datasets' documented official measures, the lowest
        positive grade of the dataset's grade definitions (``qrels_defs``) not described as non-relevant,
        or rankscope's default of 1 when the dataset gives neither.
    reason : str
        One sentence saying so, for the output and the page.
    """

    level: int
    origin: str
    reason: str


def is_dataset(value: Any) -> bool:
    """Whether ``value`` names an ir_datasets id (a ``str`` starting with ``irds:``) rather than a file."""
    return isinstance(value, str) and value.startswith(PREFIX)


def dataset_id(value: str) -> str:
    """The id of ``irds:ID`` (or of a bare ``ID``), checked against :data:`DATASET_ID`.

    Raises
    ------
    ValidationError
        The id has another shape (one line, the id shown with its unusual characters escaped).

    Examples
    --------
    >>> dataset_id("irds:msmarco-passage/dev/small")
    'msmarco-passage/dev/small'
    """
    ident = value[len(PREFIX):] if is_dataset(value) else value
    if not isinstance(ident, str) or not DATASET_ID.match(ident):
        shown = ascii(ident[:120]) if isinstance(ident, str) else type(ident).__name__
        raise ValidationError(f"{PREFIX}: expected an ir_datasets id such as 'cranfield' or "
                              f"'msmarco-passage/dev/small' (lower-case letters, digits, . _ - and /), found {shown}")
    return ident


def load_qrels(value: str) -> Qrels:
    """The judgments of an ir_datasets dataset, as :func:`~metrics.io.read_qrels` reads a qrels file.

    Parameters
    ----------
    value : str
        ``irds:ID`` or ``ID``.

    Returns
    -------
    Qrels
        Named ``irds:ID``; the grades as ir_datasets serves them.

    Raises
    ------
    DatasetUnavailable
        ir_datasets is not installed, the id is unknown, the dataset has no qrels, or the local store lacks
        one of its files (the message names each file, where it goes and where it comes from).
    ValidationError
        The id has the wrong shape.
    """
    ident = dataset_id(value)
    return read_qrels(qrels_bytes(ident), name=PREFIX + ident)


def qrels_bytes(value: str) -> bytes:
    """The judgments of an ir_datasets dataset as the bytes of a TREC qrels file (``qid 0 docid rel``).

    Raises what :func:`load_qrels` raises.
    """
    ident = dataset_id(value)
    dataset = _dataset(ident)
    if not dataset.has_qrels():
        raise DatasetUnavailable(f"{PREFIX}{ident}: this ir_datasets dataset has no qrels")
    handler = dataset.qrels_handler()
    _check_store(ident, handler)
    with _offline(ident):
        lines = [f"{q.query_id} 0 {q.doc_id} {int(q.relevance)}\n" for q in handler.qrels_iter()]
    return "".join(lines).encode("utf-8")


def load_topics(value: str) -> Topics | None:
    """The queries of an ir_datasets dataset (id -> text; the query's default text, e.g. a TREC title, with
    runs of white space made one space), or None when the dataset has none.

    Raises what :func:`load_qrels` raises.
    """
    ident = dataset_id(value)
    dataset = _dataset(ident)
    if not dataset.has_queries():
        return None
    handler = dataset.queries_handler()
    _check_store(ident, handler)
    with _offline(ident):
        items = {" ".join(str(q.query_id).split()): " ".join(_query_text(q).split()) for q in handler.queries_iter()}
    return Topics(items, name=PREFIX + ident)


def topics_bytes(topics: Topics) -> bytes:
    """Topics as the bytes of a ``qid<TAB>text`` file, which :func:`~metrics.io.texts.read_topics` reads back
    (the texts of :func:`load_topics` hold no tab nor line break)."""
    return "".join(f"{qid}\t{' '.join(text.split())}\n" for qid, text in topics.items()).encode("utf-8")


def relevance_default(value: str) -> RelevanceDefault:
    """The binary relevance level the dataset implies (see :class:`RelevanceDefault`); reads no data file.

    Examples
    --------
    >>> relevance_default("irds:msmarco-passage/trec-dl-2019").level  # doctest: +SKIP
    2
    """
    ident = dataset_id(value)
    dataset = _dataset(ident)
    official = [str(m) for m in (_documentation(dataset).get("official_measures") or []) if isinstance(m, str)]
    levels = sorted({int(found) for m in official for found in _OFFICIAL_REL.findall(m)})
    if levels:
        named = ", ".join(m for m in official if _OFFICIAL_REL.search(m))
        more = "" if len(levels) == 1 else f" (they use {', '.join(map(str, levels))}: the strictest is taken)"
        return RelevanceDefault(levels[-1], "official measures",
                                f"relevance level {levels[-1]}: ir_datasets' official measures for {ident} are "
                                f"{named}{more}")
    defs = dataset.qrels_defs() if dataset.has_qrels() else {}
    positive = sorted((int(g), str(text)) for g, text in (defs or {}).items()
                      if _is_int(g) and int(g) > 0 and not _NEGATIVE.match(str(text)))
    if positive:
        grade, text = positive[0]
        text = " ".join(text.split())
        text = text if len(text) <= 60 else text[:57] + "..."
        return RelevanceDefault(grade, "grade definitions",
                                f"relevance level {grade}: the lowest positive grade of ir_datasets' grade "
                                f"definitions for {ident} ({grade} = {text!r})")
    return RelevanceDefault(1, "default", f"relevance level 1: ir_datasets gives no official measure with "
                                          f"rel= nor grade definitions for {ident}, so rankscope's default")


def check_store(value: str, parts: tuple[str, ...] = ("qrels", "queries")) -> None:
    """Raise one :class:`DatasetUnavailable` naming every file the local store lacks for ``parts`` of the
    dataset (those it has), before any of them is read."""
    ident = dataset_id(value)
    missing = missing_files(ident, parts)
    if missing:
        _raise_missing(ident, missing)


def missing_files(value: str, parts: tuple[str, ...] = ("qrels",)) -> list[MissingFile]:
    """The files the local store lacks for reading ``parts`` (``"qrels"``, ``"queries"``) of a dataset."""
    ident = dataset_id(value)
    dataset = _dataset(ident)
    found: list[MissingFile] = []
    for part in parts:
        if getattr(dataset, f"has_{part}")():
            found.extend(f for f in _needed(getattr(dataset, f"{part}_handler")()) if f not in found)
    return found


# --------------------------------------------------------------------------------------------------------
# the package, the registry, the store


def _irds():
    try:
        import ir_datasets
    except ImportError:
        raise DatasetUnavailable(f"{PREFIX}: the ir_datasets package is not installed; install it with "
                                 "pip install \"rankscope[irds]\" (or pip install ir-datasets)") from None
    _install_guard(ir_datasets)
    return ir_datasets


def _dataset(ident: str):
    irds = _irds()
    try:
        return irds.registry[ident]
    except KeyError:
        close = difflib.get_close_matches(ident, list(irds.registry), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise DatasetUnavailable(f"{PREFIX}{ident}: no such dataset in ir_datasets {irds.__version__}{hint}") from None


def _documentation(dataset) -> dict:
    try:
        docs = dataset.documentation()
    except Exception:  # noqa: BLE001 - a dataset without documentation
        return {}
    return docs if isinstance(docs, dict) else {}


def _is_int(value: Any) -> bool:
    try:
        int(value)
    except (TypeError, ValueError):
        return False
    return True


def _query_text(query) -> str:
    text = query.default_text() if hasattr(query, "default_text") else getattr(query, "text", "")
    return text if isinstance(text, str) else str(text)


def _check_store(ident: str, handler) -> None:
    missing = _needed(handler)
    if missing:
        _raise_missing(ident, missing)


def _raise_missing(ident: str, missing: list[MissingFile]) -> None:
    if missing:
        what = "; ".join(f"{m.path} ({m.source})" for m in missing)
        files = "file" if len(missing) == 1 else "files"
        raise DatasetUnavailable(f"{PREFIX}{ident}: the local ir_datasets store has no {what}; put the {files} "
                                 "there (IR_DATASETS_HOME sets the store)")


def _needed(root) -> list[MissingFile]:
    """The files under ``root`` (a dataset's handler) that neither exist nor have a cached product that
    exists: a walk of its objects, stopping at each cache whose file is there."""
    from ir_datasets.datasets.base import Dataset, ExpectedFile
    from ir_datasets.util import Cache, Download, LocalDownload, TarExtractAll, ZipExtractCache

    missing: list[MissingFile] = []
    seen: set[int] = set()
    stack = [root]
    while stack:
        obj = stack.pop()
        if id(obj) in seen or obj is None or isinstance(obj, (str, bytes, int, float, bool, Path, type)):
            continue
        seen.add(id(obj))
        if isinstance(obj, (list, tuple, set, frozenset)):
            stack.extend(obj)
            continue
        if isinstance(obj, dict):
            stack.extend(obj.values())
            continue
        if isinstance(obj, Cache) and Path(obj._path).exists():
            continue
        if isinstance(obj, TarExtractAll) and os.path.exists(obj._extract_path):
            continue
        if isinstance(obj, ZipExtractCache) and os.path.exists(obj.extract_path):
            continue
        if isinstance(obj, Download):
            _download_needed(obj, missing)
            continue
        if isinstance(obj, LocalDownload) and not obj._path.exists():
            missing.append(MissingFile(str(obj._path), _oneline(obj._message or "ir_datasets' instructions")))
            continue
        if isinstance(obj, ExpectedFile) and not obj._path.exists():
            text = (obj._instructions or "").format(path=obj._path) or "ir_datasets' instructions"
            missing.append(MissingFile(str(obj._path), _oneline(text)))
            continue
        if isinstance(obj, Dataset):  # another dataset: its other parts (documents) are not needed here
            continue
        if type(obj).__module__.split(".")[0] == "ir_datasets":
            stack.extend(getattr(obj, "__dict__", {}).values())
    return missing


def _download_needed(download, missing: list[MissingFile]) -> None:
    from ir_datasets.util import LocalDownload

    cache = download._cache_path
    if cache is not None and cache != os.devnull and os.path.exists(cache):
        return
    local = [m for m in download.mirrors if isinstance(m, LocalDownload)]
    if any(m._path.exists() for m in local):
        return
    urls = [getattr(m, "url", None) or getattr(m, "uri", None) for m in download.mirrors]
    urls = [u for u in urls if u]
    source = (f"ir_datasets downloads it from {urls[0]}" if urls else
              _oneline(next((m._message for m in local if m._message), "") or "ir_datasets' instructions"))
    path = str(cache) if cache is not None else str(local[0]._path) if local else "(a temporary file)"
    found = MissingFile(path, source)
    if found not in missing:
        missing.append(found)


def _oneline(text: str) -> str:
    return " ".join(str(text).split())


# --------------------------------------------------------------------------------------------------------
# no network, ever: a download ir_datasets would start while a dataset is read here is refused


_state = threading.local()
_guard_lock = threading.Lock()


@contextlib.contextmanager
def _offline(ident: str):
    before = getattr(_state, "dataset", None)
    _state.dataset = ident
    try:
        yield
    finally:
        _state.dataset = before


def _install_guard(irds) -> None:
    """Wrap ir_datasets' network sources so that, inside :func:`_offline` (in this thread), they raise
    :class:`DatasetUnavailable` instead of connecting; elsewhere they behave as before."""
    from ir_datasets.util import download

    with _guard_lock:
        for name in ("RequestsDownload", "GoogleDriveDownload", "GoogleCloudBucketStream"):
            cls = getattr(download, name, None)
            if cls is None or getattr(cls, "_rankscope_guarded", False):
                continue
            for method in ("stream", "__iter__"):
                original = cls.__dict__.get(method)
                if original is not None:
                    setattr(cls, method, _refusing(original))
            cls._rankscope_guarded = True


def _refusing(original):
    def method(self, *args, **kwargs):
        ident = getattr(_state, "dataset", None)
        if ident is not None:
            where = getattr(self, "url", None) or getattr(self, "uri", None) or "the network"
            raise DatasetUnavailable(f"{PREFIX}{ident}: the local ir_datasets store lacks a file that ir_datasets "
                                     f"would download from {where}; rankscope reads the local store only")
        return original(self, *args, **kwargs)

    method.__wrapped__ = original
    return method
