"""Readers for TREC qrels and run files.

``read_qrels`` and ``read_run`` accept a path (plain or gzip), ``bytes``, text, or a pandas DataFrame and
return validated, immutable :class:`Qrels` / :class:`Run` objects. Anything that cannot be read raises
:class:`~metrics.errors.ParseError` naming the file, the 1-based line, what was expected and what was
found.

Formats
-------
qrels
    ``qid iter docid rel`` — four whitespace-separated fields; ``rel`` an integer (a negative grade means
    "in the pool but not judged", as in trec_eval).
run
    ``qid Q0 docid rank score tag`` — six or more fields (extra columns are ignored); ``score`` a finite
    number. The rank column is read only to warn when it contradicts the scores.

Spaces and tabs (only these: a no-break space is part of a field, as in trec_eval) both separate fields;
LF, CRLF and CR line endings, a UTF-8 byte-order mark, blank lines and lines starting with ``#`` are
accepted. A run may open with an ir_metadata block (comment lines of YAML, :mod:`metrics.io.metadata`):
it is checked and kept as :attr:`Run.metadata`. Gzip input is recognised by its magic bytes, whatever the file name, and may expand to at most
``GZIP_LIMIT`` bytes. A path that is not a regular file (a pipe, ``/dev/stdin``, a device) is read in pieces,
at most ``GZIP_LIMIT`` bytes of it, and no further than the first piece holding a NUL byte (a text file holds
none): nothing a file says, nor its endlessness, sizes an allocation. :class:`ReadLimits` sets lower limits,
and a ratio of expansion, for input from people one does not know (the dashboard's uploads).

How the bytes become a table (pyarrow's CSV reader for regular files, a vectorised split of each line for
large irregular ones, a line reader for the rest and for error messages) is in :mod:`metrics.io.parsing`.
"""

from __future__ import annotations

import mmap
import os
import re
import stat
import sys
import zlib
from dataclasses import dataclass, field
from functools import cached_property, partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Union

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from metrics.checks import Options, check
from metrics.errors import InputTooLarge, ParseError, ValidationError
from metrics.io.arrays import block_starts, take_rows, to_numpy
from metrics.io.duplicates import dedupe
from metrics.io.frames import qrels_table, run_table
from metrics.io.metadata import find_metadata
from metrics.io.parsing import QRELS_LAYOUT, RUN_LAYOUT, line_number, parse

__all__ = ["Qrels", "ReadLimits", "Run", "as_qrels", "read_qrels", "read_run", "Source", "system_name",
           "SYSTEM_SUFFIXES"]

if TYPE_CHECKING:  # pandas is imported only when a DataFrame is given or asked for (fast start-up)
    import pandas as pd

Source = Union[str, os.PathLike, bytes, bytearray, "pd.DataFrame"]
Duplicates = Literal["error", "first", "last", "max"]

MAP_MIN_BYTES = 1 << 24  # regular files this large are read through a memory map (see read_path)
GZIP_LIMIT = 1 << 32  # bytes a gzip input may expand to (4 GiB): a 7-million-line run is about 0.3 GB
RATIO_FROM = 1 << 24  # bytes of expanded gzip from which ReadLimits.gzip_ratio is checked
_PIECE = 1 << 20  # bytes read at a time from a path that is not a regular file
_DUPLICATE_POLICIES = ("error", "first", "last", "max")
SYSTEM_SUFFIXES = (".gz", ".txt", ".run", ".res", ".tsv", ".trec")
"""File-name suffixes that :func:`system_name` strips (in any order, any case)."""
_BLANK = re.compile(rb"\s*\Z")


@dataclass(frozen=True, eq=False)
class Qrels:
    """Relevance judgments: one row per judged (query, document) pair.

    Attributes
    ----------
    name : str
        Where the judgments came from (file name), used in messages.
    table : pyarrow.Table
        Columns ``query`` (string), ``docid`` (string), ``relevance`` (int64), one row per pair, no
        duplicates.
    """

    name: str
    table: pa.Table = field(repr=False)

    @property
    def frame(self) -> pd.DataFrame:
        """The judgments as a pandas DataFrame (query, docid, relevance)."""
        return self.table.to_pandas()

    @property
    def queries(self) -> tuple[str, ...]:
        """The judged queries, sorted byte-wise (trec_eval's order)."""
        return tuple(sorted(pc.unique(self.table["query"]).to_pylist()))

    def __len__(self) -> int:
        return self.table.num_rows


