"""The one internal representation every measure reads: all queries' ranked lists as flat sorted arrays.

A run is ranked once (score descending, ties by document id descending, compared byte-wise, as trec_eval
does), joined with the judgments once, cut and filtered by the conventions once; every measure then works
on the same :class:`Rankings` arrays, for all queries at once.

Relevance codes follow trec_eval: a judged document carries its grade (>= 0); ``NONPOOL`` (-1) marks a
document absent from the qrels; ``UNJUDGED`` (-2) a document in the qrels with a negative grade (pooled but
not judged).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cached_property
from typing import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from metrics.conventions import Conventions
from metrics.errors import ValidationError
from metrics.io import Qrels, Run
from metrics.io.arrays import sorted_within, take_rows, to_arrow, to_numpy
from metrics.io.ids import codes_in

__all__ = ["Hits", "Judgments", "Rankings", "rank", "grades_or_nan", "NONPOOL", "UNJUDGED", "TIE_CUTOFFS"]

NONPOOL = -1
UNJUDGED = -2
TIE_CUTOFFS = (5, 10, 20)


def grades_or_nan(rel: np.ndarray) -> np.ndarray:
    """Relevance codes as float grades: the grade where it is >= 0, NaN for a document without one.

    Examples
    --------
    >>> grades_or_nan(np.array([2, 0, NONPOOL, UNJUDGED])).tolist()
    [2.0, 0.0, nan, nan]
    """
    return np.where(rel >= 0, rel, np.nan).astype(np.float64)


@dataclass(frozen=True)
class Hits:
    """The relevant ranked positions only — usually a small fraction of all positions.

    Most measures read nothing else, so they cost time in proportion to the relevant documents retrieved,
    not to the length of the run.

    Attributes
    ----------
    index : numpy.ndarray
        Positions (into the flat ranked arrays) holding a relevant document, ascending.
    seg : numpy.ndarray
        Query index of each.
    pos : numpy.ndarray
        1-based rank of each within its query.
    order : numpy.ndarray
        1-based count of relevant documents up to and including each (so ``order / pos`` is the precision
        at that rank).
    """

    index: np.ndarray
    seg: np.ndarray
    pos: np.ndarray
    order: np.ndarray

    def count(self, n_queries: int, cutoff: int | None = None) -> np.ndarray:
        """Relevant documents retrieved per query (within the cutoff)."""
        seg = self.seg if cutoff is None else self.seg[self.pos <= cutoff]
        return np.bincount(seg, minlength=n_queries).astype(np.float64)

    def sum(self, values: np.ndarray, n_queries: int, cutoff: int | None = None) -> np.ndarray:
        """Per-query sum of ``values`` (one per hit) over the hits within the cutoff."""
        if cutoff is not None:
            keep = self.pos <= cutoff
            return np.bincount(self.seg[keep], weights=values[keep], minlength=n_queries).astype(np.float64)
        return np.bincount(self.seg, weights=values, minlength=n_queries).astype(np.float64)


@dataclass(frozen=True, eq=False)
class Judgments:
    """Qrels prepared for joining: query and document codes, grade lookup, per-query grade counts.

    Built once per evaluation and shared by every run.
    """

    qrels: Qrels
    queries: pa.Array  # sorted unique query ids; a query's code is its index here
    docids: pa.Array  # unique judged document ids; a document's code is its index here
    keys: np.ndarray  # sorted int64 keys query_code * len(docids) + doc_code
    grades: np.ndarray  # grade of each key
    grade_values: np.ndarray  # the distinct judged grades (>= 0), ascending; [0] when nothing is judged
    rel_levels: np.ndarray  # (n_queries, len(grade_values)) counts of judged documents per grade

    @classmethod
    def from_qrels(cls, qrels: Qrels) -> "Judgments":
        table = qrels.table
        unique = pc.unique(table["query"])
        queries = unique.take(pc.sort_indices(unique))  # byte-wise, as trec_eval's strcmp
        docids = pc.unique(table["docid"])
        if isinstance(docids, pa.ChunkedArray):
            docids = docids.combine_chunks()
        qcode = to_numpy(pc.index_in(table["query"], value_set=queries)).astype(np.int64)
        dcode = to_numpy(pc.index_in(table["docid"], value_set=docids)).astype(np.int64)
        grade = to_numpy(table["relevance"]).astype(np.int64)
        keys = qcode * max(len(docids), 1) + dcode
        order = np.argsort(keys, kind="stable")
        judged = grade >= 0
        # the grades present, never a dense range: a grade read from a file must not size an array
        grade_values, grade_code = np.unique(grade[judged], return_inverse=True)
        if not len(grade_values):
            grade_values = np.zeros(1, dtype=np.int64)
        rel_levels = np.zeros((len(queries), len(grade_values)), dtype=np.int64)
        np.add.at(rel_levels, (qcode[judged], grade_code.ravel()), 1)
        return cls(qrels=qrels, queries=queries, docids=docids, keys=keys[order], grades=grade[order],
                   grade_values=grade_values.astype(np.int64), rel_levels=rel_levels)

    def grade_of(self, qcode: np.ndarray, dcode: np.ndarray) -> np.ndarray:
        """Relevance code of each (query code, doc code) pair: grade, NONPOOL or UNJUDGED."""
        out = np.full(len(qcode), NONPOOL, dtype=np.int64)
        known = dcode >= 0
        if not known.any() or not len(self.keys):
            return out
        keys = qcode[known].astype(np.int64) * max(len(self.docids), 1) + dcode[known]
        at = np.minimum(np.searchsorted(self.keys, keys), len(self.keys) - 1)
        found = self.keys[at] == keys
        grades = np.where(found, self.grades[at], NONPOOL)
        out[known] = np.where(found & (grades < 0), UNJUDGED, grades)
        return out


@dataclass(frozen=True, eq=False)
class Rankings:
    """All evaluated queries' rankings of one run, as flat arrays with per-query offsets.

    Attributes
    ----------
    system : str
        The run's name.
    queries : numpy.ndarray of str
        Evaluated query ids, in trec_eval's (byte-wise sorted) order.
    offsets : numpy.ndarray of int64
        ``offsets[i]:offsets[i+1]`` are query ``i``'s ranked positions.
    rel : numpy.ndarray of int64
        Relevance code at each ranked position (grade, ``NONPOOL`` or ``UNJUDGED``).
    rows : numpy.ndarray of int64
        Row of the run table at each ranked position (to look up document ids and scores).
    rel_levels : numpy.ndarray of int64
        ``(n_queries, len(grade_values))`` counts of judged documents per grade, for each evaluated query.
    grade_values : numpy.ndarray of int64
        The distinct grades (>= 0) of the qrels, ascending: the grade of each column of ``rel_levels``.
    conventions : Conventions
    run : Run
    ties : dict
        Tie statistics before any cut: ``tied_rows`` and, per cutoff k in ``TIE_CUTOFFS``, the number of
        queries where a group of tied scores straddles ranks k and k+1.
    """

    system: str
    queries: np.ndarray
    offsets: np.ndarray
    rel: np.ndarray
    rows: np.ndarray
    rel_levels: np.ndarray
    grade_values: np.ndarray
    conventions: Conventions
    run: Run = field(repr=False)
    ties: dict = field(default_factory=dict, repr=False)

    # ---- shapes --------------------------------------------------------------------------------------
    @property
    def n_queries(self) -> int:
        return len(self.queries)

    @cached_property
    def num_ret(self) -> np.ndarray:
        """Number of ranked documents per query (after depth and judged-only cuts)."""
        return np.diff(self.offsets)

    @cached_property
    def seg(self) -> np.ndarray:
        """Query index of each ranked position."""
        return np.repeat(np.arange(self.n_queries), self.num_ret)

    @cached_property
    def pos(self) -> np.ndarray:
        """1-based rank of each ranked position within its query: a running sum of ones that drops back to
        1 at each query's first position (one array, no per-position query index)."""
        pos = np.ones(len(self.rel), dtype=np.int64)
        starts = self.offsets[:-1][self.num_ret > 0]  # the first position of each query with any
        pos[starts[1:]] -= np.diff(starts)  # minus the length of the query before
        return np.cumsum(pos, out=pos)

    # ---- parts ---------------------------------------------------------------------------------------
    def select_queries(self, queries: Sequence[str]) -> "Rankings":
        """The same system's rankings restricted to some queries (in this object's order), sharing the run.

        Parameters
        ----------
        queries : sequence of str
            Query ids; ids the system was not evaluated on are skipped (the result may have no query).

        Returns
        -------
        Rankings
            The same system, conventions and run, with only the rankings and judgment counts of those
            queries: every measure and curve of a query is the same as on the whole run, and costs the
            length of that query's ranking, not the length of the run.

        Raises
        ------
        ValidationError
            When ``queries`` is one string rather than a sequence of ids.

        Examples
        --------
        >>> from metrics import rank_runs
        >>> r = rank_runs("1 0 a 1\\n2 0 b 1\\n", {"x": "1 Q0 a 1 2 x\\n2 Q0 c 1 2 x\\n2 Q0 b 2 1 x\\n"})[0]
        >>> one = r.select_queries(["2"])
        >>> one.queries.tolist(), one.offsets.tolist(), one.rel.tolist()
        (['2'], [0, 2], [-1, 1])
        """
        if isinstance(queries, (str, bytes)):
            raise ValidationError("queries: expected a sequence of query ids, found one string")
        wanted = np.asarray([str(q) for q in queries], dtype=object)
        return self.take(np.flatnonzero(np.isin(self.queries.astype(str), wanted.astype(str))))

    def take(self, index: np.ndarray) -> "Rankings":
        """The same system's rankings restricted to the queries at some positions, as :meth:`select_queries`.

        Parameters
        ----------
        index : numpy.ndarray of int
            Positions in :attr:`queries`, ascending.

        Returns
        -------
        Rankings
            Those queries' rankings and judgment counts, in this object's order.

        Examples
        --------
        >>> from metrics import rank_runs
        >>> r = rank_runs("1 0 a 1\\n2 0 b 1\\n", {"x": "1 Q0 a 1 2 x\\n2 Q0 c 1 2 x\\n2 Q0 b 2 1 x\\n"})[0]
        >>> r.take(np.array([1])).queries.tolist()
        ['2']
        """
        index = np.asarray(index, dtype=np.int64)
        counts = self.num_ret[index]
        offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
        positions = np.repeat(self.offsets[index] - offsets[:-1], counts) + np.arange(int(offsets[-1]))
        return Rankings(system=self.system, queries=self.queries[index], offsets=offsets, rel=self.rel[positions],
                        rows=self.rows[positions], rel_levels=self.rel_levels[index], grade_values=self.grade_values,
                        conventions=self.conventions,
                        run=self.run, ties=self.ties)

    # ---- relevance -----------------------------------------------------------------------------------
    def level(self, rel: int | None) -> int:
        """The relevance threshold: a measure's own ``rel`` parameter, else the conventions' level."""
        return self.conventions.relevance_level if rel is None else rel

    def num_rel(self, rel: int | None = None) -> np.ndarray:
        """Number of judged documents with grade >= the threshold, per query (trec_eval's num_rel)."""
        return self.rel_levels[:, self.grade_values >= max(self.level(rel), 0)].sum(axis=1)

    def num_below(self, rel: int | None = None) -> np.ndarray:
        """Number of judged documents with grade below the threshold, per query (judged non-relevant)."""
        return self.rel_levels[:, self.grade_values < max(self.level(rel), 0)].sum(axis=1)

    @property
    def max_grade(self) -> int:
        """The highest grade in the qrels (0 when nothing is judged relevant)."""
        return int(self.grade_values[-1])

    def top_grades(self) -> np.ndarray:
        """The highest grade judged for each query (0 for a query with no judgment)."""
        present = self.rel_levels > 0
        last = present.shape[1] - 1 - np.argmax(present[:, ::-1], axis=1)
        return np.where(present.any(axis=1), self.grade_values[last], 0)

    def num_judged(self) -> np.ndarray:
        """Number of judged documents (grade >= 0) per query."""
        return self.rel_levels.sum(axis=1)

    def relevant(self, rel: int | None = None) -> np.ndarray:
        """Boolean per ranked position: the document counts as relevant."""
        return self._relevant(self.level(rel))

    def cum_relevant(self, rel: int | None = None) -> np.ndarray:
        """Number of relevant documents at or above each ranked position, within its query."""
        return self._cum_relevant(self.level(rel))

    def hits(self, rel: int | None = None) -> Hits:
        """The relevant positions (grade >= the threshold) with their query, rank and running count."""
        level = max(self.level(rel), 0)
        cache = self.__dict__.setdefault("_hits_cache", {})
        if level not in cache:
            index = np.flatnonzero(self.rel >= level)
            seg = np.searchsorted(self.offsets, index, side="right") - 1
            pos = index - self.offsets[seg] + 1
            first = np.searchsorted(seg, np.arange(self.n_queries), side="left")
            order = np.arange(1, len(index) + 1) - first[seg]
            cache[level] = Hits(index=index, seg=seg, pos=pos, order=order)
        return cache[level]

    def _relevant(self, level: int) -> np.ndarray:
        cache = self.__dict__.setdefault("_relevant_cache", {})
        if level not in cache:
            cache[level] = self.rel >= max(level, 0)
        return cache[level]

    def _cum_relevant(self, level: int) -> np.ndarray:
        cache = self.__dict__.setdefault("_cum_cache", {})
        if level not in cache:
            cache[level] = self.segment_cumsum(self._relevant(level).astype(np.int64))
        return cache[level]

    # ---- segment arithmetic --------------------------------------------------------------------------
    def segment_cumsum(self, values: np.ndarray) -> np.ndarray:
        """Inclusive cumulative sum of ``values`` restarting at each query."""
        total = np.cumsum(values)
        if not len(total):
            return total
        before = np.concatenate(([0], total))[self.offsets[:-1]]
        return total - np.repeat(before, self.num_ret)

    def segment_sum(self, values: np.ndarray) -> np.ndarray:
        """Sum of ``values`` per query (0 for an empty ranking)."""
        return np.bincount(self.seg, weights=values, minlength=self.n_queries).astype(np.float64, copy=False)

    def segment_max(self, values: np.ndarray, empty: float = 0.0) -> np.ndarray:
        """Maximum of ``values`` per query (``empty`` for an empty ranking)."""
        out = np.full(self.n_queries, -np.inf)
        np.maximum.at(out, self.seg, values)
        out[self.num_ret == 0] = empty
        return out

    def at_rank(self, values: np.ndarray, k: np.ndarray | int, empty: float = 0.0) -> np.ndarray:
        """Per query, ``values`` at rank ``min(k, num_ret)`` (``empty`` where that is rank 0)."""
        k = np.minimum(np.broadcast_to(np.asarray(k, dtype=np.int64), (self.n_queries,)), self.num_ret)
        idx = np.maximum(self.offsets[:-1] + k - 1, 0)
        out = np.full(self.n_queries, empty, dtype=np.float64)
        ok = k >= 1
        if ok.any():
            out[ok] = values[idx[ok]]
        return out

    def within(self, cutoff: int | None) -> np.ndarray:
        """Boolean per ranked position: rank <= cutoff (all True when cutoff is None)."""
        if cutoff is None:
            return np.ones(len(self.rel), dtype=bool)
        return self.pos <= cutoff

    def ideal_grades(self) -> tuple[np.ndarray, np.ndarray]:
        """Grades of all judged documents with grade > 0, sorted descending per query, and their offsets."""
        grades = self.grade_values[::-1]
        counts = self.rel_levels[:, ::-1] * (grades > 0)  # grade 0 contributes no gain
        flat = np.repeat(np.tile(grades, self.n_queries), counts.ravel())
        offsets = np.concatenate(([0], np.cumsum(counts.sum(axis=1))))
        return flat, offsets

    def docids(self) -> np.ndarray:
        """Document id at each ranked position (object array; built on demand)."""
        return self.run.table.column("docid").take(to_arrow(self.rows)).to_numpy(zero_copy_only=False)

    def scores(self) -> np.ndarray:
        """Score at each ranked position, as stored under the conventions' score precision."""
        score = to_numpy(self.run.table.column("score"))[self.rows]
        with np.errstate(over="ignore"):  # beyond float32's range a score becomes +-inf, as in trec_eval 9
            return score.astype(self.conventions.score_dtype)


