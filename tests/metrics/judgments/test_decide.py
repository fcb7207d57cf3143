"""The decision between runs (minimal test collections) against exact enumeration and a textbook loop.

Every test here computes what it checks without rankscope's arithmetic: the measures rank by rank as a
textbook writes them, each topic's normaliser from its definition, the model's distribution by enumerating
every assignment of relevance to the unjudged documents (sums with ``math.fsum``), the paper's weight of a
document as ``E[D | relevant] - E[D | not relevant]`` by enumeration too.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.stats import norm

from metrics.io import read_qrels, read_run
from metrics.judgments import decide, variance
from metrics.judgments.candidates import gather
from metrics.judgments.decide import Decision

MEASURES = ("AP", "AP@3", "P@3", "nDCG@3")


# ---- a tiny collection, and the textbook ------------------------------------------------------------------
def tiny(seed: int, *, topics: int, systems: int = 3, most_unjudged: int = 12):
    """Runs, judgments and their plain form: ``rankings[(s, t)]`` lists of document ids, ``grades[(t, d)]``."""
    rng = np.random.default_rng(seed)
    while True:
        rankings, grades = {}, {}
        for t in range(topics):
            pool = [f"d{i}" for i in range(int(rng.integers(2, 8)))]
            for s in range(systems):
                rankings[(s, t)] = list(rng.permutation(pool)[: int(rng.integers(1, len(pool) + 1))])
            for d in sorted({d for s in range(systems) for d in rankings[(s, t)]}):
                if rng.random() < 0.45:
                    grades[(t, d)] = int(rng.choice([0, 1, 2]))
            if rng.random() < 0.5:
                grades[(t, "elsewhere")] = int(rng.choice([0, 1, 2]))  # judged, retrieved by no run
        unjudged = [(t, d) for t in range(topics) for d in sorted({d for s in range(systems)
                                                                       for d in rankings[(s, t)]})
                    if (t, d) not in grades]
        if 0 < len(unjudged) <= most_unjudged:
            break
    runs = {f"s{s}": "".join(f"{t + 1} Q0 {d} {n} {100 - n} s{s}\n" for t in range(topics)
                             for n, d in enumerate(rankings[(s, t)], 1)) for s in range(systems)}
    qrels = "".join(f"{t + 1} 0 {d} {g}\n" for (t, d), g in grades.items())
    return runs, qrels, rankings, grades, unjudged


def decision_of(runs: dict, qrels: str, **options) -> Decision:
    read = [read_run(text, name=name) for name, text in runs.items()]
    return Decision(gather(read, read_qrels(qrels, name="q") if qrels else None, depth=None), **options)


def value(measure: str, ranking: list[str], rel: dict[str, int]) -> float:
    """A ranking's value before the normaliser: ``rel`` the grade of each document (0: not relevant)."""
    kind, _, k = measure.partition("@")
    k = int(k) if k else len(ranking)
    top = ranking[:k]
    if kind == "AP":
        found, total = 0, 0.0
        for n, d in enumerate(top, 1):
            if rel.get(d, 0) >= 1:
                found += 1
                total += found / n
        return total
    if kind == "P":
        return sum(rel.get(d, 0) >= 1 for d in top) / k
    return sum(rel.get(d, 0) / math.log2(n + 1) for n, d in enumerate(top, 1))


def normaliser(measure: str, t: int, grades: dict, unjudged: list, prior: float) -> float:
    """The expectation of the topic's normaliser under the model (its definition, enumerated)."""
    kind, _, k = measure.partition("@")
    mine = [g for (topic, _), g in grades.items() if topic == t]
    u = sum(1 for topic, _ in unjudged if topic == t)
    if kind == "AP":
        return sum(g >= 1 for g in mine) + prior * u
    if kind == "P":
        return 1.0
    k = int(k)
    total = []
    for m in range(u + 1):
        ideal = sorted(mine + [1] * m, reverse=True)[:k]
        total.append(math.comb(u, m) * prior ** m * (1 - prior) ** (u - m)
                     * sum(g / math.log2(i + 2) for i, g in enumerate(ideal)))
    return math.fsum(total)


def differences(measure: str, pair, rankings, grades, unjudged, prior, topics, norms=None):
    """Every assignment of relevance to the unjudged documents: its probability and the pair's difference
    (each topic divided by ``norms``, default the expectations of its normaliser)."""
    a, b = pair
    if norms is None:
        norms = [normaliser(measure, t, grades, unjudged, prior) for t in range(topics)]
    out = []
    for bits in itertools.product((0, 1), repeat=len(unjudged)):
        chance = math.prod(prior if x else 1 - prior for x in bits)
        parts = []
        for t in range(topics):
            rel = {d: g for (topic, d), g in grades.items() if topic == t}
            rel.update({d: x for (topic, d), x in zip(unjudged, bits) if topic == t})
            if norms[t] > 0:
                parts.append((value(measure, rankings[(a, t)], rel) - value(measure, rankings[(b, t)], rel))
                             / norms[t] / topics)
        out.append((chance, math.fsum(parts)))
    return out


