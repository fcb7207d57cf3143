"""Charts fitted to the width they are drawn at (dashboard.figures.fitted) and their text alternatives, as data.

Widths are estimated from characters here; tests/e2e/test_layout.py measures the drawings in a browser.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

pytest.importorskip("plotly", reason="the dashboard extra (plotly) is not installed")

from dashboard import figures  # noqa: E402
from dashboard.figures._fit import CHAR, plain_text, wrap_lines  # noqa: E402

TITLE = "Interpolated precision at 11 recall levels, mean over topics (trec_eval-9 rule)"


def _lines(text: str) -> list[str]:
    return [plain_text(line) for line in text.split("<br>")]


def test_a_long_title_is_wrapped_to_the_width_and_the_top_margin_holds_it():
    fig = figures.fitted(figures.pr_chart(pd.DataFrame(columns=["system", "recall", "precision"]), None, {},
                                          TITLE), 478)
    size = round(15 * 1.4)  # the house font, and plotly's title at 1.4 times it
    lines = _lines(fig.layout.title.text)
    assert len(lines) >= 2 and " ".join(lines) == TITLE
    assert all(len(line) * CHAR * size <= 478 * 0.93 for line in lines)
    assert fig.layout.margin.t >= len(lines) * size * 1.3


def test_a_title_hangs_from_the_top_and_the_margin_holds_every_line_and_the_subplot_titles():
    from plotly.subplots import make_subplots

    fig = make_subplots(rows=1, cols=3, subplot_titles=["AP", "nDCG@10", "P@10"])
    fig.update_layout(title="Mean over topics, and its range over every order of tied scores<br><sup>a subtitle "
                            "long enough to need a line of its own on a projector</sup>", font_size=20)
    fig = figures.fitted(fig, 976)
    title, size = fig.layout.title, fig.layout.title.font.size or round(20 * 1.4)
    lines = fig.layout.title.text.split("<br>")
    assert (title.y, title.yref, title.yanchor) == (1, "container", "top")
    # plotly puts a title of several lines by its first baseline: the pad leaves room for the line's capitals
    assert len(lines) >= 3 and title.pad.t >= 0.7 * size
    # every line at the title's size (plotly spaces a <sup> line as a full one), then the subplot titles
    assert fig.layout.margin.t >= title.pad.t + (len(lines) - 1) * size * 1.3 + 20 * 1.3


def test_an_axis_title_along_y_is_no_longer_than_the_plot_the_upright_x_labels_leave():
    names = [f"a rather long category {i}" for i in range(30)]
    fig = go.Figure(go.Bar(x=names, y=np.arange(30)))
    fig.update_layout(height=450, margin=dict(t=60, b=60), font_size=15,
                      yaxis_title="the difference of the two systems' means over every topic of the collection")
    fig = figures.fitted(fig, 976)
    assert fig.layout.xaxis.tickangle == -90
    upright = max(len(n) for n in names) * CHAR * 15
    plot_h = 450 - fig.layout.margin.t - 60 - upright + 15 * 1.3
    assert max(len(line) for line in _lines(fig.layout.yaxis.title.text)) * CHAR * 15 <= plot_h
    assert fig.layout.yaxis.automargin and fig.layout.yaxis.title.standoff == 10


def test_a_subtitle_keeps_its_tags_on_every_line():
    text = wrap_lines("A title<br><sup>click a bar to open the topic; the largest differences are labelled</sup>", 30)
    assert [line.startswith("<sup>") and line.endswith("</sup>") for line in text.split("<br>")][1:] == [True] * (
        text.count("<br>"))
    assert wrap_lines("short", 30) == "short"


def test_crowded_category_labels_are_turned_upright_then_thinned():
    names = [f"system_number_{i}" for i in range(8)]
    fig = figures.fitted(go.Figure(go.Bar(x=names, y=np.arange(8))), 478)
    assert fig.layout.xaxis.tickangle == -90 and fig.layout.xaxis.dtick is None
    many = [f"t{i}" for i in range(300)]
    fig = figures.fitted(go.Figure(go.Bar(x=many, y=np.arange(300))), 478)
    assert fig.layout.xaxis.dtick > 1  # every k-th label: no two side by side
    roomy = figures.fitted(go.Figure(go.Bar(x=["a", "b"], y=[1, 2])), 976)
    assert roomy.layout.xaxis.tickangle is None


def test_topic_labels_on_the_difference_chart_only_where_they_fit():
    topics = [str(400 + i) for i in range(50)]
    diff = np.r_[np.linspace(0.65, 0.45, 3), np.full(44, 0.1), np.linspace(-0.15, -0.17, 3)]
    paired = pd.DataFrame({"query": topics, "a": 0.3, "b": 0.3 + diff, "diff": diff})
    full = figures.difference_bars(paired, "A", "B", "AP")
    assert len(full.layout.annotations) == 6
    fig = figures.fitted(figures.presented(go.Figure(full), 1.35), 976)
    kept = sorted(float(note.x) for note in fig.layout.annotations)
    assert 0 < len(kept) < 6 and 0.0 in kept and 49.0 in kept  # the largest gain and the largest loss stay
    slot = (976 - 94 - 20) / 50
    widths = [len(plain_text(note.text)) * CHAR * note.font.size for note in fig.layout.annotations]
    assert min(np.diff(kept)) * slot >= max(widths)


def test_cell_labels_shrink_to_their_cells_or_are_left_to_the_hover():
    matrix = pd.DataFrame(np.full((6, 6), 1.23e-7), index=list("abcdef"), columns=list("abcdef"))
    fig = figures.fitted(figures.pvalue_heatmap(matrix, "p", 0.05), 520)
    assert fig.data[0].texttemplate and fig.data[0].textfont.size < 13
    tiny = figures.fitted(figures.pvalue_heatmap(matrix, "p", 0.05), 300)
    assert tiny.data[0].texttemplate is None
    assert tiny.data[0].colorbar.title.side == "right"  # "adjusted p" beside the bar, not over its labels


def test_a_horizontal_legend_goes_below_everything_with_room_for_its_longest_entry():
    fig = go.Figure([go.Scatter(x=[0, 1], y=[0, 1], name=f"a_rather_long_system_name_{i} · 0.31{i}") for i in range(6)])
    fig.update_layout(legend=dict(orientation="h", y=-0.16, yanchor="top"), font_size=15)
    figures.fitted(fig, 976)
    legend = fig.layout.legend
    assert (legend.yref, legend.y, legend.yanchor, legend.entrywidthmode) == ("container", 0, "bottom", "pixels")
    assert legend.entrywidth >= len("a_rather_long_system_name_0 · 0.310") * CHAR * 15


def test_every_chart_has_a_text_alternative_from_its_data():
    summary = pd.DataFrame({"system": ["bm25", "dense", "tfidf"], "measure": "AP", "value": [0.2, 0.31, 0.07],
                            "ci_low": [0.1, 0.2, 0.0], "ci_high": [0.3, 0.4, 0.1], "n_queries": 5})
    words = figures.text_alternative(figures.summary_chart(summary, "AP", figures.system_colors(["bm25"])))
    assert words == ("AP: mean over topics with 95% confidence interval. 3 systems; highest: dense (0.3100), then "
                     "bm25 (0.2000); lowest: tfidf (0.0700).")
    paired = pd.DataFrame({"query": ["1", "2", "3"], "a": [0.5, 0.2, 0.3], "b": [0.7, 0.1, 0.3]})
    paired["diff"] = paired["b"] - paired["a"]
    words = figures.text_alternative(figures.difference_bars(paired, "x<y", "B", "AP"))
    assert "B is better than x<y on 1 topics, worse on 1, equal on 1; largest gain: topic 1 (+0.2000); largest " \
           "loss: topic 2 (-0.1000)." in words
    assert words.startswith("AP per topic: B − x<y")  # the title as read: unescaped, one line
    # a figure whose builder states nothing is summarised from its traces
    fig = go.Figure(go.Bar(x=["a", "b"], y=[0.25, 0.75], name="share"))
    fig.update_layout(title="Shares")
    assert figures.text_alternative(fig) == "Shares. 1 series: share; values from 0.25 to 0.75."
