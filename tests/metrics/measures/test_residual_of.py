"""RESIDUAL_OF pairs each measure with its residual: the measure on judgments completed with the unjudged.

The oracle is pytrec_eval run on qrels where every unjudged retrieved document (absent from the qrels or
with a negative grade) is judged relevant: each residual must equal its measure there, topic by topic.
"""

from __future__ import annotations

import pytest

from metrics import evaluate, parse_measure
from metrics.measures import REGISTRY, RESIDUAL_OF
from tests.random_collections import random_collection

# each measure of RESIDUAL_OF as one measure string and the trec_eval measure pytrec_eval computes for it
ORACLE = {"P": ("P@10", "P_10"), "AP": ("AP", "map"), "RR": ("RR", "recip_rank"), "nDCG": ("nDCG", "ndcg")}


def completed(qrels: dict, run: dict) -> dict:
    """The qrels with every unjudged retrieved document of a judged topic judged 1 (a slow, plain loop)."""
    out = {}
    for q, judged in qrels.items():
        grades = dict(judged)
        for d in run.get(q, {}):
            if grades.get(d, -1) < 0:
                grades[d] = 1
        out[q] = grades
    return out


def test_every_name_is_a_registered_measure_and_the_residual_takes_the_measures_cutoff():
    assert set(RESIDUAL_OF) == set(ORACLE)
    for name, residual in RESIDUAL_OF.items():
        assert name in REGISTRY and residual in REGISTRY
        assert residual != name and residual.endswith("_resid")
        assert "unjudged_grade" in parse_measure(residual).values
    with pytest.raises(TypeError):
        RESIDUAL_OF["RBP"] = "RBP_resid"  # a fact, not a setting: read-only


@pytest.mark.parametrize("name", sorted(ORACLE))
def test_each_residual_is_its_measure_on_the_judgments_completed_with_the_unjudged(name):
    pytrec_eval = pytest.importorskip("pytrec_eval", reason="pytrec-eval-terrier (the oracle) is not installed")
    spec, trec = ORACLE[name]
    measure = parse_measure(spec)
    residual = str(parse_measure(RESIDUAL_OF[name])(**{**{k: v for k, v in measure.values.items()
                                                          if k in parse_measure(RESIDUAL_OF[name]).values},
                                                       "unjudged_grade": 1}))
    compared = differs = 0
    for seed in range(30):
        col = random_collection(seed)
        want = pytrec_eval.RelevanceEvaluator(completed(col.qrels, col.run), {trec}).evaluate(col.run)
        frame = evaluate(col.qrels_text, {"s": col.run_text}, [spec, residual])
        values = frame.pivot(index="query", columns="measure", values="value")
        for q, row in values.iterrows():
            if q in want:
                assert row[residual] == pytest.approx(want[q][trec], abs=1e-9), f"seed {seed} topic {q}"
                compared += 1
                differs += abs(row[residual] - row[spec]) > 1e-9
    assert compared > 100 and differs > 10  # unjudged documents changed many topics' values
