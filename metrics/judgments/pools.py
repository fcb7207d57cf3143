"""Pools made once from the runs: depth-k, RBP-weighted and RRF, as trectools' ``TrecPoolMaker`` defines them.

Each pool is a set of documents per topic with an order: the documents already judged are left out of the
proposals, and a budget takes the pool in that order, the topics in rounds (:class:`~metrics.judgments.methods.PerTopic`).

* ``depth`` (trectools' ``topX``): every document some run ranks within the top ``k``, ordered by the best
  rank any run gives it.
* ``rbp``: each document weighs ``(1 - p) p^(rank - 1)`` in each run that retrieves it, added over the runs
  (``sum``) or the largest taken (``max``); the ``k`` heaviest documents of each topic, heaviest first.
* ``rrf``: reciprocal rank fusion, ``1 / (c + rank)`` added over the runs (Cormack, Clarke and Büttcher,
  SIGIR 2009; ``c`` is 60 there and in trectools); the ``k`` highest of each topic.

Equal weights (and equal best ranks) are ordered by document id: descending under the ``trec_eval`` order,
ascending under ``trectools`` (whose pandas sort keeps the document ids ascending among equal weights). A
document's weights are added smallest first, so that two documents with the same ranks in the same number of
runs weigh exactly the same, whatever the order of the runs. Under the ``trectools`` order RBP and RRF read
the run file's rank column, as trectools does (its documentation: the rank column "HAS TO start by 1");
under ``trec_eval`` they read the rank each run's scores give.
"""

from __future__ import annotations

import numpy as np

from metrics.checks import Number, Options
from metrics.errors import ValidationError
from metrics.judgments.candidates import NOT_JUDGED, Candidates
from metrics.judgments.methods import Option, PerTopic, method, runs_text

__all__ = ["DepthPool", "RBPPool", "RRFPool", "positions_of"]


def positions_of(candidates: Candidates) -> tuple[np.ndarray, np.ndarray]:
    """The ranked positions grouped by candidate: ``(order, starts)``, candidate ``i``'s positions being
    ``order[starts[i]:starts[i + 1]]`` (by topic, run, rank)."""
    order = np.argsort(candidates.candidate, kind="stable")
    starts = np.searchsorted(candidates.candidate[order], np.arange(len(candidates) + 1))
    return order, starts


class _Pool(PerTopic):
    """A pool with a fixed order: ``sequence`` holds the pool's candidates, topic by topic, in order."""

    weight_name = ""

    def __init__(self, candidates: Candidates, *, size: int | None = None) -> None:
        super().__init__(candidates)
        weight, key = self.weigh()
        ids = np.arange(len(candidates))
        tie = -ids if candidates.order == "trec_eval" else ids  # candidates are in ascending id order
        order = np.lexsort((tie, key, candidates.topic_of))
        if size is not None:  # the first `size` of each topic
            topic = candidates.topic_of[order]
            first = np.searchsorted(topic, topic, side="left")
            order = order[np.arange(len(order)) - first < size]
        self.weight = weight
        self.sequence = order
        self.bounds = np.searchsorted(candidates.topic_of[order], np.arange(candidates.n_topics + 1))
        self._positions = positions_of(candidates)

    def weigh(self) -> tuple[np.ndarray, np.ndarray]:
        """Each candidate's weight, and the key that orders a topic's candidates (ascending)."""
        raise NotImplementedError

    def runs_of(self, index: int, rank: int | None = None) -> list[str]:
        """The runs that retrieve candidate ``index`` (at ``rank`` only, when given), in the order given."""
        if "_lists" not in self.__dict__:  # plain lists: a reason per document, cheaply
            order, starts = self._positions
            names = self.candidates.systems
            self._lists = ([names[s] for s in self.candidates.system[order]], self.candidates.rank[order].tolist(),
                           starts.tolist())
        names, ranks, starts = self._lists
        lo, hi = starts[index], starts[index + 1]
        return [names[i] for i in range(lo, hi) if rank is None or ranks[i] == rank]

    def plan(self, topic: int, n: int | None) -> tuple[list[int], list[float], list[str]]:
        seq = self.sequence[self.bounds[topic]:self.bounds[topic + 1]]
        seq = seq[self.grades[seq] == NOT_JUDGED][:n]
        return seq.tolist(), self.weight[seq].tolist(), [self.why(i) for i in seq]

    def why(self, index: int) -> str:
        raise NotImplementedError

    def contributions(self, per_rank: np.ndarray) -> np.ndarray:
        """Per candidate, the sum (added smallest first) of ``per_rank`` over its positions."""
        c = self.candidates
        order = np.lexsort((per_rank, c.candidate))
        out = np.zeros(len(c))
        if len(order):
            starts = np.flatnonzero(np.r_[True, c.candidate[order][1:] != c.candidate[order][:-1]])
            out[c.candidate[order][starts]] = np.add.reduceat(per_rank[order], starts)
        return out

    def ranks_read(self, what: str) -> np.ndarray:
        """The ranks a weight reads: the file's rank column under ``trectools``, else the ranked position."""
        c = self.candidates
        if c.order == "trec_eval":
            return c.rank.astype(np.float64)
        bad = ~np.isfinite(c.file_rank)
        if bad.any():
            raise ValidationError(f"{what} under the trectools order reads each run's rank column; "
                                  f"{c.systems[int(c.system[np.argmax(bad)])]} has a rank that is not a number")
        return c.file_rank


