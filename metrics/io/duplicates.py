"""Repeated (query, document) pairs in a run or qrels table: found fast, reported or resolved exactly.

trec_eval rejects a document listed twice for one query; :func:`dedupe` raises the same way, or keeps the
first, last or highest-valued line when asked to. The search is in two steps, so that the common case (no
duplicate among millions of lines) costs little:

1. :func:`suspects`: a 32-bit hash of each document id (the number itself for numeric ids, else
   :func:`string_hash` of the bytes), compared within its query only. Files list each
   query's lines together, so the hashes of one query fill one row of a (queries x longest query) array;
   sorting the rows of that array is several times faster than sorting one key per line. The rows whose
   hash equals another row's of the same query are *suspects*: a superset of the duplicates, usually
   empty or a handful.
2. The suspects' (query, docid) strings are compared exactly.

The same hashes of ids, read from the column's buffers, serve the ranking: :func:`codes_in` finds each
retrieved document among the judged ones, and :func:`take_rows` takes rows of a chunked column without
joining its chunks.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from metrics.errors import ParseError
from metrics.io.arrays import to_arrow, to_numpy
from metrics.io.parsing import POOL

__all__ = ["codes_in", "dedupe", "string_hash", "suspects", "tail_hash", "take_rows"]

_NONE = np.zeros(0, dtype=np.int64)


def dedupe(table: pa.Table, label: str, lines: np.ndarray | None, policy: str, value: str) -> pa.Table:
    """Find repeated (query, docid) pairs; raise ``ParseError`` or keep one per pair, per ``policy``.

    ``lines`` maps rows to 1-based file lines (None: row i is line i + 1); ``value`` is the column
    ``"max"`` compares (score or relevance). The kept rows stay in their original order.
    """
    rows = suspects(table)
    if not len(rows):
        return table
    import pandas  # noqa: F401  (to_pandas below; imported here, not at start-up)

    taken = table.select(["query", "docid", value]).take(pa.array(rows)).to_pandas()
    taken["row"] = rows
    repeated = taken[taken.duplicated(["query", "docid"], keep=False)]
    if repeated.empty:
        return table
    if policy == "error":
        ordered = repeated.sort_values("row")
        again = ordered[ordered.duplicated(["query", "docid"], keep="first")].iloc[0]  # the first repeat
        same = ordered[(ordered["query"] == again["query"]) & (ordered["docid"] == again["docid"])]
        raise ParseError(label, _line_of(int(again["row"]), lines),
                         f'duplicate document "{_clip(again["docid"])}" for query "{_clip(again["query"])}" '
                         f"(first on line {_line_of(int(same['row'].iloc[0]), lines)}); trec_eval rejects "
                         f"duplicates — remove one, or choose to keep the first, last or max")
    if policy == "max":  # the highest value; the first line among equals
        ordered = repeated.sort_values([value, "row"], ascending=[False, True], kind="stable")
        kept = ordered.drop_duplicates(["query", "docid"], keep="first")["row"]
    else:
        kept = repeated.sort_values("row").drop_duplicates(["query", "docid"], keep=policy)["row"]
    drop = np.setdiff1d(repeated["row"].to_numpy(), kept.to_numpy())
    mask = np.ones(table.num_rows, dtype=bool)
    mask[drop] = False
    return table.filter(to_arrow(mask))


def suspects(table: pa.Table) -> np.ndarray:
    """Rows whose document-id hash equals that of another row of the same query (ascending row numbers)."""
    n = table.num_rows
    if n < 2:
        return _NONE
    column = table.column("query")
    starts = np.concatenate(([0], np.flatnonzero(to_numpy(pc.not_equal(column[1:], column[:-1]))) + 1))
    block = to_numpy(pc.dictionary_encode(take_rows(column, starts)).indices)  # per block
    h = _hash32(table.column("docid"))
    if int(block.max()) + 1 == len(block):  # each query's lines are together: no reordering needed
        order = None
    else:
        query = np.repeat(block, np.diff(np.append(starts, n)))
        order = np.argsort(query, kind="stable")
        query, h = query[order], h[order]
        starts = np.concatenate(([0], np.flatnonzero(query[1:] != query[:-1]) + 1))
    lengths = np.diff(np.append(starts, n))
    width = int(lengths.max())
    if len(starts) * width <= 2 * n + 1024:  # padding at most doubles the memory: sort each query's row
        found = _same_in_rows(h, starts, lengths, width)
    else:  # one very long query among short ones: sort (query, hash) keys instead
        key = (np.repeat(np.arange(len(starts), dtype=np.uint64), lengths) << np.uint64(32)) | h.astype(np.uint64)
        ranked = np.sort(key)
        same = ranked[1:] == ranked[:-1]
        found = np.flatnonzero(np.isin(key, ranked[1:][same])) if same.any() else _NONE
    if order is not None:
        found = np.sort(order[found])
    return found


def _same_in_rows(h: np.ndarray, starts: np.ndarray, lengths: np.ndarray, width: int) -> np.ndarray:
    """Positions (into ``h``) whose value repeats within its segment, via one padded 2-D row sort."""
    n_rows = len(starts)
    if (lengths == width).all():  # every query equally long (often: 1,000 each): a view, no copy
        grid = np.sort(h.reshape(n_rows, width), axis=1)
    else:
        grid = np.full((n_rows, width), np.iinfo(np.uint32).max, dtype=np.uint32)
        flat = np.arange(len(h), dtype=np.int64)
        flat += np.repeat(np.arange(n_rows, dtype=np.int64) * width - starts, lengths)
        grid.ravel()[flat] = h  # row = segment, column = position within it
        del flat
        grid.sort(axis=1)
    # a real value sits at column < length of its row (padding, the maximum, sorts last; equal values
    # are interchangeable, so the first `length` columns hold exactly the row's values)
    valid = np.arange(1, width)[None, :] < lengths[:, None]
    dup_row, dup_col = np.nonzero((grid[:, 1:] == grid[:, :-1]) & valid)
    if not len(dup_row):
        return _NONE
    import pandas as pd

    repeated = pd.MultiIndex.from_arrays([dup_row, grid[dup_row, dup_col + 1]]).unique()
    mine = pd.MultiIndex.from_arrays([np.repeat(np.arange(n_rows), lengths), h])
    return np.flatnonzero(mine.isin(repeated))


def _hash32(column: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """A 32-bit hash per document id: the low 32 bits of the number for numeric ids, else a folded string
    hash (equal hashes only make suspects, compared exactly afterwards)."""
    try:  # a failing cast is slow on millions of values: try a sample first
        pc.cast(column.slice(0, 1000), pa.int64())
        chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
        return np.concatenate([to_numpy(pc.cast(c, pa.int64(), memory_pool=POOL)).astype(np.uint32) for c in chunks]
                              or [np.zeros(0, np.uint32)])
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        pass
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    return np.concatenate([_fold(_chunk_hash(c)) for c in chunks] or [np.zeros(0, np.uint32)])


def _fold(value: np.ndarray) -> np.ndarray:
    """64-bit hashes folded to 32 bits (high half xor low half), in place."""
    value ^= value >> np.uint64(32)
    return value.astype(np.uint32)


def string_hash(column: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """A 64-bit hash of each string's length and three 8-byte windows: its first, middle and last bytes.

    The windows are read straight from the column's data buffer as unaligned little-endian words, chunk by
    chunk (no copy of the strings, no loop per byte or per row); bytes past a string's end are masked out.
    Ids up to 24 bytes are hashed whole; longer ones by their start, middle and end, where ids such as
    ``clueweb09-en0003-47-21107`` or ``doc_29_677149#3_1524`` differ. Equal strings always hash equal.
    """
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    return np.concatenate([_chunk_hash(c) for c in chunks] or [np.zeros(0, np.uint64)])


_PRIME = np.uint64(0xFF51AFD7ED558CCD)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _words(array: pa.Array) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The strings of ``array`` as its data buffer sees them: each one's start and length in bytes, an
    unaligned little-endian 8-byte word at every byte of the buffer (a view, no copy), and the last byte a
    whole word can start at."""
    n = len(array)
    width_type = np.int64 if pa.types.is_large_string(array.type) else np.int32
    offsets = np.frombuffer(array.buffers()[1], dtype=width_type)[array.offset:array.offset + n + 1]
    start = offsets[:-1].astype(np.int64)
    length = np.diff(offsets).astype(np.int64)
    buffer = array.buffers()[2]
    raw = np.frombuffer(buffer, dtype=np.uint8) if buffer is not None else np.zeros(0, np.uint8)
    if len(raw) < 8:
        raw = np.concatenate([raw, np.zeros(8, np.uint8)])
    last = len(raw) - 8
    return start, length, np.ndarray(shape=(last + 1,), dtype="<u8", buffer=raw, strides=(1,)), last


