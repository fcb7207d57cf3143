"""Label agreement between judgment sets against scikit-learn's cohen_kappa_score and the krippendorff package.

Seeded random cases full of edge cases: a grade one set uses and the other never does, grades with gaps
(where the "grade" and "position" distances differ), grades of 2**40, a topic only one set judged,
documents only one set judged, negative grades (not judgments), every document agreeing, constant grades.
"""

from __future__ import annotations

import warnings
from collections import Counter

import numpy as np
import pytest

sklearn_metrics = pytest.importorskip("sklearn.metrics", reason="scikit-learn (the kappa oracle) is not installed")
krippendorff = pytest.importorskip("krippendorff", reason="krippendorff (the alpha oracle) is not installed")

from metrics import ValidationError  # noqa: E402
from metrics.judgments.labels import (  # noqa: E402
    alpha_of_sets,
    cohen_kappa,
    confusion,
    krippendorff_alpha,
    label_agreement,
    topic_label_agreement,
)
from metrics.judgments.sets import judgment_sets, set_name  # noqa: E402
from tests.metrics.judgments.sets import as_dict, random_sets, same

SCALES = [(0, 1), (0, 1, 2, 3), (0, 1, 3), (0, 2, 5, 9), (0, 2 ** 40, 2 ** 41), (1, 2, 3, 4, 5)]
KINDS = ("independent", "agree", "noisy", "first constant", "both constant", "one-sided grade")


def sklearn_kappa(x, y, **options) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(sklearn_metrics.cohen_kappa_score(x, y, **options))


