"""The parts every page is made of: one way to show a chart (:mod:`~dashboard.widgets.charts`), a table and
its downloads (:mod:`~dashboard.widgets.table_view`), an error or a notice (:mod:`~dashboard.widgets.notices`),
a picker bound to the URL (:mod:`~dashboard.widgets.pickers`), a worked formula
(:mod:`~dashboard.widgets.formulas`), and the frame around every page (:mod:`~dashboard.widgets.page_frame`:
the sidebar, presentation mode, the page this run draws). Every public name is re-exported here, so a page reads
``from dashboard import widgets`` and calls ``widgets.show_figure(...)``; user text reaches a page through
:func:`md`, the one escaping path (:mod:`dashboard.session.user_text`).
"""

from __future__ import annotations

from dashboard.session.user_text import md, md_marked, md_paragraphs
from dashboard.widgets.charts import open_topic, show_figure
from dashboard.widgets.formulas import TERMS, formula_lines
from dashboard.widgets.notices import (cautions, error, need_collection, need_two_runs, provenance, section_url,
                                       start_here)
from dashboard.widgets.page_frame import (PRESENT, ask_name, example_title, fragment, frame, presentation_toggle,
                                          presenting, set_page, sidebar, this_page)
from dashboard.widgets.pickers import (ALL_TOPICS, BIND, FEW, choose, highlighted, in_link, in_view, label_of,
                                       measure_help, measure_label, pick_measure, pick_measures, pick_system,
                                       pick_systems, pick_topic, results_controls, valid_measure)
from dashboard.widgets.table_view import NUMBER, WIDE, downloads, scrolls, table

__all__ = [
    "ALL_TOPICS", "BIND", "FEW", "NUMBER", "PRESENT", "TERMS", "WIDE", "ask_name", "cautions", "choose", "downloads",
    "error", "example_title", "formula_lines", "fragment", "frame", "highlighted", "in_link", "in_view", "label_of",
    "md", "md_marked", "md_paragraphs", "measure_help", "measure_label", "need_collection", "need_two_runs",
    "open_topic", "pick_measure", "pick_measures", "pick_system", "pick_systems", "pick_topic",
    "presentation_toggle", "presenting", "provenance", "results_controls", "scrolls", "section_url", "set_page",
    "show_figure", "sidebar", "start_here", "table", "this_page", "valid_measure",
]
