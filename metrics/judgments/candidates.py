"""The documents there are to judge: per topic, every document the runs retrieve to a depth, each run's rank
of it, and the judgments already made.

Every pool method and the decision rule read one :class:`Candidates`, made once by :func:`gather`: the runs
are ranked once through :func:`metrics.rankings.rank` (the one ranked representation), cut at the depth, and
their documents become one table of candidates, sorted by topic and then document id (byte-wise), with the
ranked positions pointing into it.

Topics are those of the runs (the union: a run that does not answer a topic adds nothing to its pool); the
judgments of a topic no run answers are left out. A topic some run answers and the judgments do not name is
ranked all the same: it is given one placeholder row (document id ``" "``, which no run line can hold, since
fields are separated by white space; grade -1, "in the pool, not judged", which no count of judged documents
sees).

The order of a run's documents is a convention, :data:`ORDERS`:

``trec_eval`` (default)
    rankscope's ranking: score descending, equal scores by document id descending (byte-wise), as trec_eval;
    the scores at the conventions' precision (32-bit floats under the default ``trec_eval-9``).
``trectools``
    trectools' (``TrecRun`` sorts by score descending, then document id ascending, with 64-bit scores); its
    RBP and RRF pools weigh a document by the run file's own rank column, kept here as
    :attr:`Candidates.file_rank`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from metrics.checks import Integer, Options, check
from metrics.conventions import Conventions
from metrics.errors import ValidationError
from metrics.io import Qrels, Run
from metrics.io.arrays import to_numpy
from metrics.io.duplicates import take_rows
from metrics.rankings import Judgments, Rankings, rank, tie_groups

__all__ = ["Candidates", "NOT_JUDGED", "ORDERS", "PLACEHOLDER", "gather", "topics_text"]

ORDERS = {
    "trec_eval": "score descending, equal scores by document id descending (rankscope and trec_eval)",
    "trectools": "score descending, equal scores by document id ascending; RBP and RRF read the run file's "
                 "rank column (trectools)",
}
"""The orders of a run's documents, by name, with what each means."""

NOT_JUDGED = -1
"""The grade of a candidate without a judgment (in :attr:`Candidates.grades`)."""
PLACEHOLDER = " "
"""The document id of the placeholder row that keeps a topic without judgments in the ranking."""
ELSEWHERE = 10
"""Judgments of at least this many documents of the runs' topics, none of which any run retrieves (to any
depth), are taken for another collection's (with fewer, a miss may be chance)."""