def kripp(data, level) -> float:
    """krippendorff.alpha, NaN where it refuses (one value in the domain, no unit judged twice)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return float(krippendorff.alpha(reliability_data=data, level_of_measurement=level))
        except ValueError:
            return float("nan")


def grade_pair(seed: int) -> tuple[np.ndarray, np.ndarray, tuple[int, ...]]:
    rng = np.random.default_rng(seed)
    scale = SCALES[seed % len(SCALES)]
    kind = KINDS[(seed // len(SCALES)) % len(KINDS)]
    n = int(rng.integers(1, 50))
    x = rng.choice(scale, size=n)
    y = rng.choice(scale, size=n)
    if kind == "agree":
        y = x.copy()
    elif kind == "noisy":
        y = np.where(rng.random(n) < 0.3, y, x)
    elif kind == "first constant":
        x = np.full(n, scale[0])
    elif kind == "both constant":
        x = y = np.full(n, scale[-1])
    elif kind == "one-sided grade":
        x = rng.choice(scale[:-1], size=n)  # the top grade is the second judge's only
    return x.astype(np.int64), y.astype(np.int64), scale


@pytest.mark.parametrize("seed", range(240))
def test_kappa_equals_scikit_learn(seed):
    x, y, scale = grade_pair(seed)
    assert same(cohen_kappa(x, y), sklearn_kappa(x, y))
    for weights in ("linear", "quadratic"):
        # "position": the grades' positions among those used, as scikit-learn's default labels
        assert same(cohen_kappa(x, y, weights=weights, distance="position"), sklearn_kappa(x, y, weights=weights))
        # "grade": the grade values; scikit-learn gives it when every grade in between is a label
        ours = cohen_kappa(x, y, weights=weights, distance="grade")
        low, high = int(min(x.min(), y.min())), int(max(x.max(), y.max()))
        if high - low <= 100:
            assert same(ours, sklearn_kappa(x, y, weights=weights, labels=np.arange(low, high + 1)))
        else:  # a textbook double sum over the grades present, weights from their values
            values = np.unique(np.concatenate([x, y])).astype(float)
            w = np.abs(values[:, None] - values[None, :]) ** (1 if weights == "linear" else 2)
            observed = np.zeros_like(w)
            for a, b in zip(x, y):
                observed[np.searchsorted(values, a), np.searchsorted(values, b)] += 1
            expected = np.outer(observed.sum(axis=1), observed.sum(axis=0)) / len(x)
            textbook = 1 - (w * observed).sum() / (w * expected).sum() if (w * expected).sum() else float("nan")
            assert same(ours, textbook, 1e-9)


def test_kappa_edge_cases_read_as_documented():
    assert cohen_kappa([2, 0, 1], [2, 0, 1]) == 1.0  # all agreeing
    assert np.isnan(cohen_kappa([1, 1, 1], [1, 1, 1]))  # constant: chance agreement is total
    assert np.isnan(cohen_kappa([], []))
    assert cohen_kappa([1, 1, 1], [0, 1, 2]) == pytest.approx(0.0, abs=1e-15)  # one judge constant: no agreement beyond chance
    with pytest.raises(ValidationError, match="weights"):
        cohen_kappa([1], [1], weights="cubic")
    with pytest.raises(ValidationError, match="same length"):
        cohen_kappa([1, 2], [1])


def reliability(seed: int) -> np.ndarray:
    rng = np.random.default_rng(1000 + seed)
    coders, units = int(rng.integers(2, 6)), int(rng.integers(1, 40))
    scale = SCALES[seed % len(SCALES)]
    data = rng.choice(scale, size=(coders, units)).astype(float)
    case = seed % 5
    if case == 1:
        data[:] = data[0]  # every coder agrees
    elif case == 2:
        data[:] = scale[0]  # constant
    elif case == 3:
        data[-1] = scale[-1]  # the last coder alone uses the top grade
    data[rng.random(data.shape) < 0.35] = np.nan
    return data


@pytest.mark.parametrize("level", ["ordinal", "interval", "nominal"])
@pytest.mark.parametrize("seed", range(60))
def test_alpha_equals_krippendorff(seed, level):
    data = reliability(seed)
    coder, unit = np.nonzero(~np.isnan(data))
    ours = krippendorff_alpha(unit, data[coder, unit], level=level)
    assert same(ours, kripp(data, level), 1e-9)


def test_alpha_edge_cases_read_as_documented():
    assert np.isnan(krippendorff_alpha(["a", "b"], [1, 2]))  # no document judged twice
    assert np.isnan(krippendorff_alpha(["a", "a", "b", "b"], [2, 2, 2, 2]))  # one value only
    assert krippendorff_alpha(["a", "a", "b", "b"], [1, 1, 3, 3]) == 1.0
    with pytest.raises(ValidationError, match="level"):
        krippendorff_alpha(["a"], [1], level="ratio")


@pytest.mark.parametrize("seed", range(40))
def test_label_agreement_of_sets_equals_the_oracles(seed):
    texts = random_sets(seed)
    sets = judgment_sets(texts)
    level = 1 + seed % 2
    frame = label_agreement(sets, relevance_level=level)
    judged = {name: as_dict(text) for name, text in texts.items()}
    assert list(frame.index) == [f"{a}|{b}" for a, b in sets.pairs()]
    for (a, b), (key, row) in zip(sets.pairs(), frame.iterrows()):
        both = sorted(set(judged[a]) & set(judged[b]))
        x = np.array([judged[a][k] for k in both], dtype=np.int64)
        y = np.array([judged[b][k] for k in both], dtype=np.int64)
        assert row["both_judged"] == len(both)
        assert row["only_first"] == len(set(judged[a]) - set(judged[b]))
        assert row["only_second"] == len(set(judged[b]) - set(judged[a]))
        assert same(row["kappa"], sklearn_kappa(x, y))
        assert same(row["kappa_binary"], sklearn_kappa(x >= level, y >= level))
        labels = np.arange(min(x.min(), y.min()), max(x.max(), y.max()) + 1)
        assert same(row["kappa_linear"], sklearn_kappa(x, y, weights="linear", labels=labels))
        assert same(row["kappa_quadratic"], sklearn_kappa(x, y, weights="quadratic", labels=labels))
        assert same(row["alpha"], kripp(np.vstack([x, y]).astype(float), "ordinal"), 1e-9)
        assert row["mean_grade_shift"] == pytest.approx(sum(int(q) - int(p) for p, q in zip(x, y)) / len(both))
    units = sorted(set().union(*judged.values()))
    data = np.array([[judged[n].get(u, np.nan) for u in units] for n in sets.names], dtype=float)
    assert same(alpha_of_sets(sets), kripp(data, "ordinal"), 1e-9)
    assert same(alpha_of_sets(sets, level="nominal"), kripp(data, "nominal"), 1e-9)


@pytest.mark.parametrize("seed", range(12))
def test_topic_label_agreement_equals_the_oracles_topic_by_topic(seed):
    texts = random_sets(100 + seed, n_sets=2)
    sets = judgment_sets(texts)
    a, b = sets.names
    frame = topic_label_agreement(sets, a, b)
    judged = {name: as_dict(text) for name, text in texts.items()}
    topics = sorted({t for t, _ in judged[a]} | {t for t, _ in judged[b]})
    assert frame["query"].tolist() == topics
    for row in frame.itertuples(index=False):
        both = sorted(k for k in set(judged[a]) & set(judged[b]) if k[0] == row.query)
        assert row.both_judged == len(both)
        if not both:
            assert np.isnan(row.kappa)
            continue
        x, y = [judged[a][k] for k in both], [judged[b][k] for k in both]
        assert same(row.kappa, sklearn_kappa(x, y))
    alone = sorted({t for t, _ in judged[a]} - {t for t, _ in judged[b]})  # the topic only the first set judged
    assert alone
    for row in frame[frame["query"].isin(alone)].itertuples(index=False):
        assert (row.both_judged, row.only_second) == (0, 0)
        assert row.only_first == sum(1 for t, _ in judged[a] if t == row.query)


def test_confusion_lists_the_cells_of_the_documents_both_judged():
    texts = random_sets(7)
    sets = judgment_sets(texts)
    a, b = sets.names[0], sets.names[-1]
    judged = {name: as_dict(text) for name, text in texts.items()}
    counts = Counter((judged[a][k], judged[b][k]) for k in set(judged[a]) & set(judged[b]))
    found = confusion(sets, a, b)
    assert {(r.first, r.second): r.documents for r in found.itertuples(index=False)} == dict(counts)
    assert 3 in set(found["second"]) and 3 not in set(found["first"])  # the grade only the last set uses


def test_sets_are_named_and_checked():
    texts = random_sets(3)
    sets = judgment_sets(list(texts.values()), names=["a", "b", "c"], reference="b")
    assert sets.names == ("b", "a", "c") and sets.reference == "b"
    assert set_name("nist.qrels.gz") == "nist" and set_name("umbrela.txt") == "umbrela"
    with pytest.raises(ValidationError, match="at least two"):
        judgment_sets([texts["judge0"]])
    with pytest.raises(ValidationError, match="share the name"):
        judgment_sets(list(texts.values())[:2], names=["x", "x"])
    with pytest.raises(ValidationError, match="without '|'"):
        judgment_sets(list(texts.values())[:2], names=["a|b", "c"])
    with pytest.raises(ValidationError, match="reference"):
        judgment_sets(texts, reference="nobody")
    with pytest.raises(ValidationError, match="no judgment set named"):
        sets["nobody"]