@dataclass(frozen=True, eq=False)
class Run:
    """A system's ranked results: one row per retrieved (query, document) pair.

    Attributes
    ----------
    name : str
        The system's name (defaults to :func:`system_name` of the file name).
    table : pyarrow.Table
        Columns ``query`` (string), ``docid`` (string), ``score`` (float64) and ``rank`` (float64, NaN
        where the file's rank column is not a number), in file order, no duplicate (query, docid).
    tag : str
        The run tag of the first line (trec_eval's ``runid``).
    metadata : dict or None
        The file's ir_metadata block as plain data (:mod:`metrics.io.metadata`), ``None`` without one.
    """

    name: str
    table: pa.Table = field(repr=False)
    tag: str = ""
    metadata: dict[str, Any] | None = field(default=None, repr=False)

    @property
    def frame(self) -> pd.DataFrame:
        """The run as a pandas DataFrame (query, docid, score, rank)."""
        return self.table.to_pandas()

    @property
    def queries(self) -> tuple[str, ...]:
        """The queries the run answers, sorted byte-wise (trec_eval's order)."""
        return tuple(sorted(pc.unique(take_rows(self.table["query"], self.query_starts)).to_pylist()))

    @cached_property
    def query_starts(self) -> np.ndarray:
        """The rows where a block of one query's lines starts (row 0 first; :func:`block_starts` of the query
        column), found once per run: the duplicate check, the ranking and :attr:`queries` all read them."""
        return block_starts(self.table["query"])

    def __len__(self) -> int:
        return self.table.num_rows

    def renamed(self, name: str) -> "Run":
        """The same run under another system name."""
        return _known_starts(Run(name=name, table=self.table, tag=self.tag, metadata=self.metadata),
                             self.query_starts)


def is_dataframe(obj: Any) -> bool:
    """True for a pandas DataFrame (without importing pandas: if it is not imported, obj is none)."""
    frame = getattr(sys.modules.get("pandas"), "DataFrame", None)  # None too while pandas is being imported
    return frame is not None and isinstance(obj, frame)


@dataclass(frozen=True)
class ReadLimits:
    """How much a reader takes from one input, beyond what it takes by default.

    Parameters
    ----------
    gzip_bytes : int, optional
        The most bytes gzip input may expand to (default ``GZIP_LIMIT``, 4 GiB).
    gzip_ratio : float, optional
        The most times its compressed size gzip input may expand to, checked while it is expanded, once
        past ``RATIO_FROM`` (16 MiB) of output, so that a bomb is stopped after that much rather than at
        ``gzip_bytes``. Text files compress 3 to 15 times; a file of one repeated letter, 1000 times.
        Default: no ratio check.

    Exceeding either raises :class:`~metrics.errors.InputTooLarge` (a ParseError) whose ``limit`` is
    ``"gzip_bytes"`` or ``"gzip_ratio"``.
    """

    gzip_bytes: int | None = None
    gzip_ratio: float | None = None

    def __post_init__(self) -> None:
        for field_name in ("gzip_bytes", "gzip_ratio"):
            value = getattr(self, field_name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0):
                raise ValidationError(f"ReadLimits.{field_name}: expected a positive number, found {value!r}")


# --------------------------------------------------------------------------------------------------------
# public readers