def rank(judgments: Judgments, run: Run, conventions: Conventions) -> Rankings:
    """Rank one run against the judgments under the conventions.

    Parameters
    ----------
    judgments : Judgments
    run : Run
    conventions : Conventions

    Returns
    -------
    Rankings

    Notes
    -----
    Queries of the run that have no judgments are left out (trec_eval does the same). Queries judged but
    absent from the run are left out too unless ``conventions.complete`` (trec_eval ``-c``), in which case
    they get an empty ranking. The depth cut (``-M``) is applied after ranking and before the judged-only
    filter (``-J``), in trec_eval's order.
    """
    docid = run.table["docid"]
    with ThreadPoolExecutor(1) as pool:  # a long run's document codes on another core while its rows are ordered
        codes = pool.submit(codes_in, docid, judgments.docids) if len(docid) >= 1 << 16 else None
        rows, qc, ties = _ordered_rows(run, judgments, conventions)
        dcode = (codes.result() if codes else codes_in(docid, judgments.docids))[rows]
    rel = judgments.grade_of(qc, dcode)
    del dcode

    counts = np.bincount(qc, minlength=len(judgments.queries))
    keep_query = np.ones(len(counts), dtype=bool) if conventions.complete else counts > 0
    if conventions.depth is not None or conventions.judged_only:
        starts = np.concatenate(([0], np.cumsum(counts)))[:-1]
        keep = np.ones(len(rows), dtype=bool)
        if conventions.depth is not None:
            keep &= (np.arange(len(rows)) - starts[qc]) < conventions.depth
        if conventions.judged_only:
            keep &= rel >= 0
        rows, qc, rel = rows[keep], qc[keep], rel[keep]
        counts = np.bincount(qc, minlength=len(judgments.queries))
    offsets = np.concatenate(([0], np.cumsum(counts[keep_query])))
    queries = np.asarray(judgments.queries.to_pylist(), dtype=object)[keep_query]
    return Rankings(system=run.name, queries=queries, offsets=offsets, rel=rel, rows=rows,
                    rel_levels=judgments.rel_levels[keep_query], grade_values=judgments.grade_values,
                    conventions=conventions, run=run, ties=ties)