@dataclass(frozen=True, eq=False)
class Candidates:
    """The documents of the runs to a depth, per topic, with each run's rank of them.

    Made by :func:`gather`. Candidates are sorted by topic, then document id (byte-wise); the ranked
    positions by topic, then run (in the order given), then rank.

    Attributes
    ----------
    systems : tuple of str
        The runs' names, in the order given.
    topics : numpy.ndarray of str
        Every topic some run answers, in trec_eval's (byte-wise) order.
    answered : numpy.ndarray of bool
        ``(len(systems), len(topics))``: whether each run answers each topic.
    depth : int or None
        How deep each run was read (None: whole).
    order : str
        The order of a run's documents (:data:`ORDERS`).
    level : int
        The lowest grade that counts as relevant (the conventions' relevance level).
    topic_starts : numpy.ndarray of int64
        Candidates ``topic_starts[t]:topic_starts[t + 1]`` belong to topic ``t``.
    docids : numpy.ndarray of str
        Each candidate's document id.
    grades : numpy.ndarray of int64
        Each candidate's grade in the judgments given, :data:`NOT_JUDGED` where it has none.
    position_starts : numpy.ndarray of int64
        Ranked positions ``position_starts[t]:position_starts[t + 1]`` belong to topic ``t``.
    system : numpy.ndarray of int64
        The run of each ranked position (an index into ``systems``).
    rank : numpy.ndarray of int64
        The 1-based rank of each position in its run, in the order :attr:`order` names.
    candidate : numpy.ndarray of int64
        The candidate at each position.
    file_rank : numpy.ndarray of float64
        The run file's rank column at each position (NaN where it is not a number).
    judged_levels : numpy.ndarray of int64
        ``(len(topics), len(grade_values))``: the judged documents of each topic per grade, every judged
        document counted, retrieved or not.
    grade_values : numpy.ndarray of int64
        The grade of each column of ``judged_levels``.
    rankings : tuple of Rankings
        Each run as ranked (in :attr:`order`, cut at :attr:`depth`), every topic of :attr:`topics` present.
    whole : tuple of Rankings
        The same, not cut.
    judged : pyarrow.Table
        The judgments given on the runs' topics (``query``, ``docid``, ``relevance``), every row kept.
    """

    systems: tuple[str, ...]
    topics: np.ndarray
    answered: np.ndarray
    depth: int | None
    order: str
    level: int
    topic_starts: np.ndarray
    docids: np.ndarray
    grades: np.ndarray
    position_starts: np.ndarray
    system: np.ndarray
    rank: np.ndarray
    candidate: np.ndarray
    file_rank: np.ndarray
    judged_levels: np.ndarray
    grade_values: np.ndarray
    rankings: tuple[Rankings, ...] = dataclasses.field(repr=False)
    judged: pa.Table = dataclasses.field(repr=False, default=None)
    whole: tuple[Rankings, ...] = dataclasses.field(repr=False, default=())

    def grade_given(self, topic: int, docid: str) -> int:
        """The grade the judgments given hold for a document of a topic, :data:`NOT_JUDGED` without one."""
        table = self.judged
        if table is None or not len(table):
            return NOT_JUDGED
        mask = pc.and_(pc.equal(table["query"], str(self.topics[topic])), pc.equal(table["docid"], str(docid)))
        found = table.filter(mask)["relevance"].to_pylist()
        return int(found[0]) if found and found[0] >= 0 else NOT_JUDGED

    @property
    def n_topics(self) -> int:
        return len(self.topics)

    @property
    def n_systems(self) -> int:
        return len(self.systems)

    def __len__(self) -> int:
        return len(self.docids)

    @property
    def topic_of(self) -> np.ndarray:
        """The topic index of each candidate."""
        return np.repeat(np.arange(self.n_topics), np.diff(self.topic_starts))

    @property
    def position_topic(self) -> np.ndarray:
        """The topic index of each ranked position."""
        return np.repeat(np.arange(self.n_topics), np.diff(self.position_starts))

    def common_topics(self) -> np.ndarray:
        """The indices of the topics every run answers."""
        return np.flatnonzero(self.answered.all(axis=0))

    def relevant_judged(self) -> np.ndarray:
        """Per topic, the judged documents with a grade of at least :attr:`level` (retrieved or not)."""
        return self.judged_levels[:, self.grade_values >= max(self.level, 0)].sum(axis=1)

    def find(self, topic: str, docid: str) -> int:
        """The index of a candidate, or -1 when no run retrieves ``docid`` for ``topic`` within the depth.

        Raises
        ------
        ValidationError
            When no run answers ``topic``.
        """
        t = self.topic_index(topic)
        lo, hi = self.topic_starts[t], self.topic_starts[t + 1]
        at = lo + int(np.searchsorted(self._sort_keys[lo:hi], str(docid).encode("utf-8")))
        return at if at < hi and self.docids[at] == docid else -1

    def topic_index(self, topic: str) -> int:
        """The index of a topic in :attr:`topics`.

        Raises
        ------
        ValidationError
            When no run answers it.
        """
        at = int(np.searchsorted(self._topic_keys, str(topic).encode("utf-8")))
        if at >= self.n_topics or self.topics[at] != topic:
            raise ValidationError(f"no run answers topic {topic!r}; the runs answer {topics_text(self.topics)}")
        return at

    @property
    def _sort_keys(self) -> np.ndarray:
        keys = self.__dict__.get("_keys")
        if keys is None:  # byte-wise, as the candidates are sorted
            keys = np.array([d.encode("utf-8") for d in self.docids], dtype=object)
            object.__setattr__(self, "_keys", keys)
        return keys

    @property
    def _topic_keys(self) -> np.ndarray:
        keys = self.__dict__.get("_tkeys")
        if keys is None:
            keys = np.array([t.encode("utf-8") for t in self.topics], dtype=object)
            object.__setattr__(self, "_tkeys", keys)
        return keys


def topics_text(topics: Sequence[str], most: int = 4) -> str:
    """A few topic ids and their count, for a message: ``'1, 2, 3, ..., 225 (225 topics)'``."""
    topics = [str(t) for t in topics]
    if len(topics) <= most:
        return ", ".join(topics) + f" ({len(topics)} topic{'s' if len(topics) != 1 else ''})"
    return ", ".join(topics[: most - 1]) + f", ..., {topics[-1]} ({len(topics)} topics)"


