"""Prediction-powered means against ppi-python (ppi_py.ppi_mean_ci, classical_mean_ci), on seeded random
cases with edge cases, and on Cranfield: a 40-topic human subset corrected with a lexical-overlap judge."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

ppi_py = pytest.importorskip("ppi_py", reason="ppi-python (the prediction-powered oracle) is not installed")
pytrec_eval = pytest.importorskip("pytrec_eval", reason="pytrec-eval-terrier (the oracle) is not installed")

import metrics  # noqa: E402
from metrics import ValidationError  # noqa: E402
from metrics.judgments import systems  # noqa: E402
from metrics.judgments.ppi import classical_mean, ppi_mean, ppi_systems  # noqa: E402
from metrics.judgments.sets import judgment_sets  # noqa: E402
from tests import judges_data  # noqa: E402
from tests.metrics.judgments.test_systems import qrels_dict, run_dict  # noqa: E402

KINDS = ("noisy", "biased", "perfect", "unrelated", "constant truth", "two labelled", "one unlabelled", "binary")


def case(seed: int):
    rng = np.random.default_rng(seed)
    kind = KINDS[seed % len(KINDS)]
    n, big_n = int(rng.integers(2, 40)), int(rng.integers(1, 300))
    if kind == "two labelled":
        n = 2
    if kind == "one unlabelled":
        big_n = 1
    truth = rng.random(n + big_n)
    if kind == "binary":
        truth = (truth > 0.6).astype(float)
    if kind == "constant truth":
        truth[:] = 0.25
    prediction = {"noisy": truth + rng.normal(0, 0.1, truth.size), "biased": np.clip(truth * 0.5 + 0.4, 0, 1),
                  "perfect": truth.copy(), "unrelated": rng.random(truth.size)}.get(kind, truth + rng.normal(0, 0.2, truth.size))
    return truth[:n], prediction[:n], prediction[n:]


def oracle_ci(y, yhat, u, lam, confidence):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        low, high = ppi_py.ppi_mean_ci(y, yhat, u, alpha=1 - confidence, lam=lam)
    return float(np.ravel(low)[0]), float(np.ravel(high)[0])


@pytest.mark.parametrize("seed", range(96))
def test_ppi_mean_equals_ppi_python(seed):
    y, yhat, u = case(seed)
    confidence = (0.95, 0.9, 0.8)[seed % 3]
    for lam in (None, 1.0, 0.0, 0.3):
        ours = ppi_mean(y, yhat, u, confidence=confidence, lam=lam)
        low, high = oracle_ci(y, yhat, u, lam, confidence)
        assert (ours.low, ours.high) == pytest.approx((low, high), abs=1e-12)
        assert ours.mean == pytest.approx((low + high) / 2, abs=1e-12)
        if lam is None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                point = float(np.ravel(ppi_py.ppi_mean_pointestimate(y, yhat, u))[0])
            assert ours.mean == pytest.approx(point, abs=1e-12)
    classical = classical_mean(y, confidence=confidence)
    assert (classical.low, classical.high) == pytest.approx(
        tuple(float(v) for v in ppi_py.classical_mean_ci(y, alpha=1 - confidence)), abs=1e-12)


def test_constant_predictions_give_the_classical_interval():
    """ppi_py's tuning divides 0 by 0 when the predictions are all equal (its interval is then NaN); every
    weight gives the same interval then, and rankscope takes 0: the classical one."""
    y = np.array([0.1, 0.5, 0.4, 0.9])
    yhat, u = np.full(4, 0.3), np.full(7, 0.3)
    ours = ppi_mean(y, yhat, u)
    assert ours.lam == 0.0
    for lam in (0.0, 1.0):
        assert (ours.low, ours.high) == pytest.approx(oracle_ci(y, yhat, u, lam, 0.95), abs=1e-12)
    assert (ours.low, ours.high) == pytest.approx(tuple(ppi_py.classical_mean_ci(y, alpha=0.05)), abs=1e-12)


def test_bad_input_is_refused_with_a_reason():
    with pytest.raises(ValidationError, match="at least two labelled"):
        ppi_mean([0.5], [0.5], [0.4])
    with pytest.raises(ValidationError, match="one unlabelled"):
        ppi_mean([0.5, 0.2], [0.5, 0.1], [])
    with pytest.raises(ValidationError, match="one prediction per labelled"):
        ppi_mean([0.5, 0.2], [0.5], [0.1])
    with pytest.raises(ValidationError, match=r"^lam: expected a number from 0 to 1 \(or None to tune it\), found 2\.0$"):
        ppi_mean([0.5, 0.2], [0.5, 0.1], [0.1], lam=2.0)
    with pytest.raises(ValidationError, match="finite"):
        ppi_mean([0.5, float("nan")], [0.5, 0.1], [0.1])
    with pytest.raises(ValidationError, match="confidence"):
        classical_mean([0.1, 0.2], confidence=1.0)


def test_cranfield_human_subset_corrected_by_a_lexical_judge():
    if not judges_data.available():
        if os.environ.get("CI") == "true":
            pytest.fail(f"Cranfield not found at {judges_data.CRANFIELD}")
        pytest.skip(f"Cranfield not found at {judges_data.CRANFIELD}")
    texts, runs = judges_data.judgment_sets(), judges_data.runs()
    chosen = {s: runs[s] for s in ("bm25", "overlap", "title")}
    sets = judgment_sets({"subset": texts["subset"], "lexical": texts["lexical"]})
    per_query = systems.evaluate_sets(sets, [metrics.read_run(t, name=s) for s, t in chosen.items()], ["nDCG@10"],
                                      topics="each")
    frame = ppi_systems(per_query, "subset", "lexical", ["nDCG@10"])
    human, auto = qrels_dict(texts["subset"]), qrels_dict(texts["lexical"])
    assert len(frame) == len(chosen)
    for row in frame.itertuples(index=False):
        run = run_dict(chosen[row.system])
        y = pytrec_eval.RelevanceEvaluator(human, {"ndcg_cut_10"}).evaluate({q: run[q] for q in human})
        yhat = pytrec_eval.RelevanceEvaluator(auto, {"ndcg_cut_10"}).evaluate({q: run[q] for q in auto})
        labelled = sorted(y)
        unlabelled = sorted(set(yhat) - set(y))
        assert (row.labelled, row.unlabelled) == (40, len(unlabelled)) and len(unlabelled) >= 180
        Y = np.array([y[q]["ndcg_cut_10"] for q in labelled])
        Yhat = np.array([yhat[q]["ndcg_cut_10"] for q in labelled])
        U = np.array([yhat[q]["ndcg_cut_10"] for q in unlabelled])
        assert (row.ppi_low, row.ppi_high) == pytest.approx(oracle_ci(Y, Yhat, U, None, 0.95), abs=1e-12)
        assert (row.human_low, row.human_high) == pytest.approx(tuple(ppi_py.classical_mean_ci(Y, alpha=0.05)),
                                                              abs=1e-12)
        everything = np.concatenate([Yhat, U])
        assert row.automatic == pytest.approx(everything.mean(), abs=1e-12)
        # the lexical judge overrates every system; its own interval misses the human mean, PPI's does not
        assert row.automatic_low > row.human_high
        assert row.ppi_low <= Y.mean() <= row.ppi_high
