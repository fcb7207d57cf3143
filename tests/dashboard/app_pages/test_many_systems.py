"""A dashboard for 100+ systems: the leaderboard (search, top N, sort, baseline first) against a textbook loop,
the highlighting of charts (colour, grey and legend entries counted exactly), the pairwise matrix against
scipy and statsmodels, and the overview and significance pages with 120 generated systems (AppTest)."""

from __future__ import annotations

import base64
import json

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("plotly", reason="the dashboard extra (plotly) is not installed")
from dashboard import figures
from dashboard.data import leaderboard
from metrics import summarise
from metrics.review.compare import summary_table
from metrics.stats.significance import compare_systems
from tests.dashboard.app_pages.many_systems import SYSTEMS, system_names, collection
from tests.dashboard.conftest import errors, new_app

MEASURES = ("AP", "P@10")


def _per_query(n: int, seed: int, queries: int = 12) -> pd.DataFrame:
    """Per-query values of ``n`` systems of varied quality; every fourth system repeats the one before (ties)."""
    rng = np.random.default_rng(seed)
    names = system_names(n)
    rows = []
    previous = None
    for i, system in enumerate(names):
        values = np.clip(rng.random((len(MEASURES), queries)) * 0.6 + rng.random() * 0.4, 0, 1)
        if i % 4 == 3:
            values = previous
        previous = values
        for k, measure in enumerate(MEASURES):
            rows += [(system, str(q), measure, float(values[k, q])) for q in range(queries)]
    return pd.DataFrame(rows, columns=["system", "query", "measure", "value"])


def _table(per_query: pd.DataFrame, baseline: str | None):
    tested = compare_systems(per_query, measures=list(MEASURES), test="t", baseline=baseline, correction="holm",
                             alpha=0.05) if baseline else None
    return summary_table(tested, summarise(per_query), baseline=baseline)


def _textbook_means(per_query: pd.DataFrame, measure: str) -> dict[str, float]:
    sums: dict[str, list[float]] = {}
    for system, m, value in zip(per_query["system"], per_query["measure"], per_query["value"]):
        if m == measure:
            sums.setdefault(system, []).append(value)
    return {s: sum(v) / len(v) for s, v in sums.items()}


def _textbook_board(per_query, measure, baseline, search, top, worst_first) -> list[str]:
    """AP and P@10: higher is better; equal means by name."""
    means = _textbook_means(per_query, measure)
    order = sorted(means, key=lambda name: ((means[name] if worst_first else -means[name]), name))
    kept = []
    for name in order:
        if name != baseline and search.lower() in name.lower():
            kept.append(name)
    if top is not None:
        kept = kept[:top]
    return ([baseline] if baseline else []) + kept


# ---- the leaderboard --------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(4))
def test_the_leaderboard_filters_sorts_cuts_and_pins_the_baseline_as_a_textbook_loop_does(seed):
    per_query = _per_query(40, seed)
    rng = np.random.default_rng(100 + seed)
    names = system_names(40)
    baseline = names[int(rng.integers(0, 40))]
    table = _table(per_query, baseline)
    cases = [("", None, None, False), ("", 5, "P@10", False), ("dense", 3, "AP", False), ("DENSE", None, "AP", True),
             ("a.b", 4, None, False), ("no such system", 10, None, False), ("", 0, None, False),
             (names[7][:6].upper(), 2, "P@10", True)]
    for search, top, sort_by, worst_first in cases:
        board = leaderboard.leaderboard(table, baseline=baseline, search=search, top=top, sort_by=sort_by,
                                        worst_first=worst_first)
        expected = _textbook_board(per_query, sort_by or MEASURES[0], baseline, search, top, worst_first)
        assert board["system"].tolist() == expected, (search, top, sort_by, worst_first)
        assert list(board.columns) == ["system", *MEASURES]
        for measure in MEASURES:  # each cell starts with the mean to 4 decimals
            means = _textbook_means(per_query, measure)
            assert [c.split()[0].rstrip("†‡") for c in board[measure]] == [f"{means[s]:.4f}" for s in expected]


