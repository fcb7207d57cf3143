"""Pure figure builders: tidy frames in, ``plotly.graph_objects.Figure`` out.

No Streamlit here and no state: each function draws exactly the numbers it is given (they come from
``metrics``), so each is tested as data. Systems keep one colour everywhere (:func:`system_colors`, the
Okabe–Ito palette, safe for colour-blind readers); axes say what they measure and in which unit; hover
texts give the exact values. Text that comes from users (system names, topic and document ids) is
HTML-escaped before it reaches a chart, because plotly interprets a subset of HTML.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#000000", "#F0E442")
BETTER, WORSE, SAME = "#009E73", "#D55E00", "#999999"
# grade 0, 1, 2, 3, 4+: sand for "judged, not relevant" (visible on white, and on a projector), then blues
# darkening with the grade; unjudged is the grey between them
GRADE_COLORS = ("#f1dcae", "#a6cee3", "#4a90c8", "#1f5fa0", "#08224f")
UNJUDGED = "#bdbdbd"
# each system keeps its dash and its marker everywhere, as its colour: identical curves stay visible
DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")
SYMBOLS = ("circle", "square", "diamond", "triangle-up", "x", "star", "triangle-down", "pentagon")
SHORT = 24  # characters of a system's name in a legend; the hover text gives it whole
RULE_DASH = {"trec_eval-9": "solid", "trec_eval-10": "dash", "textbook": "dot"}
RULE_SYMBOL = {"trec_eval-9": "circle", "trec_eval-10": "diamond", "textbook": "square"}
FONT = "Source Sans Pro, Source Sans 3, Helvetica Neue, Arial, sans-serif"
LAYOUT = dict(template="plotly_white", font=dict(size=15, family=FONT), legend=dict(title=None),
              margin=dict(l=70, r=20, t=60, b=60), hoverlabel=dict(namelength=-1))
BELOW = dict(orientation="h", yanchor="top", y=-0.22, xanchor="left", x=0)
# the legend of a curve chart: below the plot, horizontal, wrapping onto further rows as wide as the chart
UNDER = dict(orientation="h", yanchor="top", y=-0.16, xanchor="left", x=0,
             itemclick="toggle", itemdoubleclick="toggleothers")
UNIT = "(0 to 1)"
MANY = 1000  # topics from which per-topic charts are drawn with WebGL markers and boxes without every point


def safe(text) -> str:
    """User text made inert for plotly's HTML-like labels."""
    return html.escape(str(text), quote=False)


def system_colors(systems: Sequence[str]) -> dict[str, str]:
    """One colour per system, stable for a given order of systems (the order they were loaded in)."""
    return {s: OKABE_ITO[i % len(OKABE_ITO)] for i, s in enumerate(systems)}


HIGHLIGHTED = 8  # systems drawn in colour, with a legend entry, on a chart of many systems
GREY = "#c4c4c4"  # the other systems: behind, thin, without a legend entry


def _highlight_colors(highlighted: Sequence[str]) -> dict[str, str]:
    """The first :data:`HIGHLIGHTED` of ``highlighted``, each with its own palette colour (by its place there)."""
    chosen = list(dict.fromkeys(highlighted))[:HIGHLIGHTED]
    return {s: OKABE_ITO[i % len(OKABE_ITO)] for i, s in enumerate(chosen)}


def highlight(fig: go.Figure, highlighted: Sequence[str] | None) -> go.Figure:
    """A chart of many systems made readable: a few systems in colour, with legend entries, the rest in grey.

    The traces of one system are those whose ``legendgroup`` is the system's (escaped) name, as every
    multi-system builder here draws them. With ``highlighted`` (systems, at most :data:`HIGHLIGHTED` used,
    e.g. the pinned, the selected and the top ones), each of those keeps its traces in a colour of its own;
    every other system's traces become grey, thin and half transparent, drawn behind, and leave the legend.
    Traces of no system (keys, ideal curves) stay as they are. ``None`` changes nothing (few systems: every
    one in its own colour). Changes ``fig`` in place and returns it.
    """
    if highlighted is None:
        return fig
    colors = {safe(s): c for s, c in _highlight_colors(highlighted).items()}
    behind, front, rest = [], [], []
    for trace in fig.data:
        group = getattr(trace, "legendgroup", None)
        if not group:
            rest.append(trace)
            continue
        color = colors.get(group, GREY)
        for part in ("line", "marker", "error_x"):
            if getattr(trace, part, None) is not None and part in trace:
                trace[part].color = color
        if isinstance(trace, go.Box):
            trace.fillcolor = color
        if group in colors:
            front.append(trace)
            continue
        trace.showlegend = False
        trace.opacity = 0.45
        if getattr(trace, "line", None) is not None and "line" in trace and trace.line.width:
            trace.line.width = min(trace.line.width, 1.2)
        behind.append(trace)
    fig.data = tuple(behind + front + rest)
    return fig


def short(name, limit: int = SHORT) -> str:
    """A system's name for a legend: whole up to ``limit`` characters, else cut with "…" (escaped)."""
    text = str(name)
    return safe(text if len(text) <= limit else text[:limit - 1].rstrip() + "…")


def _line(colors: Mapping[str, str], system, width: float) -> dict:
    """The system's line: its colour and its dash (by its place among the systems, as its colour)."""
    at = list(colors).index(system) if system in colors else 0
    return dict(color=colors.get(system), width=width, dash=DASHES[at % len(DASHES)])


