"""The Trust page (tie ranges, judged share and residual gap, risk against a baseline), the provenance card on
every page and the cautions, headless (AppTest) and as figure data; every number against ``metrics`` or a
textbook loop written here."""

from __future__ import annotations

import base64
import itertools
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

pytest.importorskip("streamlit", reason="the dashboard extra (streamlit) is not installed")
from streamlit.testing.v1 import AppTest  # noqa: E402

import metrics  # noqa: E402
from dashboard import figures  # noqa: E402
from dashboard.data import leaderboard  # noqa: E402
from dashboard.pages import listed  # noqa: E402
from metrics.review.cautions import comparison_cautions  # noqa: E402
from metrics.review.provenance import build_provenance, provenance_of  # noqa: E402
from metrics.stats.risk import risk_table  # noqa: E402
from metrics.stats.ties import tie_flips, tie_ranges, tie_summary  # noqa: E402
from tests.dashboard.conftest import errors, new_app, open_page, unescaped, upload  # noqa: E402
from tests.paths import ROOT  # noqa: E402

# three topics; "tied" scores whole groups equally (x and y unjudged), "sharp" has no ties, "holes" ranks
# unjudged documents (z, u, w) and ties e and g
QRELS = b"1 0 a 1\n1 0 b 0\n1 0 c 1\n1 0 d 0\n2 0 e 2\n2 0 f 0\n2 0 g 1\n3 0 h 1\n3 0 i 0\n"
RUNS = {
    "tied": b"1 Q0 a 1 1.0 t\n1 Q0 b 2 1.0 t\n1 Q0 c 3 1.0 t\n1 Q0 d 4 1.0 t\n1 Q0 x 5 1.0 t\n"
            b"2 Q0 e 1 2.0 t\n2 Q0 f 2 1.0 t\n2 Q0 g 3 1.0 t\n2 Q0 y 4 0.5 t\n3 Q0 h 1 1.0 t\n3 Q0 i 2 1.0 t\n",
    "sharp": b"1 Q0 b 1 4 s\n1 Q0 a 2 3 s\n1 Q0 c 3 2 s\n1 Q0 d 4 1 s\n2 Q0 f 1 3 s\n2 Q0 e 2 2 s\n2 Q0 g 3 1 s\n"
             b"3 Q0 i 1 2 s\n3 Q0 h 2 1 s\n",
    "holes": b"1 Q0 z 1 3 h\n1 Q0 a 2 2 h\n1 Q0 c 3 1 h\n2 Q0 e 1 1 h\n2 Q0 g 2 1 h\n2 Q0 u 3 0.5 h\n"
             b"3 Q0 h 1 3 h\n3 Q0 w 2 2 h\n3 Q0 i 3 1 h\n",
}
MEASURES = ["RR", "P@2"]
# the pages of the navigation that show no provenance card on the demo collection: no numbers of a comparison on the
# data and learn pages; one judgment set, so the judges page stops before its numbers
NO_CARD = {"data", "learn", "judges"}


def _texts() -> tuple[str, dict[str, str]]:
    return QRELS.decode(), {name: run.decode() for name, run in RUNS.items()}


def crafted(query: dict | None = None) -> AppTest:
    """The crafted collection loaded through the data page (the runs in the order of RUNS)."""
    at = open_page("data", query)
    upload(at, "Qrels", ("tiny.qrels", QRELS, "text/plain"))
    upload(at, "Runs", [(f"{name}.run", data, "text/plain") for name, data in RUNS.items()])
    assert errors(at) == []
    return at


def frame_with(at: AppTest, *columns: str) -> pd.DataFrame:
    """The one table shown with all of ``columns``."""
    found = [df.value for df in at.dataframe if set(columns) <= set(df.value.columns)]
    assert len(found) == 1, [list(df.value.columns) for df in at.dataframe]
    return found[0]


def array(value) -> np.ndarray:
    """A chart's array as the browser reads it: a list, or plotly's typed array (``{"dtype", "bdata"}``)."""
    if isinstance(value, dict):
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
    return np.asarray(value)