@method("depth", title="depth-k pool", reference="TREC; trectools TrecPoolMaker strategy='topX'",
        help="every document some run ranks within the top --depth, by the best rank any run gives it",
        weight="best rank", adaptive=False)
class DepthPool(_Pool):
    """Depth-k pooling: the union of the runs' top ``k`` documents (``k`` is the depth the candidates were
    read to), each topic's documents by the best rank any run gives them."""

    def weigh(self) -> tuple[np.ndarray, np.ndarray]:
        c = self.candidates
        best = np.full(len(c), np.iinfo(np.int64).max, dtype=np.int64)
        np.minimum.at(best, c.candidate, c.rank)
        return best.astype(np.float64), best

    def why(self, index: int) -> str:
        best = int(self.weight[index])
        return f"rank {best} of {runs_text(self.runs_of(index, best))}"


STRATEGIES = ("sum", "max")


@method("rbp", title="RBP-weighted pool", reference="Moffat, Webber and Zobel (2007); trectools strategy='rbp'",
        help="the --depth documents of each topic with the largest rank-biased weight (1-p) p^(rank-1), added "
             "over the runs (or the largest); the runs are read whole",
        weight="RBP weight", adaptive=False, whole_runs=True,
        options=(Option("rbp_p", Number(0, 1, closed="neither"), 0.8, "RBP's persistence p"),
                 Option("rbp_strategy", Options(*STRATEGIES), "sum",
                        "how a document's weights in several runs combine: sum or max")))
class RBPPool(_Pool):
    """The RBP-weighted pool (trectools' ``rbp`` strategy)."""

    def __init__(self, candidates: Candidates, *, size: int | None = None, rbp_p: float = 0.8,
                 rbp_strategy: str = "sum") -> None:
        self.p, self.strategy = rbp_p, rbp_strategy
        super().__init__(candidates, size=size)

    def weigh(self) -> tuple[np.ndarray, np.ndarray]:
        value = (1.0 - self.p) * self.p ** (self.ranks_read("RBP") - 1.0)
        if self.strategy == "sum":
            weight = self.contributions(value)
        else:
            weight = np.zeros(len(self.candidates))
            np.maximum.at(weight, self.candidates.candidate, value)
        return weight, -weight

    def why(self, index: int) -> str:
        runs = self.runs_of(index)
        how = "summed over" if self.strategy == "sum" else "largest of"
        return f"RBP weight {self.weight[index]:.6g} ({how} {len(runs)} run{'s' if len(runs) > 1 else ''}: " \
               f"{runs_text(runs)})"


@method("rrf", title="RRF pool", reference="Cormack, Clarke and Büttcher (SIGIR 2009); trectools strategy='rrf'",
        help="the --depth documents of each topic with the largest reciprocal rank fusion score "
             "1/(c + rank) summed over the runs; the runs are read whole",
        weight="RRF score", adaptive=False, whole_runs=True,
        options=(Option("rrf_c", Number(0), 60.0, "RRF's constant c in 1/(c + rank)"),))
class RRFPool(_Pool):
    """The reciprocal rank fusion pool (trectools' ``rrf`` strategy)."""

    def __init__(self, candidates: Candidates, *, size: int | None = None, rrf_c: float = 60.0) -> None:
        self.c = rrf_c
        super().__init__(candidates, size=size)

    def weigh(self) -> tuple[np.ndarray, np.ndarray]:
        weight = self.contributions(1.0 / (self.c + self.ranks_read("RRF")))
        return weight, -weight

    def why(self, index: int) -> str:
        runs = self.runs_of(index)
        return f"RRF score {self.weight[index]:.6g} ({len(runs)} run{'s' if len(runs) > 1 else ''}: {runs_text(runs)})"