def moments(found):
    mean = math.fsum(p * d for p, d in found)
    var = math.fsum(p * (d - mean) ** 2 for p, d in found)
    return mean, var, math.fsum(p for p, d in found if d > 1e-12), math.fsum(p for p, d in found if d < -1e-12)


# ---- the tests ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("walk", [False, True], ids=["tensor", "walk"])
@pytest.mark.parametrize("measure", MEASURES)
@pytest.mark.parametrize("seed", range(12))
def test_expectation_variance_and_probability_equal_exact_enumeration(seed, measure, walk, monkeypatch):
    if walk:  # AP's cross terms by the walk down the ranks, not the direct sum
        monkeypatch.setattr(variance, "TENSOR_CELLS", 0)
    topics = 1 + seed % 3
    prior = (0.2, 0.5, 0.7)[seed % 3]
    runs, qrels, rankings, grades, unjudged = tiny(seed, topics=topics)
    table = decision_of(runs, qrels, measure=measure, prior=prior).probabilities()
    names = list(runs)
    for k, pair in enumerate(itertools.combinations(range(len(names)), 2)):
        mean, var, above, below = moments(differences(measure, pair, rankings, grades, unjudged, prior, topics))
        row = table.iloc[k]
        sign = 1.0 if row.better == names[pair[0]] else -1.0
        assert sign * row.difference == pytest.approx(mean, abs=1e-12)
        assert row.sd ** 2 == pytest.approx(var, abs=1e-12)
        assert row.method == "exact"  # at most 12 unjudged documents
        assert row.probability == pytest.approx(above if sign > 0 else below, abs=1e-12)
        assert (row.probability >= 0.95) == row.decided


@pytest.mark.parametrize("seed", range(10))
def test_on_one_topic_the_probability_is_that_of_the_true_ap_order(seed):
    """With one topic, dividing by E[R] rather than R keeps each assignment's sign: the probability is the
    probability that the pair's true AP (over the true R) is in that order."""
    runs, qrels, rankings, grades, unjudged = tiny(100 + seed, topics=1)
    table = decision_of(runs, qrels, prior=0.5).probabilities()
    for k, (a, b) in enumerate(itertools.combinations(range(3), 2)):
        found = []
        for bits in itertools.product((0, 1), repeat=len(unjudged)):
            rel = {d: g for (_, d), g in grades.items()}
            rel.update({d: x for (_, d), x in zip(unjudged, bits)})
            r = sum(g >= 1 for g in rel.values())
            ap = [value("AP", rankings[(s, 0)], rel) / r if r else 0.0 for s in (a, b)]
            found.append((math.prod(0.5 if x else 0.5 for x in bits), ap[0] - ap[1]))
        _, _, above, below = moments(found)
        row = table.iloc[k]
        assert row.probability == pytest.approx(above if row.better == f"s{a}" else below, abs=1e-12)


def test_the_normal_approximation_is_within_the_berry_esseen_bound_of_the_exact_probability():
    """Twenty topics with one unjudged document each for the pair: more than EXACT_LIMIT, so the probability is
    the normal approximation of the sum over topics. The exact one comes from the per-topic distributions
    convolved; Berry-Esseen (Shevtsova's constant 0.56 for independent, not identically distributed terms)
    bounds the distance between the two by 0.56 * sum(E|X_t - mu_t|^3) / sigma^3, computed here."""
    rng = np.random.default_rng(5)
    topics, runs_a, runs_b, qrels = 20, [], [], []
    for t in range(1, topics + 1):
        docs = [f"t{t}d{i}" for i in range(4)]
        a, b = list(rng.permutation(docs)), list(rng.permutation(docs))
        runs_a += [f"{t} Q0 {d} {n} {9 - n} a\n" for n, d in enumerate(a, 1)]
        runs_b += [f"{t} Q0 {d} {n} {9 - n} b\n" for n, d in enumerate(b, 1)]
        open_doc = docs[int(rng.integers(0, 4))]
        qrels += [f"{t} 0 {d} {int(rng.integers(0, 2))}\n" for d in docs if d != open_doc]
    runs = {"a": "".join(runs_a), "b": "".join(runs_b)}
    table = decision_of(runs, "".join(qrels), prior=0.4).probabilities()
    row = table.iloc[0]
    assert row.method == "normal" and row.unjudged == topics > decide.EXACT_LIMIT
    values, chance, third = np.zeros(1), np.ones(1), 0.0
    means, variance = 0.0, 0.0
    for t in range(topics):  # each topic: two outcomes of its one unjudged document
        rankings = {(0, 0): [line.split()[2] for line in runs["a"].splitlines() if line.split()[0] == str(t + 1)],
                    (1, 0): [line.split()[2] for line in runs["b"].splitlines() if line.split()[0] == str(t + 1)]}
        grades = {(0, line.split()[2]): int(line.split()[3]) for line in qrels if line.split()[0] == str(t + 1)}
        unjudged = [(0, d) for d in rankings[(0, 0)] if (0, d) not in grades]
        found = differences("AP", (0, 1), rankings, grades, unjudged, 0.4, 1)
        d = np.array([x for _, x in found]) / topics
        p = np.array([q for q, _ in found])
        mu = float(p @ d)
        means += mu
        variance += float(p @ (d - mu) ** 2)
        third += float(p @ np.abs(d - mu) ** 3)
        values = (values[:, None] + d[None, :]).ravel()
        chance = (chance[:, None] * p[None, :]).ravel()
    exact = float(chance[values > 1e-12].sum())
    bound = 0.56 * third / variance ** 1.5
    assert bound < 0.25  # the check below says something
    ours = row.probability if row.better == "a" else 1 - row.probability
    assert ours == pytest.approx(norm.cdf(means / math.sqrt(variance)), abs=1e-12)
    assert abs(ours - exact) <= bound


