"""The set-retrieval contingency table: counts from rankings, the measures derived from it, worked numbers."""

from __future__ import annotations

import math

import pytest

from metrics import ValidationError, rank_runs
from metrics.teaching.contingency import Contingency, contingency

# Lecture rankings of ten documents (1 relevant, 0 not) with their printed precision and recall rows.
RANKING_A = [1, 0, 1, 1, 1, 1, 0, 0, 0, 1]  # system 1, topic 1: 6 relevant
PRECISION_A = [1.00, 0.50, 0.67, 0.75, 0.80, 0.83, 0.71, 0.63, 0.56, 0.60]
RECALL_A = [0.17, 0.17, 0.33, 0.50, 0.67, 0.83, 0.83, 0.83, 0.83, 1.00]
RANKING_B = [0, 1, 0, 0, 1, 1, 1, 0, 1, 1]  # system 2, topic 1: 6 relevant
PRECISION_B = [0.00, 0.50, 0.33, 0.25, 0.40, 0.50, 0.57, 0.50, 0.56, 0.60]
RECALL_B = [0.00, 0.17, 0.17, 0.17, 0.33, 0.50, 0.67, 0.67, 0.83, 1.00]
RANKING_C = [1, 0, 0, 0, 0, 1, 0, 0, 0, 1]  # system 1, topic 2: 3 relevant
PRECISION_C = [1.00, 0.50, 0.33, 0.25, 0.20, 0.33, 0.29, 0.25, 0.22, 0.30]
RECALL_C = [0.33, 0.33, 0.33, 0.33, 0.33, 0.67, 0.67, 0.67, 0.67, 1.00]


def ranked(grades, *, unjudged=()):
    """Rankings of one query "t" retrieving d0, d1, ... in order; ``unjudged`` positions lack a judgment."""
    qrels = "".join(f"t 0 d{i} {g}\n" for i, g in enumerate(grades) if i not in unjudged)
    run = "".join(f"t Q0 d{i} {i + 1} {100 - i} s\n" for i in range(len(grades)))
    return rank_runs(qrels, {"s": run})[0]


@pytest.mark.parametrize("grades,precision,recall", [(RANKING_A, PRECISION_A, RECALL_A),
                                                     (RANKING_B, PRECISION_B, RECALL_B),
                                                     (RANKING_C, PRECISION_C, RECALL_C)], ids=["A", "B", "C"])
def test_precision_and_recall_rows_of_the_lecture_rankings(grades, precision, recall):
    rankings = ranked(grades)
    for k in range(1, 11):
        table = contingency(rankings, "t", N=1000, cutoff=k)
        assert table.a + table.b == k and table.a + table.c == sum(grades)
        assert table.N == 1000 and table.a + table.b + table.c + table.d == 1000
        # the rows are printed to two decimals, halves rounded up (5/8 = 0.625 shows as 0.63)
        assert table.precision == pytest.approx(precision[k - 1], abs=0.005 + 1e-12)
        assert table.recall == pytest.approx(recall[k - 1], abs=0.005 + 1e-12)


def test_ranking_a_in_full():
    table = contingency(ranked(RANKING_A), "t", N=1000)
    assert table == Contingency(a=6, b=4, c=0, d=990, N=1000)
    assert table.precision == 0.6 and table.recall == 1.0
    assert table.fallout == pytest.approx(4 / 994)
    assert table.accuracy == pytest.approx(996 / 1000)
    assert table.F1 == pytest.approx(2 * 0.6 / 1.6) == table.F()
    at5 = contingency(ranked(RANKING_A), "t", N=1000, cutoff=5)
    assert (at5.a, at5.b, at5.c, at5.d) == (4, 1, 2, 993)


def test_binary_example_at_rank_five():
    # relevant at ranks 1, 3, 4, 6 of eight: P@5 = 3/5 = 0.60, R@5 = 3/4 = 0.75, F1@5 = 0.67
    table = contingency(ranked([1, 0, 1, 1, 0, 1, 0, 0]), "t", N=8, cutoff=5)
    assert (table.a, table.b, table.c, table.d) == (3, 2, 1, 2)
    assert table.precision == 0.6 and table.recall == 0.75
    assert round(table.F1, 2) == 0.67
    assert table.fallout == 0.5 and table.accuracy == 5 / 8


def test_weighted_f_measure():
    table = Contingency(a=30, b=10, c=30, d=930, N=1000)  # P = 0.75, R = 0.5
    p, r = 0.75, 0.5
    assert table.F(1.0) == pytest.approx(2 * p * r / (p + r))
    assert table.F(2.0) == pytest.approx(5 * p * r / (4 * p + r))
    assert table.F(0.5) == pytest.approx(1.25 * p * r / (0.25 * p + r))
    assert table.F(0.0) == pytest.approx(p)  # beta = 0: precision alone
    assert table.F(2.0) < table.F(1.0) < table.F(0.5)  # recall is the weaker side
    # with alpha = 1 / (1 + beta^2): F = 1 / (alpha / P + (1 - alpha) / R)
    alpha = 1 / (1 + 2.0 ** 2)
    assert table.F(2.0) == pytest.approx(1 / (alpha / p + (1 - alpha) / r))
    with pytest.raises(ValidationError):
        table.F(-1.0)


def test_undefined_measures_are_nan():
    nothing_retrieved = Contingency(a=0, b=0, c=5, d=95, N=100)
    assert math.isnan(nothing_retrieved.precision) and nothing_retrieved.recall == 0.0
    assert math.isnan(nothing_retrieved.F1)
    nothing_relevant = Contingency(a=0, b=3, c=0, d=97, N=100)
    assert math.isnan(nothing_relevant.recall) and nothing_relevant.precision == 0.0
    assert nothing_relevant.fallout == 0.03
    everything_relevant = Contingency(a=2, b=0, c=3, d=0, N=5)
    assert math.isnan(everything_relevant.fallout)
    none_found = Contingency(a=0, b=4, c=4, d=92, N=100)
    assert none_found.F1 == 0.0


def test_accuracy_rewards_retrieving_nothing_in_a_large_collection():
    empty = Contingency(a=0, b=0, c=10, d=999_990, N=1_000_000)
    assert empty.accuracy == pytest.approx(0.99999, rel=1e-15)  # (a + d) / N, though all ten relevant are missed
    assert empty.recall == 0.0


def test_unjudged_retrieved_documents_are_non_relevant():
    rankings = ranked([1, 0, 1, 0], unjudged={1})
    table = contingency(rankings, "t", N=50)
    assert (table.a, table.b, table.c) == (2, 2, 0)


def test_relevance_threshold():
    rankings = ranked([2, 1, 0, 2, 1])
    assert contingency(rankings, "t", N=20).a == 4
    high = contingency(rankings, "t", N=20, rel=2)
    assert (high.a, high.b, high.c, high.d) == (2, 3, 0, 15)


def test_bad_arguments():
    rankings = ranked(RANKING_A)
    with pytest.raises(ValidationError, match="not among"):
        contingency(rankings, "nope", N=100)
    with pytest.raises(ValidationError, match="smaller"):
        contingency(rankings, "t", N=5)
    with pytest.raises(ValidationError):
        contingency(rankings, "t", N=100, cutoff=0)
    with pytest.raises(ValidationError, match="a \\+ b \\+ c \\+ d"):
        Contingency(a=1, b=1, c=1, d=1, N=5)
    with pytest.raises(ValidationError):
        Contingency(a=-1, b=1, c=1, d=4, N=5)
    table = Contingency(a=1, b=1, c=1, d=2, N=5)
    with pytest.raises(AttributeError):
        table.a = 3  # frozen
