"""Pure figure builders of the reproducibility page: a reproduction's order and effects, topic by topic.

As every builder of :mod:`dashboard.figures` (sharing its palette, layout and escaping): tidy frames in
(computed by ``metrics``), ``plotly.graph_objects.Figure`` out, no Streamlit and no state; user text (system
names, topic ids) is escaped before it reaches a chart.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dashboard.figures._style import BELOW, LAYOUT, OKABE_ITO, safe

__all__ = ["REPRO_PANELS", "REPRO_RUNS", "effect_chart", "order_chart"]

REPRO_PANELS = (("ktu", "Kendall's τ union"), ("rbo", "RBO"))
"""The per-topic columns of :attr:`metrics.stats.reproducibility.Reproduction.order` drawn, one panel each."""
REPRO_RUNS = {"baseline": OKABE_ITO[0], "advanced": OKABE_ITO[1]}
"""The two runs of a reproduction, in the order drawn, with their colours."""

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
