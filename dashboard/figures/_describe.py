"""Each chart's text alternative: its title and a one-line summary of what it shows, computed from its data.

A builder states its summary with :func:`described` (kept in the figure's ``layout.meta``); a figure
without one gets :func:`summary_of`, read from its traces. :func:`text_alternative` is what a page shows
under the chart and the report writes beside it, for readers who cannot see the drawing.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping

import numpy as np
import plotly.graph_objects as go

__all__ = ["described", "ranked_words", "summary_of", "text_alternative"]

_KEY = "summary"
_TAG = re.compile(r"<[^>]+>")


def described(fig: go.Figure, summary: str) -> go.Figure:
    """``fig`` with its one-line summary (plain text; changes ``fig`` in place and returns it)."""
    meta = dict(fig.layout.meta) if isinstance(fig.layout.meta, Mapping) else {}
    meta[_KEY] = " ".join(str(summary).split())
    fig.update_layout(meta=meta)
    return fig


def ranked_words(values: Mapping[str, float], digits: int = 4, what: str = "highest") -> str:
    """``highest: a (0.3120), then b (0.2950); lowest: c (0.0750)`` from name -> value (NaN left out)."""
    shown = sorted(((float(v), str(k)) for k, v in values.items() if v is not None and np.isfinite(v)), reverse=True)
    if not shown:
        return "no values"
    top = ", then ".join(f"{name} ({value:.{digits}f})" for value, name in shown[:2])
    low = shown[-1]
    lowest = "lowest" if what == "highest" else "highest"
    return f"{what}: {top}" + (f"; {lowest}: {low[1]} ({low[0]:.{digits}f})" if len(shown) > 2 else "")


def _numbers(values) -> np.ndarray:
    try:
        out = np.asarray(values, dtype=float).ravel()
    except (TypeError, ValueError):
        return np.empty(0)
    return out[np.isfinite(out)]


def summary_of(fig: go.Figure) -> str:
    """A one-line summary read from the figure's traces: what they are and the range of their values."""
    named = [str(t.name) for t in fig.data if getattr(t, "name", None) and t.showlegend is not False]
    values = []
    for trace in fig.data:
        for part in ("z",) if isinstance(trace, go.Heatmap) else ("y", "x") if isinstance(trace, go.Box) else ("y",):
            numbers = _numbers(getattr(trace, part, None) if getattr(trace, part, None) is not None else [])
            if len(numbers):
                values.append(numbers)
                break
    words = []
    if named:
        words.append(f"{len(named)} series: " + ", ".join(html.unescape(n) for n in named[:8])
                     + (", …" if len(named) > 8 else ""))
    if values:
        every = np.concatenate(values)
        words.append(f"values from {every.min():.4g} to {every.max():.4g}")
    return "; ".join(words) + "." if words else "No data."


def text_alternative(fig: go.Figure) -> str:
    """The chart in words: its title (as read), then its summary (the builder's, else :func:`summary_of`)."""
    title = html.unescape(" ".join(_TAG.sub(" ", str(fig.layout.title.text or "")).split()))
    meta = fig.layout.meta if isinstance(fig.layout.meta, Mapping) else {}
    summary = meta.get(_KEY) or summary_of(fig)
    return f"{title}. {summary}" if title else summary
