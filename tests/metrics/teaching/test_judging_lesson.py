"""A class that judges: its question kept in a lesson and read back (every declared field wrong in turn is one
line naming its path), the students' grades as stored, the documents chosen, and the two systems measured
under the reference and under the class's grades against pytrec_eval on the same judgments written out."""

from __future__ import annotations

import json

import numpy as np
import pytest

from metrics.errors import ValidationError
from metrics.teaching import lesson
from metrics.teaching.judging import (JUDGING, MAX_TEXT, Judging, Shown, choose_documents, cut, grades_frame,
                                      grades_text, parse_grades, systems_under)
from metrics.teaching.questions import Question, Ranking
from tests.documents import cases, unreached

pytrec_eval = pytest.importorskip("pytrec_eval", reason="pytrec_eval (the measures' oracle) is not installed")

QUESTION = Judging("401", "foreign minorities, Germany", (Shown("d2", "Title", "text"), Shown("d1", "", "")),
                   ("not relevant", "relevant", "highly relevant"), (("bm25", ("d1", "d2", "d3")), ("dph", ("d3", "d1"))),
                   (("d1", 2), ("d3", 0)), (1, 2), "nDCG@5", 1, "topic 401")
EXAMPLE = QUESTION.to_dict()
# the kind says which declaration reads an item: without "judge" it is read (and refused) as a question on rankings
CASES = [case for case in cases(EXAMPLE, JUDGING, at="lesson[1]") if not case.id.startswith("kind=")]


def test_a_lesson_keeps_a_judging_question_beside_the_others():
    other = Question("value", "AP", (Ranking((1, 0, 1)),))
    assert lesson.loads(lesson.dumps([other, QUESTION])) == (other, QUESTION)
    assert unreached(EXAMPLE, JUDGING) == []


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_a_wrong_field_is_one_line_naming_its_path(case):
    other = lesson.to_dict(Question("value", "AP", (Ranking((1, 0, 1)),)))
    with pytest.raises(ValidationError) as caught:
        lesson.loads(json.dumps([other, case.document]))
    assert str(caught.value) == case.message


def test_an_item_without_the_judging_kind_is_read_as_a_question_on_rankings():
    with pytest.raises(ValidationError, match=r"^lesson\[0\]\.topic: expected one of the fields kind, measure"):
        lesson.loads(json.dumps([{**EXAMPLE, "kind": "value"}]))


def test_grades_are_one_character_per_document():
    assert parse_grades(QUESTION, "2-") == (2, None)
    assert grades_text((2, None)) == "2-"
    for bad in ("3-", "2", "2--", "x1", "٢-"):  # a grade past the scale, too short, too long, not a digit
        with pytest.raises(ValidationError, match="^grades: expected"):
            parse_grades(QUESTION, bad)
    frame = grades_frame(QUESTION, [("s1", "21"), ("s2", "-0")])
    assert frame.values.tolist() == [["401", "d2", "s1", 2], ["401", "d1", "s1", 1], ["401", "d1", "s2", 0]]


def test_the_documents_are_the_two_rankings_interleaved_each_once():
    chosen = choose_documents([["a", "b", "c", "d"], ["b", "e", "a", "f"]], 4, "1")
    assert sorted(chosen) == ["a", "b", "c", "e"]  # a, b (b once), then c, e
    assert chosen == choose_documents([["a", "b", "c", "d"], ["b", "e", "a", "f"]], 4, "1")  # fixed order
    with pytest.raises(ValidationError, match="retrieve 2 or more"):
        choose_documents([["a"], ["a"]], 4)
    assert cut("x" * (MAX_TEXT + 5)) == "x" * MAX_TEXT + "…"


def _oracle(qrels: dict[str, int], runs: dict[str, tuple[str, ...]], measure: str) -> dict[str, float]:
    evaluator = pytrec_eval.RelevanceEvaluator({"q": qrels}, {measure})
    return {name: evaluator.evaluate({"q": {d: float(len(ids) - i) for i, d in enumerate(ids)}})["q"][measure]
            for name, ids in runs.items()}


@pytest.mark.parametrize("seed", range(20))
def test_both_systems_under_the_reference_and_the_class_equal_pytrec_eval(seed):
    rng = np.random.default_rng(seed)
    pool = [f"d{i}" for i in range(40)]
    runs = {name: tuple(rng.choice(pool, size=int(rng.integers(3, 30)), replace=False)) for name in ("a", "b")}
    judged = {d: int(rng.integers(0, 3)) for d in pool if rng.random() < 0.6}
    outside = [int(rng.integers(1, 3)) for _ in range(int(rng.integers(0, 4)))]  # judged, ranked by neither
    docs = choose_documents(list(runs.values()), int(rng.integers(2, 11)), str(seed))
    listed = set(runs["a"]) | set(runs["b"]) | set(docs)
    question = Judging("q", "", tuple(Shown(d) for d in docs), ("0", "1", "2"), tuple(runs.items()),
                       tuple((d, g) for d, g in judged.items() if d in listed), tuple(outside),
                       ("nDCG@10", "P@5", "AP")[seed % 3])
    class_grades = {d: int(rng.integers(0, 3)) for d in docs}
    found = systems_under(question, class_grades)
    measure = {"nDCG@10": "ndcg_cut_10", "P@5": "P_5", "AP": "map"}[question.measure]
    base = {**{d: g for d, g in judged.items() if d in listed}, **{f"x{i}": g for i, g in enumerate(outside)}}
    for judgments, qrels in (("reference", base), ("class", {**base, **class_grades})):
        rows = found[found["judgments"] == judgments].set_index("system")["value"]
        expected = _oracle(qrels, runs, measure) if qrels else {}
        for name in runs:
            if not any(d in qrels for d in runs[name]) and not any(g > 0 for g in qrels.values()):
                assert np.isnan(rows[name])  # nothing it ranks is judged
            else:
                assert rows[name] == pytest.approx(expected[name], abs=1e-12), (judgments, name)


def test_the_order_of_two_systems_can_flip_under_the_class():
    question = Judging("q", "", (Shown("a"), Shown("b")), ("0", "1"), (("x", ("a", "c")), ("y", ("b", "c"))),
                       (("a", 1), ("b", 0), ("c", 0)), (), "P@1")
    found = systems_under(question, {"a": 0, "b": 1}).set_index(["judgments", "system"])["rank"]
    assert (found["reference", "x"], found["reference", "y"]) == (1, 2)
    assert (found["class", "x"], found["class", "y"]) == (2, 1)
