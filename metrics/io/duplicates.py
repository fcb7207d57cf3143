"""Repeated (query, document) pairs in a run or qrels table: found fast, reported or resolved exactly.

trec_eval rejects a document listed twice for one query; :func:`dedupe` raises the same way, or keeps the
first, last or highest-valued line when asked to. The search is in two steps, so that the common case (no
duplicate among millions of lines) costs little, and no file, however its ids are made, costs much more:

1. :func:`suspects`: a 32-bit hash of each document id (its 64-bit key, :func:`metrics.io.ids.id_keys`,
   folded), compared within its query only. Files list each query's lines together, so the hashes of one
   query fill one row of a (queries x longest query) array; sorting the rows of that array is several times
   faster than sorting one key per line. The queries in which two hashes are equal are *suspects*: usually
   none or one (two ids of one query share a 32-bit hash about once per 7-million-line run).
2. In those queries only, the same sort of the whole 64-bit keys; in the queries where a key still
   repeats, the rows sharing a key are compared as strings (:func:`duplicate_rows`). Decimal ids are
   keyed one for one (:func:`metrics.io.ids.decimal_key`), so among them a repeated key is a repeated id.

Every step reads only the rows the step before named and is linear in them, so no file, however its ids
were made, costs much more than a clean one: one whose every id shares its 32-bit hash with another of
its query reads in about 1.2 times the time per line, in CPU (``benchmarks/run.py --workloads
collisions``). The keys and hashes themselves are :mod:`metrics.io.ids`', which the ranking reads too.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from metrics.errors import ParseError
from metrics.io.arrays import block_starts, distinct_ascending, sorted_within, take_rows, to_arrow, to_numpy
from metrics.io.ids import fold, hash32, keyed
from metrics.io.parsing import POOL

__all__ = ["dedupe", "duplicate_rows", "suspects"]

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
    key, exact = keyed(docid)
    key = _in_order(key, order)
    hit = _repeating(fold(key), starts, lengths)
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


def _positions(starts: np.ndarray, lengths: np.ndarray, segments: np.ndarray) -> np.ndarray:
    """The positions of the ``segments``' values, segment after segment."""
    size = lengths[segments]
    position = np.arange(int(size.sum()), dtype=np.int64)
    position += np.repeat(starts[segments] - (np.cumsum(size) - size), size)
    return position


def _line_of(row: int, lines: np.ndarray | None) -> int:
    return int(lines[row]) if lines is not None else row + 1


def _clip(text: str, width: int = 40) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."