def test_ties_are_by_name_and_the_baseline_stays_first_when_the_search_misses_it():
    per_query = _per_query(8, 3)
    names = system_names(8)
    table = _table(per_query, names[5])
    means = _textbook_means(per_query, "AP")
    assert means[names[3]] == means[names[2]] and means[names[7]] == means[names[6]]  # the generated ties
    order = leaderboard.ranked(table, "AP")
    for a, b in ((names[2], names[3]), (names[6], names[7])):
        assert abs(order.index(a) - order.index(b)) == 1 and order.index(min(a, b)) < order.index(max(a, b))
    board = leaderboard.leaderboard(table, baseline=names[5], search="splade")
    assert board["system"].tolist() == [names[5]] + [s for s in order if "splade" in s.lower() and s != names[5]]
    assert not any("splade" in s.lower() for s in [names[5]])


def test_differences_are_to_the_baseline_and_a_new_column_is_one_provider():
    per_query = _per_query(30, 5)
    names = system_names(30)
    baseline = names[4]
    table = _table(per_query, baseline)
    board = leaderboard.leaderboard(table, baseline=baseline, top=6, columns=leaderboard.DIFFERENCES)
    for measure in MEASURES:
        means = _textbook_means(per_query, measure)
        np.testing.assert_allclose(board[measure], [means[s] - means[baseline] for s in board["system"]],
                                   atol=1e-12)
    assert board.loc[0, "system"] == baseline and (board.iloc[0, 1:] == 0).all()

    def topics(table, baseline):  # what another column needs: a frame indexed by system
        return pd.DataFrame({"topics": [int(per_query[per_query["system"] == s]["query"].nunique())
                                        for s in table.values.index]}, index=table.values.index)

    board = leaderboard.leaderboard(table, baseline=baseline, search="bm25",
                                    columns=(*leaderboard.COLUMNS, topics))
    assert list(board.columns) == ["system", *MEASURES, "topics"]
    assert board["topics"].tolist() == [12] * len(board)


def test_without_a_baseline_the_board_is_the_sorted_systems_and_bad_arguments_raise():
    per_query = _per_query(12, 9)
    table = _table(per_query, None)
    assert leaderboard.leaderboard(table)["system"].tolist() == _textbook_board(per_query, "AP", None, "", None, False)
    assert leaderboard.leaderboard(table, columns=leaderboard.DIFFERENCES)[list(MEASURES)].isna().all().all()
    with pytest.raises(ValueError, match="top"):
        leaderboard.leaderboard(table, top=-1)
    with pytest.raises(KeyError, match="nDCG"):
        leaderboard.ranked(table, "nDCG@10")


def test_rows_of_keeps_the_order_asked_for():
    per_query = _per_query(10, 2)
    means = summarise(per_query)
    wanted = system_names(10)[::-3]
    rows = leaderboard.rows_of(means, wanted)
    assert list(dict.fromkeys(rows["system"])) == wanted
    assert len(rows) == len(wanted) * len(MEASURES)


# ---- highlighting -----------------------------------------------------------------------------------------
def legend_entries(fig) -> int:
    """Entries plotly draws in the legend: traces not hidden from it (heatmaps never are in it)."""
    if fig.layout.showlegend is False:
        return 0
    return sum(1 for t in fig.data if t.showlegend is not False and t.type != "heatmap" and t.name)


