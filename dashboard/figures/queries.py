"""Topic by topic: the differences between two systems, their scatter, and one topic's rankings."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dashboard.figures._describe import described
from dashboard.figures._style import (BETTER, GRADE_COLORS, LAYOUT, MANY, SAME, UNJUDGED, WORSE, base_figure, safe, short,
                                      wrapped)

__all__ = ["LABELLED", "SIDES", "difference_bars", "rankings_chart", "scatter_chart"]

SIDES = (("B better", BETTER, 1), ("tie", SAME, 0), ("B worse", WORSE, -1))


def _sides(paired: pd.DataFrame):
    """The topics where B is better, equal, worse: (name, colour, boolean mask), one trace each."""
    sign = np.sign(paired["diff"].to_numpy(dtype=float))
    return [(name, color, sign == value) for name, color, value in SIDES]


TITLED, TITLE = 3, 32  # up to that many rankings side by side, each cell names its document's title (so long)
LABELLED = 3  # topics named on the difference chart at each end (the largest gains and losses of B)


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
    fig = base_figure(f"{safe(measure)} per topic: {safe(b)} − {safe(a)}<br><sup>click a bar to open the topic; "
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
    if len(diff):  # room above and below the bars for the labels at their ends
        low, high = min(float(diff.min()), 0.0), max(float(diff.max()), 0.0)
        pad = 0.12 * ((high - low) or 1.0)
        fig.update_yaxes(range=[low - pad, high + pad])
    if len(paired) <= MANY:
        fig.update_xaxes(type="category", categoryorder="array", categoryarray=list(labels),
                         showticklabels=len(paired) <= 60)
        if len(paired) > 60:
            fig.update_xaxes(title_text=f"topic, sorted by the difference ({len(paired):,} topics: hover a bar "
                                        "for its topic)")
    else:
        fig.update_xaxes(title_text=f"topic, sorted by the difference ({len(paired):,} topics)")
    return described(fig, _pair_words(paired, a, b))


def _pair_words(paired: pd.DataFrame, a: str, b: str) -> str:
    """B's wins, losses and ties against A over the topics, and the largest gain and loss."""
    diff = paired["diff"].to_numpy(dtype=float)
    words = f"{b} is better than {a} on {int((diff > 0).sum())} topics, worse on {int((diff < 0).sum())}, " \
            f"equal on {int((diff == 0).sum())}"
    if len(diff) and diff.max() > 0:
        words += f"; largest gain: topic {paired['query'].iloc[int(diff.argmax())]} ({diff.max():+.4f})"
    if len(diff) and diff.min() < 0:
        words += f"; largest loss: topic {paired['query'].iloc[int(diff.argmin())]} ({diff.min():+.4f})"
    return words + "."


def scatter_chart(paired: pd.DataFrame, a: str, b: str, measure: str) -> go.Figure:
    """Topic by topic, system A (x) against system B (y); points above the diagonal favour B."""
    low = float(min(paired["a"].min(), paired["b"].min(), 0.0)) if len(paired) else 0.0
    high = float(max(paired["a"].max(), paired["b"].max(), 1.0)) if len(paired) else 1.0
    # a two-line title: it is drawn in half the page's width
    fig = base_figure(f"{safe(measure)} per topic<br><sup>{safe(a)} (x) against {safe(b)} (y)</sup>",
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
    return described(fig, "Points above the diagonal favour B: " + _pair_words(paired, a, b))


def rankings_chart(rankings: pd.DataFrame, depth: int, title: str = "Rankings, coloured by grade") -> go.Figure:
    """One topic's rankings side by side, each cell coloured by its document's grade ("?": unjudged).

    ``rankings`` has columns system, rank, docid, grade (NaN when unjudged), and optionally ``title`` (each
    document's title or first words: in its cell, cut to :data:`TITLE` characters, when at most
    :data:`TITLED` rankings are shown; whole on hover).
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
        titles = rows["title"] if "title" in rows else [""] * len(rows)
        if len(systems) <= TITLED:  # each document's title on the chart, readable to a room, not only on hover
            labels = [f"{safe(d)}  ·  {label}" + (f"  ·  {short(' '.join(t.split()), TITLE)}" if isinstance(t, str) and t.strip()
                                                  else "") for d, label, t in zip(rows["docid"], labels, titles)]
        elif len(systems) <= 4:
            labels = [f"{safe(d)}  ·  {label}" for d, label in zip(rows["docid"], labels)]
        text.append(labels + [""] * pad)
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
    found = [f"{system}: {int((rankings[rankings['system'] == system].sort_values('rank').head(depth)['grade'] > 0).sum())}"
             for system in systems]
    return described(fig, f"Relevant documents (grade above 0) in the top {depth}: " + ", ".join(found) + ".")


def _grade_scale(levels: np.ndarray) -> list:
    """A discrete colour scale over -1 (unjudged) and one band per grade in ``levels``, each value in the
    middle of its band."""
    colors = [UNJUDGED] + [GRADE_COLORS[min(int(g), len(GRADE_COLORS) - 1)] for g in levels]
    steps = len(colors)
    scale = []
    for i, c in enumerate(colors):
        scale += [[i / steps, c], [(i + 1) / steps, c]]
    return scale