def _marker(colors: Mapping[str, str], system, size: float, every: int | None = None) -> dict:
    """The system's marker: its colour and its symbol; ``every``: at most that many markers drawn."""
    at = list(colors).index(system) if system in colors else 0
    marker = dict(color=colors.get(system), size=size, symbol=SYMBOLS[at % len(SYMBOLS)],
                  line=dict(width=1, color="white"))
    if every:
        marker["maxdisplayed"] = every
    return marker


def presented(fig: go.Figure, scale: float) -> go.Figure:
    """The figure for a projector: every text ``scale`` times larger (and the chart a little taller).

    Changes ``fig`` in place and returns it.
    """
    if scale == 1:
        return fig
    layout = fig.layout
    fig.update_layout(font_size=(layout.font.size or 12) * scale)
    if layout.title.text:
        fig.update_layout(title_font_size=(layout.title.font.size or (layout.font.size or 12) * 1.2) * scale)
    for note in layout.annotations or ():
        note.font.size = (note.font.size or 12) * scale
    for trace in fig.data:
        if getattr(trace, "textfont", None) is not None and trace.textfont.size:
            trace.textfont.size = trace.textfont.size * scale
    fig.update_layout(height=int((layout.height or 450) * (1 + (scale - 1) / 2)),
                      margin=dict(l=int(70 * scale), b=int(60 * scale), t=int(60 * scale)))
    return fig


def _fig(title: str, x: str, y: str, **layout) -> go.Figure:
    fig = go.Figure()
    fig.update_layout(title=title, xaxis_title=x, yaxis_title=y, **LAYOUT)
    fig.update_layout(**layout)
    return fig


def _y(rows: pd.DataFrame) -> pd.Series:
    """Interpolated precision, whichever name the frame gives it (``iprec`` first: metrics' frames of
    interpolated curves also carry the raw ``precision``, missing on the envelope's rows)."""
    return rows["iprec"] if "iprec" in rows else rows["precision"]


# ---- overview and data ------------------------------------------------------------------------------------
def summary_chart(summary: pd.DataFrame, measure: str, colors: Mapping[str, str],
                  markers: Mapping[str, str] | None = None, baseline: str | None = None,
                  highlighted: Sequence[str] | None = None) -> go.Figure:
    """Each system's mean of one measure with its 95% confidence interval (a dot chart).

    ``markers``: ``{system: "†" | "‡" | letters}`` put after the system's name (significance against the
    baseline); ``baseline``: a dotted vertical line at that system's mean; ``highlighted``: see
    :func:`highlight`.
    """
    rows = summary[summary["measure"] == measure]
    fig = _fig(f"{safe(measure)}: mean over topics with 95% confidence interval",
               f"{safe(measure)}, mean over topics {UNIT}", "", showlegend=False,
               height=140 + (52 if len(rows) <= 30 else 24) * max(len(rows), 1))  # many rows: tighter
    for row in rows.itertuples(index=False):
        err = None
        if np.isfinite(row.ci_low):
            err = dict(type="data", symmetric=False, array=[row.ci_high - row.value],
                       arrayminus=[row.value - row.ci_low], thickness=2.5, width=8)
        mark = (markers or {}).get(row.system, "")
        label = safe(row.system) + (f" {mark}" if mark else "") + (" (baseline)" if row.system == baseline else "")
        fig.add_trace(go.Scatter(
            x=[row.value], y=[label], mode="markers", name=safe(row.system), error_x=err,
            legendgroup=safe(row.system),
            marker=dict(size=16, color=colors.get(row.system, "#444")),
            hovertemplate=(f"{safe(row.system)}<br>{safe(measure)} = %{{x:.4f}}<br>95% CI "
                           f"[{row.ci_low:.4f}, {row.ci_high:.4f}]<br>{row.n_queries} topics<extra></extra>")))
        if row.system == baseline:
            fig.add_vline(x=row.value, line_dash="dot", line_color="#666")
    fig.update_yaxes(autorange="reversed", title=None)
    if highlighted is not None:  # the grey ones drawn first: keep the rows in the order given
        fig.update_yaxes(categoryorder="array", categoryarray=[t.y[0] for t in fig.data])
    return highlight(fig, highlighted)


def grades_chart(grades: pd.DataFrame) -> go.Figure:
    """Judged documents per relevance grade (columns grade, documents, topics)."""
    fig = _fig("Judged documents per grade", "relevance grade", "judged documents", height=320)
    fig.add_trace(go.Bar(x=grades["grade"].astype(str), y=grades["documents"], marker_color=OKABE_ITO[0],
                         customdata=grades["topics"], name="judged documents",
                         hovertemplate="grade %{x}: %{y:,} documents in %{customdata} topics<extra></extra>"))
    fig.update_xaxes(type="category")
    return fig


