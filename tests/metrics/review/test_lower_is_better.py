"""Where lower values are better, the results table, the report and the claims say so: the best cell, the
markers against a baseline, the report's letter display, a rank claim; over every measure the registry declares
lower-is-better (:data:`tests.lower_is_better.LOWER_IS_BETTER`)."""

from __future__ import annotations

import numpy as np
import pytest

from metrics import summarise
from metrics.review.claims.check import check_claims
from metrics.review.claims.kinds import HOLDS, Better, Rank
from metrics.review.compare import summary_table
from metrics.review.report import compute_report
from metrics.stats.significance import compare_systems
from tests.lower_is_better import LOWER_IS_BETTER, per_query
from tests.paths import ROOT

DEMO = ROOT / "sample_data" / "demo"


@pytest.mark.parametrize("label", LOWER_IS_BETTER)
def test_the_results_table_marks_the_lowest_value_best_and_better(label):
    frame = per_query(label)
    table = summary_table(compare_systems(frame, baseline="worst"), summarise(frame))
    assert table.best[label].tolist() == [False, False, True]  # worst, middle, best: the lowest is bold
    assert table.markers.loc["best", label] == "†" and table.markers.loc["middle", label] == "†"


@pytest.mark.parametrize("label", LOWER_IS_BETTER)
def test_a_rank_claim_counts_the_lowest_value_first(label):
    results = check_claims(per_query(label), [Rank("best", label, 1), Better("best", "worst", label, test="t")])
    assert [r.status for r in results] == [HOLDS, HOLDS]


@pytest.fixture(scope="module")
def report():
    runs = [DEMO / "runs" / f"{name}.run.gz" for name in ("bm25", "dense_precise", "weak_tfidf")]
    return compute_report(DEMO / "qrels.txt", runs, measures=list(LOWER_IS_BETTER), n_resamples=100)


@pytest.mark.parametrize("label", LOWER_IS_BETTER)
def test_the_report_orders_its_letter_display_lowest_first(report, label):
    board = report.grouped_leaderboard(label)
    means = report.summary[report.summary["measure"] == label].set_index("system")["value"]
    assert board["system"].tolist() == means.sort_values(kind="stable").index.tolist()
    assert np.all(np.diff(board["mean"].to_numpy()) >= 0)
    assert report.table.best[label].tolist() == (means == means.min()).tolist()


@pytest.mark.parametrize("label", LOWER_IS_BETTER)
def test_topic_by_topic_counts_a_lower_value_as_a_win(label):
    from metrics.review.topic_by_topic import extremes, paired_topics, topic_table

    frame = per_query(label)
    frame.loc[(frame["system"] == "best") & (frame["query"] == "q03"), "value"] = 0.9  # best's one loss
    pair = paired_topics(frame, label, "worst", "best")  # B = best: lower on all topics but q03
    assert (pair.wins, pair.ties, pair.losses) == (11, 0, 1)
    assert pair.frame["diff"].iloc[0] == pair.frame["diff"].min() and pair.frame["query"].iloc[-1] == "q03"
    best, worst = extremes(pair)
    assert best.diff < 0 and worst.query == "q03" and worst.diff > 0
    assert topic_table(pair)["topic"].iloc[0] == "q03"  # worst first: B's loss
