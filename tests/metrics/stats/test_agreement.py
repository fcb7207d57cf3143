"""Agreement of system orderings: tau-b against scipy, tau_AP against textbook loops (Yilmaz et al.'s without
ties, Urbano and Marrero's tau_AP,b with them)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from metrics.errors import ValidationError
from metrics.stats.agreement import (
    agreement_matrix,
    kendall_tau,
    ordering_agreement,
    swapped_pairs,
    tau_ap,
)


def _textbook_tau_ap(truth: list[str], estimated: list[str]) -> float:
    """Yilmaz et al. (2008): items in the estimated order; C(i) = items above i there that truth also puts above."""
    where = {item: pos for pos, item in enumerate(truth)}
    n = len(estimated)
    total = 0.0
    for i in range(1, n):
        correct = sum(1 for above in estimated[:i] if where[above] < where[estimated[i]])
        total += correct / i
    return 2.0 / (n - 1) * total - 1.0


def _ordered(scores: np.ndarray, names: list[str]) -> list[str]:
    return [name for _, name in sorted(zip(-scores, names))]  # best first (no ties in the callers' scores)


def _textbook_tau_ap_b(x: dict, y: dict) -> float:
    """Urbano and Marrero (ICTIR 2017), tau_AP,b's term of reference ``x`` in the order of ``y``: every item
    below the top tie group of ``y``; C_i / (p_i - 1) with p_i - 1 the items strictly above it in ``y`` and
    C_i those of them strictly above it in ``x``; 2 / (number of such items) * sum - 1."""
    items, total = 0, 0.0
    for i in y:
        above = [j for j in y if y[j] > y[i]]
        if not above:
            continue
        items += 1
        total += sum(1 for j in above if x[j] > x[i]) / len(above)
    return 2.0 * total / items - 1.0 if items else float("nan")


@pytest.mark.parametrize("seed", range(30))
def test_tau_b_is_scipy_and_tau_ap_is_the_textbook(seed):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 15))
    x = np.round(rng.random(k), 1 if seed % 3 == 0 else 6)  # ties in some cases
    y = np.round(x + rng.normal(0, 0.2, k), 1 if seed % 4 == 0 else 6)
    want = stats.kendalltau(x, y).statistic
    got = kendall_tau(x, y)
    assert (np.isnan(got) and np.isnan(want)) or got == pytest.approx(want, abs=1e-12)
    names = [f"s{i}" for i in range(k)]
    one = _textbook_tau_ap_b(dict(zip(names, x)), dict(zip(names, y)))
    other = _textbook_tau_ap_b(dict(zip(names, y)), dict(zip(names, x)))
    assert tau_ap(x, y, symmetric=False) == pytest.approx(one, abs=1e-12, nan_ok=True)
    assert tau_ap(x, y) == pytest.approx((one + other) / 2, abs=1e-12, nan_ok=True)
    if len(set(x)) == k and len(set(y)) == k:  # no ties: Yilmaz et al.'s tau_AP itself
        tx, ty = _ordered(x, names), _ordered(y, names)
        assert tau_ap(x, y, symmetric=False) == pytest.approx(_textbook_tau_ap(tx, ty), abs=1e-12)
        assert tau_ap(x, y) == pytest.approx((_textbook_tau_ap(tx, ty) + _textbook_tau_ap(ty, tx)) / 2, abs=1e-12)


def test_tau_ap_with_ties_does_not_depend_on_the_systems_names():
    x, y = {"a": 0.3, "b": 0.3, "c": 0.1}, {"a": 0.2, "b": 0.3, "c": 0.1}
    renamed = {("z" if k == "a" else k): v for k, v in x.items()}, {("z" if k == "a" else k): v for k, v in y.items()}
    # by hand: in y's order b, a, c: a has b above it, tied in x (0 of 1); c has both above in x too (2 of 2):
    # 2 / 2 * (0 + 1) - 1 = 0. In x's order (a, b) tie at the top, c has both above it in y: 2 / 1 * 1 - 1 = 1.
    assert tau_ap(pd.Series(x), pd.Series(y), symmetric=False) == 0.0
    assert tau_ap(pd.Series(y), pd.Series(x), symmetric=False) == 1.0
    assert tau_ap(pd.Series(x), pd.Series(y)) == tau_ap(*map(pd.Series, renamed)) == 0.5
    rng = np.random.default_rng(5)
    for _ in range(50):  # any naming and order of the systems gives the same value
        k = int(rng.integers(2, 12))
        a, b = rng.integers(0, 4, k) / 4, rng.integers(0, 4, k) / 4
        names = [f"s{i}" for i in range(k)]
        shuffled = [names[i] for i in rng.permutation(k)]
        first = tau_ap(pd.Series(a, index=names), pd.Series(b, index=names))
        again = tau_ap(pd.Series(a, index=shuffled), pd.Series(b, index=shuffled))
        assert (np.isnan(first) and np.isnan(again)) or first == pytest.approx(again, abs=1e-12)


def test_every_system_tied_in_the_ordering_gives_nan():
    assert np.isnan(tau_ap([0.1, 0.2, 0.3], [0.5, 0.5, 0.5], symmetric=False))
    assert tau_ap([0.5, 0.5, 0.5], [0.1, 0.2, 0.3], symmetric=False) == -1.0  # no pair agrees strictly


def test_hand_examples():
    x = [0.5, 0.4, 0.3, 0.2]
    assert tau_ap(x, x) == 1.0 and tau_ap(x, x[::-1]) == -1.0
    assert kendall_tau(x, x) == 1.0 and kendall_tau(x, x[::-1]) == -1.0
    # a swap at the top costs more than a swap at the bottom
    top, bottom = [0.4, 0.5, 0.3, 0.2], [0.5, 0.4, 0.2, 0.3]
    assert tau_ap(x, top, symmetric=False) < tau_ap(x, bottom, symmetric=False)
    assert kendall_tau(x, top) == kendall_tau(x, bottom)


def test_swaps_and_matrix():
    rows = []
    means = {"AP": [0.3, 0.2, 0.1], "P@10": [0.1, 0.2, 0.3], "RR": [0.3, 0.1, 0.2]}
    for measure, values in means.items():
        for system, value in zip("abc", values):
            rows += [{"system": system, "query": q, "measure": measure, "value": value} for q in ("1", "2")]
    frame = pd.DataFrame(rows)
    m = agreement_matrix(frame)
    assert m.loc["AP", "P@10"] == -1.0 and m.loc["AP", "AP"] == 1.0
    assert m.loc["AP", "RR"] == pytest.approx(stats.kendalltau(means["AP"], means["RR"]).statistic)
    m_ap = agreement_matrix(frame, statistic="tau_ap")
    assert m_ap.loc["AP", "P@10"] == -1.0
    swaps = swapped_pairs(pd.Series(means["AP"], index=list("abc")), pd.Series(means["RR"], index=list("abc")))
    assert swaps[["system_a", "system_b"]].values.tolist() == [["b", "c"]]


def test_bad_inputs():
    with pytest.raises(ValidationError, match="different systems"):
        kendall_tau(pd.Series([1.0, 2.0], index=["a", "b"]), pd.Series([1.0, 2.0], index=["a", "c"]))
    with pytest.raises(ValidationError, match="at least two"):
        tau_ap([1.0], [1.0])
    with pytest.raises(ValidationError, match="statistic"):
        agreement_matrix(pd.DataFrame({"system": ["a"], "measure": ["AP"], "value": [1.0]}), statistic="rho")


def test_two_conventions_of_one_measure():
    x = pd.Series({"a": 0.30, "b": 0.25, "c": 0.20, "d": 0.10})
    y = pd.Series({"a": 0.24, "b": 0.26, "c": 0.21, "d": 0.05})  # a and b swap at the top
    row = ordering_agreement(x, y, measures="AP").iloc[0]
    assert row["swaps"] == 1 and row["systems"] == 4
    assert row["tau"] == pytest.approx(stats.kendalltau(x.sort_index(), y.sort_index()).statistic)
    names = list("abcd")
    one = _textbook_tau_ap(_ordered(x.to_numpy(), names), _ordered(y.to_numpy(), names))
    other = _textbook_tau_ap(_ordered(y.to_numpy(), names), _ordered(x.to_numpy(), names))
    assert row["tau_ap_xy"] == pytest.approx(one) and row["tau_ap_yx"] == pytest.approx(other)
    assert row["tau_ap"] == pytest.approx((one + other) / 2)