# ---- precision and recall ---------------------------------------------------------------------------------
def pr_chart(raw: pd.DataFrame, envelope: pd.DataFrame | None, colors: Mapping[str, str], title: str,
             points: pd.DataFrame | None = None, highlighted: Sequence[str] | None = None) -> go.Figure:
    """Precision against recall: the raw saw-tooth (thin, with a dot per rank), the interpolated envelope
    (thick), and the 11 interpolated points (diamonds).

    ``raw``: columns system, recall, precision (and rank, docid, grade for the hover); ``envelope``: system,
    recall and precision or iprec (the step function's vertices, as metrics.curves.interpolated_pr gives
    them with kind "envelope"); ``points``: system, recall, precision or iprec; ``highlighted``: see
    :func:`highlight`.
    """
    fig = _fig(title, f"recall {UNIT}", f"precision {UNIT}", legend=UNDER)
    for system, rows in raw.groupby("system", sort=False):
        name = safe(system)
        custom = np.stack([rows["rank"].astype(int), [safe(d) for d in rows["docid"]],
                           ["unjudged" if np.isnan(g) else f"grade {int(g)}" for g in rows["grade"]]], axis=1) \
            if {"rank", "docid", "grade"} <= set(rows.columns) else None
        fig.add_trace(go.Scatter(
            x=rows["recall"], y=rows["precision"], mode="lines+markers", name=f"{short(system)} (raw)",
            legendgroup=name, showlegend=envelope is None, line=_line(colors, system, 1.2),
            marker=_marker(colors, system, 6),
            opacity=0.75, customdata=custom,
            hovertemplate=("rank %{customdata[0]}: %{customdata[1]} (%{customdata[2]})<br>" if custom is not None
                           else "") + "recall %{x:.4f}<br>precision %{y:.4f}<extra>" + name + "</extra>"))
    if envelope is not None:
        for system, rows in envelope.groupby("system", sort=False):
            fig.add_trace(go.Scatter(x=rows["recall"], y=_y(rows), mode="lines", name=short(system),
                                     legendgroup=safe(system), line=_line(colors, system, 3),
                                     hovertemplate="recall %{x:.4f}<br>interpolated precision %{y:.4f}"
                                                   "<extra>" + safe(system) + "</extra>"))
    if points is not None:
        for system, rows in points.groupby("system", sort=False):
            fig.add_trace(go.Scatter(x=rows["recall"], y=_y(rows), mode="markers", name=f"{safe(system)} (11 points)",
                                     legendgroup=safe(system), showlegend=False, marker=dict(color=colors.get(system), size=11,
                                                                           symbol="diamond", line=dict(width=1, color="white")),
                                     hovertemplate="recall level %{x:.1f}<br>interpolated precision %{y:.4f}"
                                                   "<extra>" + safe(system) + "</extra>"))
    if envelope is not None:  # a key to the line styles, once for every system
        for name, style in (("thin: raw, one dot per rank", dict(mode="lines+markers", line=dict(color="#777", width=1.2))),
                            ("thick: interpolated", dict(mode="lines", line=dict(color="#777", width=3))),
                            ("◆: the 11 points", dict(mode="markers", marker=dict(color="#777", symbol="diamond",
                                                                                  size=10)))):
            if name.startswith("◆") and points is None:
                continue
            fig.add_trace(go.Scatter(x=[None], y=[None], name=name, hoverinfo="skip", **style))
    fig.update_xaxes(range=[-0.02, 1.02], dtick=0.1)
    fig.update_yaxes(range=[-0.02, 1.04])
    return highlight(fig, highlighted)


def eleven_point_chart(points: pd.DataFrame, colors: Mapping[str, str], title: str,
                       others: pd.DataFrame | None = None, averages: Mapping[str, float] | None = None,
                       highlighted: Sequence[str] | None = None) -> go.Figure:
    """Interpolated precision at the 11 standard recall levels (columns system, recall, precision or iprec).

    ``others``: the same points under other interpolation rules (a ``rule`` column), drawn thin and dashed
    so that what the rule changes shows. ``averages``: ``{system: 11-point average}``, put in the legend
    after the system's name. ``highlighted``: see :func:`highlight`.
    """
    fig = _fig(title, f"recall level {UNIT}", f"interpolated precision {UNIT}", legend=UNDER)
    for system, rows in points.groupby("system", sort=False):
        mean = (averages or {}).get(system)
        name = short(system) + (f" · {mean:.4f}" if mean is not None else "")
        fig.add_trace(go.Scatter(x=rows["recall"], y=_y(rows), mode="lines+markers", name=name,
                                 legendgroup=safe(system), line=_line(colors, system, 3),
                                 marker=_marker(colors, system, 10),
                                 hovertemplate="recall %{x:.1f}<br>interpolated precision %{y:.4f}<extra>"
                                               + safe(system) + "</extra>"))
    if others is not None:
        for (system, rule), rows in others.groupby(["system", "rule"], sort=False):
            fig.add_trace(go.Scatter(
                x=rows["recall"], y=_y(rows), mode="lines+markers", name=f"{safe(system)} · {safe(rule)}",
                legendgroup=safe(system), showlegend=False,
                line=dict(color=colors.get(system), width=1.5, dash=RULE_DASH.get(rule, "dot")),
                marker=dict(size=6, symbol=RULE_SYMBOL.get(rule, "circle")),
                hovertemplate=f"{safe(rule)} rule<br>recall %{{x:.1f}}<br>interpolated precision %{{y:.4f}}"
                              f"<extra>{safe(system)}</extra>"))
        for rule in dict.fromkeys(others["rule"]):
            fig.add_trace(go.Scatter(x=[None], y=[None], mode="lines", name=f"{safe(rule)} rule",
                                     line=dict(color="#555", width=1.5, dash=RULE_DASH.get(rule, "dot"))))
    fig.update_xaxes(range=[-0.02, 1.02], dtick=0.1)
    fig.update_yaxes(range=[-0.02, 1.04])
    return highlight(fig, highlighted)


