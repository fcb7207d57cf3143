"""The keys and hashes of document ids, read straight from an arrow column's buffers.

A document id gets a 64-bit key (:func:`id_keys`): for a column of decimal ids (1 to 19 digits each) its
place among all such texts (:func:`decimal_key`: one for one, so equal keys are equal ids), else a hash of
its length and of 8-byte words of it (:func:`string_hash`: every byte of ids up to :data:`WHOLE_BYTES` long,
the words that tell a sample of longer ids apart, :func:`choose_windows`). Folded to 32 bits
(:func:`hash32`), the keys are what the duplicate check (:mod:`metrics.io.duplicates`) sorts within each
query; :func:`codes_in` finds each retrieved document among the judged ones for the ranking
(:mod:`metrics.rankings`), a filter of one hashed word first and an exact look-up of what passes. A long
column is hashed chunk by chunk on pyarrow's threads (:func:`_chunkwise`); nothing copies the strings or
loops per byte or per row.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from metrics.io.arrays import take_rows, to_numpy
from metrics.io.parsing import POOL

__all__ = ["WHOLE_BYTES", "choose_windows", "codes_in", "decimal_key", "filter_window", "fold", "hash32", "id_keys",
           "keyed", "string_hash"]

_NONE = np.zeros(0, dtype=np.int64)


def id_keys(column: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """A 64-bit key per document id, equal for equal ids: for a column of decimal ids (1 to 19 digits each)
    the id's place among all such texts (:func:`decimal_key`: one for one, so ``7``, ``07`` and ``8`` differ),
    else :func:`string_hash`."""
    return keyed(column)[0]


def keyed(column: pa.ChunkedArray | pa.Array) -> tuple[np.ndarray, bool]:
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
    return fold(id_keys(column))


def fold(value: np.ndarray) -> np.ndarray:
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
