"""The judges page's figures, tested as data: what each trace holds, and user text escaped."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("plotly", reason="the dashboard extra (plotly) is not installed")

from dashboard import figures  # noqa: E402


def test_confusion_heatmap_places_every_cell_and_fills_the_rest_with_zero():
    cells = pd.DataFrame({"first": [0, 0, 2, 3], "second": [0, 1, 1, 4], "documents": [5, 2, 7, 1]})
    fig = figures.confusion_heatmap(cells, "<i>nist</i>", "llm")
    trace = fig.data[0]
    assert list(trace.y) == ["0", "2", "3"] and list(trace.x) == ["0", "1", "4"]  # each grade either set used
    assert np.asarray(trace.z).tolist() == [[5, 2, 0], [0, 7, 0], [0, 0, 1]]
    assert "&lt;i&gt;nist&lt;/i&gt;" in fig.layout.yaxis.title.text and "<i>" not in fig.layout.title.text


def test_rank_chart_draws_one_line_per_system_over_the_sets():
    orders = pd.DataFrame({"judges": ["nist", "nist", "llm", "llm"], "system": ["a", "<b>b</b>", "a", "<b>b</b>"],
                           "value": [0.5, 0.4, 0.6, 0.7], "rank": [1, 2, 2, 1]})
    fig = figures.rank_chart(orders, ["nist", "llm"], ["a", "<b>b</b>"])
    assert [t.name for t in fig.data] == ["a", "&lt;b&gt;b&lt;/b&gt;"]
    assert [list(t.y) for t in fig.data] == [[1, 2], [2, 1]] and list(fig.data[0].x) == ["nist", "llm"]
    assert list(fig.data[1].customdata) == [0.4, 0.7]
    assert fig.layout.yaxis.autorange == "reversed"


def test_interval_chart_draws_the_three_intervals_with_their_bounds():
    frame = pd.DataFrame({"system": ["a", "b"], "human": [0.3, 0.2], "human_low": [0.2, 0.1], "human_high": [0.4, 0.3],
                          "ppi": [0.31, 0.22], "ppi_low": [0.27, 0.18], "ppi_high": [0.35, 0.26],
                          "automatic": [0.9, 0.8], "automatic_low": [0.88, 0.77], "automatic_high": [0.92, 0.83]})
    fig = figures.interval_chart(frame, "nDCG@10", "<llm>")
    assert [t.name for t in fig.data] == ["the reference only", "prediction-powered", "&lt;llm&gt; only"]
    for trace, column in zip(fig.data, ("human", "ppi", "automatic")):
        assert list(trace.x) == list(frame[column])
        assert np.allclose(np.asarray(trace.error_x.array), frame[f"{column}_high"] - frame[column])
        assert np.allclose(np.asarray(trace.error_x.arrayminus), frame[column] - frame[f"{column}_low"])
    assert [name for name, _ in figures.INTERVALS] == ["human", "ppi", "automatic"]
