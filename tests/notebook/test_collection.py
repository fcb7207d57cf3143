"""The notebook API: runs as files and as PyTerrier's or ir_measures' frames give the numbers of
metrics.evaluate on the files, and the figures are the dashboard's builders drawn on those numbers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import metrics
from metrics import ValidationError

pytest.importorskip("plotly", reason="the notebook's figures need the dashboard extra (plotly)")

from dashboard import figures  # noqa: E402
from rankscope.notebook import FIGURES, Collection  # noqa: E402

DEMO = Path(__file__).resolve().parents[2] / "sample_data" / "demo"
QRELS = DEMO / "qrels.txt"
RUNS = [DEMO / "runs" / "bm25.run.gz", DEMO / "runs" / "ties_missing.run.gz"]
MEASURES = ["AP", "nDCG@10", "P(rel=2)@5", "RR", "num_rel_ret"]


@pytest.fixture(scope="module")
def files():
    return Collection(QRELS, RUNS, measures=MEASURES)


@pytest.fixture(scope="module")
def expected():
    return metrics.evaluate(QRELS, RUNS, MEASURES)


def test_files_give_metrics_evaluate_and_summarise(files, expected):
    assert files.systems == ("bm25", "ties_missing")  # named by the readers' rule
    pd.testing.assert_frame_equal(files.per_query(), expected)
    pd.testing.assert_frame_equal(files.summary().drop(columns="marker"), metrics.summarise(expected))
    pd.testing.assert_frame_equal(files.per_query("AP"), expected[expected["measure"] == "AP"].reset_index(drop=True))


def test_pyterrier_and_ir_measures_frames_give_the_same_numbers(expected):
    qrels = metrics.read_qrels(QRELS).frame
    runs = {metrics.system_name(p.name): metrics.read_run(p).frame for p in RUNS}
    pyterrier = {name: pd.DataFrame({"qid": f["query"], "docid": np.arange(len(f)), "docno": f["docid"],
                                     "score": f["score"], "rank": f.groupby("query").cumcount(), "query": "words"})
                 for name, f in runs.items()}
    ir_measures = {name: f.rename(columns={"query": "query_id", "docid": "doc_id"})[["query_id", "doc_id", "score"]]
                   for name, f in runs.items()}
    by_pyterrier = Collection(qrels.rename(columns={"query": "qid", "docid": "docno", "relevance": "label"}),
                              pyterrier, measures=MEASURES)
    by_ir_measures = Collection(qrels.rename(columns={"query": "query_id", "docid": "doc_id"}), ir_measures,
                                measures=MEASURES)
    for nb in (by_pyterrier, by_ir_measures):
        pd.testing.assert_frame_equal(nb.per_query(), expected)


def test_figures_are_the_dashboards_builders_on_the_same_numbers(files, expected):
    assert set(FIGURES) == {"summary", "distribution", "topics", "pr", "at_k"}
    colors = figures.system_colors(files.systems)
    mine = files.figure("summary", measure="nDCG@10")
    theirs = figures.summary_chart(metrics.summarise(expected[expected["measure"] == "nDCG@10"]), "nDCG@10", colors)
    assert [list(t.x) for t in mine.data] == [list(t.x) for t in theirs.data]
    means = metrics.aggregate(expected)
    want = means[means["measure"] == "nDCG@10"].set_index("system")["value"]
    drawn = {t.name: t.x[0] for t in mine.data}
    assert drawn == pytest.approx(want.to_dict(), abs=1e-12)
    bars = files.figure("topics", measure="AP")
    pair = files.compare("bm25", "ties_missing", "AP")
    wide = expected[expected["measure"] == "AP"].pivot(index="query", columns="system", values="value")
    common = wide.dropna()
    assert len(pair) == len(common)
    assert pair.set_index("query")["diff"].to_dict() == pytest.approx(
        (common["ties_missing"] - common["bm25"]).to_dict(), abs=1e-12)
    assert sum(len(t.x) for t in bars.data) == len(pair)
    boxes = files.figure("distribution", measure="RR")
    for trace in boxes.data:  # every topic's value in its system's box
        want = expected[(expected["measure"] == "RR") & (expected["system"] == trace.name)]["value"]
        assert sorted(trace.y) == pytest.approx(sorted(want), abs=1e-12)
    points = metrics.aggregate(metrics.evaluate(QRELS, RUNS, "iprec_at_recall"))  # trec_eval's 11 measures
    for trace in files.figure("pr").data:
        want = points[points["system"] == trace.name]["value"].to_numpy()
        assert list(trace.x) == pytest.approx(np.linspace(0, 1, 11)) and list(trace.y) == pytest.approx(want, abs=1e-12)
    at_k = files.figure("at_k", depth=20).data
    assert [t.name for t in at_k] == ["bm25", "bm25", "ties_missing", "ties_missing"] and len(at_k[0].x) == 20
    p_at = metrics.aggregate(metrics.evaluate(QRELS, RUNS, ["P@5", "P@20"])).set_index(["system", "measure"])["value"]
    assert at_k[0].y[4] == pytest.approx(p_at["bm25", "P@5"], abs=1e-12)
    assert at_k[2].y[19] == pytest.approx(p_at["ties_missing", "P@20"], abs=1e-12)
    assert "topic 401" in files.figure("pr", topic="401").layout.title.text


def test_bad_arguments_get_one_line():
    frame = metrics.read_run(RUNS[0]).frame
    cases = [
        (lambda: Collection(QRELS, [frame]), "a run given as DataFrame has no name: give the runs as a mapping"),
        (lambda: Collection(QRELS, []), "no runs given"),
        (lambda: Collection(QRELS, [RUNS[0], RUNS[0]]), "two runs are both called 'bm25'"),
        (lambda: Collection(QRELS, {"x": frame.rename(columns={"docid": "doc"})}),
         "x: expected the columns of a run frame"),
        (lambda: Collection(QRELS, RUNS).figure("bars"), "figure: expected one of summary, distribution"),
        (lambda: Collection(QRELS, RUNS).figure("pr", topic="nope"), "no topic 'nope'"),
        (lambda: Collection(QRELS, RUNS).compare("bm25", "dense"), "expected a system of"),
    ]
    for call, start in cases:
        with pytest.raises(metrics.RankscopeError) as err:
            call()
        assert str(err.value).startswith(start) and "\n" not in str(err.value), str(err.value)
    assert isinstance(err.value, ValidationError)
