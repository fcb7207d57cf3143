"""One way to show a chart: every figure goes through :func:`show_figure` (same size rules and toolbar
everywhere, its text alternative beneath, PNG and SVG downloads)."""

from __future__ import annotations

import re
from collections.abc import Callable

import plotly.graph_objects as go
import streamlit as st

from dashboard import figures
from dashboard.session.user_text import md
from dashboard.widgets.page_frame import PRESENT, PRESENT_SCALE

__all__ = ["open_topic", "show_figure"]

PLOTLY_CONFIG = {"displaylogo": False, "toImageButtonOptions": {"format": "png", "scale": 2}}
# the narrowest main column a chart is drawn in, in pixels: a 1366-pixel window with the sidebar open, and a
# 1024-pixel projector in presentation mode (the screens tests/e2e/test_layout.py checks); a chart's texts are
# fitted to it (figures.fitted)
NARROWEST = {False: 906, True: 976}
GAP = 16  # pixels between columns


def show_figure(fig: go.Figure, key: str, name: str | None = None, on_select: Callable | None = None,
                share: float = 1.0):
    """Every chart goes through here: same size rules and toolbar everywhere, PNG and SVG downloads.

    ``on_select``: a callback run when the user clicks points (the chart's selection is then in
    ``st.session_state[key]``). ``share``: the part of the page's width the chart is drawn in (0.5 in one
    of two columns): its texts are fitted to that part of the narrowest screen (:data:`NARROWEST`).
    Returns the chart's state.
    """
    present = bool(st.session_state.get(PRESENT))
    fig = go.Figure(fig)
    if present:
        fig = figures.presented(fig, PRESENT_SCALE)
    fig = figures.fitted(fig, NARROWEST[present] * share - (GAP if share < 1 else 0))
    shown = st.plotly_chart(fig, width="stretch", config=PLOTLY_CONFIG, key=key, theme=None,
                            on_select=on_select or "ignore", selection_mode="points")
    st.caption(md("{}", figures.text_alternative(fig)))  # the chart in words, for those who cannot see it
    _figure_downloads(fig, key, name or key)
    return shown


def open_topic(chart: str, tab: str, label: str, topic: str = "topic") -> None:
    """A click on a chart point selects its topic (the point's ``customdata[0]``) and opens the tab ``label``."""
    points = st.session_state.get(chart, {}).get("selection", {}).get("points", [])
    if points and points[0].get("customdata") is not None:
        st.session_state[topic] = str(points[0]["customdata"][0])
        st.session_state[tab] = label


def _figure_downloads(fig: go.Figure, key: str, name: str) -> None:
    """PNG and SVG of the figure, drawn by plotly's static export only when the button is pressed."""
    from dashboard import exports

    stem = re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-") or "figure"
    with st.popover("Download figure", icon=":material/download:"):
        st.download_button("PNG", lambda: exports.figure_png(fig), f"{stem}.png", "image/png", key=f"{key}_png",
                           icon=":material/image:", on_click="ignore")
        st.download_button("SVG", lambda: exports.figure_svg(fig), f"{stem}.svg", "image/svg+xml",
                           key=f"{key}_svg", icon=":material/polyline:", on_click="ignore")