def rule_chart(table: pd.DataFrame, colors: Mapping[str, str], title: str,
               highlighted: Sequence[str] | None = None) -> go.Figure:
    """The 11-point average of each system under each interpolation rule (columns system, rule, 11pt_avg):
    one row per system, the rules just above and below each other so that their difference shows.

    One trace per rule (the legend names the rules); ``highlighted``: those systems' markers in their
    colours of :func:`highlight`, the others' grey.
    """
    if highlighted is not None:
        colors = _highlight_colors(highlighted)
    systems = list(dict.fromkeys(table["system"]))
    rules = list(dict.fromkeys(table["rule"]))
    fig = _fig(title, f"11-point interpolated average precision {UNIT}", "",
               height=170 + 46 * max(len(systems), 1), legend=BELOW)
    for j, (rule, rows) in enumerate(table.groupby("rule", sort=False)):
        offset = (j - (len(rules) - 1) / 2) * 0.22
        fig.add_trace(go.Scatter(
            x=rows["11pt_avg"], y=[systems.index(s) + offset for s in rows["system"]], mode="markers",
            name=f"{safe(rule)} rule", customdata=[safe(s) for s in rows["system"]],
            marker=dict(size=12, symbol=RULE_SYMBOL.get(rule, "circle"),
                        color=[colors.get(s, GREY if highlighted is not None else "#444") for s in rows["system"]],
                        line=dict(width=1.5, color="#333")),
            hovertemplate=f"%{{customdata}}<br>{safe(rule)}: 11pt_avg = %{{x:.6f}}<extra></extra>"))
    fig.update_yaxes(tickvals=list(range(len(systems))), ticktext=[safe(s) for s in systems], autorange="reversed",
                     range=[len(systems) - 0.5, -0.5])
    return fig


def _rank_axis(fig: go.Figure, depth: int, **where) -> None:
    if depth > 30:
        ticks = [k for k in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000) if k <= depth]
        fig.update_xaxes(type="log", tickvals=ticks, ticktext=[str(k) for k in ticks], **where)


def at_k_chart(frame: pd.DataFrame, colors: Mapping[str, str], title: str, cutoff: int | None = None,
               highlighted: Sequence[str] | None = None) -> go.Figure:
    """P@k (left) and R@k (right) against the rank k (columns system, k, precision, recall); ``highlighted``:
    see :func:`highlight`."""
    fig = make_subplots(rows=1, cols=2, subplot_titles=("precision at k", "recall at k"), horizontal_spacing=0.1)
    for system, rows in frame.groupby("system", sort=False):
        for col, name, label in ((1, "precision", "P"), (2, "recall", "R")):
            fig.add_trace(go.Scatter(x=rows["k"], y=rows[name], mode="lines+markers", name=short(system),
                                     legendgroup=safe(system), showlegend=col == 1,
                                     line=_line(colors, system, 2.5), marker=_marker(colors, system, 8, 12),
                                     hovertemplate=f"{label}@%{{x}} = %{{y:.4f}}<extra>{safe(system)}</extra>"),
                          row=1, col=col)
    depth = int(frame["k"].max()) if len(frame) else 1
    fig.update_xaxes(title_text="rank k (documents retrieved)")
    _rank_axis(fig, depth)
    fig.update_yaxes(title_text=f"P@k {UNIT}", row=1, col=1, range=[0, 1.02])
    fig.update_yaxes(title_text=f"R@k {UNIT}", row=1, col=2, range=[0, 1.02])
    if cutoff:
        for col in (1, 2):
            fig.add_vline(x=cutoff, line_dash="dot", line_color="#666", row=1, col=col)
    fig.update_layout(title=title, **LAYOUT)
    fig.update_layout(legend=UNDER, height=520)
    return highlight(fig, highlighted)


# ---- gain -------------------------------------------------------------------------------------------------
def gain_chart(frame: pd.DataFrame, colors: Mapping[str, str], title: str, cutoff: int | None = None,
               highlighted: Sequence[str] | None = None) -> go.Figure:
    """DCG@k with the ideal DCG@k (left) and nDCG@k (right) against k; columns system, k, dcg, idcg, ndcg.

    Systems with the same ideal curve share one dotted black line (with the judged ideal, all systems
    evaluated on the same topics do); a system whose ideal differs gets its own, dotted in its colour.
    ``highlighted``: see :func:`highlight`.
    """
    fig = make_subplots(rows=1, cols=2, subplot_titles=("DCG@k and the ideal DCG@k", "nDCG@k = DCG@k / IDCG@k"),
                        horizontal_spacing=0.1)
    groups: dict[tuple, list[str]] = {}
    for system, rows in frame.groupby("system", sort=False):
        groups.setdefault(tuple(np.round(rows["idcg"].to_numpy(dtype=float), 10)), []).append(system)
        fig.add_trace(go.Scatter(x=rows["k"], y=rows["dcg"], mode="lines+markers", name=short(system),
                                 legendgroup=safe(system), line=_line(colors, system, 2.5),
                                 marker=_marker(colors, system, 8, 12),
                                 hovertemplate="DCG@%{x} = %{y:.4f}<extra>" + safe(system) + "</extra>"),
                      row=1, col=1)
        fig.add_trace(go.Scatter(x=rows["k"], y=rows["ndcg"], mode="lines+markers", name=f"{short(system)} nDCG",
                                 legendgroup=safe(system), showlegend=False, line=_line(colors, system, 2.5),
                                 marker=_marker(colors, system, 8, 12),
                                 hovertemplate="nDCG@%{x} = %{y:.4f}<extra>" + safe(system) + "</extra>"),
                      row=1, col=2)
    largest = max(groups.values(), key=len) if groups else []
    for members in sorted(groups.values(), key=lambda group: group is largest):  # the shared ideal on top
        rows = frame[frame["system"] == members[0]]
        shared = members is largest
        name = "ideal DCG" + (" (all systems)" if len(groups) == 1 else "" if shared else
                              f" of {', '.join(short(m) for m in members)}")
        fig.add_trace(go.Scatter(x=rows["k"], y=rows["idcg"], mode="lines", name=name,
                                 line=dict(color="#000000" if shared else colors.get(members[0]), width=2, dash="dot"),
                                 hovertemplate="IDCG@%{x} = %{y:.4f}<extra>" + name + "</extra>"), row=1, col=1)
    depth = int(frame["k"].max()) if len(frame) else 1
    fig.update_xaxes(title_text="rank k (documents retrieved)")
    fig.update_yaxes(title_text="DCG@k (discounted gain)", row=1, col=1, rangemode="tozero")
    fig.update_yaxes(title_text=f"nDCG@k {UNIT}", row=1, col=2, range=[0, 1.02])
    if cutoff and cutoff <= depth:
        for col in (1, 2):
            fig.add_vline(x=cutoff, line_dash="dot", line_color="#666", row=1, col=col)
        fig.add_annotation(x=cutoff, y=0.02, yref="y2 domain", xref="x2", text=f" k = {cutoff}", showarrow=False,
                           xanchor="left", yanchor="bottom")
    fig.update_layout(title=title, **LAYOUT)
    fig.update_layout(legend=UNDER, height=540)
    return highlight(fig, highlighted)