def gather(runs: Sequence[Run] | Mapping[str, Run], qrels: Qrels | None = None, *, depth: int | None = 100,
           order: str = "trec_eval", conventions: Conventions | None = None) -> Candidates:
    """Rank the runs once and gather their documents to ``depth``, per topic, with the judgments so far.

    Parameters
    ----------
    runs : sequence of Run, or mapping {name: Run}
        Read runs (:func:`metrics.read_run`); their names must differ.
    qrels : Qrels, optional
        The judgments already made (none: nothing is judged yet).
    depth : int or None, default=100
        How many documents of each run to read per topic (None: all of them).
    order : {"trec_eval", "trectools"}, default="trec_eval"
        The order of a run's documents (:data:`ORDERS`).
    conventions : Conventions, optional
        The relevance level and score precision (``trectools`` always reads 64-bit scores); the depth, the
        judged-only and complete flags are this function's own.

    Returns
    -------
    Candidates

    Raises
    ------
    ValidationError
        No run, two runs of one name, runs that share no topic, or judgments of another collection: none of
        their topics is one the runs answer, or none of the (at least :data:`ELSEWHERE`) documents they judge
        on those topics is retrieved by any run.
    """
    check("depth", depth, Integer(1, none=True))
    check("order", order, Options(*ORDERS))
    if isinstance(runs, Mapping):
        runs = [run.renamed(name) for name, run in runs.items()]
    runs = list(runs)
    if not runs:
        raise ValidationError("no runs given")
    names = [r.name for r in runs]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ValidationError(f"two runs share the system name(s) {repeated}; rename one")
    answered_by = [set(r.queries) for r in runs]
    every = sorted(set().union(*answered_by))
    common = set.intersection(*answered_by)
    if not common:
        apart = next(((a, b) for a in range(len(runs)) for b in range(a + 1, len(runs))
                      if not answered_by[a] & answered_by[b]), None)
        if apart is None:
            raise ValidationError(f"no topic is answered by all {len(runs)} runs")
        a, b = apart
        raise ValidationError(f"the runs share no topic: {runs[a].name} answers {topics_text(sorted(answered_by[a]))}, "
                              f"{runs[b].name} answers {topics_text(sorted(answered_by[b]))}")
    table = _judgments_of(qrels, every)
    coerced = Conventions.coerce(conventions, complete=True, depth=None, judged_only=False,
                                 **({"score_dtype": "float64"} if order == "trectools" else {}))
    judgments = Judgments.from_qrels(Qrels(name=qrels.name if qrels is not None else "judgments", table=table))
    ranked, whole, retrieved = [], [], False
    for run in runs:
        r = rank(judgments, run, coerced)
        retrieved = retrieved or bool((r.rel >= 0).any())  # a judged document anywhere in a run
        if order == "trectools":
            r = _ascending_ties(r)
        whole.append(r)
        ranked.append(_cut(r, depth))
    candidates = _assemble(ranked, runs, depth, order, coerced.relevance_level,
                           table.filter(pc.not_equal(table["docid"], PLACEHOLDER)))
    candidates = dataclasses.replace(candidates, whole=tuple(whole))
    judged = int(candidates.judged_levels.sum())
    if judged >= ELSEWHERE and not retrieved:
        raise ValidationError(f"{qrels.name}: none of the {judged} documents judged on the runs' topics is retrieved "
                              f"by any run: judgments of another collection?")
    return candidates


def _judgments_of(qrels: Qrels | None, topics: list[str]) -> pa.Table:
    """The judgments of the runs' topics, and a placeholder row for each topic they do not name."""
    schema = pa.schema([("query", pa.string()), ("docid", pa.string()), ("relevance", pa.int64())])
    if qrels is not None and len(qrels):
        wanted = pa.array(topics, type=pa.string())
        table = qrels.table.select(["query", "docid", "relevance"])
        table = table.cast(schema).filter(pc.is_in(table["query"].cast(pa.string()), value_set=wanted))
        named = set(pc.unique(table["query"]).to_pylist())
        if len(qrels) and not named:
            judged = sorted(pc.unique(qrels.table["query"]).to_pylist())
            raise ValidationError(f"{qrels.name}: the judgments are of other topics ({topics_text(judged)}) than "
                                  f"the runs answer ({topics_text(topics)}): judgments of another collection?")
    else:
        table, named = schema.empty_table(), set()
    missing = [t for t in topics if t not in named]
    if missing:
        filler = pa.table({"query": pa.array(missing, type=pa.string()),
                           "docid": pa.array([PLACEHOLDER] * len(missing), type=pa.string()),
                           "relevance": pa.array([-1] * len(missing), type=pa.int64())}, schema=schema)
        table = pa.concat_tables([table, filler])
    return table


