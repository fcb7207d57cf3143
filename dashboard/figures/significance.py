"""The significance page's charts: p-value and effect matrices, wins, ties and losses per pair."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dashboard.figures._style import BELOW, BETTER, LAYOUT, SAME, WORSE, base_figure, safe, short

__all__ = ["MATRIX_VALUES", "SIGNIFICANT", "effect_heatmap", "pairwise_matrix", "pvalue_heatmap",
           "win_tie_loss_chart"]


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
    ``effect_size`` (Cohen's d_z of b − a), from a comparison's table (metrics.stats.significance)."""
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
    below ``alpha``; untested pairs stay empty. ``tests``: a comparison's table (metrics.stats.significance).
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
    fig = base_figure(f"Topics where B is better, equal, worse ({safe(measure)})", "topics", "", barmode="stack",
                      height=190 + 34 * max(len(rows), 1), legend=dict(BELOW, traceorder="normal"))
    for column, name, color in (("wins", "B better", BETTER), ("ties", "tie", SAME), ("losses", "B worse", WORSE)):
        fig.add_trace(go.Bar(x=rows[column], y=pairs, orientation="h", name=name, marker_color=color,
                             hovertemplate=f"%{{y}}<br>{name}: %{{x}} topics<extra></extra>"))
    fig.update_yaxes(autorange="reversed")
    return fig