# ---- topics -----------------------------------------------------------------------------------------------
SIDES = (("B better", BETTER, 1), ("tie", SAME, 0), ("B worse", WORSE, -1))


def _sides(paired: pd.DataFrame):
    """The topics where B is better, equal, worse: (name, colour, boolean mask), one trace each."""
    sign = np.sign(paired["diff"].to_numpy(dtype=float))
    return [(name, color, sign == value) for name, color, value in SIDES]


LABELLED = 3  # topics named on the difference chart at each end (the largest gains and losses of B)


def wrapped(text, width: int = 60, lines: int = 4) -> str:
    """User text made inert and broken into at most ``lines`` lines of ``width`` characters (for hovers)."""
    import textwrap

    parts = textwrap.wrap(" ".join(str(text).split()), width, max_lines=lines, placeholder=" …")
    return "<br>".join(safe(p) for p in parts)


def difference_bars(paired: pd.DataFrame, a: str, b: str, measure: str,
                    texts: Mapping[str, str] | None = None) -> go.Figure:
    """Per-topic difference B − A, sorted: bars above zero are topics where B helps, below where it hurts.

    ``paired`` has columns query, a, b, diff (one row per topic, sorted). One trace per side (B better,
    tie, B worse), each in one colour; clicking a bar selects its topic (each point's ``customdata[0]``).
    Every bar's hover names its topic (with its query text from ``texts``, topic id -> text); the
    :data:`LABELLED` largest gains and losses carry their topic id on the chart, and every id is on the
    axis up to 60 topics. Past :data:`MANY` topics the bars become WebGL markers at positions 1, 2, ...
    in the same order.
    """
    fig = _fig(f"{safe(measure)} per topic: {safe(b)} − {safe(a)}<br><sup>click a bar to open the topic; "
               f"the largest differences are labelled with their topic</sup>",
               "topic, sorted by the difference", f"Δ {safe(measure)} ({safe(b)} − {safe(a)})",
               legend=dict(orientation="h", yanchor="bottom", y=1.0, xanchor="right", x=1.0), barmode="relative")
    fig.update_layout(margin=dict(t=90))
    queries = [str(q) for q in paired["query"]]
    about = [safe(q) + (("<br>" + wrapped(texts[q])) if texts and texts.get(q) else "") for q in queries]
    custom = np.empty((len(paired), 4), dtype=object)
    if len(paired):
        custom[:, 0], custom[:, 1], custom[:, 2], custom[:, 3] = queries, paired["a"], paired["b"], about
    hover = (f"topic %{{customdata[3]}}<br>{safe(a)}: %{{customdata[1]:.4f}}<br>"
             f"{safe(b)}: %{{customdata[2]:.4f}}<br>Δ %{{y:+.4f}}<extra></extra>")
    labels = np.asarray([safe(q) for q in queries], dtype=object)
    positions = np.arange(1, len(paired) + 1)
    x = np.arange(len(paired)) if len(paired) <= MANY else positions  # a category's index: ids may look like numbers
    for name, color, mask in _sides(paired):
        if len(paired) <= MANY:
            fig.add_trace(go.Bar(x=labels[mask], y=paired["diff"][mask], marker_color=color, name=name,
                                 customdata=custom[mask], hovertemplate=hover))
        else:
            fig.add_trace(go.Scattergl(x=positions[mask], y=paired["diff"][mask], mode="markers", name=name,
                                       marker=dict(color=color, size=4), customdata=custom[mask], hovertemplate=hover))
    diff = paired["diff"].to_numpy(dtype=float)
    ends = [i for i in range(min(LABELLED, len(diff))) if diff[i] > 0]
    ends += [i for i in range(len(diff) - 1, max(len(diff) - 1 - LABELLED, -1), -1) if diff[i] < 0 and i not in ends]
    for i in ends:
        fig.add_annotation(x=x[i], y=diff[i], text=labels[i], showarrow=False, font=dict(size=13),
                           yanchor="bottom" if diff[i] > 0 else "top", yshift=2 if diff[i] > 0 else -2)
    if len(paired) <= MANY:
        fig.update_xaxes(type="category", categoryorder="array", categoryarray=list(labels),
                         showticklabels=len(paired) <= 60)
        if len(paired) > 60:
            fig.update_xaxes(title_text=f"topic, sorted by the difference ({len(paired):,} topics: hover a bar "
                                        "for its topic)")
    else:
        fig.update_xaxes(title_text=f"topic, sorted by the difference ({len(paired):,} topics)")
    return fig