def captions(at: AppTest) -> list[str]:
    return [c.value.replace("\\", "") for c in at.caption]


# ---- textbook loops ----------------------------------------------------------------------------------------
def _grades() -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for line in QRELS.decode().splitlines():
        q, _, d, g = line.split()
        out.setdefault(q, {})[d] = int(g)
    return out


def _ranked(run: bytes) -> dict[str, list[list[str]]]:
    """Each topic's documents as groups of equal score, best score first."""
    rows: dict[str, dict[float, list[str]]] = {}
    for line in run.decode().splitlines():
        q, _, d, _, score, _ = line.split()
        rows.setdefault(q, {}).setdefault(float(score), []).append(d)
    return {q: [groups[s] for s in sorted(groups, reverse=True)] for q, groups in rows.items()}


def _rr(docs, grades) -> float:
    return next((1.0 / i for i, d in enumerate(docs, 1) if grades.get(d, 0) >= 1), 0.0)


def _p2(docs, grades) -> float:
    return sum(grades.get(d, 0) >= 1 for d in docs[:2]) / 2


def slow_tie_bounds(run: bytes, measure) -> tuple[float, float]:
    """The least and greatest mean over every order of every tie group, by enumeration."""
    grades, lows, highs = _grades(), [], []
    for q, groups in sorted(_ranked(run).items()):
        values = [measure([d for g in order for d in g], grades.get(q, {}))
                  for order in itertools.product(*(itertools.permutations(g) for g in groups))]
        lows.append(min(values))
        highs.append(max(values))
    return float(np.mean(lows)), float(np.mean(highs))


# ---- figures as data ---------------------------------------------------------------------------------------
def _summary() -> pd.DataFrame:
    qrels, runs = _texts()
    return tie_summary(tie_ranges(qrels, runs, [*MEASURES, "Precision_resid@2"], inexact="nan"))


def test_tie_range_chart_draws_one_trace_per_system_and_measure_with_its_bounds():
    summary = _summary()
    measures = [*MEASURES, "Precision_resid@2"]
    fig = figures.tie_range_chart(summary, measures, figures.system_colors(list(RUNS)))
    assert len(fig.data) == len(RUNS) * len(measures) == 9
    assert [a.text for a in fig.layout.annotations] == measures
    by_measure = summary.iloc[np.argsort(summary["measure"].map(measures.index).to_numpy(), kind="stable")]
    for trace, row in zip(fig.data, by_measure.itertuples()):
        assert trace.y == (row.system,) and trace.x == (row.reported,)
        if row.measure == "Precision_resid@2":  # no exact bounds: no bar
            assert trace.error_x.array is None
        else:
            assert trace.error_x.array[0] == pytest.approx(row.high - row.reported)
            assert trace.error_x.arrayminus[0] == pytest.approx(row.reported - row.low)
    tied = summary[(summary["system"] == "tied") & (summary["measure"] == "RR")].iloc[0]
    assert (tied.low, tied.high) == pytest.approx(slow_tie_bounds(RUNS["tied"], _rr))


def test_judged_residual_chart_draws_two_traces_per_system():
    frame = pd.DataFrame({"system": ["a", "a", "b<i>", "b<i>"], "query": ["1", "2", "1", "2"],
                          "value": [0.5, 0.0, 0.25, 1.0], "residual": [1.0, 0.5, 0.25, 1.0],
                          "gap": [0.5, 0.5, 0.0, 0.0], "judged": [0.5, 0.5, 1.0, 1.0]})
    fig = figures.judged_residual_chart(frame, {"a": "#000", "b<i>": "#111"}, "P@2", "Precision_resid@2",
                                              "Judged@2")
    assert len(fig.data) == 4
    assert [t.type for t in fig.data] == ["scatter", "bar", "scatter", "bar"]
    assert list(fig.data[1].y) == [0.5, 0.5] and list(fig.data[2].y) == [1.0, 1.0]
    assert fig.data[2].legendgroup == "b&lt;i&gt;"  # user text escaped


