"""Where lower values are better, the comparison of judgment sets ranks the systems that way and reads the
agreement of two sets' orders in that direction; over every measure the registry declares lower-is-better."""

from __future__ import annotations

import pandas as pd
import pytest

from metrics.judgments.systems import order_agreement, system_orders
from tests.lower_is_better import BEST_FIRST, LOWER_IS_BETTER, per_query


@pytest.mark.parametrize("label", LOWER_IS_BETTER)
def test_each_set_ranks_the_lowest_value_first(label):
    frame = pd.concat([per_query(label).assign(judges="nist"), per_query(label, seed=1).assign(judges="llm")],
                      ignore_index=True)
    orders = system_orders(frame)
    for name in ("nist", "llm"):
        ranked = orders[orders["judges"] == name].sort_values("rank")
        assert ranked["system"].tolist() == list(BEST_FIRST)
    row = order_agreement(orders, [("nist", "llm")], top_k=1).iloc[0]
    assert (row.tau_b, row.tau_ap, row.top_k_overlap, row.swaps) == (1.0, 1.0, 1.0, 0)