def scatter_chart(paired: pd.DataFrame, a: str, b: str, measure: str) -> go.Figure:
    """Topic by topic, system A (x) against system B (y); points above the diagonal favour B."""
    low = float(min(paired["a"].min(), paired["b"].min(), 0.0)) if len(paired) else 0.0
    high = float(max(paired["a"].max(), paired["b"].max(), 1.0)) if len(paired) else 1.0
    # a two-line title: it is drawn in half the page's width
    fig = _fig(f"{safe(measure)} per topic<br><sup>{safe(a)} (x) against {safe(b)} (y)</sup>",
               f"{safe(a)}: {safe(measure)}", f"{safe(b)}: {safe(measure)}", height=480, showlegend=False)
    fig.update_layout(margin=dict(t=80))
    fig.add_trace(go.Scatter(x=[low, high], y=[low, high], mode="lines", line=dict(color="#aaa", dash="dot"),
                             name="equal", hoverinfo="skip"))
    points = go.Scatter if len(paired) <= MANY else go.Scattergl
    topics = np.asarray(list(paired["query"].astype(str)), dtype=object)
    for name, color, mask in _sides(paired):
        fig.add_trace(points(x=paired["a"][mask], y=paired["b"][mask], mode="markers", name=name,
                             marker=dict(size=10, color=color, opacity=0.8, line=dict(width=0.5, color="#333")),
                             customdata=topics[mask][:, None], text=[safe(q) for q in topics[mask]],
                             hovertemplate="topic %{text}<br>" + safe(a) + " %{x:.4f}<br>" + safe(b)
                                           + " %{y:.4f}<extra></extra>"))
    return fig


def distribution_chart(per_query: pd.DataFrame, measure: str, colors: Mapping[str, str],
                       highlighted: Sequence[str] | None = None) -> go.Figure:
    """The distribution of one measure over topics for each system (a box with every topic shown);
    ``highlighted``: see :func:`highlight` (the boxes keep the systems' order)."""
    rows = per_query[per_query["measure"] == measure]
    fig = _fig(f"{safe(measure)} over topics, per system", "", f"{safe(measure)} per topic", showlegend=False)
    for system, sub in rows.groupby("system", sort=False):
        fig.add_trace(go.Box(y=sub["value"], name=safe(system), legendgroup=safe(system),
                             boxpoints="all" if len(sub) <= MANY else False,
                             jitter=0.4, pointpos=0,
                             marker=dict(color=colors.get(system), size=5), line=dict(color=colors.get(system)),
                             text=[safe(q) for q in sub["query"]], boxmean=True,
                             hovertemplate="topic %{text}<br>%{y:.4f}<extra>" + safe(system) + "</extra>"))
    if highlighted is not None:
        fig.update_xaxes(categoryorder="array", categoryarray=[t.name for t in fig.data])
    return highlight(fig, highlighted)


def rankings_chart(rankings: pd.DataFrame, depth: int, title: str = "Rankings, coloured by grade") -> go.Figure:
    """One topic's rankings side by side, each cell coloured by its document's grade ("?": unjudged).

    ``rankings`` has columns system, rank, docid, grade (NaN when unjudged), and optionally ``title`` (each
    document's title or first words, shown on hover).
    """
    systems = list(dict.fromkeys(rankings["system"]))
    # one colour band per grade present (and 0 and 1): a grade read from a file never sizes the scale
    levels = np.union1d([0, 1], rankings["grade"].dropna().to_numpy(dtype=np.int64))
    z, text, hover = [], [], []
    for system in systems:
        rows = rankings[rankings["system"] == system].sort_values("rank").head(depth)
        g = rows["grade"].to_numpy(dtype=float)
        pad = depth - len(g)
        band = np.searchsorted(levels, np.nan_to_num(g, nan=0.0).astype(np.int64)).astype(float)
        z.append(np.concatenate([np.where(np.isnan(g), -1.0, band), np.full(pad, np.nan)]))
        labels = ["?" if np.isnan(x) else str(int(x)) for x in g]
        if len(systems) <= 4:
            labels = [f"{safe(d)}  ·  {label}" for d, label in zip(rows["docid"], labels)]
        text.append(labels + [""] * pad)
        titles = rows["title"] if "title" in rows else [""] * len(rows)
        hover.append([f"{safe(d)}{'<br>' + wrapped(t) if t else ''}<br>{'unjudged' if np.isnan(x) else f'grade {int(x)}'}"
                      for d, t, x in zip(rows["docid"], titles, g)] + ["not ranked"] * pad)
    fig = go.Figure(go.Heatmap(
        z=np.array(z, dtype=float).T if z else np.zeros((0, 0)), x=[safe(s) for s in systems],
        y=list(range(1, depth + 1)), zmin=-1.5, zmax=len(levels) - 0.5, colorscale=_grade_scale(levels),
        text=np.array(text, dtype=object).T if text else None, texttemplate="%{text}",
        customdata=np.array(hover, dtype=object).T if hover else None, xgap=4, ygap=2,
        hovertemplate="%{x}, rank %{y}<br>%{customdata}<extra></extra>",
        colorbar=dict(title="grade", tickvals=list(range(-1, len(levels))),
                      ticktext=["unjudged"] + [str(g) for g in levels])))
    fig.update_layout(title=title, yaxis_title="rank", **LAYOUT, height=max(340, 26 * depth + 150))
    fig.update_yaxes(autorange="reversed", dtick=1 if depth <= 30 else 5)
    fig.update_xaxes(side="top")
    return fig


