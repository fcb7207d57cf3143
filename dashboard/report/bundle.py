"""Every export of a report as files: tables, the results table, figures, the manifest and a session file.

:func:`report_files` turns one :class:`~metrics.review.report.ReportData` into ``{file name: bytes}``,
each file carrying the manifest (or sitting beside ``manifest.json``, for CSV); :func:`write_files` writes
them into a directory (``rankscope report --exports DIR``) and :func:`dashboard.exports.zip_bytes` makes one
download of them. Each file is written whole or not at all (:func:`metrics.io.files.write_atomic`): a write that
fails or is interrupted leaves the file that was there before.

=======================  ==================================================================================
``report.html``          the self-contained report (the manifest embedded)
``manifest.json``        the manifest: digests, measures, conventions, seeds, reproducing commands
``per_query.csv``        system, query, measure, value (beside ``manifest.json``)
``per_query.parquet``    the same, the manifest in the Parquet metadata (key ``rankscope``)
``summary.csv``          system, measure, value, n_queries, std, ci_low, ci_high
``summary.parquet``      the same, with the manifest
``results.tex``          the results table, booktabs, the manifest and the provenance card as ``%`` comments
``results.md``           the results table in Markdown, the manifest and the provenance card as HTML comments
``results.csv``          the results table: values, interval bounds, markers
``tests.csv``            every paired test (family ``baseline`` or ``all pairs``)
``notes.csv``            the review notes, when there are any
``judgments/``            each judging task's sets as TREC qrels (``<set>.qrels``) and its table (``<task>.csv``)
``session.json``         a session file to load the same files back in the dashboard
``figures/<name>.png``   each figure as PNG and SVG (with ``images=True``; needs Chromium)
=======================  ==================================================================================
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from metrics import RankscopeError
from metrics.review.compare import to_csv, to_latex, to_markdown
from metrics.io.files import write_atomic
from metrics.review.report import ReportData

from dashboard.exports.images import figure_images
from dashboard.exports.judgments import record_files, session_judging
from dashboard.exports.notes_table import notes_frame
from dashboard.exports.session_file import session_to_json
from dashboard.exports.tables import (csv_bytes, manifest_json, per_query_csv, per_query_parquet, summary_csv,
                                      summary_parquet)
from dashboard.report.page import render_report
from dashboard.report.sections import report_figures

__all__ = ["report_files", "write_files"]


def report_files(data: ReportData, *, title: str = "rankscope report", html: bool = True,
                 images: bool = True, judging: Sequence = ()) -> dict[str, bytes]:
    """Every export of a report, by file name (see the module's table).

    Parameters
    ----------
    data : ReportData
        From :func:`metrics.review.report.compute_report`.
    title : str, default="rankscope report"
        The HTML report's title.
    html : bool, default=True
        Include ``report.html``.
    images : bool, default=True
        Include every figure as PNG and SVG (rendered by kaleido in the system's Chromium, offline).
    judging : sequence of TaskRecord, optional
        The collection's judging tasks: their section in the report, their sets and tables under
        ``judgments/`` (:func:`dashboard.exports.judgments.record_files`) and their judgments in the session file.

    Returns
    -------
    dict
        ``{name: bytes}``; names are relative paths (``figures/gain.svg``).

    Raises
    ------
    RankscopeError
        When the figures cannot be rendered (no kaleido, no Chromium).
    """
    m = data.manifest
    files: dict[str, bytes] = {}
    figures = report_figures(data) if html or images else {}  # built once: the page draws them, the images too
    if html:
        files["report.html"] = render_report(data, title=title, judging=judging, figures=figures).encode("utf-8")
    files["manifest.json"] = manifest_json(m)
    files["per_query.csv"] = per_query_csv(data.per_query)
    files["per_query.parquet"] = per_query_parquet(data.per_query, m)
    files["summary.csv"] = summary_csv(data.summary)
    files["summary.parquet"] = summary_parquet(data.summary, m)
    files["results.tex"] = to_latex(data.table, ci=True, manifest=m, provenance=data.provenance).encode("utf-8")
    files["results.md"] = to_markdown(data.table, ci=True, manifest=m, provenance=data.provenance).encode("utf-8")
    files["results.csv"] = to_csv(data.table).encode("utf-8")
    tests = [c.frame.assign(family=family) for family, c in
             (("baseline", data.baseline_comparison), ("all pairs", data.pairwise_comparison))
             if c is not None and not (family == "all pairs" and c is data.baseline_comparison)]
    if tests:
        files["tests.csv"] = csv_bytes(pd.concat(tests, ignore_index=True))
    if data.notes:
        files["notes.csv"] = csv_bytes(notes_frame(data.notes))
    files["session.json"] = session_to_json({r.system or r.name: r.name for r in m.runs}, data.conventions,
                                            data.notes, {}, qrels_name=m.qrels.name, manifest=m,
                                            judging=session_judging(judging))
    files.update(record_files(judging))
    if images:
        rendered = figure_images(figures, ("png", "svg"), width=1100, height=550)
        files.update({f"figures/{name}": content for name, content in rendered.items()})
    return files


def write_files(directory: str | os.PathLike, files: dict[str, bytes]) -> list[Path]:
    """Write ``{name: bytes}`` under ``directory`` (created if needed); returns the paths written.

    Each file is written by :func:`metrics.io.files.write_atomic`: whole or not at all, and never over a
    symbolic link, a FIFO or a device that is at its name (nor through a linked folder out of ``directory``).

    Raises
    ------
    RankscopeError
        A name that would leave the directory, or a file that cannot be written (naming it).
    """
    root = Path(directory)
    written = []
    try:
        root.mkdir(parents=True, exist_ok=True)
        base = root.resolve()
    except OSError as err:
        raise RankscopeError(f"cannot write into {root}: {err.strerror or err}") from None
    for name, content in files.items():
        shown = root / name
        try:
            folder = shown.parent.resolve()
            if Path(name).is_absolute() or ".." in Path(name).parts or (folder != base and base not in folder.parents):
                raise RankscopeError(f"refusing to write {name!r} outside {root}")
            folder.mkdir(parents=True, exist_ok=True)
            write_atomic(folder / shown.name, content)
        except OSError as err:
            raise RankscopeError(f"cannot write {shown}: {err.strerror or err}") from None
        written.append(shown)
    return written
