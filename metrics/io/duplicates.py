"""Repeated (query, document) pairs in a run or qrels table: found fast, reported or resolved exactly.

trec_eval rejects a document listed twice for one query; :func:`dedupe` raises the same way, or keeps the
first, last or highest-valued line when asked to. The search is in two steps, so that the common case (no
duplicate among millions of lines) costs little, and no file, however its ids are made, costs much more:

1. :func:`suspects`: a 32-bit hash of each document id (its 64-bit key, :func:`id_keys`, folded),
   compared within its query only. Files list each query's lines together, so the hashes of one query fill
   one row of a (queries x longest query) array; sorting the rows of that array is several times faster
   than sorting one key per line. The queries in which two hashes are equal are *suspects*: usually none
   or one (two ids of one query share a 32-bit hash about once per 7-million-line run).
2. In those queries only, the same sort of the whole 64-bit keys; in the queries where a key still
   repeats, the rows sharing a key are compared as strings (:func:`duplicate_rows`). Decimal ids are
   keyed one for one (:func:`decimal_key`), so among them a repeated key is a repeated id.

Every step reads only the rows the step before named and is linear in them, so no file, however its ids
were made, costs much more than a clean one: one whose every id shares its 32-bit hash with another of
its query reads in about 1.2 times the time per line, in CPU (``benchmarks/run.py --workloads
collisions``).

The same hashes of ids, read from the column's buffers, serve the ranking: :func:`codes_in` finds each
retrieved document among the judged ones, and :func:`take_rows` takes rows of a chunked column without
joining its chunks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from metrics.errors import ParseError
from metrics.io.arrays import to_arrow, to_numpy
from metrics.io.parsing import POOL

__all__ = ["block_starts", "choose_windows", "codes_in", "decimal_key", "dedupe", "distinct_ascending",
           "duplicate_rows", "filter_window", "hash32", "id_keys", "sorted_within", "string_hash", "suspects",
           "take_rows"]

_NONE = np.zeros(0, dtype=np.int64)


def dedupe(table: pa.Table, label: str, lines: np.ndarray | None, policy: str, value: str, *,
           query_starts: np.ndarray | None = None) -> pa.Table:
    """Find repeated (query, docid) pairs; raise ``ParseError`` or keep one per pair, per ``policy``.

    ``lines`` maps rows to 1-based file lines (None: row i is line i + 1); ``value`` is the column
    ``"max"`` compares (score or relevance); ``query_starts``, if known, :func:`block_starts` of the query
    column. The kept rows stay in their original order; the table itself comes back when no pair repeats.
    """
    rows, group = duplicate_rows(table, query_starts)
    if not len(rows):
        return table
    ends = np.unique(group, return_index=True)[1], len(group) - 1 - np.unique(group[::-1], return_index=True)[1]
    first, last = rows[ends[0]], rows[ends[1]]  # each pair's first and last row (the rows ascend)
    if policy == "error":
        again = int(rows[rows != first[group]].min())  # the first line that repeats an earlier one
        row = int(first[group[np.searchsorted(rows, again)]])
        docid, query = (_clip(str(table.column(c)[again].as_py())) for c in ("docid", "query"))
        raise ParseError(label, _line_of(again, lines),
                         f'duplicate document "{docid}" for query "{query}" (first on line {_line_of(row, lines)}); '
                         f"trec_eval rejects duplicates — remove one, or choose to keep the first, last or max")
    if policy == "first":
        kept = first[group]
    elif policy == "last":
        kept = last[group]
    else:  # "max": the highest value; the first line among equals
        order = np.lexsort((-rows, to_numpy(take_rows(table.column(value), rows)), group))
        tops = np.append(np.flatnonzero(np.diff(group[order])), len(order) - 1)  # each group's last in order
        best = np.empty(len(first), dtype=np.int64)
        best[group[order[tops]]] = rows[order[tops]]
        kept = best[group]
    mask = np.ones(table.num_rows, dtype=bool)
    mask[rows[rows != kept]] = False
    return table.filter(to_arrow(mask))


def duplicate_rows(table: pa.Table, query_starts: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The rows whose (query, docid) another row repeats, compared exactly, ascending, with a group number
    per row (equal pairs, equal numbers); both empty when no pair repeats. ``query_starts``, if known, is
    :func:`block_starts` of the query column.

    Each step looks only at the queries the step before named: those in which two ids share a 32-bit hash
    (:func:`suspects`, a sort of each query's hashes), among them those in which two share the whole 64-bit
    key (:func:`id_keys`, the same sort), and there the rows that share a key: two such rows are compared
    as strings, three or more are coded by arrow's hash table of the strings (decimal ids, keyed one for
    one, need neither). Each step is linear in the rows it reads (a sort within each query), whatever the
    ids, so a file made to collide costs a small multiple of a clean one.

    Examples
    --------
    >>> t = pa.table({"query": ["1", "1", "2", "1"], "docid": ["a", "b", "a", "a"]})
    >>> [x.tolist() for x in duplicate_rows(t)]
    [[0, 3], [0, 0]]
    """
    if table.num_rows < 2:
        return _NONE, _NONE
    order, starts, lengths = _queries(table, query_starts)
    docid = table.column("docid")
    key, exact = _keys(docid)
    key = _in_order(key, order)
    hit = _repeating(_fold(key), starts, lengths)
    if not len(hit):
        return _NONE, _NONE
    if len(hit) == len(starts):  # every query a suspect (ids made to collide): its rows are all rows
        position, size, suspect = np.arange(len(key), dtype=np.int64), lengths, key
    else:
        position, size = _positions(starts, lengths, hit), lengths[hit]
        suspect = key[position]
    # the queries where the whole 64-bit key repeats too; then the strings of those alone
    again = _repeating(suspect, np.cumsum(size) - size, size)
    del suspect
    if not len(again):
        return _NONE, _NONE
    position = position[_positions(np.cumsum(size) - size, size, again)]
    size = size[again]
    rows = position if order is None else order[position]
    candidate = key[position]
    # the rows of those queries ordered by key: equal keys side by side, mostly in pairs
    begin = np.cumsum(size) - size
    ranked = sorted_within(candidate, begin, size)
    value = candidate[ranked]
    del candidate
    equal = value[1:] == value[:-1]  # equal[i]: sorted rows i and i + 1 share a key ...
    equal[begin[1:] - 1] = False  # ... within one query
    del value
    alone_before, alone_after = np.r_[True, ~equal[:-1]], np.r_[~equal[1:], True]
    pair = np.flatnonzero(equal & alone_before & alone_after)  # the first of each two rows alike
    several = np.r_[equal, False] | np.r_[False, equal]  # and the rows of three or more alike
    several[pair] = several[pair + 1] = False
    del alone_before, alone_after
    if exact:  # equal keys, equal ids
        same = np.ones(len(pair), dtype=bool)
    else:
        same = to_numpy(pc.equal(take_rows(docid, rows[ranked[pair]]), take_rows(docid, rows[ranked[pair + 1]])))
    pair = pair[same]
    found = [rows[ranked[pair]], rows[ranked[pair + 1]]]
    group = [np.arange(len(pair), dtype=np.int64)] * 2
    # three or more rows share a key: their lengths, or their strings coded by arrow's hash table
    more = ranked[several]
    if len(more):
        run = (np.cumsum(np.r_[True, ~equal]) - 1)[several]  # which run of equal keys
        if exact:
            coded = np.zeros(len(more), dtype=np.uint64)
        else:
            coded = to_numpy(pc.dictionary_encode(take_rows(docid, rows[more]), memory_pool=POOL).indices)
        code = coded.astype(np.uint64) | run.astype(np.uint64) << np.uint64(32)
        _, inverse, counts = np.unique(code, return_inverse=True, return_counts=True)
        twice = counts[inverse] > 1
        found.append(rows[more[twice]])
        group.append(len(pair) + np.unique(inverse[twice], return_inverse=True)[1].astype(np.int64))
    found, group = np.concatenate(found), np.concatenate(group)
    ascending = np.argsort(found, kind="stable")
    return found[ascending], group[ascending]


