"""A value given as an option or in a measure's name never sizes an array or a loop: it is capped at what the
rankings can use (the values do not change) or refused with one line naming the option and its range."""

from __future__ import annotations

import numpy as np
import pytest

from metrics import ValidationError, evaluate, rank_runs
from metrics.curves import MAX_DEPTH, gain_curves, precision_recall_at_k
from metrics.errors import UnknownMeasureError
from metrics.measures.trec_names import expand_trec
from metrics.teaching.anatomy import anatomy
from rankscope.commands.eval import relevance_strings

QRELS = "301 0 a 1\n301 0 b 0\n301 0 x 1\n302 0 c 2\n"
RUN = "301 Q0 a 1 3 t\n301 Q0 b 2 2 t\n302 Q0 c 1 1 t\n"
HUGE = 10**30


def values(measure: str) -> list[float]:
    return evaluate(QRELS, {"s": RUN}, [measure])["value"].tolist()


@pytest.mark.parametrize(("huge", "capped"), [
    (f"nDCG@{HUGE}", "nDCG@2"), (f"R@{HUGE}", "R@2"), (f"AP@{HUGE}", "AP@2"), (f"RR@{HUGE}", "RR@2"),
    (f"RelP@{HUGE}", "RelP@2"), (f"ERR@{HUGE}", "ERR@2"), (f"Success@{HUGE}", "Success@2"),
    (f"ERR(max_grade={HUGE})", "ERR(max_grade=100000)"), (f"ERR(max_grade={2**63})", "ERR(max_grade=100000)"),
    (f"P(rel={HUGE})@5", "P(rel=100)@5"), (f"Rprec(multiple={HUGE}.0)", "Rprec(multiple=1e15)"),
    ("Rprec(multiple=1e308)", "Rprec(multiple=1e15)"), ("F(beta=1e300)", "R"),
])
def test_huge_parameters_give_the_capped_values(huge, capped):
    with np.errstate(over="raise", invalid="raise", divide="raise"):  # no overflow hidden either
        assert values(huge) == pytest.approx(values(capped), abs=1e-12)


def test_precision_divides_by_a_huge_cutoff():
    assert values(f"P@{HUGE}") == pytest.approx([1 / HUGE, 1 / HUGE], rel=1e-9, abs=0)
    assert values(f"F@{HUGE}") == pytest.approx([2 / HUGE, 2 / HUGE], rel=1e-9, abs=0)


@pytest.mark.parametrize("spec", ["P.1e400", "P_inf", "ndcg_cut.-1e400", "success_1e309"])
def test_cutoffs_beyond_a_float_are_refused_in_one_line(spec):
    with pytest.raises(UnknownMeasureError, match=r"cannot read parameter .* as int$"):
        expand_trec(spec)


def test_gain_maps_need_finite_gains():
    with pytest.raises(ValidationError, match=r"^nDCG parameter 'gain_map': expected \(grade, gain\) pairs with finite "
                                              r"gains, found \(\(1, inf\),\)$"):
        expand_trec("ndcg.1=1e400")


def test_relstring_longer_than_every_ranking_is_the_whole_ranking():
    r = rank_runs(QRELS, {"s": RUN})[0]
    assert relevance_strings(r, HUGE) == relevance_strings(r, 2) == ["10", "2"]


def test_anatomy_max_grade_beyond_64_bits():
    r = rank_runs(QRELS, {"s": RUN})[0]
    huge = anatomy(r, "301", err_max_grade=HUGE)
    assert huge.equals(anatomy(r, "301", err_max_grade=100_000))


@pytest.mark.parametrize("curve", [precision_recall_at_k, gain_curves])
def test_curve_depth_has_a_limit(curve):
    r = rank_runs(QRELS, {"s": RUN})[0]
    assert len(curve(r, depth=MAX_DEPTH, average=False)) == 2 * MAX_DEPTH
    with pytest.raises(ValidationError, match=f"^depth: expected an integer from 1 to {MAX_DEPTH} or None, "
                                              "found an integer of 100 bits$"):
        curve(r, depth=HUGE)
    with pytest.raises(ValidationError, match=f"found {MAX_DEPTH + 1}$"):
        curve(r, depth=MAX_DEPTH + 1)