def read_qrels(source: Source, *, name: str | None = None, duplicates: Duplicates = "error",
               limits: ReadLimits | None = None) -> Qrels:
    """Read relevance judgments in TREC qrels format.

    Parameters
    ----------
    source : str, os.PathLike, bytes or pandas.DataFrame
        A path (plain or gzip), the file's bytes, its text (a ``str`` containing a newline), or a
        DataFrame: ``query``, ``docid``, ``relevance``, or PyTerrier's ``qid``, ``docno``, ``label``, or
        ir_measures' ``query_id``, ``doc_id``, ``relevance`` (:data:`metrics.io.frames.FRAME_SHAPES`).
    name : str, optional
        The name used in messages; defaults to the file name.
    duplicates : {"error", "first", "last", "max"}, default="error"
        What to do with a repeated (query, docid) pair: raise, as trec_eval does, or keep the first, the
        last or the highest grade.
    limits : ReadLimits, optional
        Lower limits on gzip input (default: ``GZIP_LIMIT``, no ratio check).

    Returns
    -------
    Qrels

    Raises
    ------
    ParseError
        On any malformed line, naming the file and line; :class:`~metrics.errors.InputTooLarge` past a
        limit.

    Examples
    --------
    >>> q = read_qrels("301 0 d1 1\\n301 0 d2 0\\n")
    >>> len(q), q.queries
    (2, ('301',))
    """
    _check_policy(duplicates)
    if is_dataframe(source):
        table = qrels_table(source, name or "<DataFrame>")
        return Qrels(name=name or "<DataFrame>", table=dedupe(table, name or "<DataFrame>", None, duplicates,
                                                               "relevance"))
    data, label = _load(source, name, mapped=True, limits=limits)
    table, lines, _ = parse(data, label, kind="qrels", checks=lambda: _check_text(data, label, QRELS_LAYOUT))
    return Qrels(name=label, table=dedupe(table, label, lines, duplicates, "relevance"))


def as_qrels(qrels: Qrels | Source) -> Qrels:
    """``qrels`` itself when it is already :class:`Qrels`, else :func:`read_qrels` of it."""
    return qrels if isinstance(qrels, Qrels) else read_qrels(qrels)


def read_run(source: Source, *, name: str | None = None, duplicates: Duplicates = "error",
             limits: ReadLimits | None = None) -> Run:
    """Read a system's results in TREC run format.

    Parameters
    ----------
    source : str, os.PathLike, bytes or pandas.DataFrame
        A path (plain or gzip), the file's bytes, its text (a ``str`` containing a newline), or a
        DataFrame: ``query``, ``docid``, ``score`` (and optionally ``rank``), or PyTerrier's ``qid``,
        ``docno``, ``score``, ``rank``, or ir_measures' ``query_id``, ``doc_id``, ``score``
        (:data:`metrics.io.frames.FRAME_SHAPES`).
    name : str, optional
        The system name; defaults to :func:`system_name` of the file name (``bm25.run.gz`` -> ``bm25``).
    duplicates : {"error", "first", "last", "max"}, default="error"
        What to do with a repeated (query, docid) pair: raise, as trec_eval does, or keep the first, the
        last or the highest-scored line.
    limits : ReadLimits, optional
        Lower limits on gzip input (default: ``GZIP_LIMIT``, no ratio check).

    Returns
    -------
    Run

    Raises
    ------
    ParseError
        On any malformed line, naming the file and line; :class:`~metrics.errors.InputTooLarge` past a
        limit.

    Examples
    --------
    >>> r = read_run(b"301 Q0 d1 1 2.5 bm25\\n301 Q0 d2 2 1.5 bm25\\n", name="bm25")
    >>> len(r), r.tag
    (2, 'bm25')
    """
    _check_policy(duplicates)
    if is_dataframe(source):
        label = name or "<DataFrame>"
        table = run_table(source, label)
        _check_finite(table, label, None)
        return _run(label, table, label, None, duplicates, tag=label)
    data, label = _load(source, name, mapped=True, limits=limits)
    found: dict[str, Any] = {}  # on a large file the checks run while its parse starts on another core
    table, lines, tag = parse(data, label, kind="run", checks=partial(_check_run_text, data, label, found))
    del data  # the bytes can go before the duplicate check allocates
    system = name if name is not None else system_name(label)
    return _run(system, table, label, lines, duplicates, tag=tag, metadata=found["metadata"])


def _check_run_text(data: bytes, label: str, found: dict[str, Any]) -> None:
    """A run file's look at its whole text: raise on a binary file or a misplaced ir_metadata block; keep the
    file's metadata in ``found``."""
    _check_text(data, label, RUN_LAYOUT)
    found["metadata"] = find_metadata(data, label)  # its lines are comments: the table skips them


