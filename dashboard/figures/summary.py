"""The overview's and the data page's charts: means with intervals, distributions over topics, grades."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dashboard.figures._describe import described, ranked_words
from dashboard.figures._highlight import highlight
from dashboard.figures._style import MANY, OKABE_ITO, UNIT, base_figure, safe

__all__ = ["distribution_chart", "grades_chart", "seed_chart", "seed_range_chart", "summary_chart"]


def summary_chart(summary: pd.DataFrame, measure: str, colors: Mapping[str, str],
                  markers: Mapping[str, str] | None = None, baseline: str | None = None,
                  highlighted: Sequence[str] | None = None) -> go.Figure:
    """Each system's mean of one measure with its 95% confidence interval (a dot chart).

    ``markers``: ``{system: "†" | "‡" | letters}`` put after the system's name (significance against the
    baseline); ``baseline``: a dotted vertical line at that system's mean; ``highlighted``: see
    :func:`highlight`.
    """
    rows = summary[summary["measure"] == measure]
    fig = base_figure(f"{safe(measure)}: mean over topics with 95% confidence interval",
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
    described(fig, f"{len(rows)} systems; " + ranked_words(dict(zip(rows["system"], rows["value"])))
              + (f"; baseline {baseline}" if baseline is not None else "") + ".")
    return highlight(fig, highlighted)


def grades_chart(grades: pd.DataFrame) -> go.Figure:
    """Judged documents per relevance grade (columns grade, documents, topics)."""
    fig = base_figure("Judged documents per grade", "relevance grade", "judged documents", height=320)
    fig.add_trace(go.Bar(x=grades["grade"].astype(str), y=grades["documents"], marker_color=OKABE_ITO[0],
                         customdata=grades["topics"], name="judged documents",
                         hovertemplate="grade %{x}: %{y:,} documents in %{customdata} topics<extra></extra>"))
    fig.update_xaxes(type="category")
    return fig


def distribution_chart(per_query: pd.DataFrame, measure: str, colors: Mapping[str, str],
                       highlighted: Sequence[str] | None = None) -> go.Figure:
    """The distribution of one measure over topics for each system (a box with every topic shown);
    ``highlighted``: see :func:`highlight` (the boxes keep the systems' order)."""
    rows = per_query[per_query["measure"] == measure]
    fig = base_figure(f"{safe(measure)} over topics, per system", "", f"{safe(measure)} per topic", showlegend=False)
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


def seed_chart(spread: pd.DataFrame, measure: str, colors: Mapping[str, str]) -> go.Figure:
    """Systems of several runs (seeds): each system's mean over its runs of one measure, the error bar the
    standard deviation between the runs' means, the thin line from the lowest run to the highest
    (:func:`metrics.stats.seeds.seed_spread`'s frame)."""
    rows = spread[spread["measure"] == measure]
    fig = base_figure(f"{safe(measure)}: mean over seeds, ± the standard deviation between seeds",
                      f"{safe(measure)}, mean over runs {UNIT}", "", showlegend=False,
                      height=140 + 52 * max(len(rows), 1))
    for row in rows.itertuples(index=False):
        label = f"{safe(row.system)} ({row.runs} run{'s' if row.runs != 1 else ''})"
        color = colors.get(row.system, "#444")
        fig.add_trace(go.Scatter(x=[row.low, row.high], y=[label, label], mode="lines", line=dict(color=color, width=1),
                                 hoverinfo="skip", name=safe(row.system)))
        sd = row.sd if np.isfinite(row.sd) else None
        fig.add_trace(go.Scatter(
            x=[row.value], y=[label], mode="markers", name=safe(row.system), legendgroup=safe(row.system),
            error_x=None if sd is None else dict(type="data", array=[sd], thickness=2.5, width=8),
            marker=dict(size=16, color=color),
            hovertemplate=(f"{safe(row.system)}<br>{safe(measure)} = %{{x:.4f}} over {row.runs} runs<br>sd "
                           + ("-" if sd is None else f"{sd:.4f}")
                           + f"; lowest run {row.low:.4f}, highest {row.high:.4f}<extra></extra>")))
    fig.update_yaxes(autorange="reversed", title=None)
    described(fig, f"{len(rows)} systems of several runs; "
              + ranked_words(dict(zip(rows["system"], rows["value"]))) + ".")
    return fig


def seed_range_chart(ranges: pd.DataFrame, measure: str, colors: Mapping[str, str]) -> go.Figure:
    """Topic by topic, each system of several runs (seeds): a dot at its mean over the runs, a bar from its
    lowest run to its highest (:func:`metrics.stats.seeds.seed_ranges`' frame), systems side by side."""
    rows = ranges[ranges["measure"] == measure]
    topics = [safe(q) for q in dict.fromkeys(rows["query"])]
    fig = base_figure(f"{safe(measure)} topic by topic: mean over seeds, the bar from the lowest seed to the highest",
                      "topic", f"{safe(measure)} {UNIT}", scattermode="group", scattergap=0.5)
    widest = None
    for system in dict.fromkeys(rows["system"]):
        sub = rows[rows["system"] == system]
        value, low, high = (sub[c].to_numpy(dtype=float) for c in ("value", "low", "high"))
        fig.add_trace(go.Scatter(
            x=[safe(q) for q in sub["query"]], y=value, mode="markers", name=safe(system),
            marker=dict(size=8, color=colors.get(system, "#444")),
            error_y=dict(type="data", symmetric=False, array=high - value, arrayminus=value - low, thickness=2,
                         width=0),
            customdata=np.column_stack([low, high, sub["runs"].to_numpy()]),
            hovertemplate=(f"{safe(system)}, topic %{{x}}<br>mean %{{y:.4f}} over %{{customdata[2]}} runs"
                           "<br>lowest %{customdata[0]:.4f}, highest %{customdata[1]:.4f}<extra></extra>")))
        spread = high - low
        if len(spread) and (widest is None or spread.max() > widest[2]):
            at = int(np.argmax(spread))
            widest = (system, sub["query"].iloc[at], float(spread[at]))
    fig.update_xaxes(type="category", categoryorder="array", categoryarray=topics)
    summary = f"{len(topics)} topics, {len(fig.data)} systems of several runs"
    if widest is not None:
        summary += f"; the widest range: {widest[0]} on topic {widest[1]} ({widest[2]:.4f} from lowest to highest run)"
    return described(fig, summary + ".")

