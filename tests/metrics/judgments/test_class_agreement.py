"""A class's agreement against statsmodels' fleiss_kappa and the krippendorff package.

Seeded random classes full of edge cases: students who agree on everything, a grade nobody gives, grades with
gaps, one student (kappa undefined), every student giving one grade to every document (unanimity: undefined),
one document, students who did not finish (left out of Fleiss' kappa, kept in alpha).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

inter_rater = pytest.importorskip("statsmodels.stats.inter_rater",
                                  reason="statsmodels (the Fleiss' kappa oracle) is not installed")
krippendorff = pytest.importorskip("krippendorff", reason="krippendorff (the alpha oracle) is not installed")

from metrics import ValidationError  # noqa: E402
from metrics.judgments.assessors import class_agreement, class_grades, grade_counts, scale_of  # noqa: E402
from metrics.judgments.labels import fleiss_kappa  # noqa: E402

KINDS = ("independent", "agree", "noisy", "unanimous", "one student", "gaps", "one document", "unfinished")


def oracle_fleiss(table: np.ndarray) -> float:
    """statsmodels' Fleiss' kappa of a documents x grades table of counts; NaN where it divides by zero."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return float(inter_rater.fleiss_kappa(table, method="fleiss"))


def oracle_alpha(frame: pd.DataFrame, level: str) -> float:
    data = frame.pivot(index="assessor", columns="docid", values="grade").to_numpy(dtype=float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return float(krippendorff.alpha(reliability_data=data, level_of_measurement=level))
        except ValueError:  # one value in the domain, or no document graded twice
            return float("nan")


def random_class(seed: int) -> pd.DataFrame:
    """Students' grades of the same documents: ``topic``, ``docid``, ``assessor``, ``grade``."""
    rng = np.random.default_rng(seed)
    kind = KINDS[seed % len(KINDS)]
    students = 1 if kind == "one student" else int(rng.integers(2, 30))
    documents = 1 if kind == "one document" else int(rng.integers(2, 15))
    scale = np.array([0, 2, 3]) if kind == "gaps" else np.arange(int(rng.integers(2, 5)))
    truth = rng.choice(scale, size=documents)
    grades = rng.choice(scale, size=(students, documents))
    if kind == "agree":
        grades[:] = truth
    elif kind == "noisy":
        grades = np.where(rng.random(grades.shape) < 0.25, grades, truth)
    elif kind == "unanimous":
        grades[:] = scale[-1]
    rows = [("1", f"d{d}", f"s{s}", int(grades[s, d])) for s in range(students) for d in range(documents)]
    frame = pd.DataFrame(rows, columns=["topic", "docid", "assessor", "grade"])
    if kind == "unfinished" and students > 2:  # two students stop early; every document still graded by someone
        frame = frame[~((frame["assessor"].isin(["s0", "s1"])) & (frame["docid"] != "d0"))]
    return frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def _table(frame: pd.DataFrame) -> np.ndarray:
    return pd.crosstab(frame["docid"], frame["grade"]).to_numpy()


@pytest.mark.parametrize("seed", range(80))
def test_fleiss_kappa_equals_statsmodels(seed):
    frame = random_class(seed)
    done = frame.groupby("assessor")["docid"].nunique()
    complete = frame[frame["assessor"].isin(done.index[done == frame["docid"].nunique()])]
    ours = fleiss_kappa(complete["docid"], complete["grade"])
    theirs = oracle_fleiss(_table(complete))
    if np.isnan(theirs):
        assert np.isnan(ours)
    else:
        assert ours == pytest.approx(theirs, abs=1e-12)
    found = class_agreement(frame)
    assert (np.isnan(found["fleiss_kappa"]) and np.isnan(ours)) or found["fleiss_kappa"] == ours
    assert found["complete"] == complete["assessor"].nunique()
    for level in ("nominal", "ordinal"):
        theirs = oracle_alpha(frame, level)
        assert (np.isnan(found[f"alpha_{level}"]) and np.isnan(theirs)) or \
            found[f"alpha_{level}"] == pytest.approx(theirs, abs=1e-9)


def test_edge_cases_say_undefined_rather_than_a_number():
    agree = pd.DataFrame({"topic": "1", "docid": ["a", "a", "b", "b"], "assessor": ["x", "y", "x", "y"],
                          "grade": [0, 0, 2, 2]})
    assert fleiss_kappa(agree["docid"], agree["grade"]) == pytest.approx(1.0)  # all agree, grades differ: 1
    assert np.isnan(fleiss_kappa(["a", "b"], [1, 0]))  # one student
    assert np.isnan(fleiss_kappa(["a", "a", "b", "b"], [1, 1, 1, 1]))  # unanimity: P_e = 1
    assert np.isnan(oracle_fleiss(np.array([[2], [2]])))  # and statsmodels divides by zero there too
    assert np.isnan(fleiss_kappa([], []))
    with pytest.raises(ValidationError, match="same number of grades on every document"):
        fleiss_kappa(["a", "a", "b"], [1, 0, 1])
    with pytest.raises(ValidationError, match="one unit per value"):
        fleiss_kappa(["a"], [1, 0])


def test_class_grades_are_the_most_given_the_lower_of_a_tie():
    frame = random_class(3)
    chosen = class_grades(frame)
    for docid, grades in frame.groupby("docid")["grade"]:  # a textbook loop
        counts = grades.value_counts()
        assert chosen[docid] == min(g for g, n in counts.items() if n == counts.max())
    counts = grade_counts(frame, scale_of(frame["grade"]))
    assert counts.groupby("docid")["count"].sum().to_dict() == frame.groupby("docid").size().to_dict()


def test_agreement_with_the_reference():
    frame = pd.DataFrame({"topic": "1", "docid": ["a", "a", "a", "b", "b", "b", "c", "c", "c"],
                          "assessor": ["x", "y", "z"] * 3, "grade": [1, 1, 0, 0, 0, 1, 2, 2, 2]})
    found = class_agreement(frame, {"a": 1, "b": 1, "c": 2, "elsewhere": 0})
    assert found["reference_documents"] == 3  # a document the class did not grade is not compared
    assert found["agreement_with_reference"] == pytest.approx(2 / 3)  # the class says b is 0
    from sklearn.metrics import cohen_kappa_score

    assert found["kappa_with_reference"] == pytest.approx(cohen_kappa_score([1, 0, 2], [1, 1, 2]))
