"""The questions of a live class (metrics.teaching): each kind against values worked out by hand here, the
tolerance rule, the worked formulas, each mistake against a worked case, the reveal, and lessons as JSON."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from metrics import ValidationError
from metrics.teaching import lesson
from metrics.teaching.mistakes import MISTAKES, applicable
from metrics.teaching.questions import (EQUAL, Change, Question, Ranking, accepts, measure_value, options, prompt,
                                        right, worked_formulas)
from metrics.teaching.reveal import OTHER, RIGHT, parse_answer, reveal, shown

L2 = math.log2
EIGHT = Ranking((1, 0, 1, 1, 0, 1, 0, 0))  # relevant at ranks 1, 3, 4, 6; R = 4


# ---- each kind, by hand -------------------------------------------------------------------------------
@pytest.mark.parametrize("measure,ranking,by_hand", [
    ("P@5", EIGHT, 3 / 5),
    ("P@10", EIGHT, 4 / 10),  # trec_eval divides by k past the end of the ranking
    ("R@4", EIGHT, 3 / 4),
    ("AP", EIGHT, (1 + 2 / 3 + 3 / 4 + 4 / 6) / 4),
    ("AP", Ranking((1, 0, 1, 0, 0), missing=(1, 1)), (1 + 2 / 3) / 4),
    ("RR", Ranking((0, 0, 1)), 1 / 3),
    ("RR", Ranking((0, None, 0)), 0.0),
    ("nDCG@3", Ranking((0, 1, 1)), (1 / L2(3) + 1 / L2(4)) / (1 + 1 / L2(3))),
    ("nDCG@2", Ranking((1, 0), missing=(2,)), 1 / (2 + 1 / L2(3))),
    ("nDCG@3", Ranking((2, 0, 3)), (2 + 3 / L2(4)) / (3 + 2 / L2(3))),
    ("Rprec", Ranking((1, 1, 0, 0), missing=(1, 1)), 2 / 4),
    ("Rprec", Ranking((0, 1, 1, 1)), 2 / 3),
    ("IPrecAvg", Ranking((1, 0, 0, 1)), (6 * 1 + 5 * 0.5) / 11),  # trec_eval 9's rule: (long)(x R + 0.9)
])
def test_a_value_question_is_answered_by_the_measure(measure, ranking, by_hand):
    q = Question("value", measure, (ranking,))
    assert right(q).answer == pytest.approx(by_hand, abs=1e-12)
    assert prompt(q) == f"What is {measure} of this ranking?"


def test_a_grade_below_the_relevance_level_is_not_relevant():
    q = Question("value", "P@3", (Ranking((1, 2, 0)),), rel=2)
    assert right(q).answer == pytest.approx(1 / 3)


@pytest.mark.parametrize("measure,a,b,winner", [
    ("P@3", (1, 0, 0, 0), (0, 1, 1, 0), "B"),   # 1/3 against 2/3
    ("RR", (1, 0, 0, 0), (0, 1, 1, 0), "A"),    # 1 against 1/2
    ("P@1", (1, 0), (1, 1), EQUAL),             # 1 and 1
    ("AP", (1, 0, 1), (0, 1, 1), "A"),          # (1 + 2/3)/2 against (1/2 + 2/3)/2
])
def test_a_compare_question_names_the_higher_ranking(measure, a, b, winner):
    q = Question("compare", measure, (Ranking(a), Ranking(b)))
    assert right(q).answer == winner
    assert options(q) == ("A", "B", EQUAL)


@pytest.mark.parametrize("measure,grades,change,before,after", [
    ("AP", (1, 0, 0), Change("move", 1, 3), 1.0, 1 / 3),
    ("P@3", (1, 0, 0), Change("grade", 2, 1), 1 / 3, 2 / 3),
    ("nDCG@3", (0, 1, 0), Change("move", 2, 1), 1 / L2(3), 1.0),
    ("RR", (0, 1, 1), Change("grade", 2, 0), 1 / 2, 1 / 3),
])
def test_a_change_question_is_the_value_after_minus_before(measure, grades, change, before, after):
    q = Question("change", measure, (Ranking(grades),), change)
    solution = right(q)
    assert solution.values == pytest.approx((before, after))
    assert solution.answer == pytest.approx(after - before)
    assert prompt(q).startswith(f"The document at rank {change.rank}")


def test_an_order_question_accepts_tied_rankings_in_either_order():
    q = Question("order", "RR", (Ranking((0, 0, 1)), Ranking((1, 0, 0)), Ranking((0, 1, 0))))
    assert right(q).answer == ("B", "C", "A")  # 1, 1/2, 1/3
    tied = Question("order", "RR", (Ranking((1, 0)), Ranking((0, 1)), Ranking((1, 0))))
    solution = right(tied)
    assert accepts(tied, solution, ("A", "C", "B")) and accepts(tied, solution, ("C", "A", "B"))
    assert not accepts(tied, solution, ("A", "B", "C"))
    assert not accepts(tied, solution, ("A", "C"))


@pytest.mark.parametrize("typed,ok", [("0.77", True), ("0.7808", True), ("0.76", False), ("37/48", True),
                                      ("0,78", True), ("0.781", False)])
def test_a_number_is_right_within_the_tolerance(typed, ok):
    q = Question("value", "AP", (EIGHT,))  # 37/48 = 0.770833...
    assert accepts(q, right(q), parse_answer(q, typed)) is ok


def test_a_stricter_tolerance_refuses_two_decimals():
    q = Question("value", "AP", (EIGHT,), tolerance=0.001)
    assert not accepts(q, right(q), 0.769)  # 0.0018 away
    assert accepts(q, right(q), 0.771)


@pytest.mark.parametrize("kind,text,message", [
    ("value", "abc", 'expected a number such as 0.25 or 1/4, found "abc"'),
    ("value", "1/0", "expected a number"),
    ("value", "1e5", "expected a number"),
    ("value", "2000", "expected a number from -1000 to 1000"),
    ("value", "", "expected 1 to 32 characters"),
    ("value", "1" * 40, "expected 1 to 32 characters"),
    ("compare", "C", 'expected A, B or "equal", found "C"'),
    ("order", "AAB", "expected each of A, B, C once"),
])
def test_a_bad_answer_is_one_line_naming_what_was_expected(kind, text, message):
    rankings = {"value": (EIGHT,), "compare": (EIGHT, EIGHT), "order": (EIGHT, EIGHT, EIGHT)}[kind]
    with pytest.raises(ValidationError, match=re.escape(message)):
        parse_answer(Question(kind, "AP", rankings), text)


def test_answers_are_read_in_every_form():
    order = Question("order", "AP", (EIGHT, EIGHT, EIGHT))
    assert parse_answer(order, "b > a > c") == ("B", "A", "C") == parse_answer(order, "BAC")
    compare = Question("compare", "AP", (EIGHT, EIGHT))
    assert parse_answer(compare, "Equal") == EQUAL and parse_answer(compare, "a") == "A"


@pytest.mark.parametrize("bad,message", [
    (lambda: Question("guess", "AP", (EIGHT,)), "expected one of 'value', 'compare', 'change', 'order'"),
    (lambda: Question("value", "bpref", (EIGHT,)), "expected one of P@5"),
    (lambda: Question("value", 'nDCG(gain="exp")@5', (EIGHT,)), "expected no options other than the cutoff"),
    (lambda: Question("compare", "AP", (EIGHT,)), "expected 2 rankings, found 1"),
    (lambda: Question("change", "AP", (EIGHT,)), "needs a change"),
    (lambda: Question("change", "AP", (EIGHT,), Change("move", 2, 9)), "expected ranks from 1 to 8"),
    (lambda: Question("value", "AP", (EIGHT,), tolerance=0.5), "expected a number from 0.001 to 0.1"),
    (lambda: Ranking(tuple(range(51))), "expected 1 to 50 grades"),
    (lambda: Ranking((None, None)), "expected at least one judged document"),
    (lambda: Ranking((1, -2)), "a grade: expected an integer from 0 to 100, found -2"),
])
def test_a_bad_question_is_refused_in_one_line(bad, message):
    with pytest.raises(ValidationError, match=re.escape(message)):
        bad()


# ---- the worked formulas hold the right value --------------------------------------------------------
def _random_question(seed: int) -> Question:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 12))
    grades = tuple(None if rng.random() < 0.1 else int(g) for g in rng.choice([0, 0, 1, 2, 3], size=n))
    if all(g is None for g in grades):
        grades = (1,) + grades[1:]
    missing = tuple(int(g) for g in rng.choice([1, 2], size=int(rng.integers(0, 3))))
    measure = str(rng.choice(["P@5", "R@3", "AP", "RR", "nDCG@4", "nDCG@20", "nDCG", "Rprec", "IPrecAvg"]))
    return Question("value", measure, (Ranking(grades, missing),), rel=int(rng.integers(1, 3)))


@pytest.mark.parametrize("seed", range(40))
def test_each_worked_formula_ends_with_the_right_value(seed):
    q = _random_question(seed)
    (title, latex), = worked_formulas(q)
    assert title == "ranking A"
    printed = float(latex.rsplit("=", 1)[1].split(r"\quad")[0].strip())
    assert printed == pytest.approx(right(q).answer, abs=6e-5), latex


def test_a_change_question_works_the_formula_before_and_after():
    q = Question("change", "AP", (Ranking((1, 0, 0)),), Change("move", 1, 3))
    (t1, before), (t2, after) = worked_formulas(q)
    assert (t1, t2) == ("before", "after")
    assert before.endswith("= 1") and after.endswith("= 0.3333")


# ---- each mistake, against a case worked by hand ------------------------------------------------------
CASES = {  # mistake: (measure, ranking, the wrong value by hand, the right value by hand)
    "ap_over_retrieved_relevant": ("AP", Ranking((1, 0, 1, 0, 0), (1, 1)), (1 + 2 / 3) / 2, (1 + 2 / 3) / 4),
    "ap_mean_precision_at_every_rank": ("AP", Ranking((1, 0, 1, 0)), (1 + 1 / 2 + 2 / 3 + 2 / 4) / 4, (1 + 2 / 3) / 2),
    "precision_as_recall": ("P@5", Ranking((1, 1, 0, 1, 0), (1, 1, 1)), 3 / 6, 3 / 5),
    "recall_as_precision": ("R@4", Ranking((1, 0, 1, 0), (1, 1, 1)), 2 / 4, 2 / 5),
    "precision_over_retrieved": ("P@10", Ranking((1, 1, 0, 0)), 2 / 4, 2 / 10),
    "discount_from_rank_0": ("nDCG@3", Ranking((0, 1, 1)), (1 + 1 / L2(3)) / (1 + 1),
                             (1 / L2(3) + 1 / L2(4)) / (1 + 1 / L2(3))),
    "ideal_from_retrieved": ("nDCG@2", Ranking((1, 0), (2,)), 1.0, 1 / (2 + 1 / L2(3))),
    "grades_as_binary": ("nDCG@2", Ranking((1, 2)), 1.0, (1 + 2 / L2(3)) / (2 + 1 / L2(3))),
    "exponential_gain": ("nDCG@2", Ranking((1, 2)), (1 + 3 / L2(3)) / (3 + 1 / L2(3)),
                         (1 + 2 / L2(3)) / (2 + 1 / L2(3))),
    "rank_instead_of_reciprocal": ("RR", Ranking((0, 0, 1)), 3.0, 1 / 3),
    "rprec_with_retrieved_relevant": ("Rprec", Ranking((1, 1, 0, 0), (1, 1)), 1.0, 2 / 4),
    "ten_points_not_eleven": ("IPrecAvg", Ranking((1, 0, 0, 1)), (5 + 5 * 0.5) / 10, (6 + 5 * 0.5) / 11),
}


def test_every_mistake_has_a_worked_case():
    assert set(CASES) == set(MISTAKES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_mistake_gives_the_wrong_value_worked_by_hand(name):
    measure, ranking, wrong, right_value = CASES[name]
    from metrics.measures import parse_measure

    parsed = parse_measure(measure)
    assert MISTAKES[name] in applicable(parsed)
    assert MISTAKES[name].wrong(ranking, parsed, 1) == pytest.approx(wrong, abs=1e-12)
    assert measure_value(ranking, measure) == pytest.approx(right_value, abs=1e-12)
    assert MISTAKES[name].formula and MISTAKES[name].title


def test_a_mistake_that_does_not_apply_gives_none():
    from metrics.measures import parse_measure

    assert MISTAKES["precision_over_retrieved"].wrong(EIGHT, parse_measure("P@5"), 1) is None
    assert MISTAKES["rank_instead_of_reciprocal"].wrong(Ranking((0, 0)), parse_measure("RR"), 1) is None


# ---- the reveal ---------------------------------------------------------------------------------------
def test_the_reveal_counts_the_right_answers_and_each_mistake():
    q = Question("value", "AP", (Ranking((1, 0, 1, 0, 0), missing=(1, 1)),))  # right 0.4167
    answers = [parse_answer(q, t) for t in ("0.42", "5/12", "0.83", "0.8333", "0.6133", "0.1")]
    r = reveal(q, answers)
    assert (r.answers, r.right_answer, r.right_count) == (6, "0.42", 2)
    assert [(b.label, b.count, b.verdict) for b in r.bars] == [
        ("0.10", 1, OTHER), ("0.42", 2, RIGHT), ("0.61", 1, "ap_mean_precision_at_every_rank"),
        ("0.83", 2, "ap_over_retrieved_relevant")]
    shares = {m.name: (m.answer, m.count, m.share) for m in r.mistakes}
    # AP's mean precision at every rank: (1 + 1/2 + 2/3 + 2/4 + 2/5) / 5 = 0.6133
    assert shares == {"ap_over_retrieved_relevant": ("0.83", 2, 2 / 6),
                      "ap_mean_precision_at_every_rank": ("0.61", 1, 1 / 6)}


def test_a_mistake_that_leads_to_the_right_answer_is_not_counted():
    q = Question("value", "AP", (Ranking((1, 1, 0)),))  # nothing missed: AP over found is AP itself
    r = reveal(q, [1.0])
    assert r.right_count == 1 and "ap_over_retrieved_relevant" not in {m.name for m in r.mistakes}
    assert MISTAKES["ap_over_retrieved_relevant"].title in r.indistinct


def test_the_reveal_of_a_compare_and_an_order_question():
    compare = Question("compare", "P@3", (Ranking((1, 0, 0, 0)), Ranking((0, 1, 1, 0)), ))
    r = reveal(compare, ["B", "B", "A", EQUAL])
    assert r.right_answer == "B" and [(b.label, b.count) for b in r.bars] == [("A", 1), ("B", 2), (EQUAL, 1)]
    # P@3 taken as recall (R = 1 for A, 2 for B): 1 against 1, so "equal" is that mistake
    assert {m.name: m.count for m in r.mistakes} == {"precision_as_recall": 1}
    order = Question("order", "RR", (Ranking((0, 0, 1)), Ranking((1, 0, 0)), Ranking((0, 1, 0))))
    r = reveal(order, [("B", "C", "A"), ("A", "C", "B")])
    assert r.right_answer == "B > C > A" and r.right_count == 1
    # the rank taken for RR orders the rankings the other way round
    assert {m.name: m.count for m in r.mistakes} == {"rank_instead_of_reciprocal": 1}


def test_a_change_is_shown_with_its_sign():
    q = Question("change", "AP", (Ranking((1, 0, 0)),), Change("move", 1, 3))
    assert shown(q, right(q).answer) == "-0.67"
    assert reveal(q, [-0.67, 0.67]).right_count == 1


# ---- lessons as JSON ----------------------------------------------------------------------------------
def test_a_lesson_round_trips_and_refuses_bad_json():
    questions = [Question("value", "AP", (EIGHT,), source="worked example"),
                 Question("change", "nDCG@5", (Ranking((2, None, 0), (3,), "bm25"),), Change("grade", 3, 1), rel=2),
                 Question("order", "RR", (EIGHT, Ranking((0, 1)), Ranking((1,)))),
                 Question("compare", "P@5", (EIGHT, Ranking((0, 1))), tolerance=0.001)]
    assert lesson.loads(lesson.dumps(questions)) == tuple(questions)
    for text, message in [("{}", "lesson: expected a list of at most 50 questions, found an empty mapping"),
                          ("[1]", "lesson[0]: expected a question (kind, measure, rankings, ...), found 1"),
                          ('[{"kind": "value"}]', "lesson[0].measure: expected one non-empty line of at most 64 "
                                                  "characters, found no such field"),
                          ('[{"kind":"value","measure":"AP","rankings":[{"grades":[1]}],"x":1}]',
                           "lesson[0].x: expected one of the fields kind, measure, rankings, change, rel, tolerance, "
                           "source, found an unknown field"),
                          ('[{"kind":"value","measure":"AP","rankings":[{"grades":[1],"grades":[2]}]}]',
                           "lesson: expected each key once in an object, found 'grades' twice"),
                          ('[{"kind":"value","measure":"AP","rankings":[{"grades":[NaN]}]}]',
                           "lesson: line 1, column 56: expected a finite number, found NaN"),
                          ('[{"kind":"value","measure":"AP","rankings":[{"grades":[1, 200]}]}]',
                           "lesson[0].rankings[0].grades[1]: expected an integer from 0 to 100 or null, found 200"),
                          ('[{"kind":"value","measure":"XYZ","rankings":[{"grades":[1]}]}]', "lesson[0]: unknown measure"),
                          ("[" + "9" * 5000 + "]", "lesson: line 1, column 2: expected a number of at most 64 "
                                                   "characters, found one of 5000"),
                          ("[", "lesson: line 1, column 2: expected JSON")]:
        with pytest.raises(ValidationError, match=re.escape(message)):
            lesson.loads(text)
