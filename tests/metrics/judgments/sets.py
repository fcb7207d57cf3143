"""Random judgment sets and their plain-dict forms, shared by the tests of several judges."""

from __future__ import annotations

import os

import numpy as np
import pytest

import metrics
from metrics.judgments import systems
from metrics.judgments.sets import judgment_sets
from metrics.judgments.support import support_measures
from tests import judges_data


def same(a: float, b: float, tol: float = 1e-10) -> bool:
    return (np.isnan(a) and np.isnan(b)) or abs(a - b) <= tol


# ---- judgment sets: documents aligned by topic and id ---------------------------------------------------
def random_sets(seed: int, n_sets: int = 3) -> dict[str, str]:
    """Qrels texts of ``n_sets`` judges of one collection: shared documents graded with noise, documents one
    set alone judged, a topic only the first set judged, negative grades, a grade only the last set uses."""
    rng = np.random.default_rng(seed)
    topics = [str(t) for t in rng.choice(range(1, 30), size=int(rng.integers(2, 7)), replace=False)]
    truth = {(t, f"d{int(d)}"): int(rng.integers(0, 3)) for t in topics for d in rng.integers(0, 25, size=12)}
    texts = {}
    for s in range(n_sets):
        lines = []
        for (t, d), g in truth.items():
            if t == topics[0] and s > 0:
                continue  # a topic only the first set judged
            if rng.random() < 0.2:
                continue  # a document this set did not judge
            grade = g if rng.random() < 0.6 else int(rng.integers(0, 3))
            if s == n_sets - 1 and rng.random() < 0.2:
                grade = 3  # a grade this set alone uses
            if rng.random() < 0.05:
                grade = -1  # in the pool, not judged
            lines.append(f"{t} 0 {d} {grade}\n")
        lines.append(f"{topics[-1]} 0 only{s} {int(rng.integers(0, 3))}\n")
        texts[f"judge{s}"] = "".join(lines)
    return texts


def as_dict(text: str) -> dict[tuple[str, str], int]:
    out = {}
    for line in text.splitlines():
        t, _, d, g = line.split()
        if int(g) >= 0:
            out[(t, d)] = int(g)
    return out


pytrec_eval = pytest.importorskip("pytrec_eval", reason="pytrec-eval-terrier (the oracle) is not installed")

stats = pytest.importorskip("scipy.stats")

multitest = pytest.importorskip("statsmodels.stats.multitest", reason="statsmodels (the oracle) is not installed")

IN_CI = os.environ.get("CI") == "true"

SETS = ("nist", "merged", "noisy", "lexical")

MEASURES = {"nDCG@10": "ndcg_cut_10", "AP": "map", "P@10": "P_10"}


@pytest.fixture(scope="module")
def cranfield():
    if not judges_data.available():
        if IN_CI:
            pytest.fail(f"Cranfield not found at {judges_data.CRANFIELD}")
        pytest.skip(f"Cranfield not found at {judges_data.CRANFIELD}")
    texts, runs = judges_data.judgment_sets(), judges_data.runs()
    sets = judgment_sets({name: texts[name] for name in SETS})
    read = [metrics.read_run(text, name=name) for name, text in runs.items()]
    per_query = systems.evaluate_sets(sets, read, [*MEASURES, *support_measures(list(MEASURES))])
    return texts, runs, sets, per_query


@pytest.fixture(scope="module")
def oracle(cranfield):
    """``{(set, system): {(measure, query): value}}``: pytrec_eval on the topics every set judged."""
    texts, runs, sets, _ = cranfield
    common = set(sets.common_topics())
    return {(name, system): oracle_values(texts[name], text, common) for name in SETS for system, text in runs.items()}


def qrels_dict(text: str) -> dict:
    out: dict = {}
    for line in text.splitlines():
        q, _, d, g = line.split()
        out.setdefault(q, {})[d] = int(g)
    return out


def run_dict(text: str) -> dict:
    out: dict = {}
    for line in text.splitlines():
        q, _, d, _, score, _ = line.split()
        out.setdefault(q, {})[d] = float(score)
    return out


def oracle_values(qrels_text: str, run_text: str, topics) -> dict:
    """``{(measure, query): value}`` by pytrec_eval on the given topics."""
    qrels = {q: docs for q, docs in qrels_dict(qrels_text).items() if q in topics}
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES.values()))
    found = evaluator.evaluate({q: docs for q, docs in run_dict(run_text).items() if q in qrels})
    return {(ours, q): values[trec] for q, values in found.items() for ours, trec in MEASURES.items()}


def textbook_tau_ap(reference: dict, other: dict, higher: bool = True) -> float:
    """Yilmaz, Aslam and Robertson (2008): down the other list, the share of the systems above each that
    the reference also puts above it; ties broken by name in both."""

    def order(scores):
        return sorted(scores, key=lambda s: (-scores[s] if higher else scores[s], s))

    ref_position = {s: i for i, s in enumerate(order(reference))}
    ranked = order(other)
    total = 0.0
    for i in range(1, len(ranked)):
        total += sum(ref_position[ranked[j]] < ref_position[ranked[i]] for j in range(i)) / i
    return 2.0 * total / (len(ranked) - 1) - 1.0


def oracle_directions(oracle, sets, names, measure, alpha=0.05) -> dict:
    """``{(set, a, b): +1, -1 or 0}``: b significantly better, a, or neither, by scipy's paired t-test with
    statsmodels' Holm correction over the pairs of each set."""
    direction = {}
    for name in sets:
        values = {s: oracle[(name, s)] for s in names}
        pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
        p_values, signs = [], []
        for a, b in pairs:
            qs = sorted({q for (m, q) in values[a] if m == measure})
            xa = [values[a][(measure, q)] for q in qs]
            xb = [values[b][(measure, q)] for q in qs]
            p_values.append(stats.ttest_rel(xb, xa).pvalue)
            signs.append(np.sign(np.mean(np.subtract(xb, xa))))
        reject = multitest.multipletests(p_values, alpha=alpha, method="holm")[0]
        for (a, b), r, sign in zip(pairs, reject, signs):
            direction[(name, a, b)] = int(sign) if r else 0
    return direction


def check_conclusion(row, direction: dict, sets, names) -> None:
    """One conclusion (better, worse, reference, found/reversed/not found/differs under) against the oracle's
    directions: the reference's finding, then each other set's verdict."""
    a, b = (row.better, row.worse) if names.index(row.better) < names.index(row.worse) else (row.worse, row.better)
    toward = 1 if b == row.better else -1
    reference, others = sets[0], [n for n in sets[1:]]
    assert row.reference == ("found" if direction[(reference, a, b)] == toward else "not found")
    assert direction[(reference, a, b)] != -toward
    assert set(row.found_under) == {n for n in others if direction[(n, a, b)] == toward}
    assert set(row.reversed_under) == {n for n in others if direction[(n, a, b)] == -toward}
    assert set(row.not_found_under) == {n for n in others if direction[(n, a, b)] == 0}
    assert row.differs_under == ()
