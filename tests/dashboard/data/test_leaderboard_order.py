"""The order of the systems on the leaderboard and in the pickers: the best first in the direction each measure
declares (the lowest first for the measures of :data:`tests.lower_is_better.LOWER_IS_BETTER`), equal values by
name whatever the order of loading, missing values last."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("streamlit", reason="the dashboard extra (streamlit) is not installed")
from dashboard.data import by_mean, leaderboard
from dashboard.session.state import Loaded, Upload
from metrics import summarise
from metrics.review.compare import summary_table
from tests.lower_is_better import BEST_FIRST, LOADED, LOWER_IS_BETTER, per_query


def _table(frame: pd.DataFrame):
    return summary_table(None, summarise(frame))


def _frame(means: dict[str, float], measure: str = "AP", topics: int = 4) -> pd.DataFrame:
    """Systems in the order given, each with the same value on every topic (its mean)."""
    return pd.DataFrame([(system, f"q{j}", measure, value) for system, value in means.items() for j in range(topics)],
                        columns=["system", "query", "measure", "value"])


def test_ties_in_the_top_n_are_by_name_never_by_the_order_of_loading():
    loaded = {"zeta": 0.5, "alpha": 0.5, "mid": 0.3, "Beta": 0.5, "none": np.nan}  # three tied for the best
    table = _table(_frame(loaded))
    assert leaderboard.ranked(table, "AP") == ["Beta", "alpha", "zeta", "mid", "none"]  # text order: "B" < "a"
    assert leaderboard.leaderboard(table, top=2)["system"].tolist() == ["Beta", "alpha"]
    assert leaderboard.ranked(table, "AP", worst_first=True) == ["mid", "Beta", "alpha", "zeta", "none"]
    shuffled = _table(_frame(dict(reversed(list(loaded.items())))))
    assert leaderboard.ranked(shuffled, "AP") == leaderboard.ranked(table, "AP")  # the files' order changes nothing
    assert leaderboard.leaderboard(table, baseline="zeta", top=1)["system"].tolist() == ["zeta", "Beta"]


@pytest.mark.parametrize("label", LOWER_IS_BETTER)
def test_a_measure_where_lower_is_better_puts_the_lowest_first(label):
    table = _table(per_query(label))
    assert leaderboard.ranked(table, label) == list(BEST_FIRST)
    assert leaderboard.ranked(table, label, worst_first=True) == list(BEST_FIRST[::-1])
    assert leaderboard.leaderboard(table, top=1, sort_by=label)["system"].tolist() == ["best"]
    higher = _table(per_query("AP"))  # the same values of a measure where higher is better: the other way round
    assert leaderboard.ranked(higher, "AP") == list(LOADED)


QRELS = b"1 0 r 1\n1 0 n1 0\n1 0 n2 0\n2 0 r 1\n2 0 n1 0\n2 0 n2 0\n"


def _run(rank: int) -> bytes:
    """The relevant document ``r`` at ``rank`` on both queries, the others around it."""
    docs = ["n1", "n2"]
    docs.insert(rank - 1, "r")
    return b"".join(f"{q} Q0 {d} {i + 1} {10 - i} x\n".encode() for q in (1, 2) for i, d in enumerate(docs))


def test_the_pickers_order_is_the_leaderboards():
    runs = {"zeta": 1, "alpha": 3, "mid": 2, "beta": 1}  # the rank of the relevant document: MR, lower is better
    loaded = Loaded(qrels=Upload.of("q.qrels", QRELS),
                    runs=tuple((name, Upload.of(f"{name}.run", _run(rank))) for name, rank in runs.items()))
    assert by_mean(loaded, "MR") == ("beta", "zeta", "mid", "alpha")  # the first relevant document earliest first
    assert by_mean(loaded, "P@2") == ("beta", "mid", "zeta", "alpha")  # P@2: 1/2, 1/2, 1/2, 0: ties by name