def _risk_rows() -> pd.DataFrame:
    qrels, runs = _texts()
    return risk_table(metrics.evaluate(qrels, runs, ["P@2"]), "sharp", 1.0, ["P@2"])


def test_risk_chart_has_one_bar_trace_per_panel_and_colours_the_flags():
    rows = _risk_rows()
    fig = figures.risk_chart(rows, "P@2")
    assert len(fig.data) == len(figures.RISK_PANELS) == 3
    for trace, (column, _) in zip(fig.data, figures.RISK_PANELS):
        np.testing.assert_allclose(np.asarray(trace.x, dtype=float), rows[column].to_numpy(dtype=float))
    flagged = rows.assign(flag=["riskier", "safer"])
    colors = figures.risk_chart(flagged, "P@2").data[1].marker.color
    assert list(colors) == [figures.WORSE, figures.BETTER]
    lines = sorted(shape.x0 for shape in fig.layout.shapes)  # the critical values of the topics, not ±2
    assert lines == pytest.approx([-rows["t_critical"].iloc[0], rows["t_critical"].iloc[0]])
    assert lines[1] == pytest.approx(stats.t.ppf(0.975, rows["n"].iloc[0] - 1))


def test_risk_topics_chart_always_has_wins_ties_and_losses():
    frame = pd.DataFrame({"query": ["1", "2", "3"], "delta": [0.5, 0.0, -0.25], "adjusted": [0.5, 0.0, -0.5]})
    fig = figures.risk_topics_chart(frame, "a", "b", "P@2")
    assert [t.name for t in fig.data] == ["win", "tie", "loss, weighted"]
    assert [list(t.y) for t in fig.data] == [[0.5], [0.0], [-0.5]]
    empty = figures.risk_topics_chart(frame.iloc[:1], "a", "b", "P@2")
    assert len(empty.data) == 3 and [len(t.x) for t in empty.data] == [1, 0, 0]


def test_the_leaderboards_tie_column_shows_the_range_and_the_systems_it_could_flip_with():
    summary = _summary()
    flips = tie_flips(summary)
    qrels, runs = _texts()
    table = metrics.review.compare.summary_table(None, metrics.summarise(metrics.evaluate(qrels, runs, MEASURES)))
    column = leaderboard.tie_ranges(summary, flips)(table, None)
    assert list(column.columns) == [f"{m} ties" for m in MEASURES]
    assert list(column.index) == list(RUNS)
    for measure in MEASURES:
        for system in RUNS:
            row = summary[(summary["system"] == system) & (summary["measure"] == measure)].iloc[0]
            text = column.loc[system, f"{measure} ties"]
            partners = flips[(flips["measure"] == measure) & ((flips["first"] == system) | (flips["second"] == system))]
            assert ("⇅" in text) == (len(partners) > 0), (system, measure, text)
            if row.low == row.high:
                assert text.startswith("no effect")
            else:
                assert text.startswith(f"[{row.low:.4f}, {row.high:.4f}]")


# ---- the page ----------------------------------------------------------------------------------------------
def test_trust_page_renders_on_the_demo_collection():
    at = open_page("trust")
    assert errors(at) == []
    assert at.title[0].value == "Trust"
    assert len(at.get("plotly_chart")) == 4  # tie ranges, judged and residual, risk, topics won and lost
    summary = frame_with(at, "low", "reported", "high")
    from sample_data import demo_paths

    qrels, runs = demo_paths()
    expected = tie_summary(tie_ranges(qrels, runs, list(metrics.DEFAULT_MEASURES), inexact="nan"))
    merged = expected.merge(summary, on=["system", "measure"], suffixes=("", "_shown"))
    assert len(merged) == len(expected) == 6 * len(metrics.DEFAULT_MEASURES)
    for column in ("low", "reported", "high"):
        np.testing.assert_allclose(merged[f"{column}_shown"], merged[column], equal_nan=True)