def _chunk_hash(array: pa.Array) -> np.ndarray:
    start, length, words, last = _words(array)
    short = np.flatnonzero(length < 8)  # their words run past their end: keep their own bytes only
    keep = (np.uint64(1) << (length[short].astype(np.uint64) * np.uint64(8))) - np.uint64(1)
    # only a short string can start less than 8 bytes from the buffer's end (a longer one's windows end
    # inside it): read the last whole word for those, and shift their bytes down
    tail = short[start[short] > last]
    shift = (start[tail] - last).astype(np.uint64) * np.uint64(8)
    span = np.maximum(length - 8, 0)
    h = length.astype(np.uint64) * _GOLDEN
    for window in (None, span >> 1, span):  # bytes 0, span / 2 and span on: the whole of ids up to 24 bytes
        at = start if window is None else start + window
        if len(tail):
            at = at.copy()
            at[tail] = last
        word = words[at]
        if len(tail):
            word[tail] >>= shift
        if len(short):
            word[short] &= keep
        h ^= word
        h *= _PRIME
        h ^= h >> np.uint64(29)
    return h


def take_rows(column: pa.ChunkedArray | pa.Array, rows: np.ndarray) -> pa.Array:
    """``column[rows]`` as one array, taken chunk by chunk.

    pyarrow's ``take`` on a chunked array joins all its chunks first, a copy of the whole column (the
    reader's tables have one chunk per 4 MiB of the file) for every call, however few rows are taken.

    Examples
    --------
    >>> take_rows(pa.chunked_array([["a", "b"], ["c"]]), np.array([2, 0, 2])).to_pylist()
    ['c', 'a', 'c']
    """
    rows = np.asarray(rows, dtype=np.int64)
    if isinstance(column, pa.Array):
        return column.take(to_arrow(rows))
    if column.num_chunks == 1:
        return column.chunk(0).take(to_arrow(rows))
    bounds = np.cumsum([0] + [len(chunk) for chunk in column.chunks])
    order = np.argsort(rows, kind="stable")
    ordered = rows[order]
    cut = np.searchsorted(ordered, bounds)
    parts = [column.chunk(i).take(to_arrow(ordered[cut[i]:cut[i + 1]] - bounds[i]))
             for i in range(column.num_chunks) if cut[i + 1] > cut[i]]
    taken = pa.concat_arrays(parts) if parts else pa.array([], type=column.type)
    inverse = np.empty_like(order)
    inverse[order] = np.arange(len(order))
    return taken.take(to_arrow(inverse))


