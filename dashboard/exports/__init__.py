"""Everything the dashboard and the report hand out as files: tables, figures and session files.

* :mod:`~dashboard.exports.tables`: the per-query and summary tables as CSV or Parquet bytes (the manifest in
  the Parquet metadata, or beside a CSV as ``manifest.json``), several files as one zip; the results table
  is :mod:`metrics.review.compare`'s (LaTeX, Markdown, CSV);
* :mod:`~dashboard.exports.images`: figures as PNG or SVG through kaleido and the system's Chromium, offline;
* :mod:`~dashboard.exports.notes_table`: review notes (tags and a comment per topic) edited and laid out as a table;
* :mod:`~dashboard.exports.session_file`: session files (names and digests of the loaded files, conventions,
  notes, view and manifest) as JSON, read back with a strict check.

Nothing here draws on screen and nothing imports Streamlit, so the report and the command line use it too.
"""

from __future__ import annotations

from dashboard.exports.images import IMAGE_FORMATS, browser_path, figure_image, figure_images, figure_png, figure_svg
from dashboard.exports.notes_table import notes_frame, set_note
from dashboard.exports.session_file import SESSION_FORMAT, SESSION_VERSION, Session, session_from_json, session_to_json
from dashboard.exports.tables import (baseline_markers, csv_bytes, manifest_json, parquet_bytes, parquet_metadata,
                                      per_query_csv, per_query_parquet, results_latex, summary_csv, summary_parquet,
                                      zip_bytes)

__all__ = [
    "IMAGE_FORMATS",
    "SESSION_FORMAT",
    "SESSION_VERSION",
    "Session",
    "baseline_markers",
    "browser_path",
    "csv_bytes",
    "figure_image",
    "figure_images",
    "figure_png",
    "figure_svg",
    "manifest_json",
    "notes_frame",
    "parquet_bytes",
    "parquet_metadata",
    "per_query_csv",
    "per_query_parquet",
    "results_latex",
    "session_from_json",
    "session_to_json",
    "set_note",
    "summary_csv",
    "summary_parquet",
    "zip_bytes",
]
