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

Spaces and tabs both separate fields; CRLF line endings, a UTF-8 byte-order mark, blank lines and lines
starting with ``#`` are accepted. Gzip input is recognised by its magic bytes, whatever the file name.

The common case — a large, clean, space-separated file — is parsed by pyarrow's multi-threaded CSV reader;
anything else goes through a line-by-line reader that knows exactly which line is wrong.
"""

from __future__ import annotations

import gzip
import io
import os
import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Union

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from metrics.errors import ParseError, ValidationError

__all__ = ["Qrels", "Run", "read_qrels", "read_run", "Source"]

Source = Union[str, os.PathLike, bytes, bytearray, pd.DataFrame]
Duplicates = Literal["error", "first", "last", "max"]

RUN_LAYOUT = '"qid Q0 docid rank score tag"'
QRELS_LAYOUT = '"qid iter docid rel"'
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\Z")
_INTEGER = re.compile(r"[+-]?\d+\Z")
_DUPLICATE_POLICIES = ("error", "first", "last", "max")
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
        The system's name (defaults to the file name without extension).
    table : pyarrow.Table
        Columns ``query`` (string), ``docid`` (string), ``score`` (float64) and ``rank`` (float64, NaN
        where the file's rank column is not a number), in file order, no duplicate (query, docid).
    tag : str
        The run tag of the first line (trec_eval's ``runid``).
    """

    name: str
    table: pa.Table = field(repr=False)
    tag: str = ""

    @property
    def frame(self) -> pd.DataFrame:
        """The run as a pandas DataFrame (query, docid, score, rank)."""
        return self.table.to_pandas()

    @property
    def queries(self) -> tuple[str, ...]:
        """The queries the run answers, sorted byte-wise (trec_eval's order)."""
        return tuple(sorted(pc.unique(self.table["query"]).to_pylist()))

    def __len__(self) -> int:
        return self.table.num_rows

    def renamed(self, name: str) -> "Run":
        """The same run under another system name."""
        return Run(name=name, table=self.table, tag=self.tag)


# --------------------------------------------------------------------------------------------------------
# public readers


def read_qrels(source: Source, *, name: str | None = None, duplicates: Duplicates = "error") -> Qrels:
    """Read relevance judgments in TREC qrels format.

    Parameters
    ----------
    source : str, os.PathLike, bytes or pandas.DataFrame
        A path (plain or gzip), the file's bytes, its text (a ``str`` containing a newline), or a
        DataFrame with columns ``query``, ``docid``, ``relevance``.
    name : str, optional
        The name used in messages; defaults to the file name.
    duplicates : {"error", "first", "last", "max"}, default="error"
        What to do with a repeated (query, docid) pair: raise, as trec_eval does, or keep the first, the
        last or the highest grade.

    Returns
    -------
    Qrels

    Raises
    ------
    ParseError
        On any malformed line, naming the file and line.

    Examples
    --------
    >>> q = read_qrels("301 0 d1 1\\n301 0 d2 0\\n")
    >>> len(q), q.queries
    (2, ('301',))
    """
    _check_policy(duplicates)
    if isinstance(source, pd.DataFrame):
        table = _frame_to_table(source, {"query": pa.string(), "docid": pa.string(), "relevance": pa.int64()},
                                name or "<DataFrame>")
        return Qrels(name=name or "<DataFrame>", table=_dedupe(table, name or "<DataFrame>", None, duplicates,
                                                               "relevance"))
    data, label = _load(source, name)
    _check_text(data, label, QRELS_LAYOUT)
    table, lines, _ = _parse(data, label, kind="qrels")
    return Qrels(name=label, table=_dedupe(table, label, lines, duplicates, "relevance"))


