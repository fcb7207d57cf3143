"""tau_AP's direction: which order's top weighs most, in numbers and in the words beside them.

Yilmaz, Aslam and Robertson (SIGIR 2008) walk the *compared* order (the paper's estimated ranking) and ask,
at each position, how many of the systems above it the reference (the true ranking) also puts above it. So
an error at the top of the compared order costs most: with the reference s1 > s2 > s3 > s4 > s5, the
compared order that puts the best last scores 0.50, the one that puts the worst first -0.0417, though
Kendall's tau gives both 0.20. The numbers come from the paper's formula written here as a loop; the words
are those of :mod:`metrics.stats.agreement`, :mod:`metrics.judgments.systems` and ``rankscope judges``.
"""

from __future__ import annotations

import pandas as pd
import pytest

stats = pytest.importorskip("scipy.stats")

from metrics.judgments import systems  # noqa: E402
from metrics.stats import agreement  # noqa: E402

REFERENCE = ["s1", "s2", "s3", "s4", "s5"]
BEST_LAST = ["s2", "s3", "s4", "s5", "s1"]
WORST_FIRST = ["s5", "s1", "s2", "s3", "s4"]


def paper_tau_ap(reference: list[str], compared: list[str]) -> float:
    """``2 / (N - 1) sum_{i=2}^{N} C(i) / (i - 1) - 1``, ``C(i)`` the systems above position i of the compared
    order that the reference also puts above the system there."""
    position = {s: i for i, s in enumerate(reference)}
    total = sum(sum(position[compared[j]] < position[compared[i]] for j in range(i)) / i
                for i in range(1, len(compared)))
    return 2.0 * total / (len(compared) - 1) - 1.0


def scores(order: list[str]) -> pd.Series:
    """Scores that put the systems in ``order``, best first."""
    return pd.Series({s: float(len(order) - i) for i, s in enumerate(order)})


@pytest.mark.parametrize(("compared", "expected"), [(BEST_LAST, 0.5), (WORST_FIRST, -0.0417)])
def test_an_error_at_the_top_of_the_compared_order_costs_most(compared, expected):
    value = agreement.tau_ap(scores(REFERENCE), scores(compared), symmetric=False)
    assert value == pytest.approx(paper_tau_ap(REFERENCE, compared), abs=1e-15)
    assert round(value, 4) == expected
    names = sorted(REFERENCE)
    tau = stats.kendalltau(scores(REFERENCE)[names], scores(compared)[names]).statistic
    assert tau == pytest.approx(0.2)  # Kendall's tau cannot tell the two apart
    # the judges' pair "first|second" takes the first as the reference and walks the second
    rows = [{"judges": name, "system": s, "query": "1", "measure": "P@10", "value": v}
            for name, order in (("ref", REFERENCE), ("other", compared)) for s, v in scores(order).items()]
    found = systems.order_agreement(systems.system_orders(pd.DataFrame(rows)), [("ref", "other")], top_k=1)
    assert found.iloc[0]["tau_ap"] == value


def test_the_words_say_the_top_of_the_compared_order_weighs_most():
    module = " ".join(agreement.__doc__.split())
    assert "the top that weighs most is ``y``'s, the order walked" in module
    assert "putting the best last" in module and "gives 0.50" in module and "-0.0417" in module
    assert "top of ``y``'s order" in " ".join(agreement.tau_ap.__doc__.split())
    judged = " ".join(systems.__doc__.split())
    assert "walks the *second* set's order" in judged and "the reference's best put last costs less" in judged
    assert "near the top of the first set's order costs most" not in judged
