"""A figure's texts made to fit the width it is drawn at: on a projector, in half a page, in the report's grid.

Plotly never wraps a title, and lays a legend or a label over another text when the room runs out. Given
the width a figure gets (the narrowest of the screens it is shown on), :func:`fitted` wraps the title and
the axis titles onto lines that fit, turns or thins category labels that would collide, keeps a text label
only where it fits beside the others, shrinks cell labels to their cells, and moves a horizontal legend to
the bottom of the drawing, below everything else, with room for its longest entry. Text widths are
estimated from the number of characters (:data:`CHAR` of the font size each, a little wider than the sans
serif fonts' average), so that the estimate errs on the side of room; the browser test checks the result.
"""

from __future__ import annotations

import math
import numbers
import re

import plotly.graph_objects as go

__all__ = ["CHAR", "fitted", "plain_text", "wrap_lines"]

CHAR = 0.58  # a character's width, as a share of its font size
LINE = 1.3  # a line's height, as a share of its font size
TITLE_PAD = 10  # pixels above a chart's title
_TAG = re.compile(r"<[^>]+>")
_ENTITY = re.compile(r"&(#\d+|#x[0-9a-f]+|[a-z]+);", re.I)


def plain_text(text) -> str:
    """A plotly label as read: tags dropped, line breaks as spaces, each entity one character."""
    return _ENTITY.sub("x", _TAG.sub(" ", str(text or ""))).strip()


def _length(text) -> int:
    return len(" ".join(plain_text(text).split()))


def wrap_lines(text: str, chars: int) -> str:
    """A plotly label broken at spaces into lines of at most ``chars`` characters (``<br>`` between them);
    each ``<br>``-separated part wrapped on its own, a ``<sup>…</sup>`` part keeping its tags on each line."""
    chars = max(int(chars), 8)
    out = []
    for part in str(text).split("<br>"):
        sup = part.startswith("<sup>") and part.endswith("</sup>")
        inner = part[5:-6] if sup else part
        width = int(chars / 0.7) if sup else chars
        lines = _wrap(inner, width)
        out += [f"<sup>{line}</sup>" for line in lines] if sup else lines
    return "<br>".join(out)


