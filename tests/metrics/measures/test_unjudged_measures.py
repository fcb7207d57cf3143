"""Residual and condensed measures against slow textbook loops, trec_eval's -J and pytrec_eval; the judged-rate check.

The textbook loops below read one query's ranked relevance codes (grade; -1 absent from the qrels; -2 a
negative grade) and its judged grades; ``UNJUDGED_CASES`` joins the cases of test_textbook_measures, which
compares them per query with the kernels on seeded random collections under -M, -l, -J and -c.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from metrics import evaluate, rank_runs
from tests.random_collections import random_collection, trec_order


def _precision(codes, k, level):
    return sum(1 for g in codes[:k] if g >= level) / k


def _ap(codes, judged, level, k=None):
    found, total = 0, 0.0
    for i, g in enumerate(codes[:k] if k else codes, start=1):
        if g >= level:
            found += 1
            total += found / i
    num_rel = sum(1 for g in judged if g >= level)
    return total / num_rel if num_rel else 0.0


def _rr(codes, level):
    return next((1.0 / i for i, g in enumerate(codes, start=1) if g >= level), 0.0)


def _ndcg(codes, judged, k, kind="linear"):
    def gain(g):
        return 0.0 if g <= 0 else (float(g) if kind == "linear" else 2.0 ** g - 1.0)

    def dcg(grades):
        return sum(gain(g) / math.log2(i + 1) for i, g in enumerate(grades[:k] if k else grades, start=1))

    best = dcg(sorted(judged, reverse=True))
    return dcg(codes) / best if best > 0 else 0.0


def made_relevant(q, grade, k=None):
    """Ranked codes and judged grades once every unjudged retrieved document is judged ``grade`` (those within
    the cutoff k join the judged grades)."""
    unjudged = sum(1 for g in q.top(k) if g < 0)
    return [grade if g < 0 else g for g in q.codes], list(q.judged.values()) + [grade] * unjudged


def judged_only(q):
    return [g for g in q.codes if g >= 0], list(q.judged.values())


UNJUDGED_CASES = {
    "Precision_resid@5": lambda q, c: _precision(made_relevant(q, c["top"])[0], 5, c["level"]),
    "Precision_resid(unjudged_grade=1,rel=2)@10": lambda q, c: _precision(made_relevant(q, 1)[0], 10, 2),
    "AP_resid": lambda q, c: _ap(*made_relevant(q, c["top"]), c["level"]),
    "AP_resid(unjudged_grade=3)": lambda q, c: _ap(*made_relevant(q, 3), c["level"]),
    "RR_resid": lambda q, c: _rr(made_relevant(q, c["top"])[0], c["level"]),
    "nDCG_resid@10": lambda q, c: _ndcg(*made_relevant(q, c["top"], 10), 10),
    "AP_resid(unjudged_grade=1)@5": lambda q, c: _ap(*made_relevant(q, 1, 5), c["level"], 5),
    'nDCG_resid(gain="exp",unjudged_grade=1)': lambda q, c: _ndcg(*made_relevant(q, 1), None, "exp"),
    "Precision_condensed(k=5)": lambda q, c: _precision(judged_only(q)[0], 5, c["level"]),
    "AP_condensed": lambda q, c: _ap(*judged_only(q), c["level"]),
    "nDCG_condensed(k=10)": lambda q, c: _ndcg(*judged_only(q), 10),
    'nDCG_condensed(gain="exp")': lambda q, c: _ndcg(*judged_only(q), None, "exp"),
}

CONDENSED = {"Precision_condensed(k=5)": "P@5", "Precision_condensed(k=10)": "P@10", "AP_condensed": "AP",
             "nDCG_condensed": "nDCG", "nDCG_condensed(k=10)": "nDCG@10", "AP_condensed(k=10)": "AP@10"}


@pytest.mark.parametrize("options", [{}, {"relevance_level": 2}, {"depth": 7}, {"complete": True}],
                         ids=["default", "l2", "M7", "c"])
def test_condensed_measures_equal_the_plain_ones_under_judged_only(options):
    for seed in range(20):
        col = random_collection(seed)
        condensed = evaluate(col.qrels_text, {"s": col.run_text}, list(CONDENSED), **options)
        plain = evaluate(col.qrels_text, {"s": col.run_text}, list(CONDENSED.values()), judged_only=True, **options)
        assert condensed["value"].to_numpy() == pytest.approx(plain["value"].to_numpy(), abs=1e-15), f"seed {seed}"


def test_residuals_are_the_plain_measures_without_unjudged_documents():
    """Under -J no unjudged document is left: each residual equals its measure."""
    pairs = {"Precision_resid@10": "P@10", "AP_resid": "AP", "RR_resid": "RR", "nDCG_resid@10": "nDCG@10"}
    for seed in range(10):
        col = random_collection(seed)
        got = evaluate(col.qrels_text, {"s": col.run_text}, list(pairs), judged_only=True)
        want = evaluate(col.qrels_text, {"s": col.run_text}, list(pairs.values()), judged_only=True)
        assert got["value"].to_numpy() == pytest.approx(want["value"].to_numpy(), abs=1e-15)


def test_condensed_measures_and_bpref_equal_pytrec_eval_on_a_judged_only_run():
    pytrec_eval = pytest.importorskip("pytrec_eval", reason="pytrec-eval-terrier (the oracle) is not installed")
    labels = {"Precision_condensed(k=5)": "P_5", "Precision_condensed(k=10)": "P_10", "AP_condensed": "map",
              "nDCG_condensed": "ndcg", "nDCG_condensed(k=10)": "ndcg_cut_10", "Bpref": "bpref"}
    compared = 0
    for seed in range(40):
        col = random_collection(seed)
        judged = {q: {d: g for d, g in docs.items() if g >= 0} for q, docs in col.qrels.items()}
        run = {q: {d: s for d, s in docs.items() if d in judged.get(q, {})} for q, docs in col.run.items()}
        run = {q: docs for q, docs in run.items() if docs}
        evaluator = pytrec_eval.RelevanceEvaluator(col.qrels, {"P_5", "P_10", "map", "ndcg", "ndcg_cut_10", "bpref"})
        want = evaluator.evaluate(run)
        frame = evaluate(col.qrels_text, {"s": col.run_text}, list(labels))
        for q, label, value in zip(frame["query"], frame["measure"], frame["value"]):
            if q in want:  # pytrec_eval leaves out a query whose ranking held only unjudged documents
                assert value == pytest.approx(want[q][labels[label]], abs=1e-9), f"seed {seed} {q} {label}"
                compared += 1
    assert compared > 500


def test_residuals_bound_precision_and_rr_from_above():
    for seed in range(10):
        col = random_collection(seed)
        frame = evaluate(col.qrels_text, {"s": col.run_text}, ["P@10", "Precision_resid@10", "RR", "RR_resid",
                                                                "Unjudged@10"])
        v = frame.pivot(index="query", columns="measure", values="value")
        assert (v["Precision_resid@10"] >= v["P@10"]).all() and (v["RR_resid"] >= v["RR"]).all()
        assert np.allclose(v["Precision_resid@10"] - v["P@10"], v["Unjudged@10"])


def test_unjudged_grade_sets_the_grade_of_unjudged_documents():
    qrels = "1 0 a 3\n1 0 b 1\n"
    run = "1 Q0 x 1 3 s\n1 Q0 a 2 2 s\n"  # x unjudged at rank 1
    frame = evaluate(qrels, {"s": run}, ["nDCG_resid", "nDCG_resid(unjudged_grade=1)"])
    ideal3 = 3 + 3 / math.log2(3) + 1 / math.log2(4)
    ideal1 = 3 + 1 / math.log2(3) + 1 / math.log2(4)
    assert frame["value"].tolist() == pytest.approx([(3 + 3 / math.log2(3)) / ideal3,
                                                     (1 + 3 / math.log2(3)) / ideal1])


def test_trec_order_is_the_textbook_order_used_here():
    col = random_collection(1)
    q = next(iter(col.run))
    ranked = rank_runs(col.qrels_text, {"s": col.run_text})[0]
    if q in set(ranked.queries):
        one = ranked.select_queries([q])
        assert one.docids().tolist() == trec_order(col.run[q])