def _run(name: str, table: pa.Table, label: str, lines: np.ndarray | None, duplicates: str, **fields: Any) -> Run:
    """The run of a parsed table, its duplicates checked; the query blocks the check finds are the run's
    own when it drops no line."""
    starts = block_starts(table.column("query"))
    kept = dedupe(table, label, lines, duplicates, "score", query_starts=starts)
    run = Run(name=name, table=kept, **fields)
    return _known_starts(run, starts) if kept is table else run


def _known_starts(run: Run, starts: np.ndarray) -> Run:
    """``run`` with :attr:`Run.query_starts` set to ``starts``, the blocks of its table found already."""
    run.__dict__["query_starts"] = starts  # where the cached property keeps its value
    return run


# --------------------------------------------------------------------------------------------------------
# loading bytes


def _load(source: Source, name: str | None, *, mapped: bool = False,
          limits: ReadLimits | None = None) -> tuple[bytes, str]:
    """Return the (decompressed, BOM-stripped) bytes and the label used in messages.

    ``mapped``: a plain file of ``MAP_MIN_BYTES`` or more comes back as a read-only memory map of the file
    (an :class:`mmap.mmap`, which the readers take like bytes) instead of a copy of it.
    """
    if isinstance(source, (bytes, bytearray, memoryview)):
        data, label = bytes(source), name or "<bytes>"
    elif isinstance(source, str) and ("\n" in source or "\r" in source):
        data, label = source.encode("utf-8"), name or "<text>"
    elif isinstance(source, (str, os.PathLike)):
        path = Path(source)
        label = name or path.name
        try:
            data = read_path(path, label, mapped=mapped)
        except OSError as err:
            raise ParseError(label, None, f"cannot read file: {err.strerror or err}") from None
        except ValueError:  # a NUL in the path: no file has such a name
            raise ParseError(label, None, "cannot read file: expected a path, found a NUL byte in it") from None
    else:
        raise ValidationError(f"cannot read {type(source).__name__}: expected a path, bytes, text or a DataFrame")
    if data[:2] == b"\x1f\x8b":
        data = _gunzip(data, label, limits or ReadLimits())
    if data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    return data, label


