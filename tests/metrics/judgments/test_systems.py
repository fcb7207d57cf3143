"""The systems under several judgment sets, against independent oracles, on Cranfield and on random sets.

Cranfield's graded qrels and the sets derived from them by the rules of ``tests/judges_data.py`` (grades
merged, seeded noise with judgments dropped, a lexical-overlap judge) judge six runs of Cranfield. Every
per-query value is pytrec_eval's; tau-b is scipy's; tau_AP a textbook loop written here; the conclusions
scipy's paired t-test with statsmodels' Holm correction; the judged counts a loop over the files.
"""

from __future__ import annotations

import math
import os

import numpy as np
import pytest

pytrec_eval = pytest.importorskip("pytrec_eval", reason="pytrec-eval-terrier (the oracle) is not installed")
stats = pytest.importorskip("scipy.stats")
multitest = pytest.importorskip("statsmodels.stats.multitest", reason="statsmodels (the oracle) is not installed")

import metrics  # noqa: E402
from metrics.judgments import conclusions as concluded  # noqa: E402
from metrics.judgments import systems  # noqa: E402
from metrics.judgments.disagreement import documents_judged_differently, topic_disagreement  # noqa: E402
from metrics.judgments.sets import judgment_sets  # noqa: E402
from metrics.judgments.support import judged_support, support_measures  # noqa: E402
from tests import judges_data  # noqa: E402
from tests.metrics.judgments.test_labels import as_dict, random_sets  # noqa: E402

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


def test_every_set_evaluates_as_pytrec_eval_on_the_common_topics(cranfield, oracle):
    texts, runs, sets, per_query = cranfield
    common = set(sets.common_topics())
    assert common == set.intersection(*({q for q, docs in qrels_dict(texts[n]).items()
                                         if any(g >= 0 for g in docs.values())} for n in SETS))
    assert set(per_query["query"]) == common and len(common) < 225  # noisy dropped a whole topic
    for name in SETS:
        for system, text in runs.items():
            expected = oracle[(name, system)]
            rows = per_query[(per_query["judges"] == name) & (per_query["system"] == system)
                             & per_query["measure"].isin(MEASURES)]
            got = {(r.measure, r.query): r.value for r in rows.itertuples(index=False)}
            assert got.keys() == expected.keys()
            assert max(abs(got[k] - expected[k]) for k in got) < 1e-12


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


def oracle_means(oracle) -> dict:
    """``{(set, measure): {system: mean}}`` from pytrec_eval's per-query values."""
    out = {}
    for (name, system), values in oracle.items():
        for measure in MEASURES:
            got = [v for (m, _), v in values.items() if m == measure]
            out.setdefault((name, measure), {})[system] = sum(got) / len(got)
    return out


def test_orders_tau_and_top_k_equal_scipy_and_a_textbook_loop(cranfield, oracle):
    texts, runs, sets, per_query = cranfield
    means = oracle_means(oracle)
    orders = systems.system_orders(per_query, list(MEASURES))
    agreement = systems.order_agreement(orders, sets.pairs(), top_k=3)
    assert len(agreement) == len(MEASURES) * len(sets.pairs())
    for row in agreement.itertuples(index=False):
        x, y = means[(row.first, row.measure)], means[(row.second, row.measure)]
        names = sorted(x)
        assert row.tau_b == pytest.approx(stats.kendalltau([x[s] for s in names], [y[s] for s in names]).statistic,
                                          abs=1e-12)
        assert row.tau_ap == pytest.approx(textbook_tau_ap(x, y), abs=1e-12)
        top = [set(sorted(v, key=lambda s: (-v[s], s))[:3]) for v in (x, y)]
        assert row.top_k_overlap == len(top[0] & top[1]) / 3
    changes = systems.rank_changes(orders, "nist")
    for row in changes.itertuples(index=False):
        ranked = {n: sorted(means[(n, row.measure)], key=lambda s: (-means[(n, row.measure)][s], s))
                  for n in ("nist", row.judges)}
        assert row.reference_rank == ranked["nist"].index(row.system) + 1
        assert row.change == ranked[row.judges].index(row.system) - ranked["nist"].index(row.system)
    assert list(np.abs(changes["change"])) == sorted(np.abs(changes["change"]), reverse=True)
    # the lexical judge grades by the words the term-overlap systems rank by: it lifts them to the top
    lexical = orders[(orders["judges"] == "lexical") & (orders["measure"] == "nDCG@10")]
    assert set(lexical.nsmallest(2, "rank")["system"]) == {"idf", "overlap"}


def oracle_directions(oracle, sets, names, measure, alpha=0.05) -> dict:
    """``{(set, a, b): +1, -1 or 0}``: b significantly better, a, or neither, by scipy's paired t-test with
    statsmodels' Holm correction over the pairs of each set."""
    direction = {}
    for name in sets:
        values = {s: oracle[(name, s)] for s in names}
        pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
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


