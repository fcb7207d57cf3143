"""One self-contained HTML report of an evaluation, and every other export of it.

The numbers come from :func:`metrics.review.report.compute_report` (a :class:`~metrics.review.report.ReportData`); this
package draws them. :func:`render_report` returns a single HTML file with plotly.js inlined once, every
figure drawn from data embedded in the page, and no reference to anything outside it (no CDN, no web font,
no MathJax; a Content-Security-Policy forbids the browser to fetch anything). Its sections:

1. the manifest: digests of every file, measures, conventions, version, seeds, and the ``rankscope eval``
   and ``rankscope compare`` command lines that recompute the numbers;
2. the collection: topics, judgments per grade, what each run covers, and the lint findings;
3. the results: systems × measures with 95% confidence intervals and markers for significant differences
   from the baseline (:mod:`metrics.review.compare`);
4. the 11-point interpolated precision–recall curves and the DCG / ideal DCG curves;
5. the significance matrices (every pair of systems, adjusted p-values);
6. an appendix with every per-topic value, and the review notes when there are any.

The modules, each importing only those before it: :mod:`~dashboard.report.markup` (escaping and building
blocks), :mod:`~dashboard.report.sections` (the sections from the results on, and the figures),
:mod:`~dashboard.report.page` (the page; :func:`build_report` and :func:`write_report` compute and render
in one call) and :mod:`~dashboard.report.bundle` (every export of a report: tables, LaTeX, Markdown,
figures, manifest, session). Every piece of user text is escaped. Plotly is used, Streamlit never, so
``rankscope report`` runs without a server.
"""

from __future__ import annotations

from dashboard.report.bundle import report_files, write_files
from dashboard.report.page import build_report, render_report, write_report
from dashboard.report.sections import report_figures

__all__ = ["build_report", "render_report", "report_figures", "report_files", "write_files", "write_report"]
