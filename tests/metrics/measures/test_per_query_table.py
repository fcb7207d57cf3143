"""The per-query table type: its columns checked once, in one wording, and each measure's declaration read for its
direction and its exactness under ties."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from metrics import PerQuery, ValidationError, list_measures, parse_measure
from metrics.measures import best_first, higher_is_better
from metrics.stats.ties import EXACT_MEASURES, is_exact
from tests.lower_is_better import BEST_FIRST, LOADED, LOWER_IS_BETTER, per_query


def test_the_columns_are_checked_in_one_wording():
    frame = pd.DataFrame({"system": ["a"], "query": ["1"], "measure": ["AP"]})
    with pytest.raises(ValidationError, match=r"^per_query: expected a per-query table with columns system, query, "
                                              r"measure, value, found no column value$"):
        PerQuery.of(frame)
    with pytest.raises(ValidationError, match=r"^per_query: expected a per-query table .*, found \[1, 2\]$"):
        PerQuery.of([1, 2])
    assert PerQuery.of(frame, ("system", "measure")).frame is frame  # a table of means needs fewer columns
    table = PerQuery.of(per_query("AP"))
    assert PerQuery.of(table) .frame is table.frame


@pytest.mark.parametrize("where", ["compare_systems", "aggregate", "power", "paired_topics", "risk_table",
                                   "system_means", "check_claims"])
def test_every_reader_of_a_per_query_table_refuses_it_in_the_same_words(where):
    from metrics import aggregate
    from metrics.review.claims.check import check_claims
    from metrics.review.topic_by_topic import paired_topics
    from metrics.stats.agreement import system_means
    from metrics.stats.power import power_analysis
    from metrics.stats.risk import risk_table
    from metrics.stats.significance import compare_systems

    bad = per_query("AP").drop(columns="value")
    calls = {"compare_systems": lambda: compare_systems(bad), "aggregate": lambda: aggregate(bad),
             "power": lambda: power_analysis(bad, "AP"), "paired_topics": lambda: paired_topics(bad, "AP", "best", "worst"),
             "risk_table": lambda: risk_table(bad, "best"), "system_means": lambda: system_means(bad),
             "check_claims": lambda: check_claims(bad, [])}
    with pytest.raises(ValidationError, match=r"^per_query: expected a per-query table with columns system, (query, )?"
                                              r"measure, value, found no column value$"):
        calls[where]()


@pytest.mark.parametrize("label", LOWER_IS_BETTER)
def test_lower_is_better_measures_rank_the_lowest_first(label):
    assert not higher_is_better(label) and not PerQuery.higher_is_better(label)
    assert PerQuery.of(per_query(label)).ranked(label) == list(BEST_FIRST)
    assert PerQuery.of(per_query("AP")).ranked("AP") == list(LOADED)  # the same values, higher first
    assert best_first([0.5, np.nan, 0.1, 0.5], label).tolist() == [2, 0, 3, 1]  # ties keep their order, NaN last
    assert best_first([0.5, np.nan, 0.1, 0.5], label, worst_first=True).tolist() == [0, 3, 2, 1]  # NaN still last
    assert best_first([0.5, np.nan, 0.1, 0.5], "AP", worst_first=True).tolist() == [2, 0, 3, 1]


def test_the_direction_of_a_label_no_measure_declares_is_higher():
    assert higher_is_better("my_score") and PerQuery.declaration("my_score") is None


def test_exactness_under_ties_is_the_declaration():
    declared = {cls.name for cls in list_measures() if cls.exact_under_ties}
    assert EXACT_MEASURES == declared
    for cls in list_measures():
        assert is_exact(cls()) is cls.exact_under_ties is PerQuery.exact_under_ties(str(cls())), cls.name
    assert not is_exact(parse_measure('AP(denominator="retrieved")@3'))  # a parameter that breaks it
