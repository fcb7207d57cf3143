"""One way to show a table and its downloads: numbers to 4 decimals, user text as text, wide tables that
scroll sideways with their first column kept in view."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import pandas as pd
import streamlit as st

from dashboard.session.user_text import md

__all__ = ["NUMBER", "WIDE", "downloads", "scrolls", "table"]

NUMBER = st.column_config.NumberColumn(format="%.4f")


WIDE = 5  # columns from which a table may be wider than the page on a projector

def scrolls(columns: Sequence[str]) -> str:
    """The words under a table of many columns: it scrolls sideways where it is wider than the page."""
    return (md("The table scrolls sideways where it is wider than the page ({} columns, the first kept in view). ",
               len(columns)) if len(columns) >= WIDE else "")


def table(frame: pd.DataFrame, key: str | None = None, numbers: Sequence[str] = (), **config) -> None:
    """A table with every value of the named columns shown to 4 decimals (user text shown as text)."""
    column_config = {name: st.column_config.NumberColumn(name, format="%.4f") for name in numbers}
    if len(frame.columns) >= WIDE:  # the first column (what each row is) kept in view when the table scrolls
        column_config[frame.columns[0]] = st.column_config.Column(pinned=True)
    column_config.update(config)
    st.dataframe(frame, hide_index=True, width="stretch", column_config=column_config, key=key)
    if len(frame.columns) >= WIDE:
        st.caption(scrolls(frame.columns))


def downloads(files: dict[str, tuple[bytes | Callable[[], bytes], str]], key: str) -> None:
    """Download buttons side by side: ``{label: (data or a function making it, file name)}``."""
    cols = st.columns(len(files))
    mimes = {"csv": "text/csv", "tex": "application/x-tex", "md": "text/markdown", "parquet": "application/octet-stream",
             "json": "application/json", "html": "text/html", "zip": "application/zip"}
    for col, (label, (payload, name)) in zip(cols, files.items()):
        col.download_button(md("{}", label), payload, name, mimes.get(name.rsplit(".", 1)[-1], "application/octet-stream"),
                            key=f"{key}_{re.sub(r'[^a-z0-9]+', '_', label.lower())}", icon=":material/download:",
                            on_click="ignore", width="stretch")
