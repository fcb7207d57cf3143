"""Pure figure builders of the statistics pages: agreement between system orderings, and reproducibility.

As every builder of :mod:`dashboard.figures` (sharing its palette, layout and escaping): tidy frames in
(computed by ``metrics``), ``plotly.graph_objects.Figure`` out, no Streamlit and no state; user text (system
names, measure names, topic ids) is escaped before it reaches a chart.
"""

from __future__ import annotations

from collections.abc import Collection

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dashboard.figures._style import BELOW, LAYOUT, OKABE_ITO, SAME, WORSE, safe

__all__ = ["REPRO_PANELS", "REPRO_RUNS", "agreement_heatmap", "effect_chart", "order_chart", "ordering_scatter"]

REPRO_PANELS = (("ktu", "Kendall's τ union"), ("rbo", "RBO"))
"""The per-topic columns of :attr:`metrics.stats.reproducibility.Reproduction.order` drawn, one panel each."""
REPRO_RUNS = {"baseline": OKABE_ITO[0], "advanced": OKABE_ITO[1]}
"""The two runs of a reproduction, in the order drawn, with their colours."""
DIVERGING = [[0.0, "#b2182b"], [0.5, "#f7f7f7"], [1.0, "#2166ac"]]  # -1 red, 0 white, +1 blue


def agreement_heatmap(matrix: pd.DataFrame, title: str, statistic: str = "τ") -> go.Figure:
    """A measures × measures matrix of rank correlations between system orderings, from -1 to 1.

    Parameters
    ----------
    matrix : pandas.DataFrame
        Square, indexed and columned by measure (:func:`metrics.stats.agreement.agreement_matrix`).
    title : str
    statistic : str
        The colour bar's title and the hover's name of the value.

    Returns
    -------
    plotly.graph_objects.Figure
        One heat map trace; each cell written to 3 decimals (NaN: a constant ordering, blank).
    """
    labels = [safe(m) for m in matrix.index]
    fig = go.Figure(go.Heatmap(
        z=matrix.to_numpy(dtype=float), x=[safe(m) for m in matrix.columns], y=labels, zmin=-1, zmax=1,
        colorscale=DIVERGING, texttemplate="%{z:.3f}", textfont=dict(size=13),
        hovertemplate=f"%{{y}} vs %{{x}}<br>{safe(statistic)} = %{{z:.4f}}<extra></extra>",
        colorbar=dict(title=safe(statistic))))
    fig.update_layout(title=title, xaxis_title="measure", yaxis_title="measure", **LAYOUT)
    fig.update_layout(height=240 + 44 * len(labels))
    fig.update_yaxes(autorange="reversed")
    return fig


def ordering_scatter(means: pd.DataFrame, x: str, y: str, swapped: Collection[str] = ()) -> go.Figure:
    """Each system's mean under two measures; the systems of a swapped pair drawn apart.

    Parameters
    ----------
    means : pandas.DataFrame
        Columns ``system``, ``x``, ``y`` (the two means).
    x, y : str
        The two measures' names (axis titles).
    swapped : collection of str
        The systems that belong to at least one pair the two measures order the other way round.

    Returns
    -------
    plotly.graph_objects.Figure
        Two traces, ``in a swapped pair`` then ``same order``, whose points together are every system.
    """
    fig = go.Figure()
    moved = means["system"].astype(str).isin({str(s) for s in swapped}).to_numpy()
    for name, rows, color, symbol in (("in a swapped pair", means[moved], WORSE, "diamond"),
                                      ("same order", means[~moved], SAME, "circle")):
        fig.add_trace(go.Scatter(
            x=rows["x"], y=rows["y"], mode="markers+text", name=name, text=[safe(s) for s in rows["system"]],
            textposition="top center", marker=dict(color=color, size=11, symbol=symbol),
            hovertemplate=f"%{{text}}<br>{safe(x)} %{{x:.4f}}<br>{safe(y)} %{{y:.4f}}<extra></extra>"))
    fig.update_layout(title=f"Each system's mean: {safe(x)} against {safe(y)}", xaxis_title=safe(x),
                      yaxis_title=safe(y), **LAYOUT)
    fig.update_layout(legend=BELOW)
    return fig


def order_chart(order: pd.DataFrame) -> go.Figure:
    """Per topic, how close the reproduced ranking is to the original one: Kendall's τ union and RBO.

    Parameters
    ----------
    order : pandas.DataFrame
        Columns ``run`` (``baseline`` or ``advanced``), ``query``, ``ktu``, ``rbo``
        (:attr:`metrics.stats.reproducibility.Reproduction.order`).

    Returns
    -------
    plotly.graph_objects.Figure
        One panel per entry of :data:`REPRO_PANELS`, one trace per run present in each, topics on x.
    """
    fig = make_subplots(rows=len(REPRO_PANELS), cols=1, shared_xaxes=True, vertical_spacing=0.08,
                        subplot_titles=[title for _, title in REPRO_PANELS])
    for row, (column, title) in enumerate(REPRO_PANELS, 1):
        for run, color in REPRO_RUNS.items():
            rows = order[order["run"] == run]
            if rows.empty:
                continue
            fig.add_trace(go.Scatter(
                x=[safe(q) for q in rows["query"]], y=rows[column].to_numpy(dtype=float), mode="markers",
                name=run, legendgroup=run, showlegend=row == 1, marker=dict(color=color, size=8),
                hovertemplate=f"topic %{{x}}<br>{run}: {title} %{{y:.4f}}<extra></extra>"), row=row, col=1)
        fig.update_yaxes(title_text=title, row=row, col=1)
    fig.update_yaxes(range=[-1.05, 1.05], row=1, col=1)
    fig.update_yaxes(range=[-0.05, 1.05], row=2, col=1)
    fig.update_xaxes(type="category", title_text="topic", row=len(REPRO_PANELS), col=1)
    fig.update_layout(title="Original and reproduced rankings, topic by topic", **LAYOUT)
    fig.update_layout(legend=BELOW, height=560)
    return fig


def effect_chart(effects: pd.DataFrame) -> go.Figure:
    """Per measure, the effect ratio (1: the same improvement) and ΔRI (0: the same relative improvement).

    Parameters
    ----------
    effects : pandas.DataFrame
        Columns ``measure``, ``er``, ``delta_ri`` (:attr:`metrics.stats.reproducibility.Reproduction.effects`).

    Returns
    -------
    plotly.graph_objects.Figure
        Two panels of bars, ``ER`` and ``ΔRI``, one bar per measure; a dotted line at the perfect value.
        Infinite values (a zero denominator) are not drawn.
    """
    fig = make_subplots(rows=1, cols=2, subplot_titles=["Effect ratio (ER)", "ΔRI"], horizontal_spacing=0.12)
    names = [safe(m) for m in effects["measure"]]
    for col, (column, label, perfect) in enumerate((("er", "ER", 1.0), ("delta_ri", "ΔRI", 0.0)), 1):
        values = effects[column].to_numpy(dtype=float)
        fig.add_trace(go.Bar(x=names, y=np.where(np.isfinite(values), values, np.nan), name=label,
                             marker_color=OKABE_ITO[col - 1], showlegend=False,
                             hovertemplate=f"%{{x}}<br>{label} %{{y:.4f}}<extra></extra>"), row=1, col=col)
        fig.add_hline(y=perfect, line_dash="dot", line_color="#555555", row=1, col=col)
    fig.update_layout(title="Overall effect of the reproduction, per measure", **LAYOUT)
    return fig