def read_run(source: Source, *, name: str | None = None, duplicates: Duplicates = "error") -> Run:
    """Read a system's results in TREC run format.

    Parameters
    ----------
    source : str, os.PathLike, bytes or pandas.DataFrame
        A path (plain or gzip), the file's bytes, its text (a ``str`` containing a newline), or a
        DataFrame with columns ``query``, ``docid``, ``score`` (and optionally ``rank``).
    name : str, optional
        The system name; defaults to the file name without its extensions (``bm25.run.gz`` -> ``bm25``).
    duplicates : {"error", "first", "last", "max"}, default="error"
        What to do with a repeated (query, docid) pair: raise, as trec_eval does, or keep the first, the
        last or the highest-scored line.

    Returns
    -------
    Run

    Raises
    ------
    ParseError
        On any malformed line, naming the file and line.

    Examples
    --------
    >>> r = read_run(b"301 Q0 d1 1 2.5 bm25\\n301 Q0 d2 2 1.5 bm25\\n", name="bm25")
    >>> len(r), r.tag
    (2, 'bm25')
    """
    _check_policy(duplicates)
    if isinstance(source, pd.DataFrame):
        label = name or "<DataFrame>"
        frame = source if "rank" in source.columns else source.assign(rank=np.nan)
        table = _frame_to_table(frame, {"query": pa.string(), "docid": pa.string(), "score": pa.float64(),
                                        "rank": pa.float64()}, label)
        _check_finite(table, label, None)
        return Run(name=label, table=_dedupe(table, label, None, duplicates, "score"), tag=label)
    data, label = _load(source, name)
    _check_text(data, label, RUN_LAYOUT)
    table, lines, tag = _parse(data, label, kind="run")
    del data  # the bytes can go before the duplicate check allocates
    _check_finite(table, label, lines)
    system = name if name is not None else _system_name(label)
    return Run(name=system, table=_dedupe(table, label, lines, duplicates, "score"), tag=tag)


# --------------------------------------------------------------------------------------------------------
# loading bytes


