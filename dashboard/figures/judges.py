"""Pure figure builders of the judges page: the confusion of two sets' grades, the systems' ranks under each
set, and prediction-powered intervals beside the naive ones.

As every builder of :mod:`dashboard.figures`: tidy frames in (computed by :mod:`metrics.judgments`),
``plotly.graph_objects.Figure`` out, no Streamlit and no state; user text (set names, system names) is
escaped before it reaches a chart.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dashboard.figures._style import BELOW, LAYOUT, OKABE_ITO, safe, short, system_colors

__all__ = ["INTERVALS", "confusion_heatmap", "interval_chart", "rank_chart"]

INTERVALS = (("human", "the reference only"), ("ppi", "prediction-powered"), ("automatic", "the automatic set only"))
"""The intervals :func:`interval_chart` draws (column prefix, legend), in order."""
_BLUES = [[0.0, "#f7fbff"], [1.0, "#08306b"]]


def confusion_heatmap(cells: pd.DataFrame, first: str, second: str) -> go.Figure:
    """How two sets graded the documents both judged: documents at each pair of grades.

    Parameters
    ----------
    cells : pandas.DataFrame
        Columns ``first``, ``second`` (grades), ``documents``: the non-zero cells
        (:func:`metrics.judgments.labels.confusion`).
    first, second : str
        The sets' names (axis titles).

    Returns
    -------
    plotly.graph_objects.Figure
        One heat map: the first set's grades down, the second's across, each grade either set used; a cell
        no document falls in is 0.
    """
    rows = sorted(set(cells["first"].tolist()))
    columns = sorted(set(cells["second"].tolist()))
    z = np.zeros((len(rows), len(columns)), dtype=np.int64)
    for r in cells.itertuples(index=False):
        z[rows.index(r.first), columns.index(r.second)] = r.documents
    fig = go.Figure(go.Heatmap(
        z=z, x=[str(g) for g in columns], y=[str(g) for g in rows], colorscale=_BLUES, texttemplate="%{z}",
        textfont=dict(size=13), colorbar=dict(title="documents"),
        hovertemplate=f"{safe(first)}: %{{y}}<br>{safe(second)}: %{{x}}<br>%{{z}} documents<extra></extra>"))
    fig.update_layout(title=f"Grades of the documents both judged: {safe(first)} against {safe(second)}",
                      xaxis_title=f"grade by {safe(second)}", yaxis_title=f"grade by {safe(first)}", **LAYOUT)
    fig.update_xaxes(type="category")
    fig.update_yaxes(type="category", autorange="reversed")
    fig.update_layout(height=260 + 40 * len(rows))
    return fig


def rank_chart(orders: pd.DataFrame, sets: Sequence[str], systems: Sequence[str]) -> go.Figure:
    """Each system's rank under each set, one line per system (1 at the top).

    Parameters
    ----------
    orders : pandas.DataFrame
        Columns ``judges``, ``system``, ``value``, ``rank`` of one measure
        (:func:`metrics.judgments.systems.system_orders`).
    sets : sequence of str
        The sets, in order (x).
    systems : sequence of str
        The systems, in the order they were loaded (their colours).

    Returns
    -------
    plotly.graph_objects.Figure
        One trace per system, named after it, with its rank under each set.
    """
    colors = system_colors(list(systems))
    fig = go.Figure()
    for system in systems:
        rows = orders[orders["system"] == system].set_index("judges").reindex(list(sets))
        fig.add_trace(go.Scatter(
            x=[safe(s) for s in sets], y=rows["rank"].to_numpy(dtype=float), mode="lines+markers+text",
            name=short(system), text=[safe(system)] * len(sets), textposition="middle right",
            line=dict(color=colors.get(system, OKABE_ITO[0]), width=2), marker=dict(size=10),
            customdata=rows["value"].to_numpy(dtype=float),
            hovertemplate=f"{safe(system)} under %{{x}}: rank %{{y}}, %{{customdata:.4f}}<extra></extra>"))
    fig.update_layout(title="The systems' ranks under each judgment set", xaxis_title="judgment set",
                      yaxis_title="rank (1: best)", **LAYOUT)
    fig.update_yaxes(autorange="reversed", dtick=1)
    fig.update_xaxes(type="category")
    fig.update_layout(legend=BELOW, showlegend=False, height=300 + 24 * len(systems))
    return fig


def interval_chart(frame: pd.DataFrame, measure: str, automatic: str) -> go.Figure:
    """Each system's mean of a measure with its interval: the reference alone, prediction-powered, and the
    automatic set alone.

    Parameters
    ----------
    frame : pandas.DataFrame
        :func:`metrics.judgments.ppi.ppi_systems` of one measure.
    measure, automatic : str
        The measure and the automatic set's names.

    Returns
    -------
    plotly.graph_objects.Figure
        One trace per entry of :data:`INTERVALS` (systems on y), error bars from the interval's bounds.
    """
    fig = go.Figure()
    names = [safe(s) for s in frame["system"]]
    for (column, legend), color in zip(INTERVALS, (OKABE_ITO[0], OKABE_ITO[2], OKABE_ITO[1])):
        mean = frame[column].to_numpy(dtype=float)
        low, high = frame[f"{column}_low"].to_numpy(dtype=float), frame[f"{column}_high"].to_numpy(dtype=float)
        label = legend if column != "automatic" else f"{safe(automatic)} only"
        fig.add_trace(go.Scatter(
            x=mean, y=names, mode="markers", name=label, marker=dict(color=color, size=10),
            error_x=dict(type="data", symmetric=False, array=high - mean, arrayminus=mean - low, color=color),
            customdata=np.column_stack([low, high]),
            hovertemplate=f"%{{y}}, {label}: %{{x:.4f}} [%{{customdata[0]:.4f}}, %{{customdata[1]:.4f}}]"
                          "<extra></extra>"))
    fig.update_layout(title=f"{safe(measure)}: means and intervals", xaxis_title=safe(measure), yaxis_title="system",
                      **LAYOUT)
    fig.update_yaxes(type="category", autorange="reversed")
    fig.update_layout(legend=BELOW, height=280 + 36 * len(names), scattermode="group")
    return fig