def _ascending_ties(r: Rankings) -> Rankings:
    """The same rankings with each group of equal scores in ascending document id order (trectools'): the
    groups are in descending order, so each is reversed."""
    if len(r.rel) < 2:
        return r
    seg, score = r.seg, r.scores()
    tied = (seg[1:] == seg[:-1]) & (score[1:] == score[:-1])
    if not tied.any():
        return r
    idx, opens = tie_groups(tied)
    group = np.cumsum(opens)
    moved = np.arange(len(r.rel))
    moved[idx] = idx[np.lexsort((-idx, group))]
    return dataclasses.replace(r, rel=r.rel[moved], rows=r.rows[moved])


def _cut(r: Rankings, depth: int | None) -> Rankings:
    """The rankings to ``depth`` documents per topic (all of them for None)."""
    if depth is None or not len(r.rel) or int(r.num_ret.max()) <= depth:
        return r
    keep = r.pos <= depth
    offsets = np.concatenate(([0], np.cumsum(np.minimum(r.num_ret, depth)))).astype(np.int64)
    return dataclasses.replace(r, offsets=offsets, rel=r.rel[keep], rows=r.rows[keep])


def _strings(column: pa.Array) -> pa.Array:
    """A column of text as ``string`` (a cast only when it is another type: one of the same type is slow)."""
    return column if column.type == pa.string() else column.cast(pa.string())


def _assemble(ranked: list[Rankings], runs: list[Run], depth: int | None, order: str, level: int,
              judged: pa.Table) -> Candidates:
    """One table of candidates from the ranked runs (every one ranked against the same judgments)."""
    first = ranked[0]
    topics = np.asarray(first.queries, dtype=object)
    n_topics = len(topics)
    answered = np.zeros((len(runs), n_topics), dtype=bool)
    for s, run in enumerate(runs):
        answered[s] = np.isin(topics.astype(str), np.asarray(run.queries, dtype=str))
    docs = pa.chunked_array([_strings(take_rows(r.run.table["docid"], r.rows)) for r in ranked], type=pa.string())
    unique = pc.unique(docs)
    unique = unique.take(pc.sort_indices(unique))  # byte-wise
    code = to_numpy(pc.index_in(docs, value_set=unique)).astype(np.int64)
    seg = np.concatenate([r.seg for r in ranked]).astype(np.int64)
    keys, candidate = np.unique(seg * max(len(unique), 1) + code, return_inverse=True)
    candidate = candidate.ravel().astype(np.int64)
    cand_topic = keys // max(len(unique), 1)
    docids = np.asarray(unique.take(pa.array(keys % max(len(unique), 1))).to_pylist(), dtype=object)
    rel = np.concatenate([r.rel for r in ranked])
    grades = np.full(len(keys), NOT_JUDGED, dtype=np.int64)
    grades[candidate] = np.where(rel >= 0, rel, NOT_JUDGED)
    system = np.concatenate([np.full(len(r.rel), s, dtype=np.int64) for s, r in enumerate(ranked)])
    position = np.concatenate([r.pos for r in ranked]).astype(np.int64)
    file_rank = np.concatenate([to_numpy(r.run.table["rank"])[r.rows].astype(np.float64) for r in ranked])
    by_topic = np.argsort(seg, kind="stable")  # runs in the order given within a topic, each by rank
    return Candidates(
        systems=tuple(r.name for r in runs), topics=topics, answered=answered, depth=depth, order=order,
        level=level, topic_starts=np.searchsorted(cand_topic, np.arange(n_topics + 1)).astype(np.int64),
        docids=docids, grades=grades,
        position_starts=np.searchsorted(seg[by_topic], np.arange(n_topics + 1)).astype(np.int64),
        system=system[by_topic], rank=position[by_topic], candidate=candidate[by_topic],
        file_rank=file_rank[by_topic], judged_levels=first.rel_levels, grade_values=first.grade_values,
        rankings=tuple(ranked), judged=judged)