def read_path(path: str | os.PathLike, label: str, *, mapped: bool = False) -> bytes | mmap.mmap:
    """The bytes of the file at ``path``: a regular file whole (memory-mapped when ``mapped`` and of
    ``MAP_MIN_BYTES`` or more), anything else (a pipe, a device) read in pieces, at most ``GZIP_LIMIT``
    bytes, up to the first piece that holds a NUL byte unless it is gzip (the text check then names it).

    Raises
    ------
    OSError
        The file cannot be opened or read.
    InputTooLarge
        A stream that goes on past ``GZIP_LIMIT`` bytes (``/dev/zero``, ``yes |``).
    """
    with open(path, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            return read_stream(handle, label)
        if mapped and info.st_size >= MAP_MIN_BYTES:
            gzipped = handle.read(2) == b"\x1f\x8b"
            handle.seek(0)
            # mapping the pages the system already caches saves copying the file and faulting in fresh
            # memory for the copy: on a 231 MiB run, 0.15 s of kernel time; the map lives as long as the
            # bytes would (the readers drop it once parsed)
            if not gzipped:
                try:
                    return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
                except (OSError, ValueError):  # a system without mmap: read it instead
                    pass
        return handle.read()


def read_stream(handle, label: str, limit: int | None = None) -> bytes:
    """Read a binary stream in pieces of 1 MiB: at most ``limit`` bytes (default ``GZIP_LIMIT``), and,
    unless it starts as gzip, no further than the first piece holding a NUL byte.

    Raises
    ------
    InputTooLarge
        The stream goes on past ``limit`` bytes.
    """
    limit = GZIP_LIMIT if limit is None else limit
    pieces: list[bytes] = []
    total = 0
    while True:
        piece = handle.read(min(_PIECE, limit + 1 - total))
        if not piece:
            break
        pieces.append(piece)
        total += len(piece)
        if total > limit:
            raise InputTooLarge(label, None, f"expected at most {limit >> 20} MiB, found a stream that goes on "
                                             "past it", limit="stream_bytes")
        if b"\x00" in piece and pieces[0][:2] != b"\x1f\x8b":
            break  # not text: what was read says so, with its line
    return b"".join(pieces)


def _gunzip(data: bytes, label: str, limits: ReadLimits) -> bytes:
    """Decompress gzip data (one or more members), refusing to expand past ``limits``."""
    limit = GZIP_LIMIT if limits.gzip_bytes is None else limits.gzip_bytes
    size = len(data)
    pieces: list[bytes] = []
    total = 0
    while data:
        stream = zlib.decompressobj(wbits=31)
        try:
            while True:
                piece = stream.decompress(data, 1 << 24)
                total += len(piece)
                if total > limit:
                    raise InputTooLarge(label, None, f"expected gzip data that expands to at most "
                                                     f"{limit / (1 << 20):g} MiB, found more", limit="gzip_bytes")
                data = stream.unconsumed_tail
                if (limits.gzip_ratio is not None and total > RATIO_FROM
                        and total > limits.gzip_ratio * (size - len(data))):
                    raise InputTooLarge(label, None, f"expected gzip data that expands at most "
                                                     f"{limits.gzip_ratio:g} times, found more",
                                        limit="gzip_ratio")
                pieces.append(piece)
                if stream.eof or not data:
                    break
        except zlib.error:
            raise ParseError(label, None, "expected gzip data, found a corrupt gzip stream") from None
        if not stream.eof:
            raise ParseError(label, None, "expected gzip data, found a truncated gzip stream")
        data = stream.unused_data.lstrip(b"\x00")  # trailing zero padding is allowed, as gzip allows it
        if data and data[:2] != b"\x1f\x8b":
            raise ParseError(label, None, "expected gzip data, found other bytes after the gzip stream")
    return b"".join(pieces)


def _check_text(data: bytes, label: str, layout: str) -> None:
    head = data[:512]
    if data[:2] in (b"\xff\xfe", b"\xfe\xff") or (len(head) >= 8 and max(head[0::2].count(0), head[1::2].count(0))
                                                   >= 0.9 * (len(head) // 2)):  # UTF-16 with or without BOM
        raise ParseError(label, None, "expected UTF-8 text, found UTF-16 (save the file as UTF-8)")
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        raise ParseError(label, None, "expected a text file, found a PNG image")
    if _BLANK.match(data):
        raise ParseError(label, None, f"empty file: expected lines {layout}")
    nul = data.find(b"\x00")
    if nul >= 0:
        raise ParseError(label, line_number(data, nul), "expected text, found a NUL byte (binary file?)")


def system_name(filename: str) -> str:
    """The name of the system whose run is in the file ``filename``: the name without its known suffixes.

    Every reader of runs names systems with this rule: :func:`read_run` (when not given a name), the
    ``rankscope`` commands, the dashboard's uploads and the manifest's commands.

    Parameters
    ----------
    filename : str
        A file name (not a path).

    Returns
    -------
    str
        ``filename`` with the suffixes of :data:`SYSTEM_SUFFIXES` (compared case-insensitively) stripped
        from its end, repeatedly and in any order, until none is left; a suffix that is the whole of
        what remains stays, so the name is never empty.

    Examples
    --------
    >>> system_name("bm25.run.gz"), system_name("bm25.res.trec"), system_name("bm25.trec.res.gz")
    ('bm25', 'bm25', 'bm25')
    >>> system_name("BM25.TXT"), system_name("a.b.c"), system_name(".run"), system_name(".run.gz")
    ('BM25', 'a.b.c', '.run', '.run')
    """
    name = filename
    while True:
        lower = name.lower()
        suffix = next((s for s in SYSTEM_SUFFIXES if lower.endswith(s) and len(name) > len(s)), None)
        if suffix is None:
            return name
        name = name[: -len(suffix)]


def _check_policy(duplicates: str) -> None:
    check("duplicates", duplicates, Options(*_DUPLICATE_POLICIES))


# --------------------------------------------------------------------------------------------------------
# checks on parsed tables


def _line_of(row: int, lines: np.ndarray | None) -> int:
    return int(lines[row]) if lines is not None else row + 1


def _check_finite(table: pa.Table, label: str, lines: np.ndarray | None) -> None:
    score = to_numpy(table.column("score"))
    bad = np.flatnonzero(~np.isfinite(score))
    if bad.size:
        raise ParseError(label, _line_of(int(bad[0]), lines),
                         f'expected a finite number in field 5 "score", found "{score[bad[0]]}"')
