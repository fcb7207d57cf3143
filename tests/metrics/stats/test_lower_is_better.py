"""Where lower values are better, the statistics order the systems that way: the letter display, the agreement
of two orderings, the tie flips and the risk against a baseline; over every measure the registry declares
lower-is-better (:data:`tests.lower_is_better.LOWER_IS_BETTER`)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from metrics.stats.agreement import agreement_matrix, ordering_agreement, swapped_pairs, system_means, tau_ap
from metrics.stats.risk import risk_table
from metrics.stats.significance import compare_systems, grouped_leaderboard, letter_display
from metrics.stats.ties import tie_flips
from tests.lower_is_better import BEST_FIRST, LOADED, LOWER_IS_BETTER, per_query


@pytest.mark.parametrize("label", LOWER_IS_BETTER)
def test_the_letter_display_puts_the_lowest_mean_first(label):
    board = grouped_leaderboard(compare_systems(per_query(label)), label)
    assert board["system"].tolist() == list(BEST_FIRST) and board["group"].tolist() == ["a", "b", "c"]
    means = per_query(label).groupby("system")["value"].mean()[list(LOADED)]
    shown = letter_display(list(LOADED), means.to_numpy(), np.zeros((3, 3), dtype=bool), measure=label)
    assert shown["system"].tolist() == list(BEST_FIRST)


@pytest.mark.parametrize("label", LOWER_IS_BETTER)
def test_a_lower_is_better_ordering_agrees_with_a_higher_is_better_one_that_orders_alike(label):
    """AP falls as the measure rises: both put ``best`` first, so they agree (+1), not disagree (-1)."""
    frame = pd.concat([per_query(label), per_query("AP").assign(value=lambda f: 1.0 - f["value"])],
                      ignore_index=True)
    for statistic in ("tau", "tau_ap"):
        assert agreement_matrix(frame, statistic=statistic).loc[label, "AP"] == 1.0
    means = system_means(frame)
    row = ordering_agreement(means[label], means["AP"], measures=(label, "AP")).iloc[0]
    assert (row.tau, row.tau_ap, row.swaps) == (1.0, 1.0, 0)
    assert tau_ap(means[label], means[label], measures=label) == 1.0
    assert swapped_pairs(means[label], means["AP"], measures=(label, "AP")).empty
    top = means[label].rename(index={"best": "b2", "middle": "best"}).rename(index={"b2": "middle"})
    assert tau_ap(means[label], top, symmetric=False, measures=label) == 0.0  # the top two swapped: C = 0, 1 of 2


@pytest.mark.parametrize("label", LOWER_IS_BETTER)
def test_tie_flips_name_the_better_system_first(label):
    summary = pd.DataFrame({"system": list(LOADED), "measure": label, "reported": [0.7, 0.45, 0.2],
                            "low": [0.6, 0.15, 0.2], "high": [0.75, 0.5, 0.3]})
    flips = tie_flips(summary)
    # best (0.2, at worst 0.3) could lose to middle (at best 0.15); worst (at best 0.6) stays behind both
    assert flips[["first", "second", "first_reported", "second_reported", "first_low", "second_high"]].values.tolist() \
        == [["best", "middle", 0.2, 0.45, 0.3, 0.15]]


@pytest.mark.parametrize("label", LOWER_IS_BETTER)
def test_risk_counts_a_lower_value_as_a_win(label):
    table = risk_table(per_query(label), "worst").set_index("system")
    assert table.loc["best", "wins"] == 12 and table.loc["best", "losses"] == 0 and table.loc["best", "urisk"] > 0
    assert table.loc["best", "flag"] == "safer"
    assert np.isnan(table["zrisk"]).all() and np.isnan(table["georisk"]).all()  # they weigh effectiveness
