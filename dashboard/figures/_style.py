"""The house style of the charts: palettes, layouts, and user text made safe for plotly's labels.

Each system keeps one colour (:func:`system_colors`, the Okabe–Ito palette, safe for colour-blind
readers), one dash and one marker everywhere. Text that comes from users (system names, topic and
document ids) is HTML-escaped before it reaches a chart, because plotly interprets a subset of HTML.
"""

from __future__ import annotations

import html
import textwrap
from collections.abc import Mapping, Sequence

import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio

__all__ = ["BELOW", "BETTER", "DASHES", "FONT", "GRADE_COLORS", "LAYOUT", "MANY", "OKABE_ITO", "RULE_DASH",
           "RULE_SYMBOL", "SAME", "SHORT", "SYMBOLS", "UNDER", "UNIT", "UNJUDGED", "WORSE", "base_figure",
           "iprec_of", "line_of", "marker_of", "presented", "safe", "short", "system_colors", "wrapped"]

OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#000000", "#F0E442")
BETTER, WORSE, SAME = "#009E73", "#D55E00", "#999999"
# grade 0, 1, 2, 3, 4+: sand for "judged, not relevant" (visible on white, and on a projector), then blues
# darkening with the grade; unjudged is the grey between them
GRADE_COLORS = ("#f1dcae", "#a6cee3", "#4a90c8", "#1f5fa0", "#08224f")
UNJUDGED = "#bdbdbd"
# each system keeps its dash and its marker everywhere, as its colour: identical curves stay visible
DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")
SYMBOLS = ("circle", "square", "diamond", "triangle-up", "x", "star", "triangle-down", "pentagon")
SHORT = 24  # characters of a system's name in a legend; the hover text gives it whole
RULE_DASH = {"trec_eval-9": "solid", "trec_eval-10": "dash", "textbook": "dot"}
RULE_SYMBOL = {"trec_eval-9": "circle", "trec_eval-10": "diamond", "textbook": "square"}
FONT = "Source Sans Pro, Source Sans 3, Helvetica Neue, Arial, sans-serif"


def _house_template() -> go.layout.Template:
    """plotly's ``plotly_white`` cut to what the dashboard draws, registered once as ``"rankscope"``.

    Its layout keeps everything but the colour scales (every heatmap names its own) and the kinds of subplot
    no chart has (polar, ternary, 3-D, maps); its trace defaults keep the kinds of trace drawn. plotly checks
    and copies a figure's whole template each time the figure is made or copied, so the 1.5 KB template
    instead of 7 KB takes a figure from about 54 to 20 ms of the server's time (a page change draws up to
    three, copied once more to be fitted).
    """
    white = pio.templates["plotly_white"]
    layout = {k: v for k, v in white.layout.to_plotly_json().items()
              if k not in ("colorscale", "coloraxis", "polar", "ternary", "scene", "geo", "mapbox", "map")}
    data = {k: v for k, v in white.data.to_plotly_json().items()
            if k in ("scatter", "scattergl", "bar", "heatmap", "histogram", "box")}
    return go.layout.Template(layout=layout, data=data)


pio.templates["rankscope"] = _house_template()
LAYOUT = dict(template="rankscope", font=dict(size=15, family=FONT), legend=dict(title=None),
              margin=dict(l=70, r=20, t=60, b=60), hoverlabel=dict(namelength=-1))
BELOW = dict(orientation="h", yanchor="top", y=-0.22, xanchor="left", x=0)
# the legend of a curve chart: below the plot, horizontal, wrapping onto further rows as wide as the chart
UNDER = dict(orientation="h", yanchor="top", y=-0.16, xanchor="left", x=0,
             itemclick="toggle", itemdoubleclick="toggleothers")
UNIT = "(0 to 1)"
MANY = 1000  # topics from which per-topic charts are drawn with WebGL markers and boxes without every point


def safe(text) -> str:
    """User text made inert for plotly's HTML-like labels."""
    return html.escape(str(text), quote=False)


def system_colors(systems: Sequence[str]) -> dict[str, str]:
    """One colour per system, stable for a given order of systems (the order they were loaded in)."""
    return {s: OKABE_ITO[i % len(OKABE_ITO)] for i, s in enumerate(systems)}


def short(name, limit: int = SHORT) -> str:
    """A system's name for a legend: whole up to ``limit`` characters, else cut with "…" (escaped)."""
    text = str(name)
    return safe(text if len(text) <= limit else text[:limit - 1].rstrip() + "…")


def line_of(colors: Mapping[str, str], system, width: float) -> dict:
    """The system's line: its colour and its dash (by its place among the systems, as its colour)."""
    at = list(colors).index(system) if system in colors else 0
    return dict(color=colors.get(system), width=width, dash=DASHES[at % len(DASHES)])


def marker_of(colors: Mapping[str, str], system, size: float, every: int | None = None) -> dict:
    """The system's marker: its colour and its symbol; ``every``: at most that many markers drawn."""
    at = list(colors).index(system) if system in colors else 0
    marker = dict(color=colors.get(system), size=size, symbol=SYMBOLS[at % len(SYMBOLS)],
                  line=dict(width=1, color="white"))
    if every:
        marker["maxdisplayed"] = every
    return marker


def presented(fig: go.Figure, scale: float) -> go.Figure:
    """The figure for a projector: every text ``scale`` times larger (and the chart a little taller).

    Changes ``fig`` in place and returns it.
    """
    if scale == 1:
        return fig
    layout = fig.layout
    fig.update_layout(font_size=(layout.font.size or 12) * scale)
    if layout.title.text:
        fig.update_layout(title_font_size=(layout.title.font.size or (layout.font.size or 12) * 1.2) * scale)
    for note in layout.annotations or ():
        note.font.size = (note.font.size or 12) * scale
    for trace in fig.data:
        if getattr(trace, "textfont", None) is not None and trace.textfont.size:
            trace.textfont.size = trace.textfont.size * scale
    fig.update_layout(height=int((layout.height or 450) * (1 + (scale - 1) / 2)),
                      margin=dict(l=int(70 * scale), b=int(60 * scale), t=int(60 * scale)))
    return fig


def base_figure(title: str, x: str, y: str, **layout) -> go.Figure:
    """An empty figure in the house layout, with its title and axis titles."""
    fig = go.Figure()
    fig.update_layout(title=title, xaxis_title=x, yaxis_title=y, **LAYOUT)
    fig.update_layout(**layout)
    return fig


def iprec_of(rows: pd.DataFrame) -> pd.Series:
    """Interpolated precision, whichever name the frame gives it (``iprec`` first: metrics' frames of
    interpolated curves also carry the raw ``precision``, missing on the envelope's rows)."""
    return rows["iprec"] if "iprec" in rows else rows["precision"]


def wrapped(text, width: int = 60, lines: int = 4) -> str:
    """User text made inert and broken into at most ``lines`` lines of ``width`` characters (for hovers)."""
    parts = textwrap.wrap(" ".join(str(text).split()), width, max_lines=lines, placeholder=" …")
    return "<br>".join(safe(p) for p in parts)
