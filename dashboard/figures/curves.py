"""Precision against recall, the 11-point curves, P@k and R@k, and DCG@k against the ideal."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dashboard.figures._highlight import GREY, highlight, highlight_colors
from dashboard.figures._style import (BELOW, LAYOUT, RULE_DASH, RULE_SYMBOL, UNDER, UNIT, base_figure, iprec_of,
                                      line_of, marker_of, safe, short)

__all__ = ["at_k_chart", "eleven_point_chart", "gain_chart", "pr_chart", "rule_chart"]


def pr_chart(raw: pd.DataFrame, envelope: pd.DataFrame | None, colors: Mapping[str, str], title: str,
             points: pd.DataFrame | None = None, highlighted: Sequence[str] | None = None) -> go.Figure:
    """Precision against recall: the raw saw-tooth (thin, with a dot per rank), the interpolated envelope
    (thick), and the 11 interpolated points (diamonds).

    ``raw``: columns system, recall, precision (and rank, docid, grade for the hover); ``envelope``: system,
    recall and precision or iprec (the step function's vertices, metrics.curves.interpolated_pr's
    ``envelope``); ``points``: system, recall, precision or iprec; ``highlighted``: see
    :func:`highlight`.
    """
    fig = base_figure(title, f"recall {UNIT}", f"precision {UNIT}", legend=UNDER)
    for system, rows in raw.groupby("system", sort=False):
        name = safe(system)
        custom = np.stack([rows["rank"].astype(int), [safe(d) for d in rows["docid"]],
                           ["unjudged" if np.isnan(g) else f"grade {int(g)}" for g in rows["grade"]]], axis=1) \
            if {"rank", "docid", "grade"} <= set(rows.columns) else None
        fig.add_trace(go.Scatter(
            x=rows["recall"], y=rows["precision"], mode="lines+markers", name=f"{short(system)} (raw)",
            legendgroup=name, showlegend=envelope is None, line=line_of(colors, system, 1.2),
            marker=marker_of(colors, system, 6),
            opacity=0.75, customdata=custom,
            hovertemplate=("rank %{customdata[0]}: %{customdata[1]} (%{customdata[2]})<br>" if custom is not None
                           else "") + "recall %{x:.4f}<br>precision %{y:.4f}<extra>" + name + "</extra>"))
    if envelope is not None:
        for system, rows in envelope.groupby("system", sort=False):
            fig.add_trace(go.Scatter(x=rows["recall"], y=iprec_of(rows), mode="lines", name=short(system),
                                     legendgroup=safe(system), line=line_of(colors, system, 3),
                                     hovertemplate="recall %{x:.4f}<br>interpolated precision %{y:.4f}"
                                                   "<extra>" + safe(system) + "</extra>"))
    if points is not None:
        for system, rows in points.groupby("system", sort=False):
            fig.add_trace(go.Scatter(x=rows["recall"], y=iprec_of(rows), mode="markers",
                                     name=f"{safe(system)} (11 points)",
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
    fig = base_figure(title, f"recall level {UNIT}", f"interpolated precision {UNIT}", legend=UNDER)
    for system, rows in points.groupby("system", sort=False):
        mean = (averages or {}).get(system)
        name = short(system) + (f" · {mean:.4f}" if mean is not None else "")
        fig.add_trace(go.Scatter(x=rows["recall"], y=iprec_of(rows), mode="lines+markers", name=name,
                                 legendgroup=safe(system), line=line_of(colors, system, 3),
                                 marker=marker_of(colors, system, 10),
                                 hovertemplate="recall %{x:.1f}<br>interpolated precision %{y:.4f}<extra>"
                                               + safe(system) + "</extra>"))
    if others is not None:
        for (system, rule), rows in others.groupby(["system", "rule"], sort=False):
            fig.add_trace(go.Scatter(
                x=rows["recall"], y=iprec_of(rows), mode="lines+markers", name=f"{safe(system)} · {safe(rule)}",
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
        colors = highlight_colors(highlighted)
    systems = list(dict.fromkeys(table["system"]))
    rules = list(dict.fromkeys(table["rule"]))
    fig = base_figure(title, f"11-point interpolated average precision {UNIT}", "",
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
                                     line=line_of(colors, system, 2.5), marker=marker_of(colors, system, 8, 12),
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
                                 legendgroup=safe(system), line=line_of(colors, system, 2.5),
                                 marker=marker_of(colors, system, 8, 12),
                                 hovertemplate="DCG@%{x} = %{y:.4f}<extra>" + safe(system) + "</extra>"),
                      row=1, col=1)
        fig.add_trace(go.Scatter(x=rows["k"], y=rows["ndcg"], mode="lines+markers", name=f"{short(system)} nDCG",
                                 legendgroup=safe(system), showlegend=False, line=line_of(colors, system, 2.5),
                                 marker=marker_of(colors, system, 8, 12),
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
