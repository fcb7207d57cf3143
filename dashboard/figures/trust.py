"""Pure figure builders of the Trust page: tie ranges, judged share beside the residual gap, and risk.

As every builder of :mod:`dashboard.figures` (sharing its helpers, palette and escaping): tidy frames in
(computed by ``metrics``), ``plotly.graph_objects.Figure`` out, no Streamlit and no state; user text (system
names, topic ids) is escaped before it reaches a chart.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dashboard.figures._highlight import highlight
from dashboard.figures._style import BELOW, BETTER, LAYOUT, SAME, UNIT, WORSE, safe, short

__all__ = ["RISK_PANELS", "judged_residual_chart", "risk_chart", "risk_topics_chart", "tie_range_chart"]

RISK_PANELS = (("urisk", "URisk"), ("trisk", "TRisk"), ("georisk", "GeoRisk"))
"""The columns of :func:`metrics.stats.risk.risk_table` drawn by :func:`risk_chart`, one panel each, with titles."""
FLAGGED = {"riskier": WORSE, "safer": BETTER}  # TRisk beyond ∓2 (metrics.stats.risk.TRISK_THRESHOLD)


def _number(value: float) -> str:
    return "n/a" if not np.isfinite(value) else f"{value:.4f}"


def tie_range_chart(summary: pd.DataFrame, measures: Sequence[str], colors: Mapping[str, str],
                    highlighted: Sequence[str] | None = None) -> go.Figure:
    """Per system, each measure's reported mean with the range over the orders of tied scores.

    Parameters
    ----------
    summary : pandas.DataFrame
        As :func:`metrics.stats.ties.tie_summary` returns it (system, measure, low, reported, high, n_queries).
    measures : sequence of str
        One panel each, side by side, in this order.
    colors : mapping
        ``{system: colour}`` (:func:`dashboard.figures.system_colors`).
    highlighted : sequence of str, optional
        See :func:`dashboard.figures.highlight`.

    Returns
    -------
    plotly.graph_objects.Figure
        One trace per system and measure: a dot at the reported value, a bar from ``low`` to ``high`` (none
        when the measure has no exact range: NaN bounds).
    """
    measures = list(measures)
    systems = list(dict.fromkeys(summary["system"]))
    fig = make_subplots(rows=1, cols=max(len(measures), 1), shared_yaxes=True, horizontal_spacing=0.03,
                        subplot_titles=[safe(m) for m in measures] or None)
    for col, measure in enumerate(measures, start=1):
        rows = summary[summary["measure"] == measure]
        for row in rows.itertuples(index=False):
            exact = np.isfinite(row.low) and np.isfinite(row.high)
            err = dict(type="data", symmetric=False, array=[row.high - row.reported],
                       arrayminus=[row.reported - row.low], thickness=3, width=7) if exact else None
            fig.add_trace(go.Scatter(
                x=[row.reported], y=[safe(row.system)], mode="markers", error_x=err, name=short(row.system),
                legendgroup=safe(row.system), showlegend=False, marker=dict(size=12, color=colors.get(row.system)),
                hovertemplate=(f"{safe(row.system)}<br>{safe(measure)} reported %{{x:.4f}}<br>over the orders of "
                               f"ties: {_number(row.low)} to {_number(row.high)}<extra></extra>")), row=1, col=col)
    fig.update_layout(title="Mean over topics, and its range over every order of tied scores", **LAYOUT)
    fig.update_layout(height=160 + 40 * max(len(systems), 1))
    fig.update_xaxes(title_text=f"mean {UNIT}")
    fig.update_yaxes(autorange="reversed", categoryorder="array", categoryarray=[safe(s) for s in systems])
    return highlight(fig, highlighted)


def judged_residual_chart(frame: pd.DataFrame, colors: Mapping[str, str], measure: str, residual: str,
                          judged: str, highlighted: Sequence[str] | None = None) -> go.Figure:
    """Per topic and system: the share of the top k judged (above) and what the residual adds (below).

    Parameters
    ----------
    frame : pandas.DataFrame
        Columns system, query, value, residual, gap, judged (:func:`dashboard.data.judged_residual`).
    colors : mapping
        ``{system: colour}``.
    measure, residual, judged : str
        The measures' names, for the titles.
    highlighted : sequence of str, optional
        See :func:`dashboard.figures.highlight`.

    Returns
    -------
    plotly.graph_objects.Figure
        Two traces per system: its ``judged`` markers (upper panel) and its ``gap`` bars (lower panel).
    """
    topics = [safe(q) for q in dict.fromkeys(frame["query"].astype(str))]
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.08,
                        subplot_titles=[f"{safe(judged)}: share of the top documents judged",
                                        f"{safe(residual)} − {safe(measure)}: the most the unjudged could add"])
    for system, rows in frame.groupby("system", sort=False):
        x = [safe(q) for q in rows["query"].astype(str)]
        name, group = short(system), safe(system)
        fig.add_trace(go.Scatter(x=x, y=rows["judged"], mode="markers", name=name, legendgroup=group,
                                 marker=dict(size=8, color=colors.get(system)),
                                 hovertemplate=(f"{group}<br>topic %{{x}}<br>{safe(judged)} %{{y:.4f}}"
                                                "<extra></extra>")),
                      row=1, col=1)
        fig.add_trace(go.Bar(x=x, y=rows["gap"], name=name, legendgroup=group, showlegend=False,
                             marker_color=colors.get(system),
                             customdata=np.stack([rows["value"], rows["residual"]], axis=1),
                             hovertemplate=(f"{group}<br>topic %{{x}}<br>{safe(measure)} %{{customdata[0]:.4f}}, "
                                            f"{safe(residual)} %{{customdata[1]:.4f}}<br>gap %{{y:.4f}}"
                                            "<extra></extra>")),
                      row=2, col=1)
    fig.update_layout(title=f"Judged documents and the residual gap of {safe(measure)}, topic by topic",
                      barmode="group", **LAYOUT)
    fig.update_layout(height=560, legend=BELOW)
    fig.update_xaxes(type="category", categoryorder="array", categoryarray=topics)
    fig.update_xaxes(title_text="topic", row=2, col=1)
    fig.update_yaxes(title_text=f"judged {UNIT}", range=[-0.03, 1.05], row=1, col=1)
    fig.update_yaxes(title_text="gap", row=2, col=1)
    return highlight(fig, highlighted)


def risk_chart(table: pd.DataFrame, measure: str) -> go.Figure:
    """URisk, TRisk and GeoRisk of each system against the baseline, side by side.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`metrics.stats.risk.risk_table` of one measure (one row per system besides the baseline).
    measure : str

    Returns
    -------
    plotly.graph_objects.Figure
        One bar trace per panel of :data:`RISK_PANELS`; TRisk's bars flagged (riskier in orange, safer in
        green) beyond ±2, drawn as dotted lines.
    """
    rows = table[table["measure"] == measure]
    systems = [safe(s) for s in rows["system"]]
    baseline = safe(rows["baseline"].iloc[0]) if len(rows) else ""
    alpha = float(rows["alpha"].iloc[0]) if len(rows) else float("nan")
    fig = make_subplots(rows=1, cols=len(RISK_PANELS), shared_yaxes=True, horizontal_spacing=0.04,
                        subplot_titles=[title for _, title in RISK_PANELS])
    neutral = "#4a90c8"
    for col, (column, title) in enumerate(RISK_PANELS, start=1):
        color = [FLAGGED.get(f, neutral) for f in rows["flag"]] if column == "trisk" else neutral
        fig.add_trace(go.Bar(x=rows[column], y=systems, orientation="h", name=title, marker_color=color,
                             customdata=np.stack([[safe(s) for s in rows["system"]], rows["flag"]], axis=1),
                             hovertemplate=(f"%{{customdata[0]}}<br>{title} %{{x:.4f}} %{{customdata[1]}}"
                                            "<extra></extra>")),
                      row=1, col=col)
    for x in (-2.0, 2.0):
        fig.add_vline(x=x, line_dash="dot", line_color="#666", row=1, col=2)
    fig.update_layout(title=f"{safe(measure)} against {baseline}, losses weighted 1 + α = {1 + alpha:g}",
                      showlegend=False, **LAYOUT)
    fig.update_layout(height=160 + 40 * max(len(systems), 1))
    fig.update_yaxes(autorange="reversed")
    return fig


def risk_topics_chart(frame: pd.DataFrame, system: str, baseline: str, measure: str) -> go.Figure:
    """Per topic, the system's risk-adjusted difference from the baseline: wins, ties and (weighted) losses.

    Parameters
    ----------
    frame : pandas.DataFrame
        Columns query, delta, adjusted (:func:`dashboard.data.risk_topics`), in the order drawn.
    system, baseline, measure : str

    Returns
    -------
    plotly.graph_objects.Figure
        Three bar traces, always (wins, ties, losses; a side without topics is empty).
    """
    topics = [safe(q) for q in frame["query"].astype(str)]
    fig = go.Figure()
    delta = frame["delta"].to_numpy(dtype=float)
    for name, color, keep in (("win", BETTER, delta > 0), ("tie", SAME, delta == 0), ("loss, weighted", WORSE,
                                                                                      delta < 0)):
        rows = frame[keep]
        fig.add_trace(go.Bar(x=[safe(q) for q in rows["query"].astype(str)], y=rows["adjusted"], name=name,
                             marker_color=color, customdata=rows["delta"],
                             hovertemplate=("topic %{x}<br>difference %{customdata:+.4f}<br>risk-adjusted "
                                            "%{y:+.4f}<extra></extra>")))
    fig.update_layout(title=f"{safe(system)} − {safe(baseline)} per topic, {safe(measure)}: losses weighted",
                      xaxis_title="topic", yaxis_title="risk-adjusted difference", **LAYOUT)
    fig.update_layout(height=420, legend=BELOW)
    fig.update_xaxes(type="category", categoryorder="array", categoryarray=topics)
    return fig