def tail_hash(array: pa.Array) -> np.ndarray:
    """A 64-bit hash of each string's length and last 8 bytes (all of it when shorter), read straight from
    the data buffer like :func:`string_hash` but with one window: a quick filter, equal strings hash equal.

    Examples
    --------
    >>> h = tail_hash(pa.array(["clueweb09-en0003-47-21107", "7", "clueweb09-en0003-47-21107", ""]))
    >>> bool(h[0] == h[2]), len(set(h.tolist()))
    (True, 3)
    """
    start, length, words, last = _words(array)
    at = np.maximum(start + length - 8, start)  # the last 8 bytes; a shorter string's own bytes and more
    tail = np.flatnonzero(at > last)  # short strings too near the buffer's end for a whole word
    at[tail] = last
    word = words[at]
    if len(tail):  # read the last whole word instead, and shift their bytes down
        word[tail] >>= (start[tail] - last).astype(np.uint64) * np.uint64(8)
    size = length.astype(np.uint64)
    word &= np.where(size < 8, (np.uint64(1) << (np.minimum(size, 7) * np.uint64(8))) - np.uint64(1),
                     np.uint64(0xFFFFFFFFFFFFFFFF))  # a short string's own bytes only
    word ^= size * _GOLDEN
    word *= _PRIME
    word ^= word >> np.uint64(29)
    return word


_FILTER_BITS = 20  # a 1 MiB table (it stays in cache): with 2**13 judged ids, about 0.8% of the others pass


def codes_in(docid: pa.ChunkedArray | pa.Array, judged: pa.Array) -> np.ndarray:
    """Each row's index among the judged document ids (-1 where not judged), int32, in row order: what
    ``pyarrow.compute.index_in`` gives, in about half its time on a long run.

    Most retrieved documents are not judged. A hash of each id's last bytes (:func:`tail_hash`) is looked
    up in a table of bits set by the judged ids' hashes; only the rows whose bit is set, a superset of the
    judged ones, are looked up exactly.

    Examples
    --------
    >>> codes_in(pa.chunked_array([["d3", "x"], ["d1"]]), pa.array(["d1", "d2", "d3"])).tolist()
    [2, -1, 0]
    """
    chunks = docid.chunks if isinstance(docid, pa.ChunkedArray) else [docid]
    plain = all(pa.types.is_string(t) or pa.types.is_large_string(t) for t in (docid.type, judged.type))
    if not plain or len(judged) > (1 << 15) or len(docid) < (1 << 16):  # look each row up
        return to_numpy(pc.index_in(docid, value_set=judged, memory_pool=POOL), null=-1).astype(np.int32)
    shift = np.uint64(64 - _FILTER_BITS)
    bits = np.zeros(1 << _FILTER_BITS, dtype=bool)
    bits[tail_hash(judged) >> shift] = True
    maybe, start = [], 0
    for chunk in chunks:
        maybe.append(np.flatnonzero(bits[tail_hash(chunk) >> shift]) + start)
        start += len(chunk)
    maybe = np.concatenate(maybe)
    out = np.full(len(docid), -1, dtype=np.int32)
    if len(maybe):  # one exact look-up (pyarrow builds the judged ids' hash table once per call)
        out[maybe] = to_numpy(pc.index_in(take_rows(docid, maybe), value_set=judged, memory_pool=POOL), null=-1)
    return out


def _line_of(row: int, lines: np.ndarray | None) -> int:
    return int(lines[row]) if lines is not None else row + 1


def _clip(text: str, width: int = 40) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."