def _grade_scale(levels: np.ndarray) -> list:
    """A discrete colour scale over -1 (unjudged) and one band per grade in ``levels``, each value in the
    middle of its band."""
    colors = [UNJUDGED] + [GRADE_COLORS[min(int(g), len(GRADE_COLORS) - 1)] for g in levels]
    steps = len(colors)
    scale = []
    for i, c in enumerate(colors):
        scale += [[i / steps, c], [(i + 1) / steps, c]]
    return scale


# ---- significance -----------------------------------------------------------------------------------------
def pvalue_heatmap(matrix: pd.DataFrame, title: str, alpha: float) -> go.Figure:
    """A systems × systems matrix of (adjusted) p-values; cells below alpha are dark."""
    labels = [safe(s) for s in matrix.index]
    fig = go.Figure(go.Heatmap(
        z=matrix.to_numpy(dtype=float), x=[safe(s) for s in matrix.columns], y=labels, zmin=0, zmax=1,
        colorscale=[[0, "#08306b"], [alpha, "#4292c6"], [min(alpha * 2, 1), "#deebf7"], [1, "#ffffff"]],
        texttemplate="%{z:.3g}", textfont=dict(size=13), hovertemplate="%{y} vs %{x}<br>p = %{z:.4g}<extra></extra>",
        colorbar=dict(title="adjusted p")))
    fig.update_layout(title=title, xaxis_title="system", yaxis_title="system", **LAYOUT)
    fig.update_layout(height=220 + 48 * len(labels))
    fig.update_yaxes(autorange="reversed")
    return fig


def effect_heatmap(tests: pd.DataFrame, measure: str, column: str, title: str,
                   systems: Sequence[str] | None = None) -> go.Figure:
    """Each tested pair's effect, row ``system_a`` and column ``system_b``: ``mean_diff`` (b − a) or
    ``effect_size`` (Cohen's d_z of b − a), from a comparison's table (metrics.significance)."""
    rows = tests[tests["measure"] == measure]
    order = list(systems) if systems is not None else list(dict.fromkeys([*rows["system_a"], *rows["system_b"]]))
    a_side = [s for s in order if s in set(rows["system_a"])]
    b_side = [s for s in order if s in set(rows["system_b"])]
    z = np.full((len(a_side), len(b_side)), np.nan)
    for a, b, value in zip(rows["system_a"], rows["system_b"], rows[column].astype(float)):
        z[a_side.index(a), b_side.index(b)] = value
    finite = z[np.isfinite(z)]
    bound = float(np.max(np.abs(finite))) if finite.size else 1.0
    what = "mean difference" if column == "mean_diff" else "Cohen's d_z"
    fig = go.Figure(go.Heatmap(
        z=z, x=[safe(s) for s in b_side], y=[safe(s) for s in a_side], zmid=0, zmin=-bound, zmax=bound,
        colorscale="RdBu", texttemplate="%{z:+.3f}", textfont=dict(size=13),
        hovertemplate=f"%{{x}} − %{{y}}<br>{what} = %{{z:+.4f}}<extra></extra>", colorbar=dict(title=what)))
    fig.update_layout(title=title, xaxis_title="system B", yaxis_title="system A", **LAYOUT)
    fig.update_layout(height=220 + 48 * len(order))
    fig.update_yaxes(autorange="reversed")
    return fig


MATRIX_VALUES = {"p_adjusted": "adjusted p", "mean_diff": "mean difference", "effect_size": "Cohen's d_z"}
SIGNIFICANT = "●"  # the marker of a cell whose adjusted p-value is below alpha


