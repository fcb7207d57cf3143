"""Measures worked through (metrics.teaching.worked): each value equals the measure it names, the substituted formula
holds the ranking's own numbers, and each convention's value equals an evaluation under that convention."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from metrics import Conventions, ValidationError, evaluate, rank_runs
from metrics.teaching.anatomy import anatomy, relevant_count
from metrics.teaching.worked import MAX_TERMS, convention_effects, ranking_files, worked
from tests.paths import ROOT

SEEDS = range(30)
EXPECTED = ROOT / "sample_data" / "teaching" / "expected.json"


def _random_grades(seed: int):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 25))
    grades = [None if rng.random() < 0.15 else int(g) for g in rng.choice([0, 0, 1, 2, 3], size=n)]
    return grades, int(rng.integers(0, 4)), int(rng.integers(1, 3))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("gain,discount", [("linear", "log2"), ("exp", "jk")])
def test_every_worked_value_is_the_measure_it_names(seed, gain, discount):
    grades, missing, level = _random_grades(seed)
    qrels, run = ranking_files(grades, missing, missing_grade=level)
    conventions = Conventions(relevance_level=level)
    r = rank_runs(qrels, {"x": run}, conventions)[0]
    table = anatomy(r, "1", gain=gain, discount=discount)
    items = worked(table, relevant_count(r, "1"), gain=gain, discount=discount)
    expected = evaluate(qrels, {"x": run}, [w.measure for w in items], conventions=conventions)
    for item in items:
        value = expected[expected["measure"] == item.measure]["value"].item()
        # (ERR: the anatomy's g_max is the topic's highest grade, the measure's the qrels': one topic here)
        assert item.value == pytest.approx(value, rel=1e-12, abs=1e-15), item.measure
        if "no relevant" in item.substituted:  # the formula says why instead of substituting numbers
            assert item.value == 0, item.measure
        else:
            assert item.substituted.endswith(_shown(item.value)), item.measure
        assert item.formula and item.description


def _shown(value: float) -> str:
    text = f"{value:.4f}".rstrip("0").rstrip(".")
    return text if text not in ("", "-0") else "0"


def test_the_seed_ranking_worked_through():
    """003: relevant at ranks 1, 3, 4, 6 of eight, four relevant in all."""
    qrels, run = ranking_files([1, 0, 1, 1, 0, 1, 0, 0])
    r = rank_runs(qrels, {"x": run})[0]
    items = {w.measure: w for w in worked(anatomy(r, "1", gain="exp"), 4, gain="exp")}
    printed = json.loads(EXPECTED.read_text())["examples"]["flagr8"]["per_query"]["flagr8"]["1"]
    assert round(items["AP"].value, 2) == float(printed["AP"])
    assert items["P@8"].substituted == r"P@8 = \frac{4}{8} = 0.5"
    assert items["R@8"].substituted == r"R@8 = \frac{4}{4} = 1"
    assert items["AP"].substituted == r"AP = \frac{1}{4}\left(1 + 0.6667 + 0.75 + 0.6667\right) = 0.7708"
    assert items["RR"].substituted == r"RR = \frac{1}{1} = 1"
    dcg = items['DCG(gain="exp")@8'].substituted
    assert dcg.startswith(r"DCG@8 = \frac{1}{1} + \frac{1}{2} + \frac{1}{2.3219} + \frac{1}{2.8074} = 2.2")
    assert items['nDCG(gain="exp")@8'].value == pytest.approx(0.89, abs=0.005)


def test_long_sums_are_shortened_and_cut_tables_name_their_cutoff():
    qrels, run = ranking_files([1] * 30)
    r = rank_runs(qrels, {"x": run})[0]
    table = anatomy(r, "1").head(20)
    items = {w.measure: w for w in worked(table, 30, complete=False)}
    assert "AP@20" in items and "RR@20" in items and "AP" not in items
    terms = re.findall(r"\\frac", items["DCG@20"].substituted)
    assert len(terms) == MAX_TERMS - 1 and r"\cdots" in items["DCG@20"].substituted
    assert items["R@20"].substituted == r"R@20 = \frac{20}{30} = 0.6667"


def test_a_ranking_without_relevant_documents_says_so():
    qrels, run = ranking_files([0, None, 0])
    r = rank_runs(qrels, {"x": run})[0]
    items = {w.measure: w for w in worked(anatomy(r, "1"), relevant_count(r, "1"))}
    assert all(w.value == 0 for w in items.values())
    assert "no relevant" in items["AP"].substituted and "no relevant" in items["RR"].substituted


@pytest.mark.parametrize("seed", SEEDS)
def test_convention_effects_equal_evaluations_under_each_convention(seed):
    grades, missing, _ = _random_grades(seed)
    qrels, run = ranking_files(grades, missing)
    r = rank_runs(qrels, {"x": run})[0]
    k = len(grades)
    effects = convention_effects(r, "1", k)
    for row in effects.itertuples(index=False):
        if row.convention == "interpolation rule":
            expected = evaluate(qrels, {"x": run}, ["IPrecAvg"], conventions=Conventions(interpolation=row.choice))
            assert row.value == expected["value"].item()
        elif row.measure == "AP_found":
            table = anatomy(r, "1")
            precisions = table.loc[table["relevant"], "precision"]
            assert row.value == pytest.approx(precisions.mean() if len(precisions) else 0.0, rel=1e-12)
        else:
            assert row.value == pytest.approx(evaluate(qrels, {"x": run}, [row.measure])["value"].item(), rel=1e-12)
    conventions = set(effects["convention"])
    assert {"gain", "discount", "ideal ranking", "interpolation rule", "AP denominator"} <= conventions
    assert effects.groupby("convention")["default"].sum().eq(1).all()


def test_ranking_files_reject_what_is_not_a_ranking():
    for bad in ("123", [1, -1], [1.5], []):
        with pytest.raises(ValidationError):
            ranking_files(bad)
    with pytest.raises(ValidationError):
        ranking_files([1], missing=-1)
    qrels, run = ranking_files([1])
    table = anatomy(rank_runs(qrels, {"x": run})[0], "1")
    with pytest.raises(ValidationError):
        worked(table, -1)
    with pytest.raises(ValidationError):
        worked(table.iloc[:0], 1)


def test_comparisons_in_words_follow_each_measures_direction():
    from metrics.stats.significance import compare_systems
    from metrics.teaching.worked import comparison_in_words

    rng = np.random.default_rng(1)
    ranks = rng.integers(1, 20, size=12).astype(float)
    per_query = pd.DataFrame({"system": ["low"] * 12 + ["high"] * 12, "query": [str(q) for q in range(12)] * 2,
                              "measure": "MR", "value": np.concatenate([ranks, ranks + 5 + rng.random(12)])})
    lines = comparison_in_words(compare_systems(per_query, baseline="low"))
    # mean rank: lower is better, so the system with the higher mean rank is the worse one
    assert lines[1].startswith("low is better than high on MR by 5.")
    assert "better on 12 topics, worse on 0, equal on 0" in lines[1]
    same = per_query.assign(value=np.where(per_query["system"] == "high", ranks.tolist() * 2, per_query["value"]))
    quiet = comparison_in_words(compare_systems(same, baseline="low"))
    assert quiet[0].startswith("0 of 1 comparisons are significant") and "does not show" in quiet[-1]