def _ordered_rows(run: Run, judgments: Judgments, conventions: Conventions) -> tuple[np.ndarray, np.ndarray, dict]:
    """Rows of the judged queries in ranked order (as :func:`rank`), their query codes, the tie counts."""
    table = run.table
    qcode = _query_codes(table["query"], judgments.queries, run.query_starts)
    if conventions.score_dtype == "float32":  # each chunk straight into its place: no float64 copy first
        score = np.empty(len(table), dtype=np.float32)
        with np.errstate(over="ignore"):  # beyond float32's range a score becomes +-inf, as in trec_eval 9
            np.concatenate([to_numpy(c) for c in table["score"].chunks] or [np.empty(0)], out=score,
                           casting="same_kind")
    else:
        score = to_numpy(table["score"])
    judged = qcode >= 0
    identity = bool(judged.all())
    if identity:  # the usual case: no copies (and the rows are 0, 1, 2 ..., made below only if needed)
        rows, qc, sc = None, qcode, score
    else:
        rows = np.flatnonzero(judged)
        qc, sc = qcode[rows], score[rows]
    del qcode, score, judged  # (the arrays live on as qc, sc where nothing was copied)
    order = _ranked_order(qc, sc)
    if order is not None:  # rows is 0, 1, 2, ... when every row is judged: then rows[order] is order itself
        rows, qc, sc = (order if identity else rows[order]), qc[order], sc[order]
        del order
    elif rows is None:
        rows = np.arange(len(qc))
    rows, ties = _break_ties(run, rows, qc, sc)  # moves rows only within a query: qc stays valid
    return rows, qc, ties


