"""What to judge for a decision, and how sure each pairwise conclusion is: minimal test collections.

Carterette, Allan and Sitaraman (SIGIR 2006) choose the documents whose judgment most changes the difference
in a measure between systems, and say with what confidence each pairwise order holds. :class:`Decision` does
both, for the measures of :data:`~metrics.judgments.uncertainty.MODELS` (AP, P@k, nDCG@k) and any set of pairs
of runs, under the model stated in :mod:`metrics.judgments.uncertainty`: an unjudged document is relevant with
probability ``prior``, independently of the others; judged documents are as judged.

* **The difference** of a pair is the mean over the topics every run answers of the per-topic difference,
  each divided by the expectation of its normaliser. Its expectation and variance are exact under the model
  (a sum over independent topics of polynomials in independent Bernoulli variables).
* **The probability that an order holds**, ``P(difference > 0)``, is a normal approximation of that sum over
  topics (as in the paper), except where the pair's difference depends on at most :data:`EXACT_LIMIT`
  unjudged documents: there every assignment of relevance is enumerated and the probability is exact. Each
  row of :meth:`Decision.probabilities` says which it is.
* **The next document** is the one whose judgment would move the differences of the pairs not decided yet
  the most: for each such pair, the absolute change in its expected difference between the document being
  relevant and not (the others at their expected relevance), summed over the pairs (the paper's rule for
  many systems). A pair is decided once its probability reaches ``confidence``; when every pair is, all of
  them count again. Equal effects (to :data:`EFFECT_DECIMALS` decimals) go to the earlier topic, then the
  smaller document id.

Every run is ranked once (:class:`~metrics.judgments.candidates.Candidates`); a judgment
(:meth:`~metrics.judgments.methods.Proposer.judge`) recomputes its topic only: the weights and expectations
of the runs on it, and its share of every pair's variance. The effects of all documents are recomputed only
when a pair becomes decided (or undecided again).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from metrics.checks import LEVEL, Integer, Number
from metrics.errors import ValidationError
from metrics.judgments.candidates import NOT_JUDGED, Candidates
from metrics.judgments.methods import Option, Proposer, check_pairs, method
from metrics.judgments.uncertainty import model_of
from metrics.judgments.variance import cross_terms, same_document_pairs

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Decision", "EXACT_LIMIT", "PRIOR", "PROBABILITY_COLUMNS"]

PRIOR = 0.05
"""The default probability that an unjudged document is relevant: about the share of relevant documents in a
depth-100 pool (2.4% of Cranfield's, 5.5% of NPL's with eight runs). At 0.5 thousands of unjudged documents,
each counted half relevant, outweigh the judgments: replaying the depth-k order on either collection, 18 of the
21 pairs decided after 5,000 judgments were decided the wrong way round."""
EXACT_LIMIT = 16
"""The most unjudged documents a pair's difference may depend on for its probability to be enumerated exactly
(2^16 assignments)."""
TIE = 1e-12
"""A difference this close to 0 is a tie (neither order holds); a variance this small relative to its terms is 0."""
EFFECT_DECIMALS = 12
"""Two documents whose effects agree to this many decimals are equally good: the earlier topic, then the smaller
document id, comes first."""
PROBABILITY_COLUMNS = ("better", "worse", "difference", "sd", "probability", "method", "unjudged", "decided")


@method("decide", title="minimal test collection", reference="Carterette, Allan and Sitaraman (SIGIR 2006)",
        help="the documents whose judgment most changes the measure's difference between the pairs of runs not "
             "decided yet, and each pair's probability that its order holds",
        weight="effect on the differences", adaptive=True,
        options=(Option("measure", None, "AP", "the measure of the decision: AP, AP@k, P@k or nDCG@k",
                        spelling="-m", metavar="MEASURE"),
                 Option("prior", Number(0, 1, closed="neither"), PRIOR,
                        "the probability that a document not judged is relevant"),
                 Option("confidence", LEVEL, 0.95, "the probability at which a pair counts as decided"),
                 Option("pairs", None, None, "the pairs of runs to decide, A:B,C:D (default: every pair)",
                        metavar="A:B,..."),
                 Option("unjudged_grade", Integer(1, 1000), 1,
                        "nDCG: the grade of a document not judged, when it is relevant")))
class Decision(Proposer):
    """The decision between pairs of runs as judgments arrive (see the module's notes).

    Parameters
    ----------
    candidates : Candidates
        The runs, read to the depth the measure needs, and the judgments so far.
    measure : str, default="AP"
    prior : float, default=0.05
        The probability that a document not judged is relevant (:data:`PRIOR`).
    confidence : float, default=0.95
    pairs : sequence of (str, str), str or None
        The pairs of runs, by name (``"a:b,a:c"``); None: every pair.
    unjudged_grade : int, default=1
    proposing : bool, default=True
        False: follow the judgments and give the pairs' probabilities only, without the effect of every
        document (what a replay of another method needs).
    """

    def __init__(self, candidates: Candidates, *, measure: str = "AP", prior: float = PRIOR,
                 confidence: float = 0.95, pairs=None, unjudged_grade: int = 1, proposing: bool = True) -> None:
        super().__init__(candidates)
        self.proposing = proposing
        c = candidates
        self.model = model_of(measure, c.level, c.depth, unjudged_grade)
        self.prior, self.confidence = prior, confidence
        chosen = check_pairs(pairs, c.systems)
        if chosen is None and c.n_systems < 2:
            raise ValidationError(f"a decision compares two runs or more, found one ({c.systems[0]})")
        self.all_pairs = chosen is None
        chosen = chosen or [(a, b) for a in range(c.n_systems) for b in range(a + 1, c.n_systems)]
        self.first = np.array([a for a, _ in chosen], dtype=np.int64)
        self.second = np.array([b for _, b in chosen], dtype=np.int64)
        self.used = np.zeros(c.n_topics, dtype=bool)
        self.used[c.common_topics()] = True
        self.n_used = int(self.used.sum())
        keep = self.used[c.position_topic]
        if self.model.reach is not None:
            keep &= c.rank <= self.model.reach
        self.topic, self.system = c.position_topic[keep], c.system[keep]
        self.rank, self.candidate = c.rank[keep].astype(np.float64), c.candidate[keep]
        self.starts = np.searchsorted(self.topic, np.arange(c.n_topics + 1))
        self.opens = np.r_[True, (self.topic[1:] != self.topic[:-1]) | (self.system[1:] != self.system[:-1])] \
            if len(self.topic) else np.zeros(0, dtype=bool)
        self.by_candidate = np.argsort(self.candidate, kind="stable")
        self.levels = [{int(g): int(n) for g, n in zip(c.grade_values, row) if n} for row in c.judged_levels]
        self.unjudged = np.bincount(c.topic_of[self.grades == NOT_JUDGED], minlength=c.n_topics)
        self.outside: dict[tuple[int, str], int] = {}
        s = c.n_systems
        self.omega = np.zeros(len(self.topic))
        self.expected = np.zeros((c.n_topics, s))
        self.scale = np.zeros(c.n_topics)
        self.lin = np.zeros((c.n_topics, s, s))  # each topic's share of the variances, scaled: linear terms
        self.own = np.zeros((c.n_topics, s))  # AP: each run's own quadratic terms
        self.root = np.zeros((c.n_topics, s))  # their square roots (the cross terms' Cauchy-Schwarz bound)
        self.cross = np.zeros((c.n_topics, s, s))  # AP: the cross terms of two runs, computed when asked
        self.crossed: set[int] = set()  # the topics whose cross terms are current (NaN: not computed)
        self.shared = np.zeros((c.n_topics, s, s), dtype=np.int64)
        self.stale = set(np.flatnonzero(self.used).tolist())  # topics whose share of the variances is out of date
        self.behind: set[int] = set()  # topics judged since their weights were computed (when not proposing)
        self.scores = np.full(len(c), -np.inf)
        self._table = None
        self._refresh(None)
        if proposing:
            self._counting = self._counting_pairs()
            self._rescore(None)

    # ---- the model's numbers, topic by topic --------------------------------------------------------
    def _refresh(self, topic: int | None) -> None:
        """Weights, expectations and normalisers of every used topic (None) or one."""
        lo, hi = (0, len(self.topic)) if topic is None else (self.starts[topic], self.starts[topic + 1])
        topics = np.flatnonzero(self.used) if topic is None else np.array([topic])
        m = self.model
        for t in topics:
            relevant = sum(n for g, n in self.levels[t].items() if g >= max(m.level, 0))
            norm = m.expected_normaliser(relevant, self.levels[t], int(self.unjudged[t]), self.prior)
            self.scale[t] = 1.0 / (self.n_used * norm) if norm > 0 else 0.0
        self.expected[topics] = 0.0
        if hi <= lo:
            return
        grades = self.grades[self.candidate[lo:hi]]
        judged = grades != NOT_JUDGED
        x = np.where(judged, m.judged_value(grades), self.prior * m.unjudged_value())
        opens = self.opens[lo:hi]
        seg = np.cumsum(opens) - 1
        value, omega = m.expected(x, self.rank[lo:hi], opens, seg, int(seg[-1]) + 1)
        self.omega[lo:hi] = np.where(judged, 0.0, omega)
        t_of, s_of = self.topic[lo:hi][opens], self.system[lo:hi][opens]
        self.expected[t_of, s_of] = value * self.scale[t_of]
        self.stale.update(topics.tolist())
        self._table = None

    def _grams(self) -> None:
        """Each stale topic's share of the pairs' variances (all but AP's cross terms, see :meth:`_crosses`)
        and the unjudged documents runs share on it."""
        v = self.prior * (1.0 - self.prior)
        s = self.candidates.n_systems
        for t in sorted(self.stale):
            lo, hi = self.starts[t], self.starts[t + 1]
            open_ = self.grades[self.candidate[lo:hi]] == NOT_JUDGED
            self.lin[t], self.own[t], self.root[t], self.shared[t] = 0.0, 0.0, 0.0, 0
            self.crossed.discard(t)
            if not open_.any() or self.scale[t] == 0:
                self.cross[t] = 0.0
                self.crossed.add(t)
                continue
            system, rank = self.system[lo:hi][open_], self.rank[lo:hi][open_]
            omega = self.omega[lo:hi][open_]
            by_doc = np.argsort(self.candidate[lo:hi][open_], kind="stable")
            i, j = same_document_pairs(self.candidate[lo:hi][open_][by_doc])  # two runs' positions of a document
            i, j = by_doc[i], by_doc[j]
            cell = system[i] * s + system[j]
            self.lin[t] = np.bincount(cell, weights=omega[i] * omega[j], minlength=s * s).reshape(s, s) \
                * (v * self.scale[t] ** 2)
            self.shared[t] = np.bincount(cell, minlength=s * s).reshape(s, s)
            if self.model.quadratic:  # AP: sum over pairs of unjudged documents of one ranking of 1 / rank^2
                opens = np.r_[True, system[1:] != system[:-1]]
                above = np.arange(len(system)) - np.repeat(np.flatnonzero(opens), np.diff(np.r_[np.flatnonzero(opens),
                                                                                               len(system)]))
                own = np.bincount(system, weights=above / rank ** 2, minlength=s) * (v * self.scale[t]) ** 2
                self.own[t], self.root[t] = own, np.sqrt(own)
        self.stale.clear()

    def _crosses(self, pairs: np.ndarray) -> np.ndarray:
        """AP's cross terms of the chosen pairs (indices into :attr:`first`), summed over the topics: for two
        runs, the sum over the pairs of unjudged documents both retrieve of ``1 / (max rank in one * max
        rank in the other)``, scaled. Each topic's terms are computed once and kept until a judgment on it."""
        out = np.zeros(len(pairs))
        if not self.model.quadratic or not len(pairs):
            return out
        v = self.prior * (1.0 - self.prior)
        a, b = self.first[pairs], self.second[pairs]
        for t in np.flatnonzero(self.used):
            if t not in self.crossed:
                self.cross[t] = np.nan
                self.crossed.add(t)
            known = self.cross[t, a, b]
            todo = np.flatnonzero(np.isnan(known))
            if len(todo):
                found = self._cross_in(t, a[todo], b[todo]) * (v * self.scale[t]) ** 2
                self.cross[t, a[todo], b[todo]] = found
                known = self.cross[t, a, b]
            out += known
        return out

    def _cross_in(self, t: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """``sum_{i<j} 1 / (max(ra_i, ra_j) * max(rb_i, rb_j))`` over the unjudged documents of topic ``t`` that
        runs ``a[k]`` and ``b[k]`` both retrieve, for every k at once
        (:func:`~metrics.judgments.variance.cross_terms`)."""
        out = np.zeros(len(a))
        pairs = np.flatnonzero(self.shared[t, a, b] >= 2)  # fewer than two shared documents: no term
        if not len(pairs):
            return out
        a, b = a[pairs], b[pairs]
        lo, hi = self.starts[t], self.starts[t + 1]
        open_ = self.grades[self.candidate[lo:hi]] == NOT_JUDGED
        system, rank = self.system[lo:hi][open_], self.rank[lo:hi][open_].astype(np.int64)
        docs, local = np.unique(self.candidate[lo:hi][open_], return_inverse=True)
        s = self.candidates.n_systems
        ranks = np.zeros((s, len(docs)), dtype=np.int64)
        ranks[system, local] = rank
        opens = np.flatnonzero(np.r_[True, system[1:] != system[:-1]])
        length = np.diff(np.r_[opens, len(system)])
        lists = np.full((s, int(length.max())), -1, dtype=np.int64)  # each run's unjudged documents, best first
        lists[np.repeat(system[opens], length), np.arange(len(system)) - np.repeat(opens, length)] = local
        out[pairs] = cross_terms(ranks, lists, a, b, int(self.shared[t, a, b].max()))
        return out

    # ---- the pairs ------------------------------------------------------------------------------------
    def probabilities(self) -> "pd.DataFrame":
        """Every pair's expected difference, its standard deviation and the probability that its order holds.

        Returns
        -------
        pandas.DataFrame
            One row per pair, in the order given: ``better`` and ``worse`` (the order more likely to hold),
            ``difference`` (the expected difference of the measure's means, better minus worse), ``sd``,
            ``probability`` (that better's mean is above worse's), ``method`` (``"exact"``: every assignment
            of relevance enumerated; ``"normal"``: the normal approximation of the sum over topics),
            ``unjudged`` (the unjudged documents the difference depends on) and ``decided`` (probability at
            least ``confidence``).
        """
        if self._table is None:
            self._table = self._probabilities()
        return self._table.copy()

    def _moments(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Each pair's expected difference, its variance but for AP's cross terms, and its unjudged documents."""
        for t in sorted(self.behind):
            self._refresh(int(t))
        self.behind.clear()
        self._grams()
        a, b = self.first, self.second
        totals = self.expected.sum(axis=0)
        lin, own, shared = self.lin.sum(axis=0), self.own.sum(axis=0), self.shared.sum(axis=0)
        base = lin[a, a] + lin[b, b] - 2.0 * lin[a, b] + own[a] + own[b]
        self._size = lin[a, a] + lin[b, b] + own[a] + own[b]  # the terms' size, for what rounding leaves
        return totals[a] - totals[b], base, shared[a, a] + shared[b, b] - shared[a, b]

    def _sd(self, variance: np.ndarray, pairs: np.ndarray | slice = slice(None)) -> np.ndarray:
        """Standard deviations; a variance within :data:`TIE` of its terms' size is 0 (two runs that weigh
        every unjudged document alike), not the rounding error of a difference of large sums."""
        return np.sqrt(np.where(variance > TIE * self._size[pairs], variance, 0.0))

    def _probabilities(self) -> "pd.DataFrame":
        import pandas as pd

        mean, base, unjudged = self._moments()
        sd = self._sd(base - 2.0 * self._crosses(np.arange(len(mean))))
        above, below = _normal(mean, sd)
        how = np.full(len(mean), "normal", dtype=object)
        for k in np.flatnonzero(unjudged <= EXACT_LIMIT):
            above[k], below[k] = self._exact(int(self.first[k]), int(self.second[k]))
            how[k] = "exact"
        first_better = above >= below
        names = np.asarray(self.candidates.systems, dtype=object)
        frame = pd.DataFrame({
            "better": np.where(first_better, names[self.first], names[self.second]),
            "worse": np.where(first_better, names[self.second], names[self.first]),
            "difference": np.where(first_better, mean, -mean), "sd": sd,
            "probability": np.where(first_better, above, below), "method": how, "unjudged": unjudged})
        frame["decided"] = frame["probability"] >= self.confidence
        return frame

    def _exact(self, a: int, b: int) -> tuple[float, float]:
        """``P(difference > 0)`` and ``P(difference < 0)`` by enumerating every assignment of relevance."""
        shared = self.shared
        per_topic = shared[:, a, a] + shared[:, b, b] - shared[:, a, b]
        values, chance = np.zeros(1), np.ones(1)
        offset = float((self.expected[per_topic == 0, a] - self.expected[per_topic == 0, b]).sum())
        m = self.model
        for t in np.flatnonzero(per_topic > 0):
            lo, hi = self.starts[t], self.starts[t + 1]
            mine = (self.system[lo:hi] == a) | (self.system[lo:hi] == b)
            cand = self.candidate[lo:hi][mine]
            grades = self.grades[cand]
            docs = np.unique(cand[grades == NOT_JUDGED])
            bits = (np.arange(2 ** len(docs))[:, None] >> np.arange(len(docs))[None, :]) & 1
            diff = np.zeros(len(bits))
            for sign, s in ((1.0, a), (-1.0, b)):
                ranked = self.candidate[lo:hi][self.system[lo:hi] == s]  # best rank first
                g = self.grades[ranked]
                x = np.where(g != NOT_JUDGED, m.judged_value(g), 0.0)[None, :].repeat(len(bits), axis=0)
                open_ = np.flatnonzero(g == NOT_JUDGED)
                x[:, open_] = bits[:, np.searchsorted(docs, ranked[open_])] * m.unjudged_value()
                diff += sign * m.values(x)
            ones = bits.sum(axis=1)
            values = (values[:, None] + diff[None, :] * self.scale[t]).ravel()
            chance = (chance[:, None] * (self.prior ** ones * (1 - self.prior) ** (len(docs) - ones))[None, :]).ravel()
        values = values + offset
        return float(chance[values > TIE].sum()), float(chance[values < -TIE].sum())

    def decisions(self) -> "pd.DataFrame":
        """Which order of each pair is the more likely and whether it is decided: the ``better``, ``worse`` and
        ``decided`` columns of :meth:`probabilities`, at a fraction of the cost.

        AP's cross terms lie between 0 and their Cauchy-Schwarz bound; a pair decided (or not) at both ends is
        decided (or not) at the exact value, which is computed only for a pair the bounds leave open."""
        import pandas as pd

        first_better, decided = self._settled()
        names = np.asarray(self.candidates.systems, dtype=object)
        return pd.DataFrame({"better": np.where(first_better, names[self.first], names[self.second]),
                             "worse": np.where(first_better, names[self.second], names[self.first]),
                             "decided": decided})

    def _settled(self) -> tuple[np.ndarray, np.ndarray]:
        """Whether each pair's first run is the more likely better, and whether the pair is decided."""
        if self._table is not None:
            table = self._table
            names = np.asarray(self.candidates.systems, dtype=object)
            return table["better"].to_numpy() == names[self.first], table["decided"].to_numpy()
        mean, base, unjudged = self._moments()
        bound = np.einsum("ts,tu->su", self.root, self.root)[self.first, self.second]
        low = _normal(mean, self._sd(base))  # the largest variance: the least sure
        high = _normal(mean, self._sd(base - 2.0 * bound))
        first_better = low[0] >= low[1]  # the sign of the mean, whatever the variance
        decided = np.maximum(*low) >= self.confidence
        open_ = ~decided & (np.maximum(*high) >= self.confidence)
        for k in np.flatnonzero(unjudged <= EXACT_LIMIT):
            above, below = self._exact(int(self.first[k]), int(self.second[k]))
            first_better[k], decided[k], open_[k] = above >= below, max(above, below) >= self.confidence, False
        if open_.any():
            k = np.flatnonzero(open_)
            sd = self._sd(base[k] - 2.0 * self._crosses(k), k)
            decided[k] = np.maximum(*_normal(mean[k], sd)) >= self.confidence
        return first_better, decided

    def _counting_pairs(self) -> np.ndarray:
        """Which pairs' effects count: those not decided, or every pair once all are."""
        decided = self._settled()[1]
        return ~decided if not decided.all() else np.ones(len(decided), dtype=bool)

    # ---- the next documents ---------------------------------------------------------------------------
    def _rescore(self, topic: int | None) -> None:
        """The effect of every unjudged candidate of every used topic (None), or of one topic."""
        from scipy import sparse

        c = self.candidates
        if topic is None:
            lo, hi, first, last = 0, len(self.topic), 0, len(c)
            self.scores[:] = -np.inf
        else:
            lo, hi = self.starts[topic], self.starts[topic + 1]
            first, last = c.topic_starts[topic], c.topic_starts[topic + 1]
            self.scores[first:last] = -np.inf
        open_ = self.grades[first:last] == NOT_JUDGED
        open_ &= self.used[c.topic_of[first:last]]
        keep = self.grades[self.candidate[lo:hi]] == NOT_JUDGED
        system, local = self.system[lo:hi][keep], self.candidate[lo:hi][keep] - first
        omega, n = self.omega[lo:hi][keep], last - first
        undecided = self._counting
        s = c.n_systems
        if self.all_pairs and undecided.sum() * 2 >= len(undecided):
            order = np.lexsort((omega, local))
            y, g = omega[order], local[order]
            count = np.bincount(g, minlength=n)
            starts = np.concatenate(([0], np.cumsum(count)))[g]
            j = np.arange(len(y)) - starts
            total = np.bincount(g, weights=(2 * j - count[g] + 1) * y, minlength=n).astype(np.float64)
            total += (s - count) * np.bincount(g, weights=np.abs(y), minlength=n)
            total -= self._pairs_effect(system, local, omega, n, ~undecided, sparse)
        else:
            total = self._pairs_effect(system, local, omega, n, undecided, sparse)
        scale = self.scale[c.topic_of[first:last]]
        self.scores[first:last] = np.where(open_, total * scale, -np.inf)

    def _pairs_effect(self, system, local, omega, n, chosen, sparse) -> np.ndarray:
        """Per candidate, the sum over the ``chosen`` pairs of the absolute difference of its weights."""
        a, b = self.first[chosen], self.second[chosen]
        if not len(a) or not len(omega):
            return np.zeros(n)
        weights = sparse.csr_matrix((omega, (system, local)), shape=(self.candidates.n_systems, n))
        rows = np.arange(len(a))
        pick = sparse.csr_matrix((np.r_[np.ones(len(a)), -np.ones(len(a))], (np.r_[rows, rows], np.r_[a, b])),
                                 shape=(len(a), self.candidates.n_systems))
        return np.asarray(abs(pick @ weights).sum(axis=0)).ravel()

    def _next(self, n: int | None) -> tuple[np.ndarray, list[float], list[str]]:
        c = self.candidates
        if not self.proposing:
            raise ValidationError("this decision follows judgments only; make it with proposing=True to propose")
        effect = np.round(self.scores, EFFECT_DECIMALS)  # equal effects: a rounding error must not order them
        if n == 1:  # the first largest: candidates are in topic, then document id, order
            best = int(np.argmax(effect)) if len(effect) else 0
            if not len(effect) or effect[best] == -np.inf:
                return np.zeros(0, dtype=np.int64), [], []
            return np.array([best]), [float(self.scores[best])], [self._why(best)]
        open_ = np.flatnonzero(effect > -np.inf)
        order = open_[np.lexsort((open_, c.topic_of[open_], -effect[open_]))]
        if n is not None:
            order = order[:n]
        return order, self.scores[order].tolist(), [self._why(int(i)) for i in order]

    def _why(self, index: int) -> str:
        at = self.by_candidate[np.searchsorted(self.candidate[self.by_candidate], index):
                               np.searchsorted(self.candidate[self.by_candidate], index, side="right")]
        weights = np.zeros(self.candidates.n_systems)
        weights[self.system[at]] = self.omega[at]
        chosen = self._counting
        a, b = self.first[chosen], self.second[chosen]
        t = self.candidates.topic_of[index]
        effect = np.abs(weights[a] - weights[b]) * self.scale[t]
        if not len(effect) or effect.max() <= 0:
            return f"changes no {self.model.measure} difference of the pairs not decided"
        top = int(np.argmax(effect))
        names = self.candidates.systems
        return (f"{self.model.measure}: {names[a[top]]} vs {names[b[top]]} by {effect[top]:.3g} "
                f"({effect.sum():.3g} over {int((effect > 0).sum())} undecided pair{'s' * (len(a) > 1)})")

    # ---- a judgment -----------------------------------------------------------------------------------
    def _judged(self, topic: int, index: int, docid: str, before: int | None, grade: int) -> None:
        if index < 0:
            before = self.outside.get((topic, docid), self.candidates.grade_given(topic, docid))
            self.outside[(topic, docid)] = grade if grade >= 0 else NOT_JUDGED
        if before is not None and before >= 0:
            self.levels[topic][before] -= 1
        if grade >= 0:
            self.levels[topic][grade] = self.levels[topic].get(grade, 0) + 1
        if index >= 0:
            self.unjudged[topic] += (grade < 0) - (before < 0)
        if not self.used[topic]:
            return
        if not self.proposing:  # nothing to propose: the topic is brought up to date when asked
            self.behind.add(topic)
            self._table = None
            return
        self._refresh(topic)
        counting = self._counting_pairs()
        if np.array_equal(counting, self._counting):
            self._rescore(topic)
        else:
            self._counting = counting
            self._rescore(None)

    def describe(self) -> str:
        """The model in one sentence, as a report prints it."""
        m = self.model
        norm = f" {m.measure}'s normaliser ({m.normaliser}) is replaced by its expectation;" if m.normaliser else ""
        return (f"an unjudged document is relevant with probability {self.prior:g}, independently of the others; "
                f"judged documents are as judged;{norm} the probability that an order holds is a normal "
                f"approximation of the sum over {self.n_used} topics, exact (every assignment enumerated) for a "
                f"pair whose difference depends on at most {EXACT_LIMIT} unjudged documents")


def _normal(mean: np.ndarray, sd: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``P(D > 0)`` and ``P(D < 0)`` for a normal ``D`` (a constant where ``sd`` is 0: a tie within
    :data:`TIE` holds neither order)."""
    from scipy.special import ndtr

    with np.errstate(divide="ignore", invalid="ignore"):
        above = np.where(sd > 0, ndtr(mean / sd), (mean > TIE).astype(np.float64))
        below = np.where(sd > 0, ndtr(-mean / sd), (mean < -TIE).astype(np.float64))
    return above, below