def _load(source: Source, name: str | None) -> tuple[bytes, str]:
    """Return the (decompressed, BOM-stripped) bytes and the label used in messages."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        data, label = bytes(source), name or "<bytes>"
    elif isinstance(source, str) and ("\n" in source or "\r" in source):
        data, label = source.encode("utf-8"), name or "<text>"
    elif isinstance(source, (str, os.PathLike)):
        path = Path(source)
        label = name or path.name
        try:
            data = path.read_bytes()
        except OSError as err:
            raise ParseError(label, None, f"cannot read file: {err.strerror or err}") from None
    else:
        raise ValidationError(f"cannot read {type(source).__name__}: expected a path, bytes, text or a DataFrame")
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as err:
            raise ParseError(label, None, f"corrupt gzip data: {err}") from None
    if data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    return data, label


def _check_text(data: bytes, label: str, layout: str) -> None:
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        raise ParseError(label, None, "expected UTF-8 text, found UTF-16 (save the file as UTF-8)")
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        raise ParseError(label, None, "expected a text file, found a PNG image")
    if _BLANK.match(data):
        raise ParseError(label, None, f"empty file: expected lines {layout}")
    nul = data.find(b"\x00")
    if nul >= 0:
        raise ParseError(label, data.count(b"\n", 0, nul) + 1, "expected text, found a NUL byte (binary file?)")


def _decode(data: bytes, label: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise ParseError(label, line, f"expected UTF-8 text, found byte 0x{data[err.start]:02x}") from None


def _system_name(label: str) -> str:
    base = label
    for ext in (".gz", ".txt", ".run", ".res", ".tsv", ".trec"):
        if base.lower().endswith(ext) and len(base) > len(ext):
            base = base[: -len(ext)]
    return base


def _check_policy(duplicates: str) -> None:
    if duplicates not in _DUPLICATE_POLICIES:
        raise ValidationError(f"duplicates must be one of {_DUPLICATE_POLICIES}, got {duplicates!r}")


# --------------------------------------------------------------------------------------------------------
# parsing


def _parse(data: bytes, label: str, *, kind: str) -> tuple[pa.Table, np.ndarray | None, str]:
    """Parse bytes into a table; also return the 1-based line number of each row (None: row i is line i+1)
    and, for runs, the tag of the first line."""
    # pyarrow reads lines as rows only when no line is blank, a comment or CR-terminated; it rejects blank
    # lines and wrong field counts itself (then the line reader says exactly what is wrong), so the checks
    # left here are one memchr for CR and a look at the (few) distinct query ids for comments.
    if data.find(b"\r") < 0:
        try:
            table = _parse_fast(data, kind)
            queries = pc.unique(table.column("query")).to_pylist()
            if not any(q.startswith("#") for q in queries):
                first = data[: data.find(b"\n")] if b"\n" in data else data
                return table, None, first.decode("utf-8").split()[-1] if kind == "run" else ""
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            pass
    return _parse_lines(data, label, kind=kind)


def _parse_fast(data: bytes, kind: str) -> pa.Table:
    if kind == "run":
        names = ["query", "q0", "docid", "rank", "score", "tag"]
        types = {"query": pa.string(), "docid": pa.string(), "rank": pa.float64(), "score": pa.float64()}
    else:
        names = ["query", "iter", "docid", "relevance"]
        types = {"query": pa.string(), "docid": pa.string(), "relevance": pa.int64()}
    table = pacsv.read_csv(
        io.BytesIO(data),
        read_options=pacsv.ReadOptions(column_names=names, block_size=1 << 24),
        parse_options=pacsv.ParseOptions(delimiter=" ", quote_char=False, escape_char=False,
                                         ignore_empty_lines=False),
        convert_options=pacsv.ConvertOptions(column_types=types, include_columns=list(types),
                                             quoted_strings_can_be_null=False, strings_can_be_null=False,
                                             null_values=[]),
    )
    # pyarrow accepts spellings ("nan", "inf", "1e999") the line reader reports; let it report them
    if kind == "run":
        score = table.column("score").to_numpy()
        if not np.isfinite(score).all():
            raise pa.ArrowInvalid("non-finite score")
    return table


def _parse_lines(data: bytes, label: str, *, kind: str) -> tuple[pa.Table, np.ndarray, str]:
    text = _decode(data, label)
    queries: list[str] = []
    docids: list[str] = []
    values: list[float] = []
    ranks: list[float] = []
    lines: list[int] = []
    tag = None
    run = kind == "run"
    for number, line in enumerate(text.splitlines(), start=1):
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        if run:
            if len(fields) < 6:
                raise ParseError(label, number, _field_count_message(fields, 6, RUN_LAYOUT, "run", not lines))
            score = fields[4]
            value = float(score) if _NUMBER.match(score) else np.nan
            if not np.isfinite(value):
                raise ParseError(label, number, f'expected a finite number in field 5 "score", found "{_clip(score)}"')
            rank = fields[3]
            ranks.append(float(rank) if _NUMBER.match(rank) else np.nan)
            if tag is None:
                tag = fields[5]
        else:
            if len(fields) != 4:
                raise ParseError(label, number, _field_count_message(fields, 4, QRELS_LAYOUT, "qrels", not lines))
            grade = fields[3]
            if not _INTEGER.match(grade):
                raise ParseError(label, number,
                                 f'expected an integer relevance grade in field 4, found "{_clip(grade)}"')
            value = int(grade)
        queries.append(fields[0])
        docids.append(fields[2])
        values.append(value)
        lines.append(number)
    if not lines:
        raise ParseError(label, None, f"no data lines: expected lines {RUN_LAYOUT if run else QRELS_LAYOUT}")
    columns = {"query": pa.array(queries, pa.string()), "docid": pa.array(docids, pa.string())}
    if run:
        columns["score"] = pa.array(values, pa.float64())
        columns["rank"] = pa.array(ranks, pa.float64())
    else:
        columns["relevance"] = pa.array(values, pa.int64())
    return pa.table(columns), np.asarray(lines, dtype=np.int64), tag or ""


def _field_count_message(fields: list[str], expected: int, layout: str, kind: str, first: bool) -> str:
    """Say how many fields were found; on the first data line, recognise the other file type."""
    found = len(fields)
    if first and kind == "run" and found == 4 and _INTEGER.match(fields[3]):
        return (f"expected {expected} fields {layout}, found 4 — this looks like a qrels file "
                f'("qid iter docid rel"); give it as the qrels')
    if first and kind == "qrels" and found >= 6 and _NUMBER.match(fields[4]):
        return (f"expected {expected} fields {layout}, found {found} — this looks like a run file "
                f'("qid Q0 docid rank score tag"); give it as a run')
    return f"expected {expected} fields {layout}, found {found}"


def _clip(text: str, width: int = 40) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


# --------------------------------------------------------------------------------------------------------
# checks on parsed tables


def _line_of(row: int, lines: np.ndarray | None) -> int:
    return int(lines[row]) if lines is not None else row + 1


def _check_finite(table: pa.Table, label: str, lines: np.ndarray | None) -> None:
    score = table.column("score").to_numpy()
    bad = np.flatnonzero(~np.isfinite(score))
    if bad.size:
        raise ParseError(label, _line_of(int(bad[0]), lines),
                         f'expected a finite number in field 5 "score", found "{score[bad[0]]}"')


def _dedupe(table: pa.Table, label: str, lines: np.ndarray | None, policy: str, value: str) -> pa.Table:
    """Find repeated (query, docid) pairs; raise or keep one per the policy."""
    suspects = _maybe_duplicated(table)
    if not len(suspects):
        return table
    keys = table.select(["query", "docid"]).take(pa.array(suspects)).append_column("row", pa.array(suspects))
    grouped = keys.group_by(["query", "docid"], use_threads=False).aggregate([("row", "min"), ("row", "count")])
    if grouped.num_rows == len(suspects):
        return table
    if policy == "error":
        counts = grouped.column("row_count").to_numpy()
        first = np.sort(grouped.column("row_min").to_numpy()[counts > 1])[0]
        query, docid = table.column("query")[int(first)].as_py(), table.column("docid")[int(first)].as_py()
        rows = np.flatnonzero((table.column("query").to_numpy(zero_copy_only=False) == query)
                              & (table.column("docid").to_numpy(zero_copy_only=False) == docid))
        raise ParseError(label, _line_of(int(rows[1]), lines),
                         f'duplicate document "{_clip(docid)}" for query "{_clip(query)}" '
                         f"(first on line {_line_of(int(rows[0]), lines)}); trec_eval rejects duplicates — "
                         f"remove one, or choose to keep the first, last or max")
    frame = table.to_pandas()
    if policy == "max":
        order = np.lexsort((np.arange(len(frame)), -frame[value].to_numpy()))
        frame = frame.iloc[order].drop_duplicates(["query", "docid"], keep="first").sort_index()
    else:
        frame = frame.drop_duplicates(["query", "docid"], keep=policy)
    return pa.Table.from_pandas(frame, schema=table.schema, preserve_index=False)


def _maybe_duplicated(table: pa.Table) -> np.ndarray:
    """Rows whose (query, docid) hash equals another row's: a superset of the duplicates, usually empty.

    Hashing the id bytes with numpy and sorting the 64-bit keys (a SIMD sort) is several times faster
    than an exact hash grouping of millions of strings; only the (rare) suspects are compared exactly.
    """
    query = pc.dictionary_encode(table.column("query")).combine_chunks().indices.to_numpy()
    key = _string_hash(table.column("docid"))
    key ^= query.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    ranked = np.sort(key)
    same = ranked[1:] == ranked[:-1]
    if not same.any():
        return np.zeros(0, dtype=np.int64)
    return np.flatnonzero(np.isin(key, ranked[1:][same]))


def _string_hash(column: pa.ChunkedArray | pa.Array, width: int = 12) -> np.ndarray:
    """A 64-bit FNV-style hash of each string's length and its first and last ``width`` bytes."""
    array = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    n = len(array)
    width_type = np.int64 if pa.types.is_large_string(array.type) else np.int32
    offsets = np.frombuffer(array.buffers()[1], dtype=width_type)[array.offset:array.offset + n + 1]
    offsets = offsets.astype(np.int64)
    raw = array.buffers()[2]
    data = np.concatenate([np.frombuffer(raw, dtype=np.uint8) if raw is not None else np.zeros(0, np.uint8),
                           np.zeros(width, dtype=np.uint8)])
    start, length = offsets[:-1], np.diff(offsets)
    prime = np.uint64(1099511628211)
    h = length.astype(np.uint64) * np.uint64(0xCBF29CE484222325)
    longest = int(length.max()) if n else 0
    head = min(longest, width)
    where = start.copy()
    for j in range(head):  # the first bytes
        _mix(h, data, where, length <= j, prime)
        where += 1
    if longest > width:  # and the last bytes of long ids, where ids like "doc_29_677149#3_1524" differ
        where = np.maximum(start + length - 1, 0)
        for j in range(1, width + 1):
            _mix(h, data, where, length < j, prime)
            np.maximum(where - 1, 0, out=where)
    return h


def _mix(h: np.ndarray, data: np.ndarray, where: np.ndarray, outside: np.ndarray, prime: np.uint64) -> None:
    byte = data[where]
    byte[outside] = 0
    np.bitwise_xor(h, byte, out=h, casting="unsafe")
    h *= prime


def _frame_to_table(frame: pd.DataFrame, schema: dict[str, pa.DataType], label: str) -> pa.Table:
    missing = [c for c in schema if c not in frame.columns]
    if missing:
        raise ValidationError(f"{label}: expected columns {list(schema)}, missing {missing}")
    columns = {}
    for column, dtype in schema.items():
        values = frame[column]
        if pa.types.is_string(dtype):
            values = values.astype(str)
        try:
            columns[column] = pa.array(values.to_numpy(), type=dtype, from_pandas=True)
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError) as err:
            raise ValidationError(f"{label}: column {column!r} cannot be read as {dtype}: {err}") from None
        if pa.types.is_string(dtype):
            continue
        if columns[column].null_count and column != "rank":
            raise ValidationError(f"{label}: column {column!r} has missing values")
    return pa.table(columns)