def _query_codes(query: pa.ChunkedArray, queries: pa.Array, starts: np.ndarray) -> np.ndarray:
    """Each row's index in ``queries`` (-1 if absent; int32), looked up once per block of equal adjacent
    ids (``starts``: :func:`block_starts` of ``query``)."""
    n = len(query)
    if n < 2:
        return to_numpy(pc.index_in(query, value_set=queries), null=-1).astype(np.int32)
    codes = to_numpy(pc.index_in(take_rows(query, starts), value_set=queries), null=-1)
    return np.repeat(codes.astype(np.int32), np.diff(np.append(starts, n)))


def _ranked_order(qc: np.ndarray, sc: np.ndarray) -> np.ndarray | None:
    """The permutation that sorts rows by query code, then score descending (None: already sorted; equal
    scores in no set order: :func:`_break_ties` orders them).

    Run files usually list each query's documents together, by score; only the order of the queries
    differs (numeric topic ids are not in byte-wise order). Then moving whole blocks is enough, which is
    far cheaper than a full sort of millions of rows; where the scores within a block are out of order,
    each block is sorted on its own first (:func:`~metrics.io.arrays.sorted_within`).
    """
    same_query = qc[1:] == qc[:-1]
    descending = ~same_query | (sc[1:] <= sc[:-1])
    if bool(np.all(descending & (same_query | (qc[1:] > qc[:-1])))):
        return None
    starts = np.concatenate(([0], np.flatnonzero(~same_query) + 1))
    block_query = qc[starts]
    if len(np.unique(block_query)) != len(block_query):  # a query in two places or more
        return np.lexsort((-sc, qc))
    lengths = np.diff(np.append(starts, len(qc)))
    within = None if bool(np.all(descending)) else sorted_within(-sc, starts, lengths)
    by_query = np.argsort(block_query, kind="stable")
    moved, first = lengths[by_query], starts[by_query]
    # the blocks' rows one after another: steps of 1, and a jump to the next block's first row
    order = np.ones(len(qc), dtype=np.int64)
    order[0] = first[0]
    order[np.cumsum(moved)[:-1]] = first[1:] - (first[:-1] + moved[:-1] - 1)
    np.cumsum(order, out=order)
    return order if within is None else within[order]