def test_trust_page_on_a_collection_with_ties_shows_the_ranges_and_the_flips():
    query = {"measures": MEASURES, "measure": "P@2", "baseline": "sharp"}
    at = crafted(query)
    open_page("trust", at=at)
    assert errors(at) == []
    qrels, runs = _texts()
    expected = tie_summary(tie_ranges(qrels, runs, MEASURES, inexact="nan"))
    shown = frame_with(at, "low", "reported", "high")
    pd.testing.assert_frame_equal(shown.reset_index(drop=True), expected, check_dtype=False)
    for name, measure in (("RR", _rr), ("P@2", _p2)):  # against enumeration of every order of the ties
        row = shown[(shown["system"] == "tied") & (shown["measure"] == name)].iloc[0]
        assert (row.low, row.high) == pytest.approx(slow_tie_bounds(RUNS["tied"], measure)), name
    flips = frame_with(at, "first", "second", "first_low")
    pd.testing.assert_frame_equal(flips.reset_index(drop=True), tie_flips(expected), check_dtype=False)
    assert len(flips) > 0 and any("could change order" in w.value for w in at.warning)
    assert any(c.startswith("Provenance: ") and "ties range" in c for c in captions(at))


def test_trust_page_judged_share_and_residual_gap_per_topic():
    at = crafted({"measures": MEASURES, "measure": "P@2", "baseline": "sharp"})
    open_page("trust", at=at)
    shown = frame_with(at, "residual", "gap", "judged")
    grades = _grades()
    assert len(shown) == 3 * len(RUNS)
    for row in shown.itertuples():  # the page's order of tied scores is trec_eval's: score, then docid descending
        lines = [line.split() for line in RUNS[row.system].decode().splitlines() if line.split()[0] == row.query]
        docs = [d for _, _, d, _, _, _ in sorted(lines, key=lambda r: (-float(r[4]), [-ord(c) for c in r[2]]))]
        top = docs[:2]
        judged = sum(d in grades[row.query] for d in top) / 2
        p = sum(grades[row.query].get(d, 0) >= 1 for d in top) / 2
        resid = sum(grades[row.query].get(d, 1) >= 1 for d in top) / 2  # unjudged counted relevant
        assert (row.judged, row.value, row.residual, row.gap) == pytest.approx((judged, p, resid, resid - p))


def test_trust_page_risk_equals_metrics_risk_and_a_textbook_urisk():
    at = crafted({"measures": MEASURES, "measure": "P@2"})
    open_page("trust", at=at)
    at.selectbox(key="baseline").select("sharp")
    at.run()
    assert errors(at) == []
    shown = frame_with(at, "urisk", "trisk", "georisk")
    qrels, runs = _texts()
    per_query = metrics.evaluate(qrels, runs, ["P@2"])
    expected = risk_table(per_query, "sharp", 1.0, ["P@2"])
    pd.testing.assert_frame_equal(shown.reset_index(drop=True), expected, check_dtype=False)
    said = unescaped(" ".join(c.value for c in at.caption))
    assert f"two-sided p-value is below 0.05: here |TRisk| beyond {stats.t.ppf(0.975, 2):.2f}, with 3 topics" in said
    assert "number of losses times 1 + α = 2" in said
    wide = per_query.pivot(index="query", columns="system", values="value")
    for system in ("tied", "holes"):
        delta = wide[system] - wide["sharp"]
        slow = sum(d if d >= 0 else 2 * d for d in delta) / len(delta)  # alpha = 1: a loss counts twice
        assert shown.set_index("system").loc[system, "urisk"] == pytest.approx(slow)
    topics = json.loads(at.get("plotly_chart")[3].proto.spec)  # the topics of "tied", the first other system
    bars = {t["name"]: array(t.get("y", [])).tolist() for t in topics["data"]}
    tied = (wide["tied"] - wide["sharp"]).sort_values(ascending=False)
    assert bars == {"win": [d for d in tied if d > 0], "tie": [d for d in tied if d == 0],
                    "loss, weighted": [2 * d for d in tied if d < 0]}


