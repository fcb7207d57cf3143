"""Figure builders tested as data: traces, names, axis titles, and values equal to the metrics results."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("plotly", reason="the dashboard extra (plotly) is not installed")
from dashboard import figures  # noqa: E402
from metrics import curves, evaluate, rank_runs, summarise  # noqa: E402
from metrics.review.collection import describe_collection  # noqa: E402
from metrics.review.topic_by_topic import paired_topics, side_by_side  # noqa: E402
from metrics.stats.significance import compare_systems  # noqa: E402
from metrics.teaching.anatomy import anatomy  # noqa: E402
from metrics.teaching.worked import convention_effects  # noqa: E402
from tests.random_collections import random_collection  # noqa: E402

SYSTEMS = ["alpha", "beta <b>"]


@pytest.fixture(scope="module")
def collection():
    c = random_collection(3)
    other = "\n".join(" ".join(f if i != 4 else str(-float(f)) for i, f in enumerate(line.split()))
                      for line in c.run_text.splitlines() if line.strip()) + "\n"
    runs = {"alpha": c.run_text, "beta <b>": other}
    return c.qrels_text, runs, rank_runs(c.qrels_text, runs)


def _titles(fig) -> tuple[str, str]:
    return fig.layout.xaxis.title.text, fig.layout.yaxis.title.text


def test_system_colors_are_stable_distinct_and_colour_blind_safe():
    colors = figures.system_colors(["a", "b", "c"])
    assert list(colors) == ["a", "b", "c"]
    assert len(set(colors.values())) == 3
    assert figures.system_colors(["a", "b", "c"]) == colors
    assert set(colors.values()) <= set(figures.OKABE_ITO)


def test_summary_chart_shows_each_mean_with_its_interval_and_marker(collection):
    qrels, runs, _ = collection
    summary = summarise(evaluate(qrels, runs, ["AP"]))
    fig = figures.summary_chart(summary, "AP", figures.system_colors(SYSTEMS), {"beta <b>": "†"}, baseline="alpha")
    assert [t.name for t in fig.data] == ["alpha", "beta &lt;b&gt;"]
    assert [t.y[0] for t in fig.data] == ["alpha (baseline)", "beta &lt;b&gt; †"]
    for trace, row in zip(fig.data, summary.itertuples()):
        assert trace.x[0] == row.value
        assert trace.error_x.array[0] == pytest.approx(row.ci_high - row.value)
        assert trace.error_x.arrayminus[0] == pytest.approx(row.value - row.ci_low)
        assert trace.marker.color == figures.system_colors(SYSTEMS)[row.system]
    assert fig.layout.xaxis.title.text == "AP, mean over topics (0 to 1)"
    assert any(shape.x0 == summary["value"].iloc[0] for shape in fig.layout.shapes)  # the baseline's line


def test_grades_chart_counts_the_judgments(collection):
    qrels, runs, _ = collection
    from metrics import read_qrels, read_run

    grades = describe_collection(read_qrels(qrels), [read_run(runs["alpha"], name="alpha")]).grades
    fig = figures.grades_chart(grades)
    assert len(fig.data) == 1
    assert list(fig.data[0].y) == grades["documents"].tolist()
    assert _titles(fig) == ("relevance grade", "judged documents")


def test_user_text_is_escaped_in_every_label(collection):
    _, runs, ranked = collection
    points = curves.eleven_point(ranked).query("query == 'all'")
    fig = figures.eleven_point_chart(points, figures.system_colors(SYSTEMS), "t")
    assert all("<b>" not in (t.name or "") for t in fig.data)
    assert any("&lt;b&gt;" in (t.name or "") for t in fig.data)


def test_eleven_point_chart_draws_the_averaged_points_and_the_other_rules(collection):
    qrels, runs, ranked = collection
    both = curves.eleven_point_rules(ranked)
    chosen = both[(both["rule"] == "trec_eval-9") & (both["query"] == "all")]
    others = both[(both["rule"] != "trec_eval-9") & (both["query"] == "all")]
    table = curves.eleven_point_table(both)
    averages = dict(zip(table[table["rule"] == "trec_eval-9"]["system"], table[table["rule"] == "trec_eval-9"]["11pt_avg"]))
    fig = figures.eleven_point_chart(chosen, figures.system_colors(SYSTEMS), "11 points", others, averages)
    solid = [t for t in fig.data if t.showlegend is not False and t.x[0] is not None]
    assert [t.name for t in solid] == [f"alpha · {averages['alpha']:.4f}", f"beta &lt;b&gt; · {averages['beta <b>']:.4f}"]
    expected = evaluate(qrels, runs, ["IPrec(recall=0.1)"])
    assert solid[0].y[1] == pytest.approx(expected[expected["system"] == "alpha"]["value"].mean(), rel=1e-12)
    assert list(solid[0].x) == pytest.approx([i / 10 for i in range(11)])
    hidden = [t for t in fig.data if t.showlegend is False]
    assert len(hidden) == 4 and {t.line.dash for t in hidden} == {"dash", "dot"}
    assert [t.name for t in fig.data if t.x[0] is None] == ["trec_eval-10 rule", "textbook rule"]
    assert _titles(fig) == ("recall level (0 to 1)", "interpolated precision (0 to 1)")


def test_rule_chart_places_each_rules_average(collection):
    _, _, ranked = collection
    table = curves.eleven_point_table(curves.eleven_point_rules(ranked))
    fig = figures.rule_chart(table, figures.system_colors(SYSTEMS), "rules")
    assert [t.name for t in fig.data] == ["trec_eval-9 rule", "trec_eval-10 rule", "textbook rule"]
    for trace, rule in zip(fig.data, ["trec_eval-9", "trec_eval-10", "textbook"]):
        assert list(trace.x) == table[table["rule"] == rule]["11pt_avg"].tolist()
    assert list(fig.layout.yaxis.ticktext) == ["alpha", "beta &lt;b&gt;"]


def test_pr_chart_has_raw_interpolated_and_eleven_points(collection):
    _, _, ranked = collection
    topic = ranked[0].queries[0]
    raw = curves.pr_curve(ranked, queries=[topic])
    env = curves.interpolated_pr(ranked, queries=[topic]).envelope
    points = curves.eleven_point(ranked, queries=[topic], average=False)
    fig = figures.pr_chart(raw, env, figures.system_colors(SYSTEMS), "pr", points)
    assert len(fig.data) == 9  # raw, interpolated and 11 points of each system, and the key to the styles
    assert [t.name for t in fig.data if t.showlegend is not False and t.x[0] is not None] == ["alpha", "beta &lt;b&gt;"]
    assert [t.name for t in fig.data[:2]] == ["alpha (raw)", "beta &lt;b&gt; (raw)"]
    assert fig.data[0].y.tolist() == raw[raw["system"] == "alpha"]["precision"].tolist()
    assert fig.data[0].x.tolist() == raw[raw["system"] == "alpha"]["recall"].tolist()
    assert fig.data[2].y.tolist() == env[env["system"] == "alpha"]["iprec"].tolist()
    assert fig.data[4].y.tolist() == points[points["system"] == "alpha"]["iprec"].tolist()
    assert fig.data[4].marker.symbol == "diamond"
    assert _titles(fig) == ("recall (0 to 1)", "precision (0 to 1)")


def test_at_k_chart_draws_precision_and_recall_at_k(collection):
    qrels, runs, ranked = collection
    frame = curves.precision_recall_at_k(ranked, depth=50).query("query == 'all'")
    fig = figures.at_k_chart(frame, figures.system_colors(SYSTEMS), "at k", cutoff=10)
    assert len(fig.data) == 4
    expected = evaluate(qrels, runs, ["P@10", "R@10"])
    alpha = expected[expected["system"] == "alpha"]
    assert fig.data[0].y[9] == pytest.approx(alpha[alpha["measure"] == "P@10"]["value"].mean(), rel=1e-12)
    assert fig.data[1].y[9] == pytest.approx(alpha[alpha["measure"] == "R@10"]["value"].mean(), rel=1e-12)
    assert fig.layout.xaxis.type == "log" and fig.layout.xaxis.title.text == "rank k (documents retrieved)"
    assert fig.layout.yaxis.title.text == "P@k (0 to 1)" and fig.layout.yaxis2.title.text == "R@k (0 to 1)"
    assert len(fig.layout.shapes) == 2  # the cutoff, on both


def test_gain_chart_matches_ndcg_at_k_and_shares_the_ideal(collection):
    qrels, runs, ranked = collection
    frame = curves.gain_curves(ranked, depth=10).query("query == 'all'")
    fig = figures.gain_chart(frame, {}, "gain", cutoff=5)
    ndcg = [t for t in fig.data if t.name.endswith("nDCG")]
    per_query = evaluate(qrels, runs, ["nDCG@5"])
    assert ndcg[0].y[4] == pytest.approx(per_query[per_query["system"] == "alpha"]["value"].mean(), rel=1e-12)
    names = [t.name for t in fig.data]
    assert names.count("ideal DCG (all systems)") == 1  # judged ideal: one yardstick for every system
    assert fig.layout.xaxis.title.text == "rank k (documents retrieved)"
    assert fig.layout.yaxis.title.text == "DCG@k (discounted gain)"


def test_gain_chart_gives_each_ideal_its_own_line_when_they_differ():
    qrels = "1 0 a 2\n1 0 b 1\n1 0 c 1\n"
    runs = {"alpha": "1 Q0 a 1 3 x\n1 Q0 z 2 2 x\n", "beta <b>": "1 Q0 b 1 3 x\n1 Q0 c 2 2 x\n"}
    frame = curves.gain_curves(rank_runs(qrels, runs), depth=3, ideal="retrieved").query("query == 'all'")
    fig = figures.gain_chart(frame, figures.system_colors(SYSTEMS), "gain")
    ideals = [t for t in fig.data if t.name.startswith("ideal DCG")]
    assert len(ideals) == 2
    for system in SYSTEMS:
        own = frame[frame["system"] == system]["idcg"].tolist()
        assert any(list(t.y) == own for t in ideals)


def test_difference_bars_scatter_and_distribution_are_the_paired_values(collection):
    qrels, runs, _ = collection
    per_query = evaluate(qrels, runs, ["AP"])
    pair = paired_topics(per_query, "AP", "alpha", "beta <b>")
    bars = figures.difference_bars(pair.frame, "alpha", "beta <b>", "AP")
    assert [t.name for t in bars.data] == ["B better", "tie", "B worse"]
    assert [t.marker.color for t in bars.data] == [figures.BETTER, figures.SAME, figures.WORSE]
    diff = pair.frame["diff"]
    for trace, part in zip(bars.data, (diff > 0, diff == 0, diff < 0)):
        assert list(trace.y) == diff[part].tolist()
        assert [c[0] for c in trace.customdata] == pair.frame["query"][part].tolist()  # what a click selects
    assert list(bars.layout.xaxis.categoryarray) == pair.frame["query"].tolist()  # sorted by the difference
    assert bars.layout.yaxis.title.text == "Δ AP (beta &lt;b&gt; − alpha)"
    scatter = figures.scatter_chart(pair.frame, "alpha", "beta <b>", "AP")
    for trace, part in zip(scatter.data[1:], (diff > 0, diff == 0, diff < 0)):
        assert list(trace.x) == pair.frame["a"][part].tolist() and list(trace.y) == pair.frame["b"][part].tolist()
    assert _titles(scatter) == ("alpha: AP", "beta &lt;b&gt;: AP")
    dist = figures.distribution_chart(per_query, "AP", figures.system_colors(SYSTEMS))
    assert [t.name for t in dist.data] == ["alpha", "beta &lt;b&gt;"]
    assert list(dist.data[0].y) == per_query[per_query["system"] == "alpha"]["value"].tolist()


def test_rankings_chart_marks_unjudged_documents(collection):
    qrels, _, ranked = collection
    topic = ranked[0].queries[0]
    grades = {f[2]: int(f[3]) for f in map(str.split, qrels.splitlines()) if f and f[0] == topic}
    frame = side_by_side(ranked, topic, depth=5)
    fig = figures.rankings_chart(frame, 5)
    z = np.asarray(fig.data[0].z, dtype=float)
    mine = frame[frame["system"] == "alpha"]["grade"].to_numpy()
    assert z[: len(mine), 0].tolist() == np.where(np.isnan(mine), -1.0, mine).tolist()
    text = np.asarray(fig.data[0].text, dtype=object)
    docids = frame[frame["system"] == "alpha"]["docid"].tolist()
    unjudged = [grades.get(d, -1) < 0 for d in docids]  # not in the qrels, or judged with a negative grade
    assert any(unjudged) and not all(unjudged)  # the case this test is about, beside judged documents
    assert [t.endswith("?") for t in text[: len(mine), 0]] == unjudged
    assert list(fig.data[0].x) == ["alpha", "beta &lt;b&gt;"]
    hostile = figures.rankings_chart(pd.DataFrame({"system": ["s"], "rank": [1], "docid": ["<x>"], "grade": [np.nan]}), 1)
    assert "&lt;x&gt;" in hostile.data[0].text[0][0] and "<x>" not in str(hostile.data[0].customdata)


def test_significance_figures_are_the_comparisons_numbers(collection):
    qrels, runs, _ = collection
    per_query = evaluate(qrels, runs, ["AP"], complete=True)
    result = compare_systems(per_query, ["AP"])
    pvalues = figures.pvalue_heatmap(result.pvalue_matrix("AP"), "p", 0.05)
    assert list(pvalues.data[0].x) == ["alpha", "beta &lt;b&gt;"]
    assert pvalues.data[0].z[0][1] == result.frame["p_adjusted"].iloc[0]
    assert _titles(pvalues) == ("system", "system")
    effects = figures.effect_heatmap(result.frame, "AP", "mean_diff", "effects", SYSTEMS)
    assert effects.data[0].z[0][0] == result.frame["mean_diff"].iloc[0]
    assert list(effects.data[0].y) == ["alpha"] and list(effects.data[0].x) == ["beta &lt;b&gt;"]
    sizes = figures.effect_heatmap(result.frame, "AP", "effect_size", "effects", SYSTEMS)
    assert sizes.data[0].colorbar.title.text == "Cohen's d_z"
    counts = figures.win_tie_loss_chart(result.frame, "AP")
    assert [t.name for t in counts.data] == ["B better", "tie", "B worse"]
    assert [t.x[0] for t in counts.data] == result.frame[["wins", "ties", "losses"]].iloc[0].tolist()


def test_anatomy_and_convention_charts(collection):
    _, _, ranked = collection
    topic = ranked[0].queries[0]
    table = anatomy(ranked[0], topic)
    fig = figures.anatomy_chart(table, ["precision", "ndcg"], "anatomy")
    assert [t.name for t in fig.data] == ["precision", "ndcg"]
    assert list(fig.data[1].y) == table["ndcg"].tolist()
    effects = convention_effects(ranked[0], topic, 5)
    chart = figures.convention_chart(effects, "conventions")
    assert list(chart.data[0].x) == effects["value"].tolist()
    colors = list(chart.data[0].marker.color)
    assert colors == [figures.OKABE_ITO[0] if d else figures.OKABE_ITO[1] for d in effects["default"]]


def test_thousands_of_topics_are_drawn_with_webgl_in_the_same_order():
    rng = np.random.default_rng(0)
    n = figures.MANY + 500
    per_query = pd.DataFrame({"system": ["a"] * n + ["b"] * n, "query": [f"q{i}" for i in range(n)] * 2,
                              "measure": "AP", "value": rng.random(2 * n)})
    pair = paired_topics(per_query, "AP", "a", "b")
    bars = figures.difference_bars(pair.frame, "a", "b", "AP")
    assert {t.type for t in bars.data} == {"scattergl"}
    positions = np.concatenate([t.x for t in bars.data])
    values = np.concatenate([t.y for t in bars.data])
    assert values[np.argsort(positions)].tolist() == pair.frame["diff"].tolist()
    assert figures.scatter_chart(pair.frame, "a", "b", "AP").data[1].type == "scattergl"
    boxes = figures.distribution_chart(per_query, "AP", {})
    assert [t.boxpoints for t in boxes.data] == [False, False]


def test_identical_curves_stay_visible_each_system_with_its_dash_and_marker():
    long = "a system with a very long name indeed, longer than any legend"
    frame = pd.DataFrame({"system": ["bm25"] * 3 + [long] * 3, "k": [1, 2, 3] * 2,
                          "precision": [1.0, 0.5, 0.33] * 2, "recall": [0.5, 0.5, 1.0] * 2})
    colors = figures.system_colors(["bm25", long])
    fig = figures.at_k_chart(frame, colors, "P@k and R@k")
    lines = [t for t in fig.data if t.showlegend is not False]
    assert [t.line.dash for t in lines] == ["solid", "dash"]
    assert lines[0].marker.symbol != lines[1].marker.symbol
    assert lines[1].name.endswith("…") and len(lines[1].name) == figures.SHORT
    assert long in lines[1].hovertemplate  # the whole name on hover
    assert fig.layout.legend.orientation == "h" and fig.layout.legend.y < 0  # below the plot


def test_every_curve_chart_puts_its_legend_below_the_plot():
    points = pd.DataFrame({"system": ["a", "a", "b", "b"], "recall": [0.0, 1.0] * 2, "iprec": [1.0, 0.5] * 2})
    colors = figures.system_colors(["a", "b"])
    gain = pd.DataFrame({"system": ["a", "a"], "k": [1, 2], "dcg": [1.0, 1.5], "idcg": [1.0, 1.6],
                         "ndcg": [1.0, 0.94]})
    for fig in (figures.eleven_point_chart(points, colors, "11"), figures.pr_chart(points.rename(
            columns={"iprec": "precision"}), points, colors, "pr"), figures.gain_chart(gain, colors, "gain")):
        assert fig.layout.legend.orientation == "h" and fig.layout.legend.yanchor == "top"


def test_presented_scales_every_text_of_a_figure():
    frame = pd.DataFrame({"system": ["a", "a"], "k": [1, 2], "precision": [1.0, 0.5], "recall": [0.5, 1.0]})
    fig = figures.at_k_chart(frame, figures.system_colors(["a"]), "title")
    size, height = fig.layout.font.size, fig.layout.height
    subplot_title = fig.layout.annotations[0].font.size
    figures.presented(fig, 1.5)
    assert fig.layout.font.size == size * 1.5 and fig.layout.annotations[0].font.size == subplot_title * 1.5
    assert fig.layout.height > height


def test_grade_colours_are_distinct_and_grade_0_shows_on_white():
    def luminance(color: str) -> float:
        r, g, b = (int(color[i:i + 2], 16) / 255 for i in (1, 3, 5))
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    colors = [*figures.GRADE_COLORS, figures.UNJUDGED]
    assert len(set(colors)) == len(colors)
    assert luminance(figures.GRADE_COLORS[0]) < 0.9  # not white on a projector
    assert all(luminance(a) > luminance(b) for a, b in zip(figures.GRADE_COLORS[1:], figures.GRADE_COLORS[2:]))


def test_the_package_re_exports_every_builder_of_its_modules_under_a_sorted_all():
    import importlib
    import inspect
    import pkgutil
    from pathlib import Path

    assert figures.__all__ == sorted(figures.__all__) and len(set(figures.__all__)) == len(figures.__all__)
    assert all(hasattr(figures, name) for name in figures.__all__)
    modules = [info.name for info in pkgutil.iter_modules(figures.__path__)]
    from dashboard.pages import PAGES

    # a module per page that draws charts of its own, named after it; the overview's and the data page's in one
    assert {m for m in modules if not m.startswith("_")} - {p.script for p in PAGES} == {"summary"}
    for name in modules:
        module = importlib.import_module(f"dashboard.figures.{name}")
        assert module.__all__ == sorted(module.__all__), name
        assert all(hasattr(module, n) for n in module.__all__), name
        builders = {n for n in module.__all__ if inspect.isfunction(getattr(module, n))}
        if not name.startswith("_"):
            assert builders <= set(figures.__all__), name
            assert all(getattr(figures, n) is getattr(module, n) for n in builders), name
    for path in Path(figures.__file__).parent.glob("*.py"):
        assert len(path.read_text(encoding="utf-8").splitlines()) <= 400, path.name  # the house's module size
