"""Ties are ties and the reference's finding is read apart from the other sets': the orders, the top-k
agreement and the conclusions of several judgment sets, against textbook loops, scipy and statsmodels.

* the top-k agreement under exact ties equals the mean over every way of ordering the tied systems, found by
  enumerating them, and a copy of a run gives the same value whatever it is called;
* tied systems share a rank (1, 2=, 2=, 4);
* on a hand-built pair of each kind, ``conclusions`` says what scipy's paired t-test with statsmodels' Holm
  correction finds: a difference the reference found and another set loses, one the reference did not find
  and another set finds, and one the reference ties and another set separates.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

stats = pytest.importorskip("scipy.stats")
multitest = pytest.importorskip("statsmodels.stats.multitest", reason="statsmodels (the oracle) is not installed")

from metrics.judgments import conclusions as concluded  # noqa: E402
from metrics.judgments import systems  # noqa: E402


def orders_of(values: dict[str, dict[str, float]], measure: str = "P@10") -> pd.DataFrame:
    """An orders table as :func:`systems.system_orders` gives it, from ``{set: {system: value}}``."""
    rows = [{"judges": name, "system": s, "query": "1", "measure": measure, "value": v}
            for name, by_system in values.items() for s, v in by_system.items()]
    return systems.system_orders(pd.DataFrame(rows))


def enumerated_overlap(x: dict[str, float], y: dict[str, float], k: int) -> float:
    """The share of the top k in common, averaged over every order of the tied systems of x and of y."""
    def tops(scores):
        found = []
        for order in itertools.permutations(scores):
            values = [scores[s] for s in order]
            if all(a >= b for a, b in zip(values, values[1:])):  # an order the scores allow
                found.append(set(order[:k]))
        return found

    pairs = [len(a & b) / k for a in tops(x) for b in tops(y)]
    return sum(pairs) / len(pairs)


@pytest.mark.parametrize("seed", range(40))
def test_top_k_overlap_under_ties_is_the_mean_over_every_order_of_the_ties(seed):
    rng = np.random.default_rng(seed)
    names = [f"s{i}" for i in range(int(rng.integers(2, 7)))]
    x = {s: float(rng.integers(0, 3)) for s in names}  # a coarse grid: ties at every cut
    y = {s: float(rng.integers(0, 3)) for s in names}
    k = int(rng.integers(1, len(names) + 1))
    found = systems.order_agreement(orders_of({"a": x, "b": y}), [("a", "b")], top_k=k).iloc[0]
    assert found["top_k_overlap"] == pytest.approx(enumerated_overlap(x, y, k), abs=1e-12)
    shares = systems.top_k_shares(list(x.values()), k)
    assert shares.sum() == pytest.approx(k) and ((0 <= shares) & (shares <= 1)).all()


@pytest.mark.parametrize("copy", ["bm25x", "abm25x"])
def test_a_copy_tied_under_the_reference_gives_one_top_k_overlap_whatever_its_name(copy):
    # bm25 and its copy score alike under the reference; the other set tells them apart, bm25 first
    found = systems.order_agreement(orders_of({"ref": {"bm25": 0.4, copy: 0.4, "qld": 0.3},
                                               "llm": {"bm25": 0.5, copy: 0.45, "qld": 0.2}}), [("ref", "llm")],
                                    top_k=1).iloc[0]
    assert found["top_k_overlap"] == 0.5  # bm25 is the reference's first in one of the two orders of the tie


def test_tied_systems_share_a_rank_and_their_rank_changes_do_not_depend_on_names():
    orders = orders_of({"ref": {"b": 0.5, "a": 0.4, "c": 0.4, "d": 0.1}, "llm": {"b": 0.2, "a": 0.3, "c": 0.3, "d": 0.3}})
    rank = {(r.judges, r.system): r.rank for r in orders.itertuples(index=False)}
    assert [rank[("ref", s)] for s in "bacd"] == [1, 2, 2, 4]
    assert [rank[("llm", s)] for s in "bacd"] == [4, 1, 1, 1]
    changes = systems.rank_changes(orders, "ref").set_index("system")["change"].to_dict()
    assert changes == {"b": 3, "a": -1, "c": -1, "d": -3}


def per_query(values: dict[str, dict[str, list[float]]]) -> pd.DataFrame:
    return pd.DataFrame([{"judges": name, "system": s, "query": f"q{i}", "measure": "P@10", "value": v}
                         for name, by_system in values.items() for s, row in by_system.items()
                         for i, v in enumerate(row)])


def oracle_direction(values: dict[str, list[float]], alpha: float = 0.05) -> dict[tuple[str, str], int]:
    """``{(a, b): +1, -1 or 0}`` for a before b in ``values``' order: scipy's paired t-test, Holm over the set."""
    names = list(values)
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    p = [stats.ttest_rel(values[b], values[a]).pvalue for a, b in pairs]
    reject = multitest.multipletests(p, alpha=alpha, method="holm")[0]
    return {(a, b): int(np.sign(np.mean(np.subtract(values[b], values[a])))) if r else 0
            for (a, b), r in zip(pairs, reject)}


BASE = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 0.15, 0.25]
SHIFT = [0.05, 0.06, 0.04, 0.05, 0.07, 0.05, 0.06, 0.04, 0.05, 0.06, 0.05, 0.04]
NOISE = [0.3, -0.25, 0.2, -0.3, 0.25, -0.2, 0.3, -0.3, 0.2, -0.25, 0.3, -0.2]


@pytest.mark.parametrize("twin", ["twin", "atwin"])
def test_the_three_kinds_of_conclusion_are_told_apart(twin):
    up = list(np.add(BASE, SHIFT))
    sets = {
        # the reference finds x above y; y and z it orders without a significant difference; x and its twin tie
        "ref": {"x": up, "y": BASE, "z": list(np.subtract(BASE, np.multiply(NOISE, 0.1))), twin: list(up)},
        # "lost" keeps nothing significant: x and y drown in noise, and so does everything else
        "lost": {"x": list(np.add(BASE, NOISE)), "y": BASE, "z": list(np.subtract(BASE, NOISE)),
                 twin: list(np.add(BASE, np.multiply(NOISE, 0.5)))},
        # "sharp" finds what the reference did, finds z below y, and puts the twin above x
        "sharp": {"x": up, "y": BASE, "z": list(np.subtract(BASE, SHIFT)), twin: list(np.add(up, SHIFT))},
    }
    frame = per_query(sets)
    tests = concluded.set_tests(frame, ["P@10"], test="t", correction="holm", alpha=0.05)
    found = concluded.conclusions(tests, systems.system_orders(frame), "ref").set_index(["better", "worse"])
    directions = {name: oracle_direction(by_system) for name, by_system in sets.items()}
    means = {name: {s: np.mean(v) for s, v in by_system.items()} for name, by_system in sets.items()}

    def verdict(name, a, b):
        """What set ``name`` finds of "a above b" (a, b in the order of the systems)."""
        d = directions[name][(a, b)] if (a, b) in directions[name] else -directions[name][(b, a)]
        return {-1: "found", 1: "reversed", 0: "not found"}[d]

    x_y = found.loc[("x", "y")]  # found by the reference, lost under "lost"
    assert (verdict("ref", "x", "y"), verdict("lost", "x", "y"), verdict("sharp", "x", "y")) == (
        "found", "not found", "found")
    assert (x_y["reference"], x_y["found_under"], x_y["not_found_under"]) == ("found", ("sharp",), ("lost",))
    assert means["ref"]["y"] > means["ref"]["z"]
    y_z = found.loc[("y", "z")]  # not found by the reference, found under "sharp"
    assert (verdict("ref", "y", "z"), verdict("sharp", "y", "z")) == ("not found", "found")
    assert (y_z["reference"], y_z["found_under"], y_z["not_found_under"]) == ("not found", ("sharp",), ("lost",))
    assert means["ref"]["x"] == means["ref"][twin]
    tied = found.loc[tuple(sorted(("x", twin)))]  # tied by the reference, told apart under "sharp"
    assert verdict("sharp", twin, "x") == "found"
    assert (tied["reference"], tied["differs_under"], tied["found_under"], tied["reversed_under"]) == (
        "tied", ("sharp",), (), ())
    words = concluded.verdicts(found.reset_index(), "ref").set_index(["better", "worse"])
    assert words.loc[("x", "y"), ["ref", "lost", "sharp"]].tolist() == ["found", "not found", "found"]
    assert words.loc[("y", "z"), ["ref", "lost", "sharp"]].tolist() == ["not found", "not found", "found"]