def test_conclusions_hold_where_scipy_and_statsmodels_find_them(cranfield, oracle):
    texts, runs, sets, per_query = cranfield
    tests = concluded.set_tests(per_query, ["nDCG@10", "AP"], test="t", correction="holm", alpha=0.05)
    orders = systems.system_orders(per_query, ["nDCG@10", "AP"])
    found = concluded.conclusions(tests, orders, "nist")
    names, means = list(runs), oracle_means(oracle)
    for measure in ("nDCG@10", "AP"):
        direction = oracle_directions(oracle, SETS, names, measure)
        for row in found[found["measure"] == measure].itertuples(index=False):
            check_conclusion(row, direction, SETS, names)
            assert means[("nist", measure)][row.better] > means[("nist", measure)][row.worse]
        assert len(found[found["measure"] == measure]) == len(names) * (len(names) - 1) // 2
    assert {"found", "not found"} <= set(found["reference"])
    assert any(found["reversed_under"]) and any(found["not_found_under"])  # the lexical judge breaks some
    pair = concluded.pair_conclusions(tests, orders, "noisy", "lexical")
    for measure in ("nDCG@10", "AP"):
        direction = oracle_directions(oracle, SETS, names, measure)
        for row in pair[pair["measure"] == measure].itertuples(index=False):
            check_conclusion(row, direction, ("noisy", "lexical"), names)


def test_judged_support_counts_what_the_files_say(cranfield):
    texts, runs, sets, per_query = cranfield
    common = set(sets.common_topics())
    judged = {name: {q: {d for d, g in docs.items() if g >= 0} for q, docs in qrels_dict(texts[name]).items()}
              for name in SETS}
    ranked = {}
    for system, text in runs.items():
        lists: dict = {}
        for line in text.splitlines():
            q, _, d, _, score = line.split()[:5]
            if q in common:
                lists.setdefault(q, []).append((float(score), d))
        ranked[system] = {q: [d for _, d in sorted(docs, reverse=True)] for q, docs in lists.items()}  # trec_eval's order
    support = judged_support(per_query, list(MEASURES))
    assert len(support) == len(SETS) * len(runs) * len(MEASURES)
    for row in support.itertuples(index=False):
        k = 10 if row.measure != "AP" else None
        tops = {q: docs[:k] for q, docs in ranked[row.system].items()}
        documents = sum(len(top) for top in tops.values())
        counted = sum(d in judged[row.judges].get(q, set()) for q, top in tops.items() for d in top)
        assert (row.topics, row.documents, row.judged) == (len(tops), documents, counted)
        assert row.judged_share == pytest.approx(counted / documents)


@pytest.mark.parametrize("seed", range(16))
def test_disagreement_of_random_sets_matches_a_loop(seed):
    texts = random_sets(200 + seed)
    sets = judgment_sets(texts)
    judged = {name: as_dict(text) for name, text in texts.items()}
    level = 1
    frame = topic_disagreement(sets, relevance_level=level)
    for row in frame.itertuples(index=False):
        docs = {d for n in judged for (t, d) in judged[n] if t == row.query}
        grades = {d: [judged[n][(row.query, d)] for n in sets.names if (row.query, d) in judged[n]] for d in docs}
        several = [g for g in grades.values() if len(g) >= 2]
        assert (row.documents, row.judged_by_several) == (len(docs), len(several))
        assert row.judged_differently == sum(len(set(g)) > 1 for g in several)
        assert row.relevance_changes == sum(len({x >= level for x in g}) > 1 for g in several)
        if several:
            assert row.disagreement == pytest.approx(row.relevance_changes / len(several))
    key = frame["disagreement"].fillna(-1).to_numpy()
    assert list(key) == sorted(key, reverse=True)
    topic = frame["query"].iloc[0]
    table = documents_judged_differently(sets, topic)
    for r in table.to_dict("records"):
        given = [r[n] for n in sets.names if r[n] is not None]  # None: that set did not judge the document
        assert len(given) >= 2 and max(given) - min(given) == r["spread"] > 0
        for n in sets.names:
            assert r[n] == judged[n].get((topic, r["docid"]))
    every = documents_judged_differently(sets, topic, only_different=False)
    assert len(every) == len({d for n in judged for (t, d) in judged[n] if t == topic})


def test_random_sets_on_their_common_topics_equal_pytrec_eval():
    for seed in range(12):
        texts = random_sets(300 + seed)
        sets = judgment_sets(texts)
        topics = sorted({line.split()[0] for text in texts.values() for line in text.splitlines()})
        rng = np.random.default_rng(seed)
        runs = {}
        for s in ("a", "b", "c"):
            runs[s] = "".join(f"{q} Q0 d{int(d)} 1 {float(rng.integers(0, 6)):.1f} {s}\n"
                              for q in topics for d in sorted(set(rng.integers(0, 25, size=15).tolist())))
        per_query = systems.evaluate_sets(sets, {s: t for s, t in runs.items()}, list(MEASURES))
        common = set(sets.common_topics())
        assert set(per_query["query"]) <= common
        for name in sets.names:
            for s, text in runs.items():
                expected = oracle_values(texts[name], text, common)
                rows = per_query[(per_query["judges"] == name) & (per_query["system"] == s)]
                got = {(r.measure, r.query): r.value for r in rows.itertuples(index=False)}
                assert got.keys() == expected.keys()
                assert all(math.isclose(got[k], expected[k], abs_tol=1e-12) for k in got)
