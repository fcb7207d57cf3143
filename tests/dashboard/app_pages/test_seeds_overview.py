"""Systems of several runs on the overview: the figure as data, and the page with three seeds of two systems."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dashboard import figures
from metrics import evaluate
from metrics.stats.seeds import compare_seeded, group_runs
from tests.dashboard.conftest import errors, open_page, upload


def test_seed_chart_draws_the_mean_the_sd_and_the_range():
    spread = pd.DataFrame({"system": ["dense", "<b>bm25</b>"], "measure": ["AP", "AP"], "runs": [3, 1],
                           "value": [0.4, 0.3], "sd": [0.02, np.nan], "low": [0.38, 0.3], "high": [0.43, 0.3]})
    fig = figures.seed_chart(spread, "AP", {"dense": "#123456"})
    lines, dots = fig.data[0::2], fig.data[1::2]
    assert [list(t.x) for t in lines] == [[0.38, 0.43], [0.3, 0.3]]
    assert [t.x[0] for t in dots] == [0.4, 0.3] and list(dots[0].error_x.array) == [0.02]
    assert dots[1].error_x.array is None  # one run: no spread drawn
    assert dots[0].y[0] == "dense (3 runs)" and "<b>" not in dots[1].y[0]  # user text escaped
    assert dots[0].marker.color == "#123456"


def _files(rng):
    qrels = "".join(f"{q} 0 d{d} {int(rng.random() < 0.3)}\n" for q in range(12) for d in range(10)).encode()
    runs = [(f"{s}.seed{i}.run", "".join(f"{q} Q0 d{d} 0 {rng.random() + skill * (d % 3 == 0):.6f} x\n"
                                         for q in range(12) for d in range(10)).encode(), "text/plain")
            for s, skill in (("bm25", 0.0), ("dense", 0.5)) for i in (1, 2, 3)]
    return qrels, runs


def test_the_overview_shows_three_seeds_of_two_systems_with_their_spread_and_test():
    qrels, runs = _files(np.random.default_rng(4))
    at = open_page("data")
    upload(at, "Qrels", ("s.qrels", qrels, "text/plain"))
    upload(at, "Runs", runs)
    at = open_page("overview", at=at)
    assert errors(at) == []
    assert any(h.value == "Systems of several runs (seeds)" for h in at.subheader)
    [tests] = [d.value for d in at.dataframe if "var_seed" in d.value.columns]
    per_query = evaluate(qrels.decode(), {name[:-4]: data.decode() for name, data, _ in runs}, ["AP", "nDCG@10"])
    expected = compare_seeded(per_query, group_runs(sorted(set(per_query["system"]))))
    row = tests.iloc[0]
    match = expected[expected["measure"] == row["measure"]].iloc[0]
    assert (row["system_a"], row["system_b"]) == ("bm25", "dense")
    assert row["p_value"] == pytest.approx(match["p_value"]) and row["runs_a"] == 3 == row["runs_b"]
