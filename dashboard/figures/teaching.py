"""The teaching pages' charts: one ranking rank by rank, one topic under each convention's choices."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dashboard.figures._style import OKABE_ITO, UNIT, base_figure, safe

__all__ = ["anatomy_chart", "convention_chart"]


def anatomy_chart(table: pd.DataFrame, columns: Sequence[str], title: str) -> go.Figure:
    """Running values of a ranking against rank (columns rank and each name in ``columns``)."""
    fig = base_figure(title, "rank i", f"value of the top i {UNIT}")
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
    fig = base_figure(title, f"value {UNIT}", "", height=140 + 34 * max(len(effects), 1), showlegend=False)
    fig.add_trace(go.Bar(x=effects["value"], y=labels, orientation="h", marker_color=colors,
                         customdata=np.stack([[safe(m) for m in effects["measure"]]], axis=1),
                         text=[f"{v:.4f}" for v in effects["value"]], textposition="auto",  # inside a long bar
                         hovertemplate="%{y}<br>%{customdata[0]} = %{x:.6f}<extra></extra>"))
    fig.update_yaxes(autorange="reversed")
    fig.update_xaxes(range=[0, max(1.0, float(effects["value"].max()) * 1.15) if len(effects) else 1.0])
    return fig
