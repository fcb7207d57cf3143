"""The results table's markers rule (metrics.review.compare.marked): what is tested, and why a table has none."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from metrics import ValidationError, summarise
from metrics.review.compare import marked_results, measures_tested, results_comparison
from metrics.review.compare.marked import ONE_SYSTEM, results_options


def _per_query(systems: dict[str, list[float]], measure: str = "AP") -> pd.DataFrame:
    return pd.concat([pd.DataFrame({"system": name, "query": [str(q) for q in range(len(values))],
                                    "measure": measure, "value": values}) for name, values in systems.items()],
                     ignore_index=True)


def test_counts_and_sums_are_shown_but_not_tested():
    assert measures_tested(["num_rel_ret", "AP", "GMAP", "P@10"]) == ["AP", "P@10"]
    with pytest.raises(ValidationError, match=r"^num_rel_ret, GMAP: only means of per-topic values are tested"):
        measures_tested(["num_rel_ret", "GMAP"])


def test_nothing_to_compare_leaves_the_table_unmarked_with_the_reason():
    one = _per_query({"a": [0.1, 0.2, 0.3]})
    called = []
    table, reason = marked_results(summarise(one), lambda: called.append(1))
    assert reason == ONE_SYSTEM and called == [] and (table.markers == "").all().all()

    single_topic = _per_query({"a": [0.1], "b": [0.9]})  # a paired test needs two topics or more
    table, reason = marked_results(summarise(single_topic), lambda: results_comparison(single_topic, ["AP"]))
    assert reason and "\n" not in reason and (table.markers == "").all().all()
    with pytest.raises(ValidationError):
        results_comparison(single_topic, ["AP"])


def test_a_clear_difference_is_marked_and_a_tie_is_not():
    rng = np.random.default_rng(7)
    base = rng.uniform(0.2, 0.4, 20)
    values = _per_query({"base": list(base), "same": list(base), "better": list(base + 0.3 + rng.uniform(0, 0.05, 20)),
                         "worse": list(base - 0.15 - rng.uniform(0, 0.05, 20))})
    table, reason = marked_results(summarise(values), lambda: results_comparison(values, ["AP"], baseline="base"),
                                   baseline="base")
    assert reason is None
    assert table.markers["AP"].to_dict() == {"base": "", "same": "", "better": "†", "worse": "‡"}


def test_options_are_refused_before_any_test_runs():
    assert results_options("Randomisation", "FDR_BH", 0.1) == ("permutation", "bh", 0.1)
    for args, start in [(("z",), "unknown test 'z'"), (("t", "maxt"), "unknown correction 'maxt'"),
                        (("t", "holm", 0.0), "alpha: expected a number above 0 and below 1, found 0.0")]:
        with pytest.raises(ValidationError, match=f"^{start}"):
            results_options(*args)