def tie_groups(same: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows of the groups of two or more equal neighbours (``same[i]``: rows ``i`` and ``i + 1`` are
    equal), ascending, and for each whether it opens its group.

    Examples
    --------
    >>> [x.tolist() for x in tie_groups(np.array([False, True, True, False, True]))]
    [[1, 2, 3, 4, 5], [True, False, False, True, False]]
    """
    member = np.zeros(len(same) + 1, dtype=bool)
    member[1:] |= same
    member[:-1] |= same
    idx = np.flatnonzero(member)
    starts = np.ones(len(idx), dtype=bool)
    starts[1:] = ~same[idx[1:] - 1]
    return idx, starts


def _break_ties(run: Run, rows: np.ndarray, qc: np.ndarray, sc: np.ndarray) -> tuple[np.ndarray, dict]:
    """Re-order groups of equal (query, score) by document id, descending, byte-wise; count the ties.

    ``rows`` is :func:`rank`'s own array (made there, shared with nothing): it is re-ordered in place."""
    ties = {"tied_rows": 0, "straddles": {k: 0 for k in TIE_CUTOFFS}}
    same = (qc[1:] == qc[:-1]) & (sc[1:] == sc[:-1])
    if not same.any():
        return rows, ties
    idx, starts = tie_groups(same)
    first = np.flatnonzero(starts)
    size = np.diff(np.append(first, len(idx)))
    docid = run.table.column("docid")
    # Arrow compares strings byte-wise, as trec_eval's strcmp. Most groups are pairs: swap those in order.
    a, b = idx[first[size == 2]], idx[first[size == 2] + 1]
    if len(a):
        pair = take_rows(docid, np.concatenate((rows[a], rows[b])))  # one pass over the chunks for both
        swap = to_numpy(pc.less(pair.slice(0, len(a)), pair.slice(len(a))))
        rows[a[swap]], rows[b[swap]] = rows[b[swap]], rows[a[swap]]
    larger = np.repeat(size > 2, size)
    if larger.any():  # groups of three or more: sort by (group, docid descending)
        sub = idx[larger]
        group = np.cumsum(starts)[larger]
        docs = take_rows(docid, rows[sub])
        order_key = to_numpy(pc.rank(docs, sort_keys="ascending", tiebreaker="dense")).astype(np.int64)
        rows[sub] = rows[sub][np.lexsort((-order_key, group))]
    ties["tied_rows"] = int(len(idx))
    query_start = np.flatnonzero(np.concatenate(([True], qc[1:] != qc[:-1])))
    query_end = np.append(query_start[1:], len(rows))
    for k in TIE_CUTOFFS:
        # rank k sits at query_start + k - 1; it straddles when it is tied with rank k + 1 of its query
        at = query_start + k - 1
        ties["straddles"][k] = int(same[at[at + 1 < query_end]].sum())
    return rows, ties
