"""The caution on a parametric test of an ordinal mean says which tests need no more than an order.

Ferrante, Ferro and Fuhr ("Towards meaningful statements in IR evaluation", 2021), whom the module cites:
the sign test reads only the direction of each difference; Wilcoxon's signed-rank test ranks the sizes of
the differences, which takes them as intervals; the permutation test tests the mean difference. So only the
sign test is the way out the caution may point to.
"""

from __future__ import annotations

import pytest

from metrics import resolve_measures
from metrics.review.cautions import comparison_cautions


@pytest.mark.parametrize("measures", [["RR"], ["AP"], ["RR", "AP", "P@10"]])
def test_only_the_sign_test_is_said_to_need_no_more_than_an_order(measures):
    found = comparison_cautions(resolve_measures(measures), test="t", correction="holm", tests=3, topics=50,
                                gain_stated=True)
    sentence = next(c.sentence for c in found if c.code == "parametric-ordinal")
    assert "only the sign test needs no more than the order of the values" in sentence
    assert "Wilcoxon's ranks the sizes of the differences, which assumes an interval scale" in sentence
    assert "the permutation test tests the mean difference" in sentence
    assert "Wilcoxon or permutation test does not assume" not in sentence
