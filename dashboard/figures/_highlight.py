"""A chart of many systems made readable: a few systems in colour, the others in grey behind them."""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from dashboard.figures._style import OKABE_ITO, safe

__all__ = ["GREY", "HIGHLIGHTED", "highlight", "highlight_colors"]

HIGHLIGHTED = 8  # systems drawn in colour, with a legend entry, on a chart of many systems
GREY = "#c4c4c4"  # the other systems: behind, thin, without a legend entry


def highlight_colors(highlighted: Sequence[str]) -> dict[str, str]:
    """The first :data:`HIGHLIGHTED` of ``highlighted``, each with its own palette colour (by its place there)."""
    chosen = list(dict.fromkeys(highlighted))[:HIGHLIGHTED]
    return {s: OKABE_ITO[i % len(OKABE_ITO)] for i, s in enumerate(chosen)}


def highlight(fig: go.Figure, highlighted: Sequence[str] | None) -> go.Figure:
    """A chart of many systems made readable: a few systems in colour, with legend entries, the rest in grey.

    The traces of one system are those whose ``legendgroup`` is the system's (escaped) name, as every
    multi-system builder here draws them. With ``highlighted`` (systems, at most :data:`HIGHLIGHTED` used,
    e.g. the pinned, the selected and the top ones), each of those keeps its traces in a colour of its own;
    every other system's traces become grey, thin and half transparent, drawn behind, and leave the legend.
    Traces of no system (keys, ideal curves) stay as they are. ``None`` changes nothing (few systems: every
    one in its own colour). Changes ``fig`` in place and returns it.
    """
    if highlighted is None:
        return fig
    colors = {safe(s): c for s, c in highlight_colors(highlighted).items()}
    behind, front, rest = [], [], []
    for trace in fig.data:
        group = getattr(trace, "legendgroup", None)
        if not group:
            rest.append(trace)
            continue
        color = colors.get(group, GREY)
        for part in ("line", "marker", "error_x"):
            if getattr(trace, part, None) is not None and part in trace:
                trace[part].color = color
        if isinstance(trace, go.Box):
            trace.fillcolor = color
        if group in colors:
            front.append(trace)
            continue
        trace.showlegend = False
        trace.opacity = 0.45
        if getattr(trace, "line", None) is not None and "line" in trace and trace.line.width:
            trace.line.width = min(trace.line.width, 1.2)
        behind.append(trace)
    fig.data = tuple(behind + front + rest)
    return fig