def _expected_cards() -> dict[str, str]:
    from sample_data import demo_paths

    qrels, runs = demo_paths()
    conventions = metrics.Conventions()
    tested = {"test": "t", "correction": "holm", "family": "per_measure"}

    def card(measures, settings=None, ties="docid"):
        return provenance_of(metrics.evaluate(qrels, runs, list(measures)), conventions, list(measures), settings,
                             ties=ties).compact()

    return {"overview": card(metrics.DEFAULT_MEASURES, tested),
            "curves": build_provenance(conventions, ()).compact(),
            "gain": card(["nDCG@10"]), "queries": card(["AP"]), "significance": card(["AP"], tested),
            "agreement": card(metrics.DEFAULT_MEASURES), "repro": card(metrics.DEFAULT_MEASURES),
            "trust": card(metrics.DEFAULT_MEASURES, ties="range"), "report": card(metrics.DEFAULT_MEASURES, tested)}


def test_every_page_with_numbers_shows_its_provenance_card():
    expected = _expected_cards()
    pages = [p.script for p in listed(stored=False)]  # the navigation's order, from the page table
    assert set(expected) | NO_CARD == set(pages)  # a new page is checked here once its card is written above
    at = new_app()
    at.run()
    for page in (p for p in pages if p in expected):  # the overview's chart picks AP, and the measure follows
        open_page(page, at=at)
        assert errors(at) == [], page
        cards = [c for c in captions(at) if c.startswith("Provenance: ")]
        assert cards and cards[0] == "Provenance: " + expected[page], page
    assert "topics 50" in expected["overview"] and "test t, holm per measure" in expected["overview"]


@pytest.mark.parametrize("page", ["overview", "significance"])
def test_cautions_are_shown_as_text_on_a_crafted_comparison(page):
    at = crafted({"measures": MEASURES, "measure": "RR", "test": "t-test", "correction": "none",
                  "baseline": "sharp", "compare": "against a baseline"})
    open_page(page, at=at)
    assert errors(at) == []
    qrels, runs = _texts()
    measures = MEASURES if page == "overview" else ["RR"]
    tested = metrics.stats.significance.compare_systems(metrics.evaluate(qrels, runs, measures), measures=measures,
                                                  test="t", baseline="sharp", correction="none")
    expected = comparison_cautions(metrics.resolve_measures(measures), test="t", correction="none",
                                   tests=len(tested.frame), topics=3, gain_stated=True)
    assert {c.code for c in expected} == {"parametric-ordinal", "uncorrected"}
    shown = [i.value.replace("\\", "") for i in at.info]
    for caution in expected:
        assert caution.sentence in shown, caution.code


def test_the_summary_csv_carries_the_provenance_card():
    from dashboard import exports

    card = build_provenance(metrics.Conventions(depth=100), metrics.resolve_measures(["AP"]), topics={"AP": 3})
    frame = pd.DataFrame({"system": ["a#1", "b"], "measure": ["AP", "AP"], "value": [0.5, math.pi]})
    data = exports.summary_csv(frame, card)
    assert data.decode().splitlines()[0] == "# provenance: " + card.compact()
    import io

    pd.testing.assert_frame_equal(pd.read_csv(io.BytesIO(data), skiprows=1), frame)


@pytest.mark.parametrize("example", ["flagr8", "graded10", "lecture", "mrr3"])
def test_trust_page_on_each_worked_example(example):
    at = open_page("data")
    at.selectbox(key="data_example").select(example)
    at.run()
    at.button(key="data_load_example").click()
    at.run()
    open_page("trust", at=at)
    assert errors(at) == [], example
    assert len(at.get("plotly_chart")) >= 2, example  # the tie ranges and the judged share at least


def test_a_measure_without_a_residual_says_so_and_the_rest_still_renders():
    at = open_page("trust", {"measures": ["R@100", "AP"]})
    at.selectbox(key="measure").select("R@100")
    at.run()
    assert errors(at) == []
    assert any("R@100 has no residual measure" in i.value.replace("\\", "") for i in at.info)
    assert len(at.get("plotly_chart")) == 3  # tie ranges, risk, topics won and lost
