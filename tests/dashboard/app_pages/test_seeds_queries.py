"""Systems of several runs on the queries page: each topic's seed range, as a figure (tested as data) and a table
(checked against a textbook loop over the runs' per-topic values)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dashboard import figures
from metrics import evaluate
from tests.dashboard.conftest import errors, open_page, upload


def test_seed_range_chart_draws_a_dot_at_the_mean_and_a_bar_from_lowest_to_highest():
    ranges = pd.DataFrame({"system": ["dense", "dense", "<b>bm25</b>", "<b>bm25</b>", "dense"],
                           "query": ["1", "2", "1", "2", "1"], "measure": ["AP", "AP", "AP", "AP", "P@5"],
                           "runs": [3, 3, 2, 2, 3], "value": [0.5, 0.2, 0.4, 0.1, 0.9],
                           "low": [0.4, 0.2, 0.3, 0.0, 0.8], "high": [0.7, 0.3, 0.4, 0.25, 1.0]})
    fig = figures.seed_range_chart(ranges, "AP", {"dense": "#123456"})
    assert [t.name for t in fig.data] == ["dense", "&lt;b&gt;bm25&lt;/b&gt;"]  # user text escaped
    dense, bm25 = fig.data
    assert list(dense.x) == ["1", "2"] and list(dense.y) == [0.5, 0.2]
    assert list(dense.error_y.array) == pytest.approx([0.2, 0.1])  # up to the highest run
    assert list(dense.error_y.arrayminus) == pytest.approx([0.1, 0.0])  # down to the lowest
    assert list(bm25.error_y.array) == pytest.approx([0.0, 0.15])
    assert list(bm25.error_y.arrayminus) == pytest.approx([0.1, 0.1])
    assert [row[2] for row in dense.customdata] == [3, 3]
    assert dense.marker.color == "#123456"
    assert list(fig.layout.xaxis.categoryarray) == ["1", "2"]
    assert "widest range: dense on topic 1 (0.3000" in fig.layout.meta["summary"]


def _files(rng):
    qrels = "".join(f"{q} 0 d{d} {int(rng.integers(0, 3) * (rng.random() < 0.4))}\n"
                    for q in range(8) for d in range(10)).encode()
    runs = [(f"{s}.seed{i}.run", "".join(f"{q} Q0 d{d} 0 {rng.random() + skill * (d % 3 == 0):.6f} x\n"
                                         for q in range(8) for d in range(10)).encode(), "text/plain")
            for s, skill in (("bm25", 0.0), ("dense", 0.5)) for i in (1, 2, 3)]
    return qrels, runs


def test_the_queries_page_shows_each_topics_seed_range():
    qrels, runs = _files(np.random.default_rng(11))
    at = open_page("data")
    upload(at, "Qrels", ("s.qrels", qrels, "text/plain"))
    upload(at, "Runs", runs)
    at = open_page("queries", at=at)
    assert errors(at) == []
    assert any(h.value == "Seed ranges, topic by topic" for h in at.subheader)
    [shown] = [d.value for d in at.dataframe if "lowest" in d.value.columns]
    measure = at.selectbox(key="measure").value
    # the textbook loop: each system's runs, topic by topic
    per_query = evaluate(qrels.decode(), {name[:-4]: data.decode() for name, data, _ in runs}, [measure])
    values: dict[tuple[str, str], list[float]] = {}
    for run, query, value in zip(per_query["system"], per_query["query"], per_query["value"]):
        values.setdefault((run.split(".")[0], str(query)), []).append(value)
    assert len(shown) == len(values) == 16
    for row in shown.itertuples(index=False):
        seeds = values[(row.system, str(row.topic))]
        assert row.runs == len(seeds) == 3
        assert row.mean == pytest.approx(sum(seeds) / len(seeds), abs=1e-12)
        assert row.lowest == min(seeds) and row.highest == max(seeds)
    assert any(row.lowest < row.highest for row in shown.itertuples())  # the seeds do differ


def test_runs_without_seeds_show_no_seed_ranges():
    qrels, runs = _files(np.random.default_rng(12))
    at = open_page("data")
    upload(at, "Qrels", ("s.qrels", qrels, "text/plain"))
    upload(at, "Runs", [(f"{name.split('.')[0]}{name.split('.')[1]}.run", data, kind) for name, data, kind in runs[:2]])
    at = open_page("queries", at=at)
    assert errors(at) == []
    assert not any(h.value == "Seed ranges, topic by topic" for h in at.subheader)