def textbook_order(measure, runs, rankings, grades, unjudged, prior, topics, confidence=0.95):
    """The paper's rule, slowly: for each unjudged document, sum over the pairs not decided (all of them once
    every pair is) of |E[D | relevant] - E[D | not relevant]|; largest first, then topic, then document id."""
    pairs = list(itertools.combinations(range(len(runs)), 2))
    decided = []
    for pair in pairs:
        _, _, above, below = moments(differences(measure, pair, rankings, grades, unjudged, prior, topics))
        decided.append(max(above, below) >= confidence)
    counting = [p for p, done in zip(pairs, decided) if not done] or pairs
    norms = [normaliser(measure, t, grades, unjudged, prior) for t in range(topics)]  # as the judgments stand
    scores = []
    for i, doc in enumerate(unjudged):
        rest = unjudged[:i] + unjudged[i + 1:]
        total = 0.0
        for pair in counting:
            given = []
            for x in (1, 0):
                fixed = dict(grades)
                fixed[doc] = x
                mean, _, _, _ = moments(differences(measure, pair, rankings, fixed, rest, prior, topics, norms))
                given.append(mean)
            total += abs(given[0] - given[1])
        scores.append((-total, doc[0], doc[1].encode(), doc))
    return [(doc, -s) for s, _, _, doc in sorted(scores)]


@pytest.mark.parametrize("measure", MEASURES)
@pytest.mark.parametrize("seed", range(8))
def test_the_next_documents_follow_the_papers_rule(seed, measure):
    topics = 1 + seed % 2
    prior = (0.5, 0.05, 0.3)[seed % 3]
    runs, qrels, rankings, grades, unjudged = tiny(300 + seed, topics=topics, most_unjudged=8)
    expected = textbook_order(measure, runs, rankings, grades, unjudged, prior, topics)
    got = decision_of(runs, qrels, measure=measure, prior=prior).next()
    assert len(got) == len(expected)
    weights = dict(zip(zip(got["topic"], got["docid"]), got["weight"]))
    for (t, d), score in expected:
        assert weights[(str(t + 1), d)] == pytest.approx(score, abs=1e-12)
    # the order, where the scores differ by more than rounding
    ranked = [((str(t + 1), d), s) for (t, d), s in expected]
    position = {key: i for i, key in enumerate(zip(got["topic"], got["docid"]))}
    for (key_a, s_a), (key_b, s_b) in itertools.combinations(ranked, 2):
        if s_a > s_b + 1e-9:
            assert position[key_a] < position[key_b]


@pytest.mark.parametrize("measure", MEASURES)
@pytest.mark.parametrize("seed", range(6))
def test_judging_one_at_a_time_equals_deciding_afresh(seed, measure):
    """A judgment recomputes its topic only; the result must be what a decision made from every judgment gives:
    judgments of retrieved documents, of a document no run retrieves, a grade changed, and one taken back."""
    runs, qrels, rankings, grades, unjudged = tiny(500 + seed, topics=2, most_unjudged=12)
    live = decision_of(runs, qrels, measure=measure, prior=0.3)
    given = dict(grades)
    steps = [(t, d, x) for (t, d), x in zip(unjudged[:4], (1, 0, 2, 1))]
    steps += [(0, "elsewhere-2", 1), (steps[0][0], steps[0][1], 0), (steps[1][0], steps[1][1], -1)]
    for t, d, grade in steps:
        first, every = live.next(1), live.next()
        assert first.to_dict("records") == every.head(1).to_dict("records")
        live.judge(str(t + 1), d, grade)
        if grade >= 0:
            given[(t, d)] = grade
        else:
            given.pop((t, d), None)
        fresh = decision_of(runs, "".join(f"{t + 1} 0 {d} {g}\n" for (t, d), g in given.items()),
                            measure=measure, prior=0.3)
        a, b = live.probabilities(), fresh.probabilities()
        assert a[["better", "worse", "method", "unjudged", "decided"]].equals(b[["better", "worse", "method", "unjudged",
                                                                                 "decided"]])
        for column in ("difference", "probability"):
            assert np.allclose(a[column], b[column], rtol=0, atol=1e-12), column
        assert np.allclose(a["sd"] ** 2, b["sd"] ** 2, rtol=0, atol=1e-12)
        ours, theirs = live.next(), fresh.next()
        assert ours[["topic", "docid"]].equals(theirs[["topic", "docid"]])
        assert np.allclose(ours["weight"], theirs["weight"], rtol=0, atol=1e-12)