def sorted_within(values: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The positions of ``values`` (integers or floats, no NaN), segment after segment, each segment's by
    increasing value (equal values in no set order); segments are ``lengths[i]`` values from ``starts[i]``,
    one after another.

    Segments of about equal length are sorted as the rows of one padded grid, far faster than a sort of
    every value by (segment, value): 0.4 s instead of 3.2 s for 6,980 segments of 1,000 scores.

    Examples
    --------
    >>> sorted_within(np.array([3.0, 1.0, 2.0, 9.0, 8.0]), np.array([0, 3]), np.array([3, 2])).tolist()
    [1, 2, 0, 4, 3]
    """
    n, width = len(values), int(lengths.max())
    if len(starts) * width > 2 * n + 1024:  # one very long segment among short ones
        return np.lexsort((values, np.repeat(np.arange(len(starts)), lengths)))
    if (lengths == width).all():  # every segment equally long (often: 1,000 each): a view, no padding
        return (np.argsort(values.reshape(len(starts), width), axis=1) + starts[:, None]).ravel()
    pad = np.iinfo(values.dtype).max if values.dtype.kind in "iu" else np.inf
    grid = np.full((len(starts), width), pad, dtype=values.dtype)
    flat = np.arange(n, dtype=np.int64)
    flat += np.repeat(np.arange(len(starts), dtype=np.int64) * width - starts, lengths)
    grid.ravel()[flat] = values
    at = np.argsort(grid, axis=1)
    return (at + starts[:, None])[at < lengths[:, None]]  # padding left out, even where a value equals it


def suspects(table: pa.Table) -> np.ndarray:
    """The rows of the queries in which two document ids share a 32-bit hash (:func:`hash32`): a superset
    of the repeated pairs' rows (ascending row numbers), usually empty."""
    if table.num_rows < 2:
        return _NONE
    order, starts, lengths = _queries(table, None)
    hit = _repeating(_in_order(hash32(table.column("docid")), order), starts, lengths)
    position = _positions(starts, lengths, hit)
    return position if order is None else np.sort(order[position])


def _queries(table: pa.Table, starts: np.ndarray | None) -> tuple[np.ndarray | None, np.ndarray, np.ndarray]:
    """Each query's rows as one segment: the order that brings them together (None when the file already
    lists each query's lines together), and each segment's start and length in that order. ``starts``:
    :func:`block_starts` of the query column, if known."""
    n = table.num_rows
    column = table.column("query")
    starts = block_starts(column) if starts is None else starts
    block = to_numpy(pc.dictionary_encode(take_rows(column, starts)).indices)  # per block
    order = None
    if int(block.max()) + 1 != len(block):  # a query in two places: bring its rows together
        query = np.repeat(block, np.diff(np.append(starts, n)))
        order = np.argsort(query, kind="stable")
        query = query[order]
        starts = np.concatenate(([0], np.flatnonzero(query[1:] != query[:-1]) + 1))
    return order, starts, np.diff(np.append(starts, n))


def _in_order(values: np.ndarray, order: np.ndarray | None) -> np.ndarray:
    return values if order is None else values[order]


def _repeating(values: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The segments (ascending) in which a value (unsigned integers) occurs more than once."""
    n, width = len(values), int(lengths.max())
    if len(starts) * width > 2 * n + 1024:  # one very long segment among short ones: sort (segment, value)
        segment = np.repeat(np.arange(len(starts), dtype=np.int64), lengths)
        order = np.lexsort((values, segment))
        segment, values = segment[order], values[order]
        return distinct_ascending(segment[1:][(segment[1:] == segment[:-1]) & (values[1:] == values[:-1])])
    # padding at most doubles the memory: one row per segment, sorted
    if (lengths == width).all():  # every query equally long (often: 1,000 each): a view, no copy
        grid = np.sort(values.reshape(len(starts), width), axis=1)
    else:
        grid = np.full((len(starts), width), np.iinfo(values.dtype).max, dtype=values.dtype)
        flat = np.arange(n, dtype=np.int64)
        flat += np.repeat(np.arange(len(starts), dtype=np.int64) * width - starts, lengths)
        grid.ravel()[flat] = values  # row = segment, column = position within it
        del flat
        grid.sort(axis=1)
    same = grid[:, 1:] == grid[:, :-1]
    if len(lengths) and lengths.min() < width:
        # a real value sits at column < length of its row (padding, the maximum, sorts last; equal values
        # are interchangeable, so the first `length` columns hold exactly the row's values)
        same &= np.arange(1, width)[None, :] < lengths[:, None]
    return np.flatnonzero(same.any(axis=1))  # a whole row at a time: no list of every repeat


def distinct_ascending(values: np.ndarray) -> np.ndarray:
    """The distinct values of an ascending array, in order, without a sort (``np.unique`` sorts first).

    Examples
    --------
    >>> distinct_ascending(np.array([2, 2, 5, 7, 7, 7])).tolist()
    [2, 5, 7]
    """
    return values[np.append(True, values[1:] != values[:-1])] if len(values) else values


def _positions(starts: np.ndarray, lengths: np.ndarray, segments: np.ndarray) -> np.ndarray:
    """The positions of the ``segments``' values, segment after segment."""
    size = lengths[segments]
    position = np.arange(int(size.sum()), dtype=np.int64)
    position += np.repeat(starts[segments] - (np.cumsum(size) - size), size)
    return position


def id_keys(column: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """A 64-bit key per document id, equal for equal ids: for a column of decimal ids (1 to 19 digits each)
    the id's place among all such texts (:func:`decimal_key`: one for one, so ``7``, ``07`` and ``8`` differ),
    else :func:`string_hash`."""
    return _keys(column)[0]


def _keys(column: pa.ChunkedArray | pa.Array) -> tuple[np.ndarray, bool]:
    """:func:`id_keys`, and whether they are exact (decimal ids: equal keys only for equal ids)."""
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    if all(_decimal(chunk) for chunk in chunks):
        try:  # a failing cast is slow on millions of values: try a sample first
            pc.cast(column.slice(0, 1000), pa.int64())
            return np.concatenate(_chunkwise(decimal_key, chunks) or [np.zeros(0, np.uint64)]), True
        except pa.ArrowInvalid:  # a number past 2**63 - 1
            pass
    return string_hash(column), False


def _decimal(chunk: pa.Array) -> bool:
    """Whether every id of ``chunk`` is 1 to 19 decimal digits (no sign, no blank): two reductions of its
    bytes, one of its lengths."""
    if chunk.null_count or not (pa.types.is_string(chunk.type) or pa.types.is_large_string(chunk.type)):
        return False
    if not len(chunk):
        return True
    offsets = _offsets(chunk)
    raw = np.frombuffer(chunk.buffers()[2], dtype=np.uint8)[offsets[0]:offsets[-1]]
    length = np.diff(offsets)
    return bool(length.min() >= 1 and length.max() <= _DECIMAL_DIGITS and raw.min() >= 48 and raw.max() <= 57)


_DECIMAL_DIGITS = 19  # the longest decimal id keyed by its number (every 19-digit number below 2**63 reads)
# the key of the first text of each length: the texts of one digit, then of two (00 to 99), ... one after another
_DECIMAL_FIRST = np.concatenate([[0, 0], np.cumsum([10 ** k for k in range(1, _DECIMAL_DIGITS)])]).astype(np.uint64)


def decimal_key(chunk: pa.Array) -> np.ndarray:
    """The place of each decimal id (1 to 19 digits, as :func:`_decimal` checks) among all such texts
    ordered by length, then by number: the number plus how many texts are shorter. One key for one text
    (all fit in 64 bits: fewer than 1.12 * 10**19 texts), so ids with equal keys are equal.

    Examples
    --------
    >>> decimal_key(pa.array(["0", "9", "00", "07", "7", "10", "000"])).tolist()
    [0, 9, 10, 17, 7, 20, 110]
    """
    number = to_numpy(pc.cast(chunk, pa.int64(), memory_pool=POOL)).view(np.uint64)
    return number + _DECIMAL_FIRST[to_numpy(pc.binary_length(chunk))]


_THREADED_ROWS = 1 << 20  # from this many rows, the chunks of a column are hashed on several threads


def _chunkwise(work: Callable[[pa.Array], np.ndarray], chunks: Sequence[pa.Array]) -> list[np.ndarray]:
    """``work`` on each chunk, in order: on pyarrow's number of threads (``pyarrow.cpu_count()``, which a
    worker process lowers to its share of the cores) when the chunks hold ``_THREADED_ROWS`` rows or
    more. numpy's and pyarrow's kernels let go of the interpreter, so the threads share the work: hashing
    a 7M-line run's ids on 2 cores takes about half the time."""
    threads = min(pa.cpu_count(), len(chunks))
    if threads < 2 or sum(len(c) for c in chunks) < _THREADED_ROWS:
        return [work(c) for c in chunks]
    with ThreadPoolExecutor(threads) as pool:
        return list(pool.map(work, chunks))


def hash32(column: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """A 32-bit hash per document id: :func:`id_keys` folded (the key itself below 2**32, as for decimal
    ids of up to 9 digits)."""
    return _fold(id_keys(column))


def _fold(value: np.ndarray) -> np.ndarray:
    """64-bit keys folded to 32 bits (high half xor low half): one pass over the two halves of each key,
    seen as 32-bit words, and no 64-bit temporary."""
    halves = np.ascontiguousarray(value, dtype=np.uint64).view(np.uint32).reshape(-1, 2)
    return np.bitwise_xor(halves[:, 0], halves[:, 1])


WHOLE_BYTES = 40  # ids up to this long are hashed whole (five words); longer ones by four chosen words
_SAMPLE = 4096


def string_hash(column: pa.ChunkedArray | pa.Array, windows: tuple[int, ...] | None = None) -> np.ndarray:
    """A 64-bit hash of each string's length and of 8-byte windows of it, little-endian words read straight
    from the column's data buffer, chunk by chunk (no copy of the strings, no loop per byte or per row).

    A window ``w >= 0`` is the 8 bytes from ``min(w, length - 8)``, a window ``w < 0`` the 8 bytes from
    ``length + w`` (-8: the last 8 bytes); a string shorter than 8 bytes is its own bytes, zero-padded, in
    every window. The windows (default :func:`choose_windows`) are the same for every string of a call, so
    equal strings always hash equal.

    Examples
    --------
    >>> h = string_hash(pa.array(["clueweb09-en0003-47-21107", "7", "clueweb09-en0003-47-21107"]))
    >>> bool(h[0] == h[2]), bool(h[0] == h[1])
    (True, False)
    """
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    windows = choose_windows(column) if windows is None else windows
    return np.concatenate(_chunkwise(lambda chunk: _chunk_hash(chunk, windows), chunks) or [np.zeros(0, np.uint64)])


def choose_windows(column: pa.ChunkedArray | pa.Array) -> tuple[int, ...]:
    """The windows :func:`string_hash` reads: every byte of ids up to :data:`WHOLE_BYTES` long (those of
    an evenly spread sample of 4,096 ids); for longer ids, the 8-byte words, counted from the start or
    from the end, that vary most among the sampled ids (for web addresses: the host and the path's
    numbers, not ``https://`` or ``.html``; words alike in every sampled id are left out): the fewest of
    them that tell the sampled ids apart and one more, at most four. Each word is a pass over the ids when
    they are hashed, so no more are read than it takes.

    Examples
    --------
    >>> choose_windows(pa.array(["D1", "D7703495"]))
    (0,)
    >>> choose_windows(pa.array([f"https://www.example.org/{i % 7}/{i:06d}/index.html" for i in range(99)]))
    (24, -16)
    """
    n = len(column)
    if n == 0:
        return (0,)
    sample = take_rows(column, np.unique(np.linspace(0, n - 1, min(n, _SAMPLE)).astype(np.int64)))
    if pa.types.is_large_string(sample.type):
        sample = sample.cast(pa.string())
    longest = pc.max(pc.binary_length(sample)).as_py() or 0
    if longest <= WHOLE_BYTES:
        return tuple(range(0, max(longest, 1), 8))  # the last word (clamped) ends at the last byte
    start, length, words, _ = _words(sample)
    long = length >= 8
    start, length = start[long], length[long]
    reach = min(longest, 512)
    candidates = [*range(0, reach - 7, 8), *range(-8, -reach - 1, -8)]
    varied = [len(np.unique(words[_window_starts(start, length, w)])) for w in candidates]
    ranked = [w for count, w in sorted(zip(varied, candidates), key=lambda pair: -pair[0]) if count > 1]
    distinct = len(pc.unique(sample))
    chosen, apart = [], False
    for w in ranked[:4]:
        chosen.append(w)
        if apart:  # one word more than the fewest that tell the sampled ids apart
            break
        apart = len(np.unique(string_hash(sample, tuple(chosen)))) == distinct
    return tuple(chosen) or (0,)  # words alike in every sampled id are left out


def _window_starts(start: np.ndarray, length: np.ndarray, w: int) -> np.ndarray:
    """Where window ``w`` starts in strings of 8 bytes or more."""
    return np.minimum(start + w, start + length - 8) if w >= 0 else np.maximum(start + length + w, start)


_PRIME = np.uint64(0xFF51AFD7ED558CCD)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _offsets(array: pa.Array) -> np.ndarray:
    """The ``len(array) + 1`` offsets of a string array's values in its data buffer (a view, no copy)."""
    width = np.int64 if pa.types.is_large_string(array.type) else np.int32
    return np.frombuffer(array.buffers()[1], dtype=width)[array.offset:array.offset + len(array) + 1]


def _words(array: pa.Array) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The strings of ``array`` as its data buffer sees them: each one's start and length in bytes, an
    unaligned little-endian 8-byte word at every byte of the buffer (a view, no copy), and the last byte a
    whole word can start at."""
    offsets = _offsets(array)
    start = offsets[:-1].astype(np.int64)
    length = np.diff(offsets).astype(np.int64)
    buffer = array.buffers()[2]
    raw = np.frombuffer(buffer, dtype=np.uint8) if buffer is not None else np.zeros(0, np.uint8)
    if len(raw) < 8:
        raw = np.concatenate([raw, np.zeros(8, np.uint8)])
    last = len(raw) - 8
    return start, length, np.ndarray(shape=(last + 1,), dtype="<u8", buffer=raw, strides=(1,)), last


def _chunk_hash(array: pa.Array, windows: tuple[int, ...]) -> np.ndarray:
    start, length, words, last = _words(array)
    n = len(start)
    h = length.astype(np.uint64)
    h *= _GOLDEN
    if not n:
        return h
    width = int(length[0])
    if width >= 8 and (length == width).all():  # ids of one length (UUIDs, ClueWeb): strided views, no gather
        for w in windows:
            at = int(start[0]) + (min(w, width - 8) if w >= 0 else max(width + w, 0))
            _mix(h, words[at:at + width * (n - 1) + 1:width])
        return h
    short = np.flatnonzero(length < 8)  # their words run past their end: keep their own bytes only
    if len(short):
        # only a short string can start less than 8 bytes from the buffer's end (a longer one's words end
        # inside it): read the last whole word for those, and shift their bytes down
        at = np.minimum(start[short], last)
        own = words[at] >> ((start[short] - at).astype(np.uint64) * np.uint64(8))
        own &= (np.uint64(1) << (length[short].astype(np.uint64) * np.uint64(8))) - np.uint64(1)
    end = np.maximum(start + length - 8, 0)  # where the last word starts (short strings: replaced below)
    at = np.empty_like(start)
    for w in windows:
        if w >= 0:
            np.minimum(start + w, end, out=at)
        else:
            np.maximum(end + (w + 8), start, out=at)
            np.minimum(at, end, out=at)  # (a short string's own bytes replace what is read here)
        word = words[at]
        if len(short):
            word[short] = own
        _mix(h, word)
    return h


def _mix(h: np.ndarray, word: np.ndarray) -> None:
    """One round of the hash, in place: xor the word in, multiply, fold the high bits down."""
    h ^= word
    h *= _PRIME
    h ^= h >> np.uint64(29)


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


def block_starts(column: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """The rows where a block of equal neighbours starts (row 0 first; none for an empty column).

    Examples
    --------
    >>> block_starts(pa.array(["1", "1", "2", "1"])).tolist()
    [0, 2, 3]
    """
    n = len(column)
    if n < 2:
        return np.arange(n, dtype=np.int64)
    change = to_numpy(pc.not_equal(column.slice(1), column.slice(0, n - 1), memory_pool=POOL))
    return np.concatenate(([0], np.flatnonzero(change) + 1))


def filter_window(column: pa.ChunkedArray | pa.Array) -> int:
    """The 8-byte window :func:`codes_in` filters on: of the last 8 bytes and :func:`choose_windows`' words,
    the one with the most distinct values in an evenly spread sample of the ids (the last 8 bytes unless
    another varies more: web addresses all end in ``index.html``, and a filter on it would pass every row).

    Examples
    --------
    >>> filter_window(pa.array(["clueweb09-en0003-47-21107", "clueweb09-en0004-47-21108"]))
    -8
    >>> filter_window(pa.array([f"https://www.example.org/{i:06d}/index.html" for i in range(99)]))
    24
    """
    n = len(column)
    if n == 0:
        return -8
    sample = take_rows(column, np.unique(np.linspace(0, n - 1, min(n, _SAMPLE)).astype(np.int64)))
    best, most = -8, len(np.unique(string_hash(sample, (-8,))))
    for w in choose_windows(sample):
        count = len(np.unique(string_hash(sample, (w,))))
        if count > most:
            best, most = w, count
    return best


_FILTER_BITS = 20  # a 1 MiB table (it stays in cache): with 2**13 judged ids, about 0.8% of the others pass


def codes_in(docid: pa.ChunkedArray | pa.Array, judged: pa.Array) -> np.ndarray:
    """Each row's index among the judged document ids (-1 where not judged), int32, in row order: what
    ``pyarrow.compute.index_in`` gives, in about half its time on a long run.

    Most retrieved documents are not judged. A hash of one 8-byte window of each id (:func:`filter_window`:
    the last bytes, or the word that varies most) is looked up in a table of bits set by the judged ids'
    hashes; only the rows whose bit is set, a superset of the judged ones, are looked up exactly.

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
    window = (filter_window(docid),)  # the same window for both sides: equal ids hash equal
    bits[string_hash(judged, window) >> shift] = True
    passing = _chunkwise(lambda chunk: np.flatnonzero(bits[_chunk_hash(chunk, window) >> shift]), chunks)
    starts = np.cumsum([0] + [len(chunk) for chunk in chunks])
    maybe = np.concatenate([rows + start for rows, start in zip(passing, starts)] or [_NONE])
    out = np.full(len(docid), -1, dtype=np.int32)
    if len(maybe):  # one exact look-up (pyarrow builds the judged ids' hash table once per call)
        out[maybe] = to_numpy(pc.index_in(take_rows(docid, maybe), value_set=judged, memory_pool=POOL), null=-1)
    return out


def _line_of(row: int, lines: np.ndarray | None) -> int:
    return int(lines[row]) if lines is not None else row + 1


def _clip(text: str, width: int = 40) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."
