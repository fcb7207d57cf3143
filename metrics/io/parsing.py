"""From the bytes of a qrels or run file to a table, with the 1-based line of every row.

Three readers, all giving the same table for any input (a property test holds them to it):

* the fast path: pyarrow's multi-threaded CSV reader, for files whose lines all have exactly one space
  (or exactly one tab) between fields and no blank or comment line: nearly every machine-written file;
* the split path: for large files that are legal but irregular (runs of blanks, tabs and spaces mixed,
  comment and blank lines), each line is read as one string and split on blanks by pyarrow, still
  vectorised;
* the line reader: plain Python over the lines, for small files, and to word the error of the first bad
  line any path meets.

Only spaces and tabs separate fields (a no-break space belongs to its field, as in trec_eval); lines end
with LF, CRLF or CR; a line whose first field starts with ``#`` is a comment.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from metrics.errors import ParseError

__all__ = ["parse", "parse_lines", "line_number", "POOL", "RUN_LAYOUT", "QRELS_LAYOUT"]

RUN_LAYOUT = '"qid Q0 docid rank score tag"'
QRELS_LAYOUT = '"qid iter docid rel"'
# linear-time on any input: the digits before and after the point cannot trade places (no backtracking blow-up)
_NUMBER_RE = r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
_INTEGER_RE = r"[+-]?[0-9]{1,18}"  # fits int64
_NUMBER = re.compile(_NUMBER_RE + r"\Z")
_INTEGER = re.compile(_INTEGER_RE + r"\Z")
_LINE_END = re.compile(r"\r\n|\r|\n")
_LINE_END_BYTES = re.compile(rb"\r\n|\r|\n")
_FIELD_SEP = re.compile(r"[ \t]+")
SPLIT_MIN_BYTES = 1 << 20  # smaller irregular files go straight to the line reader
_BLOCK = 1 << 22  # pyarrow's block: 4 MiB parsed faster than 16 MiB on 2 cores (more, smaller tasks)
# The large arrays rankscope has pyarrow build (the tables read here, codes and hashes of millions of ids)
# take their memory from the C library's allocator: measured on a 7M-line run, pyarrow's default (mimalloc)
# pool doubled the kernel time spent on page faults and raised the peak by about 70 MB.
POOL = pa.system_memory_pool()


def line_number(data: bytes, offset: int) -> int:
    """1-based line of byte ``offset`` (lines end with LF, CRLF or CR)."""
    return len(_LINE_END_BYTES.findall(data, 0, offset)) + 1


def parse(data: bytes, label: str, *, kind: str,
          checks: Callable[[], None] | None = None) -> tuple[pa.Table, np.ndarray | None, str]:
    """Parse bytes into a table; also return the 1-based line number of each row (None: row i is line i+1)
    and, for runs, the tag of the first data line. Raises ``ParseError`` at the first bad line.

    ``checks``, if given, is called once before anything is parsed or returned, and raises to refuse the
    file: the reader's look at the whole file (a NUL byte, a misplaced ir_metadata block), which on a large
    file runs while its parse starts on another core."""
    # pyarrow reads lines as rows only when every line has the same single-character separator and no line
    # is blank or a comment; it rejects blank lines and wrong field counts itself, so the checks left here
    # are a memchr or two for the separator, one pass for doubled blanks, and a search for a line that
    # starts with "#" (a comment).
    fast = _fast(data, kind, checks or _no_checks)
    if fast is not None and not _has_comment_line(fast[0]):
        table, delimiter = fast
        first = _LINE_END_BYTES.split(data[:1 << 16], maxsplit=1)[0]
        return table, None, first.decode("utf-8").split(delimiter)[-1] if kind == "run" else ""
    if len(data) >= SPLIT_MIN_BYTES:
        found = _parse_split(data, label, kind)
        if found is not None:
            return found
    return parse_lines(data, label, kind=kind)


AHEAD_BYTES = 1 << 24  # from this size the fast path's parse starts while its checks still run


def _no_checks() -> None:
    pass


def _fast(data: bytes, kind: str, checks: Callable[[], None]) -> tuple[pa.Table, str] | None:
    """The fast path's table and separator, or None when its checks rule the file out or pyarrow rejects it;
    ``checks`` (the caller's, which raise) are called first.

    A large file's parse starts at once, on the separator its first line shows, in a thread of its own (pyarrow
    parses without the interpreter's lock), while the checks read the file here; a table they rule out is
    dropped, and one the caller's checks refuse is waited for and dropped. Measured on 7M-line runs, the
    checks take 0.1-0.15 s, and the caller's up to 0.2 s more on a 1.1 GB file, which the parse then hides."""
    if len(data) < AHEAD_BYTES:
        checks()
        delimiter = _separator(data)
        if delimiter is None or _maybe_empty_fields(data):
            return None
        table = _parse_or_none(data, kind, delimiter)
        return None if table is None else (table, delimiter)
    guess = "\t" if b"\t" in _LINE_END_BYTES.split(data[:1 << 16], maxsplit=1)[0] else " "
    with ThreadPoolExecutor(1) as pool:
        ahead = pool.submit(_parse_or_none, data, kind, guess)
        checks()  # raising, it leaves the block once the parse has ended
        fits = _separator(data) == guess and not _maybe_empty_fields(data)
        table = ahead.result()
    return (table, guess) if fits and table is not None else None


def _separator(data: bytes) -> str | None:
    """The one field separator of a file that holds spaces or tabs but not both, else None."""
    return " " if data.find(b"\t") < 0 else "\t" if data.find(b" ") < 0 else None


def _parse_or_none(data: bytes, kind: str, delimiter: str) -> pa.Table | None:
    try:
        return _parse_fast(data, kind, delimiter)
    except (pa.ArrowInvalid, pa.ArrowTypeError, UnicodeDecodeError):
        return None


def _has_comment_line(table: pa.Table) -> bool:
    """Whether a line the fast path read is a comment: where every line is fields between single
    separators (no line starts with a blank, none is empty), a line starts with ``#`` exactly when its
    first field, the query, does. A look at the query column, not another pass over the file's bytes."""
    return bool(pc.any(pc.starts_with(table.column("query"), "#")).as_py())


def _maybe_empty_fields(data: bytes, chunk: int = 1 << 20) -> bool:
    """True when two separators, or a separator and a line end, may meet (pyarrow would read an empty field
    where the line reader sees none): any two adjacent bytes <= 0x20 other than CR LF, or a separator at
    either end. False positives only cost a slower path; there are no false negatives. The file is looked
    at 1 MiB at a time: the masks of a chunk stay in cache and reuse the same memory (16 MiB chunks took
    twice the time, half of it faulting fresh pages in)."""
    raw = np.frombuffer(data, dtype=np.uint8)
    if not len(raw) or raw[0] <= 32 or raw[-1] in (9, 32):
        return bool(len(raw))
    for start in range(0, len(raw) - 1, chunk):
        part = raw[start:start + chunk + 1]  # one byte of overlap, so no pair is missed
        small = part <= 32
        pairs = np.flatnonzero(small[:-1] & small[1:])
        if len(pairs) and not ((part[pairs] == 13) & (part[pairs + 1] == 10)).all():
            return True
    return False


def _csv(data: bytes, names: list[str], types: dict, delimiter: str) -> pa.Table:
    return pacsv.read_csv(
        pa.BufferReader(pa.py_buffer(data)),  # the blocks are slices of data: no copies
        read_options=pacsv.ReadOptions(column_names=names, block_size=_BLOCK),
        parse_options=pacsv.ParseOptions(delimiter=delimiter, quote_char=False, escape_char=False,
                                         ignore_empty_lines=False),
        convert_options=pacsv.ConvertOptions(column_types=types, include_columns=list(types),
                                             quoted_strings_can_be_null=False, strings_can_be_null=False,
                                             null_values=[]),
        memory_pool=POOL,
    )


def _parse_fast(data: bytes, kind: str, delimiter: str = " ") -> pa.Table:
    if kind == "run":
        table = _csv(data, ["query", "q0", "docid", "rank", "score", "tag"],
                     {"query": pa.string(), "docid": pa.string(), "rank": pa.float64(), "score": pa.float64()},
                     delimiter)
        # pyarrow accepts spellings ("nan", "inf", "1e999") the line reader reports; let it report them
        if not pc.all(pc.is_finite(table.column("score"))).as_py():
            raise pa.ArrowInvalid("non-finite score")
        if not pc.all(pc.is_finite(table.column("rank"))).as_py():
            table = table.set_column(table.schema.get_field_index("rank"), "rank", _finite_or_nan(table.column("rank")))
        return table.select(["query", "docid", "score", "rank"])  # the line reader's column order
    table = _csv(data, ["query", "iter", "docid", "relevance"],
                 {"query": pa.string(), "docid": pa.string(), "relevance": pa.string()}, delimiter)
    grade = table.column("relevance")  # read as text: pyarrow's integers also take hex ("0x10")
    if not pc.all(pc.match_substring_regex(grade, f"^(?:{_INTEGER_RE})$")).as_py():
        raise pa.ArrowInvalid("not an integer grade")
    return table.set_column(table.schema.get_field_index("relevance"), "relevance",
                            pc.cast(pc.utf8_ltrim(grade, "+"), pa.int64()))


def _parse_split(data: bytes, label: str, kind: str) -> tuple[pa.Table, np.ndarray, str] | None:
    """Each line as one string, split on spaces and tabs by pyarrow; None to leave the file to the line
    reader (bytes this path would treat differently: \\x01 is its column separator, and pyarrow's ASCII
    split also splits on \\v and \\f)."""
    if any(data.find(c) >= 0 for c in (b"\x01", b"\x0b", b"\x0c")):
        return None
    try:
        text = _csv(data, ["line"], {"line": pa.string()}, "\x01").column("line").combine_chunks()
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None  # not UTF-8: the line reader names the byte
    text = pc.utf8_trim(text, " \t")
    keep = np.asarray(pc.greater(pc.utf8_length(text), 0).to_numpy(zero_copy_only=False), dtype=bool)
    rows = np.flatnonzero(keep)  # 0-based line index of each non-blank line
    text = text.filter(pa.array(keep))
    data_line = ~np.asarray(pc.starts_with(text, "#").to_numpy(zero_copy_only=False), dtype=bool)
    rows, text = rows[data_line], text.filter(pa.array(data_line))
    if not len(rows):
        return None  # the line reader says "no data lines"
    parts = pc.ascii_split_whitespace(text)
    del text
    run = kind == "run"
    count = pc.list_value_length(parts).to_numpy(zero_copy_only=False)
    bad = ~(count >= 6 if run else count == 4)
    ok = np.flatnonzero(~bad)
    whole = parts if not bad.any() else parts.take(pa.array(ok))
    value = pc.list_element(whole, 4 if run else 3)
    syntax = pc.match_substring_regex(value, f"^(?:{_NUMBER_RE if run else _INTEGER_RE})$")
    bad[ok] |= ~np.asarray(syntax.to_numpy(zero_copy_only=False), dtype=bool)
    try:
        number = pc.cast(pc.if_else(syntax, pc.utf8_ltrim(value, "+"), "0"), pa.float64() if run else pa.int64())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    if run:
        bad[ok] |= ~np.isfinite(number.to_numpy(zero_copy_only=False))
    if bad.any():  # the line reader words the error of the first bad line
        first = int(np.flatnonzero(bad)[0])
        return _report(data, label, kind, int(rows[first]) + 1, first > 0)
    columns = {"query": pc.list_element(parts, 0), "docid": pc.list_element(parts, 2)}
    if run:
        rank = pc.list_element(parts, 3)
        numeric = pc.match_substring_regex(rank, f"^(?:{_NUMBER_RE})$")
        columns["score"] = number
        columns["rank"] = _finite_or_nan(pc.cast(pc.if_else(numeric, pc.utf8_ltrim(rank, "+"), "nan"), pa.float64()))
        tag = pc.list_element(parts, 5)[0].as_py()
    else:
        columns["relevance"] = number
        tag = ""
    return pa.table(columns), rows + 1, tag


def _finite_or_nan(rank):
    """The rank column: a finite number, else NaN (it only feeds a warning)."""
    values = rank.to_numpy() if isinstance(rank, pa.ChunkedArray) else rank.to_numpy(zero_copy_only=False)
    return pa.array(np.where(np.isfinite(values), values, np.nan), pa.float64())


def _report(data: bytes, label: str, kind: str, number: int, seen_data: bool):
    """Raise the line reader's error for line ``number`` (the first bad line)."""
    start = end = 0
    for count, match in enumerate(_LINE_END_BYTES.finditer(data), start=1):
        if count == number - 1:
            start = match.end()
        if count == number:
            end = match.start()
            break
    else:
        end = len(data)
    parse_lines(data[start:end], label, kind=kind, first_line=number, seen_data=seen_data)
    return None  # not reached when the line is bad; otherwise the line reader reads the whole file


def _decode(data: bytes, label: str, first_line: int = 1) -> str:
    try:
        return str(data, "utf-8")  # data: bytes or a memory map
    except UnicodeDecodeError as err:
        raise ParseError(label, first_line - 1 + line_number(data, err.start),
                         f"expected UTF-8 text, found byte 0x{data[err.start]:02x}") from None


def parse_lines(data: bytes, label: str, *, kind: str, first_line: int = 1,
                seen_data: bool = False) -> tuple[pa.Table, np.ndarray, str]:
    """The line reader: every line in Python, exact about the first bad one.

    ``first_line`` is the number of the first line of ``data`` in its file, ``seen_data`` whether data
    lines came before it (the other-file-type hint is given on the first data line only).
    """
    text = _decode(data, label, first_line)
    queries: list[str] = []
    docids: list[str] = []
    values: list[float] = []
    ranks: list[float] = []
    lines: list[int] = []
    tag = None
    run = kind == "run"
    for number, line in enumerate(_LINE_END.split(text), start=first_line):
        fields = _FIELD_SEP.split(line.strip(" \t"))
        if not fields[0] or fields[0].startswith("#"):
            continue
        first = not lines and not seen_data
        if run:
            if len(fields) < 6:
                raise ParseError(label, number, _field_count_message(fields, 6, RUN_LAYOUT, "run", first))
            score = fields[4]
            value = float(score) if _NUMBER.match(score) else np.nan
            if not np.isfinite(value):
                raise ParseError(label, number, f'expected a finite number in field 5 "score", found "{_clip(score)}"')
            rank = float(fields[3]) if _NUMBER.match(fields[3]) else np.nan
            ranks.append(rank if np.isfinite(rank) else np.nan)
            if tag is None:
                tag = fields[5]
        else:
            if len(fields) != 4:
                raise ParseError(label, number, _field_count_message(fields, 4, QRELS_LAYOUT, "qrels", first))
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


def clip(text: str, width: int = 40) -> str:
    """``text`` cut to ``width`` characters for a message."""
    return text if len(text) <= width else text[: width - 3] + "..."


_clip = clip