def pairwise_matrix(tests: pd.DataFrame, measure: str, order: Sequence[str], column: str, alpha: float,
                    title: str) -> go.Figure:
    """Every tested pair of many systems in one matrix, rows and columns in ``order`` (by mean, best first).

    Cell (row A, column B) holds ``column`` of the pair: ``p_adjusted`` (dark below ``alpha``), or
    ``mean_diff`` / ``effect_size`` of B − A (blue: B higher); each pair's cell appears on both sides of the
    diagonal (an effect with its sign turned). :data:`SIGNIFICANT` marks the cells whose adjusted p-value is
    below ``alpha``; untested pairs stay empty. ``tests``: a comparison's table (metrics.significance).
    """
    rows = tests[tests["measure"] == measure]
    systems = list(dict.fromkeys(order))
    at = {s: i for i, s in enumerate(systems)}
    n = len(systems)
    z = np.full((n, n), np.nan)
    p = np.full((n, n), np.nan)
    sign = -1.0 if column != "p_adjusted" else 1.0
    for a, b, value, adjusted in zip(rows["system_a"], rows["system_b"], rows[column].astype(float),
                                     rows["p_adjusted"].astype(float)):
        if a in at and b in at:
            i, j = at[a], at[b]
            z[i, j], z[j, i] = value, sign * value
            p[i, j] = p[j, i] = adjusted
    text = np.where(p < alpha, SIGNIFICANT, "")
    labels = [short(s) for s in systems]
    what = MATRIX_VALUES[column]
    if column == "p_adjusted":
        scale = dict(zmin=0, zmax=1, colorscale=[[0, "#08306b"], [alpha, "#4292c6"], [min(alpha * 2, 1), "#deebf7"],
                                                 [1, "#ffffff"]])
    else:
        finite = z[np.isfinite(z)]
        bound = float(np.max(np.abs(finite))) if finite.size and np.max(np.abs(finite)) > 0 else 1.0
        scale = dict(zmid=0, zmin=-bound, zmax=bound, colorscale="RdBu")
    fig = go.Figure(go.Heatmap(
        z=z, x=list(range(n)), y=list(range(n)), text=text, texttemplate="%{text}", textfont=dict(size=9),
        customdata=np.stack([np.broadcast_to(np.array(labels, dtype=object), (n, n)),
                             np.broadcast_to(np.array(labels, dtype=object)[:, None], (n, n)),
                             np.where(np.isnan(p), "not tested", np.char.mod("%.3g", np.nan_to_num(p)))], axis=-1)
        if n else None,
        hovertemplate=f"B %{{customdata[0]}} − A %{{customdata[1]}}<br>{what} = %{{z:.4g}}<br>adjusted p = "
                      f"%{{customdata[2]}}<extra></extra>", colorbar=dict(title=what), xgap=1, ygap=1, **scale))
    fig.update_layout(title=title, xaxis_title=f"system B (by mean, best first; {SIGNIFICANT}: p < {alpha})",
                      yaxis_title="system A", **LAYOUT)
    side = min(1400, 220 + 14 * n)
    fig.update_layout(height=side, margin=dict(l=160, b=140))
    ticks = dict(tickvals=list(range(n)), ticktext=labels, tickfont=dict(size=9 if n > 40 else 12))
    fig.update_xaxes(**ticks, tickangle=-60, side="bottom")
    fig.update_yaxes(**ticks, autorange="reversed")
    return fig


def win_tie_loss_chart(tests: pd.DataFrame, measure: str, systems: Sequence[str] | None = None) -> go.Figure:
    """Per tested pair, the topics where B beats A, ties it and loses (stacked bars); ``systems``: only the
    pairs of two of them (None: every pair)."""
    rows = tests[tests["measure"] == measure]
    if systems is not None:
        rows = rows[rows["system_a"].isin(list(systems)) & rows["system_b"].isin(list(systems))]
    pairs = [f"{safe(b)} vs {safe(a)}" for a, b in zip(rows["system_a"], rows["system_b"])]
    fig = _fig(f"Topics where B is better, equal, worse ({safe(measure)})", "topics", "", barmode="stack",
               height=190 + 34 * max(len(rows), 1), legend=dict(BELOW, traceorder="normal"))
    for column, name, color in (("wins", "B better", BETTER), ("ties", "tie", SAME), ("losses", "B worse", WORSE)):
        fig.add_trace(go.Bar(x=rows[column], y=pairs, orientation="h", name=name, marker_color=color,
                             hovertemplate=f"%{{y}}<br>{name}: %{{x}} topics<extra></extra>"))
    fig.update_yaxes(autorange="reversed")
    return fig


# ---- teaching ---------------------------------------------------------------------------------------------
def anatomy_chart(table: pd.DataFrame, columns: Sequence[str], title: str) -> go.Figure:
    """Running values of a ranking against rank (columns rank and each name in ``columns``)."""
    fig = _fig(title, "rank i", f"value of the top i {UNIT}")
    for i, name in enumerate(columns):
        fig.add_trace(go.Scatter(x=table["rank"], y=table[name], mode="lines+markers", name=name,
                                 line=dict(color=OKABE_ITO[i % len(OKABE_ITO)], width=2.5),
                                 hovertemplate=f"rank %{{x}}<br>{name} %{{y:.4f}}<extra></extra>"))
    fig.update_xaxes(dtick=1 if len(table) <= 25 else None)
    fig.update_yaxes(range=[-0.02, 1.04])
    return fig


def convention_chart(effects: pd.DataFrame, title: str) -> go.Figure:
    """One topic's numbers under each convention's choices (columns convention, choice, measure, value,
    default): trec_eval's choice in blue, the others in orange."""
    labels = [f"{safe(m)} · {safe(c)}: {safe(ch)}" for c, ch, m in
              zip(effects["convention"], effects["choice"], effects["measure"])]
    colors = np.where(effects["default"].to_numpy(dtype=bool), OKABE_ITO[0], OKABE_ITO[1])
    fig = _fig(title, f"value {UNIT}", "", height=140 + 34 * max(len(effects), 1), showlegend=False)
    fig.add_trace(go.Bar(x=effects["value"], y=labels, orientation="h", marker_color=colors,
                         customdata=np.stack([[safe(m) for m in effects["measure"]]], axis=1),
                         text=[f"{v:.4f}" for v in effects["value"]], textposition="outside",
                         hovertemplate="%{y}<br>%{customdata[0]} = %{x:.6f}<extra></extra>"))
    fig.update_yaxes(autorange="reversed")
    fig.update_xaxes(range=[0, max(1.0, float(effects["value"].max()) * 1.15) if len(effects) else 1.0])
    return fig
