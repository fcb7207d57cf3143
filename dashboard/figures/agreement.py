"""Pure figure builders of the agreement page: agreement between measures' orderings of the systems.

As every builder of :mod:`dashboard.figures` (sharing its palette, layout and escaping): tidy frames in
(computed by ``metrics``), ``plotly.graph_objects.Figure`` out, no Streamlit and no state; user text (system
names, measure names) is escaped before it reaches a chart.
"""

from __future__ import annotations

from collections.abc import Collection

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dashboard.figures._describe import described
from dashboard.figures._style import BELOW, LAYOUT, SAME, WORSE, safe

__all__ = ["agreement_heatmap", "ordering_scatter"]

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
    pairs = [(float(matrix.iat[i, j]), matrix.index[i], matrix.columns[j]) for i in range(len(matrix))
             for j in range(i + 1, len(matrix.columns)) if np.isfinite(matrix.iat[i, j])]
    if not pairs:
        return described(fig, "No pair of measures with a value.")
    low, high = min(pairs), max(pairs)
    return described(fig, f"{len(pairs)} pairs of measures; most alike: {high[1]} and {high[2]} ({high[0]:.3f}); "
                          f"least alike: {low[1]} and {low[2]} ({low[0]:.3f}).")


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
            customdata=[[safe(s)] for s in rows["system"]],  # the hover names the point, labelled or not
            textposition="top center", marker=dict(color=color, size=11, symbol=symbol),
            hovertemplate=f"%{{customdata[0]}}<br>{safe(x)} %{{x:.4f}}<br>{safe(y)} %{{y:.4f}}<extra></extra>"))
    fig.update_layout(title=f"Each system's mean: {safe(x)} against {safe(y)}", xaxis_title=safe(x),
                      yaxis_title=safe(y), **LAYOUT)
    fig.update_layout(legend=BELOW)
    return fig