def _wrap(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` characters as read (an entity counts once)."""
    words, lines, line = text.split(" "), [], ""
    for word in words:
        trial = f"{line} {word}" if line else word
        if line and _length(trial) > width:
            lines.append(line)
            line = word
        else:
            line = trial
    return lines + [line] if line or not lines else lines


def _font(layout) -> float:
    return float(layout.font.size or 12)


def _axes(layout, letter: str):
    return [(name, layout[name]) for name in layout if re.fullmatch(f"{letter}axis\\d*", name)]


def _span(axis) -> float:
    domain = axis.domain or (0, 1)
    return float(domain[1] - domain[0])


def fitted(fig: go.Figure, width: float) -> go.Figure:
    """The figure's texts made to fit a drawing ``width`` pixels wide (changes ``fig`` in place, returns it).

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        A figure of :mod:`dashboard.figures` (its height, margins and fonts as its builder set them).
    width : float
        Pixels: the narrowest width the figure is drawn at.

    Returns
    -------
    plotly.graph_objects.Figure
        ``fig``: its title and axis titles wrapped, with room made for them (``automargin``); category
        labels turned upright or thinned where they would collide; annotations on a category axis kept
        only where they fit beside those kept before them (a builder adds the most telling first), and
        so are the labels beside scatter points; heatmap cell labels shrunk to their cells, or left to the hover where even that is too small;
        a horizontal legend moved below the plot, its entries as wide as the longest; the title hung from
        the top of the drawing, the top margin holding its lines and any subplot titles; an axis title
        along y no longer than the plot is high once the x axes' labels have their room.
    """
    layout = fig.layout
    font = _font(layout)
    height = float(layout.height or 450)
    margin = layout.margin
    left, right = float(margin.l if margin.l is not None else 80), float(margin.r if margin.r is not None else 80)
    top, bottom = float(margin.t if margin.t is not None else 100), float(margin.b if margin.b is not None else 80)
    left, right = _beside(fig, font, left, right)
    bottom += _legend(fig, width, font)  # a horizontal legend's rows, below the plot
    plot_w, plot_h = max(width - left - right, 50.0), max(height - top - bottom, 50.0)

    if layout.title.text:
        size = float(layout.title.font.size or round(font * 1.4))
        text = wrap_lines(layout.title.text, (width * 0.93 - 12) / (CHAR * size))
        block = len(text.split("<br>")) * size * LINE  # plotly spaces every line by the title's size, <sup> too
        block += max((float(n.font.size or font) * LINE * (str(n.text).count("<br>") + 1)
                      for n in layout.annotations or () if n.yref == "paper" and n.y is not None and n.y >= 1),
                     default=0)  # subplot titles, above the plots
        # the title hangs from the top of the drawing, its lines going down; the margin holds them all (plotly
        # puts a title of several lines by its first baseline, one of one line by its top)
        pad = TITLE_PAD + (round(0.75 * size) if "<br>" in text else 0)
        fig.update_layout(title=dict(text=text, y=1, yref="container", yanchor="top", pad=dict(t=pad)),
                          margin_t=max(top, int(TITLE_PAD + block + 16)))
        top = fig.layout.margin.t
        plot_h = max(height - top - bottom, 50.0)
    # x titles go below the tick labels (automargin with a standoff); y titles, turned along the axis, are no
    # longer than the plot is high once the x labels and titles have taken their room below it
    _axis_titles(fig, layout, "x", plot_w, font)
    plot_h = max(plot_h - _below(fig, font), 50.0)
    _axis_titles(fig, layout, "y", plot_h, font)
    _annotations(fig, plot_w)
    _point_labels(fig, plot_w, plot_h, font)
    _cells(fig, plot_w, plot_h, font)
    return fig


def _below(fig: go.Figure, font: float) -> float:
    """The height the x axes' labels and titles take below the plot beyond the builder's bottom margin: category
    labels turned upright, and a title's lines past the first."""
    extra = 0.0
    for name, axis in _axes(fig.layout, "x"):
        size = float(axis.tickfont.size or font)
        labels = _category_labels(fig, name, "x") if axis.tickangle == -90 else None
        upright = max(_length(x) for x in labels) * CHAR * size - size * LINE if labels else 0.0
        lines = str(axis.title.text or "").count("<br>") * float(axis.title.font.size or font) * LINE
        extra = max(extra, upright + lines)
    return extra


def _beside(fig: go.Figure, font: float, left: float, right: float) -> tuple[float, float]:
    """The room the plot leaves on its left (category labels and the axis title, with automargin) and on its
    right (a colour bar, a legend beside the plot)."""
    layout = fig.layout
    labels = _category_labels(fig, "yaxis", "y")
    if labels and layout.yaxis.showticklabels is not False:
        size = float(layout.yaxis.tickfont.size or font)
        left = max(left, max(_length(x) for x in labels) * CHAR * size + 12
                   + (float(layout.yaxis.title.font.size or font) * LINE if layout.yaxis.title.text else 0))
    if any(isinstance(t, go.Heatmap) and t.showscale is not False for t in fig.data):
        right += 30 + 6 * CHAR * font
    names = [t.name for t in fig.data if t.name and t.showlegend is not False]
    if layout.showlegend is not False and layout.legend.orientation != "h" and (len(names) > 1 or layout.showlegend):
        right += max((_length(n) for n in names), default=0) * CHAR * float(layout.legend.font.size or font) + 50
    return left, right


def _category_labels(fig: go.Figure, name: str, letter: str) -> list | None:
    """The labels of a category axis (its ``categoryarray``, else the string values its traces put on it)."""
    axis = fig.layout[name]
    if axis.categoryarray is not None and len(axis.categoryarray):
        return list(axis.categoryarray)
    ref = letter + name[5:]  # "xaxis2" -> "x2"
    seen: dict = {}
    for trace in fig.data:
        values = getattr(trace, letter, None)
        if values is None or (getattr(trace, letter + "axis", None) or letter) != ref:
            continue
        values = list(values)
        if axis.type != "category" and not any(isinstance(v, str) for v in values[:50]):
            return None
        seen.update(dict.fromkeys(values))
    seen = list(seen)
    return seen or None


def _categories(fig: go.Figure, name: str, axis, letter: str, room: float) -> None:
    """Category labels turned upright (x) or thinned (every k-th) where side by side they would collide."""
    if axis.showticklabels is False:
        return
    labels = _category_labels(fig, name, letter)
    if not labels:
        return
    size = float(axis.tickfont.size or _font(fig.layout))
    slot = room / len(labels)
    longest = max(_length(label) for label in labels) * CHAR * size
    across = longest if letter == "x" else size * LINE  # what a label takes along its axis
    if across <= slot * 0.9:
        return
    if letter == "x":  # upright, and the axis title below the longest of them
        fig.update_layout({f"{name}.tickangle": -90, f"{name}.automargin": True,
                           f"{name}.title.standoff": int(longest * 0.35 + 10)})
        if size * LINE <= slot:
            return
    fig.update_layout({f"{name}.dtick": math.ceil(size * LINE / slot)})


def _axis_titles(fig, layout, letter: str, length: float, font: float) -> None:
    """Wrap each ``letter`` axis's title to the ``length`` in pixels its plot has along it, and fit its labels."""
    for name, axis in _axes(layout, letter):
        if axis.title.text:
            size = float(axis.title.font.size or font)
            fig.update_layout({f"{name}.title.text": wrap_lines(axis.title.text, length * _span(axis) / (CHAR * size)),
                               f"{name}.automargin": True, f"{name}.title.standoff": 10})
        _categories(fig, name, axis, letter, length * _span(axis))


def _annotations(fig: go.Figure, plot_w: float) -> None:
    """Annotations placed on a category x axis (by position) kept only where they fit beside the earlier."""
    notes = list(fig.layout.annotations or ())
    placed = [n for n in notes if n.xref in (None, "x") and isinstance(n.x, numbers.Real) and not n.showarrow]
    labels = _category_labels(fig, "xaxis", "x") if placed else None
    if not labels:
        return
    slot = plot_w / len(labels)
    kept: list[tuple[float, float]] = []  # (centre in px, half width in px)
    out = []
    for note in notes:
        if note not in placed:
            out.append(note)
            continue
        half = _length(note.text) * CHAR * float(note.font.size or _font(fig.layout)) / 2 + 2
        centre = float(note.x) * slot
        if all(abs(centre - c) >= half + h for c, h in kept):
            kept.append((centre, half))
            out.append(note)
    fig.layout.annotations = out


def _label_length(trace: go.Heatmap) -> int:
    """The longest cell label of a heatmap, in characters: its texts, else what its template prints."""
    if trace.text is not None and (trace.texttemplate is None or "text" in trace.texttemplate):
        return max((_length(t) for row in trace.text for t in row), default=0)
    spec = re.search(r"%\{z:([+-]?)\.(\d+)([fg])\}", trace.texttemplate or "")
    if spec is None:
        return 6
    sign, digits, kind = spec.groups()
    return int(digits) + (3 if kind == "f" else 6) + (1 if sign else 0)  # "-0.123", "-1.23e-10"


def _cells(fig: go.Figure, plot_w: float, plot_h: float, font: float) -> None:
    """A heatmap's cell labels at a size that fits their cells; none (the hover tells) below 9 px."""
    for trace in fig.data:
        if not isinstance(trace, go.Heatmap) or trace.z is None or not (trace.texttemplate or trace.text is not None):
            continue
        rows = len(trace.z)
        columns = len(trace.z[0]) if rows else 0
        if not rows or not columns:
            continue
        if _length(trace.colorbar.title.text) > 3:  # a long colour-bar title beside the bar, not over its labels
            trace.colorbar.title.side = "right"
        size = float(trace.textfont.size or font)
        fit = min(size, (plot_w / columns) * 0.85 / max(_label_length(trace) * CHAR, 1e-9),
                  (plot_h / rows) * 0.8 / LINE)
        if fit < 9:
            trace.texttemplate = None
            trace.text = None
        elif fit < size:
            trace.textfont.size = math.floor(fit)


def _legend(fig: go.Figure, width: float, font: float) -> float:
    """A horizontal legend at the bottom of the drawing, below the axis titles, each entry as wide as the
    longest (so that none is cut at the right); returns the height its rows take."""
    legend = fig.layout.legend
    if legend.orientation != "h" or fig.layout.showlegend is False:
        return 0.0
    names = [trace.name for trace in fig.data if trace.showlegend is not False and trace.name]
    if not names:
        return 0.0
    size = float(legend.font.size or font)
    entry = min(max(_length(n) for n in names) * CHAR * size + 46, width * 0.96)  # the line, its marker, the text
    fig.update_layout(legend=dict(yref="container", y=0, yanchor="bottom", xref="container", x=0.02,
                                  xanchor="left", entrywidth=entry, entrywidthmode="pixels"))
    rows = math.ceil(len(names) / max(int(width * 0.96 // entry), 1))
    return rows * size * 1.6 + 10


def _point_labels(fig: go.Figure, plot_w: float, plot_h: float, font: float) -> None:
    """Text beside scatter points kept only where it fits beside the labels kept before it (the hover still
    names every point)."""
    traces = [t for t in fig.data if isinstance(t, go.Scatter) and t.mode and "text" in t.mode and t.text is not None
              and t.x is not None and t.y is not None and (t.xaxis or "x") == "x"]
    if not traces:
        return
    try:
        xs = [float(v) for t in traces for v in t.x]
        ys = [float(v) for t in traces for v in t.y]
    except (TypeError, ValueError):
        return
    if not xs:
        return
    x0, x1 = min(xs), max(xs)
    y0, y1 = min(ys), max(ys)
    kept: list[tuple[float, float, float]] = []  # centre x, centre y, half width (px)
    for trace in traces:
        size = float(trace.textfont.size or font)
        texts = list(trace.text)
        for i, (x, y) in enumerate(zip(trace.x, trace.y)):
            px = (float(x) - x0) / ((x1 - x0) or 1) * plot_w
            py = (float(y) - y0) / ((y1 - y0) or 1) * plot_h
            half = _length(texts[i]) * CHAR * size / 2 + 2
            if all(abs(px - cx) >= half + h or abs(py - cy) >= size * LINE for cx, cy, h in kept):
                kept.append((px, py, half))
            else:
                texts[i] = ""
        trace.text = texts
