r"""A paper's results table: systems x measures, values, confidence intervals and significance markers.

:func:`summary_table` combines each system's values (from :func:`metrics.summarise`) with a
:class:`~metrics.stats.significance.Comparison`:

* against a baseline, a dagger marks a value significantly better than the baseline's (``†``, LaTeX
  ``$^{\dagger}$``) and a double dagger one significantly worse (``‡``, ``$^{\ddagger}$``);
* for all pairs, each system gets a letter (``a``, ``b``, ...) and each value carries, as superscripts,
  the letters of the systems it is significantly better than.

The best value of each measure is bold, each value may carry its 95% confidence interval, and the caption
says what the markers mean (test, correction, family, alpha). The one :class:`SummaryTable` renders as
LaTeX (:func:`to_latex`, booktabs), Markdown (:func:`to_markdown`), CSV (:func:`to_csv`), plain text
(:func:`to_text`) or a display frame (:func:`to_frame`); the HTML report and the dashboard read its cells
(:meth:`SummaryTable.cells`). What the markers test, and how, is :mod:`metrics.review.compare.marked`'s rule
(:func:`marked_results`), shared by the dashboard's overview and the notebook.
"""

from __future__ import annotations

from metrics.review.compare.marked import marked_results, measures_tested, results_comparison
from metrics.review.compare.markers import BETTER, WORSE, baseline_markers
from metrics.review.compare.render import (latex_escape, markdown_escape, to_csv, to_frame, to_latex, to_markdown,
                                           to_text)
from metrics.review.compare.table import SummaryTable, summary_table

__all__ = [
    "BETTER",
    "SummaryTable",
    "WORSE",
    "baseline_markers",
    "latex_escape",
    "markdown_escape",
    "marked_results",
    "measures_tested",
    "results_comparison",
    "summary_table",
    "to_csv",
    "to_frame",
    "to_latex",
    "to_markdown",
    "to_text",
]