def _curves(n: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    names = system_names(n)
    levels = np.round(np.linspace(0, 1, 11), 1)
    points = pd.DataFrame([(s, r, float(p)) for s in names for r, p in zip(levels, np.sort(rng.random(11))[::-1])],
                          columns=["system", "recall", "iprec"])
    raw = pd.DataFrame([(s, k, (k % 5) / 5, 1 / k, f"d{k}", float(k % 3)) for s in names for k in range(1, 6)],
                       columns=["system", "rank", "recall", "precision", "docid", "grade"])
    envelope = raw.rename(columns={"precision": "iprec"})[["system", "recall", "iprec"]]
    at_k = pd.DataFrame([(s, k, 1 / k, k / 10) for s in names for k in range(1, 11)],
                        columns=["system", "k", "precision", "recall"])
    gain = pd.DataFrame([(s, k, k * 0.5, k * 1.0, 0.5) for s in names for k in range(1, 11)],
                        columns=["system", "k", "dcg", "idcg", "ndcg"])
    rules = pd.DataFrame([(s, rule, float(rng.random())) for s in names for rule in ("trec_eval-9", "textbook")],
                         columns=["system", "rule", "11pt_avg"])
    per_query = _per_query(n, seed)
    return {"points": points, "raw": raw, "envelope": envelope, "at_k": at_k, "gain": gain, "rules": rules,
            "per_query": per_query, "summary": summarise(per_query)}


def _builders(frames, colors, highlighted):
    return {
        "eleven": (figures.eleven_point_chart(frames["points"], colors, "t", highlighted=highlighted), 1, 0),
        "pr": (figures.pr_chart(frames["raw"], frames["envelope"], colors, "t", frames["points"],
                                highlighted=highlighted), 3, 3),
        "at_k": (figures.at_k_chart(frames["at_k"], colors, "t", highlighted=highlighted), 2, 0),
        "gain": (figures.gain_chart(frames["gain"], colors, "t", highlighted=highlighted), 2, 1),
        "distribution": (figures.distribution_chart(frames["per_query"], "AP", colors, highlighted=highlighted), 1, 0),
        "summary": (figures.summary_chart(frames["summary"], "AP", colors, highlighted=highlighted), 1, 0),
    }


# per builder: traces per system, then traces of no system (keys, the shared ideal); and legend entries per
# highlighted system, then of the other traces
LEGEND = {"eleven": (1, 0), "pr": (1, 3), "at_k": (1, 0), "gain": (1, 1), "distribution": (0, 0), "summary": (0, 0)}


@pytest.mark.parametrize("n, shown", [(120, 5), (120, 8), (30, 12)])
def test_many_systems_a_few_in_colour_with_legend_entries_the_rest_grey_without(n, shown):
    frames = _curves(n, n + shown)
    names = system_names(n)
    colors = figures.system_colors(names)
    rng = np.random.default_rng(shown)
    highlighted = [names[i] for i in rng.choice(n, size=shown, replace=False)]
    kept = highlighted[:figures.HIGHLIGHTED]  # at most 8 in colour
    for name, (fig, per_system, others) in _builders(frames, colors, highlighted).items():
        assert len(fig.data) == per_system * n + others, name
        systems = [t for t in fig.data if t.legendgroup]
        coloured = [t for t in systems if t.legendgroup in {figures.safe(s) for s in kept}]
        grey = [t for t in systems if t not in coloured]
        assert len(coloured) == per_system * len(kept) and len(grey) == per_system * (n - len(kept)), name
        assert all(t.marker.color == figures.GREY and t.showlegend is False for t in grey), name
        expected = {figures.safe(s): figures.OKABE_ITO[i] for i, s in enumerate(kept)}
        assert all(t.marker.color == expected[t.legendgroup] for t in coloured), name
        assert list(fig.data[:len(grey)]) == grey, name  # drawn first: behind the coloured ones
        own, rest = LEGEND[name]
        assert legend_entries(fig) == own * len(kept) + rest <= 11, name
    fig = figures.rule_chart(frames["rules"], colors, "t", highlighted=highlighted)
    assert len(fig.data) == 2 and legend_entries(fig) == 2  # one trace per rule
    for trace in fig.data:
        expected = [dict(zip(kept, figures.OKABE_ITO)).get(s, figures.GREY) for s in frames["rules"]["system"][::2]]
        assert list(trace.marker.color) == expected


def test_without_highlighting_every_system_keeps_its_own_colour_and_legend_entry():
    frames = _curves(6, 1)
    names = system_names(6)
    colors = figures.system_colors(names)
    fig = figures.eleven_point_chart(frames["points"], colors, "t")
    assert [t.line.color for t in fig.data] == [colors[s] for s in names]
    assert legend_entries(fig) == 6
    assert figures.highlight(fig, None) is fig and [t.line.color for t in fig.data] == [colors[s] for s in names]


# ---- the pairwise matrix ----------------------------------------------------------------------------------
def test_the_pairwise_matrix_holds_scipys_tests_corrected_by_statsmodels_ordered_by_mean():
    stats = pytest.importorskip("scipy.stats", reason="scipy is the oracle of the paired t-test")
    multitest = pytest.importorskip("statsmodels.stats.multitest", reason="statsmodels is the oracle of Holm")
    per_query = _per_query(9, 11, queries=15)
    per_query.loc[per_query["system"] == system_names(9)[1], "value"] += 0.3  # one clearly better system
    names = system_names(9)
    tested = compare_systems(per_query, measures=["AP"], test="t", correction="holm", alpha=0.05)
    means = _textbook_means(per_query, "AP")
    order = sorted(names, key=lambda s: (-means[s], names.index(s)))
    values = {s: per_query[(per_query["system"] == s) & (per_query["measure"] == "AP")]["value"].to_numpy()
              for s in names}
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    # identical systems (the generated ties): no difference, p = 1, still counted in the family
    raw = [1.0 if np.array_equal(values[a], values[b]) else stats.ttest_rel(values[b], values[a]).pvalue
           for a, b in pairs]
    adjusted = dict(zip(pairs, multitest.multipletests(raw, method="holm")[1]))
    p_fig = figures.pairwise_matrix(tested.frame, "AP", order, "p_adjusted", 0.05, "p")
    d_fig = figures.pairwise_matrix(tested.frame, "AP", order, "mean_diff", 0.05, "d")
    z, d, text = np.asarray(p_fig.data[0].z), np.asarray(d_fig.data[0].z), np.asarray(p_fig.data[0].text)
    assert list(p_fig.layout.yaxis.ticktext) == [figures.short(s) for s in order]
    for (a, b), p in adjusted.items():
        i, j = order.index(a), order.index(b)
        assert z[i, j] == pytest.approx(p, rel=1e-9) and z[j, i] == pytest.approx(p, rel=1e-9)
        assert d[i, j] == pytest.approx(np.mean(values[b] - values[a]))  # column − row
        assert d[j, i] == pytest.approx(np.mean(values[a] - values[b]))
        assert text[i, j] == (figures.SIGNIFICANT if p < 0.05 else "")
    assert np.isnan(np.diag(z)).all()
    assert (text == figures.SIGNIFICANT).sum() == 2 * sum(p < 0.05 for p in adjusted.values()) > 0


def oracle_ap(qrels: bytes, runs: dict[str, bytes]) -> dict[str, float]:
    """Mean AP per system by pytrec_eval (trec_eval 9's code)."""
    pytrec_eval = pytest.importorskip("pytrec_eval", reason="pytrec-eval-terrier is the oracle of AP")
    judged: dict = {}
    for line in qrels.decode().splitlines():
        q, _, d, g = line.split()
        judged.setdefault(q, {})[d] = int(g)
    evaluator = pytrec_eval.RelevanceEvaluator(judged, {"map"})
    means = {}
    for name, body in runs.items():
        run: dict = {}
        for line in body.decode().splitlines():
            q, _, d, _, score, _ = line.split()
            run.setdefault(q, {})[d] = float(score)
        per = evaluator.evaluate(run)
        means[name] = float(np.mean([per[q]["map"] for q in sorted(per)]))
    return means


def _figure(chart):
    import plotly.io

    return plotly.io.from_json(chart.proto.spec)


def _legends(at, systems_only: bool = False) -> list[int]:
    """Legend entries of each chart of the page (``systems_only``: those of a system's traces)."""
    counts = []
    for chart in at.get("plotly_chart"):
        spec = json.loads(chart.proto.spec)
        if spec.get("layout", {}).get("showlegend") is False:
            counts.append(0)
            continue
        counts.append(sum(1 for t in spec["data"] if t.get("showlegend", True) is not False
                          and t.get("type") != "heatmap" and t.get("name")
                          and (t.get("legendgroup") or not systems_only)))
    return counts


@pytest.fixture(scope="module")
def loaded_app():
    pytest.importorskip("streamlit", reason="the dashboard extra (streamlit) is not installed")
    qrels, runs = collection()
    at = new_app(timeout=300)
    at.run()
    at.switch_page("app_pages/data.py")
    at.run()
    uploader = {u.proto.label: u for u in at.get("file_uploader")}
    uploader["Qrels"].set_value(("many.qrels", qrels, "text/plain"))
    at.run()
    uploader = {u.proto.label: u for u in at.get("file_uploader")}
    broken = [("broken-fields.run", b"1 Q0 doc1 1 2.0 x\n1 Q0 doc2 2\n", "text/plain"),
              ("broken-score.run", b"1 Q0 doc1 1 high x\n", "text/plain")]
    uploader["Runs"].set_value([(f"{name}.run", body, "text/plain") for name, body in runs.items()] + broken)
    at.run()
    assert [e.value for e in at.exception] == []
    messages = [e.value.replace("\\", "") for e in at.error]  # one line per broken file, the good ones kept
    assert len(messages) == 2 and all("\n" not in m for m in messages)
    assert messages[0].startswith("broken-fields.run:2") and messages[1].startswith("broken-score.run:1")
    assert {m.label: m.value for m in at.metric}["Systems"] == str(SYSTEMS)
    return at, oracle_ap(qrels, runs)


def _open(at, page: str):
    at.switch_page(f"app_pages/{page}.py")
    at.run()
    assert errors(at) == [], page
    return at


def test_the_overview_of_120_systems_searches_cuts_and_pins_the_baseline(loaded_app):
    at, means = loaded_app
    names = system_names(SYSTEMS)
    baseline = names[0]  # the baseline picker's default: the first system loaded
    by_ap = sorted(names, key=lambda s: (-means[s], s))  # equal means by name
    at = _open(at, "overview")
    shown = at.dataframe[0].value
    assert shown["system"].tolist() == [f"{baseline} (baseline)"] + [s for s in by_ap if s != baseline][:20]
    assert [float(c.split()[0].rstrip("†‡")) for c in shown["AP"]] == \
        pytest.approx([round(means[s], 4) for s in [baseline] + [s for s in by_ap if s != baseline][:20]], abs=1e-9)
    at.text_input(key="overview_search").input("dense").run()
    shown = at.dataframe[0].value["system"].tolist()
    assert shown == [f"{baseline} (baseline)"] + [s for s in by_ap if "dense" in s.lower()][:20]
    at.number_input(key=f"overview_top_{SYSTEMS}").set_value(5).run()
    assert at.dataframe[0].value["system"].tolist()[1:] == [s for s in by_ap if "dense" in s.lower()][:5]
    at.text_input(key="overview_search").input("").run()
    at.toggle(key="overview_worst_first").set_value(True).run()
    worst_first = sorted(names, key=lambda s: (means[s], s))  # equal means by name here too
    assert at.dataframe[0].value["system"].tolist()[1:] == [s for s in worst_first if s != baseline][:5]
    assert errors(at) == []
    assert len(at.get("plotly_chart")) == 1
    assert max(_legends(at)) <= 9
    chart = _figure(at.get("plotly_chart")[0])
    assert len(chart.data) == 6  # the chart shows the leaderboard's rows
    colours = [t.marker.color for t in chart.data]
    assert colours.count(figures.GREY) == 0  # 6 rows: each in its own colour


def test_the_significance_page_of_120_systems_draws_one_matrix_ordered_by_mean(loaded_app):
    at, means = loaded_app
    names = system_names(SYSTEMS)
    at = _open(at, "significance")
    at.selectbox(key="measure").set_value("AP").run()
    assert errors(at) == []
    charts = at.get("plotly_chart")
    assert len(charts) == 3
    assert max(_legends(at)) <= 9
    matrix = _figure(charts[0])
    assert matrix.data[0].type == "heatmap"
    by_ap = sorted(names, key=lambda s: (-means[s], s))
    assert list(matrix.layout.yaxis.ticktext) == [figures.short(s) for s in by_ap]
    z = matrix.data[0].z  # a typed array: {"dtype", "bdata" (base64), "shape"}
    values = np.frombuffer(base64.b64decode(z["bdata"]), dtype=z["dtype"])
    assert tuple(int(x) for x in z["shape"].split(",")) == (SYSTEMS, SYSTEMS) and values.size == SYSTEMS ** 2
    assert np.isnan(values.reshape(SYSTEMS, SYSTEMS).diagonal()).all()
    wtl = _figure(charts[2]).data[0]
    assert len(wtl.y) == figures.HIGHLIGHTED * (figures.HIGHLIGHTED - 1) // 2  # pairs among the best 8
    assert len(at.dataframe[0].value) == SYSTEMS * (SYSTEMS - 1) // 2  # the table keeps every pair


@pytest.mark.parametrize("page", ["curves", "gain", "queries"])
def test_other_pages_of_120_systems_pick_a_few_and_keep_legends_short(loaded_app, page):
    at, means = loaded_app
    at = _open(at, page)
    assert max(_legends(at)) <= figures.HIGHLIGHTED + 3, page  # 8 systems and keys (line styles, rules, ideal)
    assert max(_legends(at, systems_only=True)) <= figures.HIGHLIGHTED, page
    if page == "curves":  # the default: the best 8 by mean AP
        names = system_names(SYSTEMS)
        by_ap = sorted(names, key=lambda s: (-means[s], names.index(s)))
        assert sorted(at.multiselect(key="systems").value) == sorted(by_ap[:figures.HIGHLIGHTED])
    if page == "gain":
        assert len(at.multiselect(key="systems").value) == figures.HIGHLIGHTED
