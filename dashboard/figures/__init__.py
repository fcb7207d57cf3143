"""Pure figure builders: tidy frames in, ``plotly.graph_objects.Figure`` out.

No Streamlit here and no state: each function draws exactly the numbers it is given (they come from
``metrics``), so each is tested as data. Systems keep one colour everywhere (:func:`system_colors`, the
Okabe–Ito palette, safe for colour-blind readers); axes say what they measure and in which unit; hover
texts give the exact values. Text that comes from users (system names, topic and document ids) is
HTML-escaped before it reaches a chart, because plotly interprets a subset of HTML.

The builders live by page, each module named after the page it draws for: ``curves`` (precision, recall,
gain), ``queries`` (per-topic differences and rankings), ``significance``, ``learn``, ``trust`` (ties, judged
share, risk), ``agreement``, ``repro`` and ``judges`` (several judgment sets); ``summary`` serves the overview
and the data page;
``_style`` holds the palette, the layout and the escaping they share, ``_highlight`` the colour-and-grey
drawing of many systems, ``_fit`` the texts fitted to the width a figure is drawn at, ``_describe`` each
chart's text alternative (its title and a one-line summary of its data).
"""

from __future__ import annotations

from dashboard.figures._describe import described, summary_of, text_alternative
from dashboard.figures._fit import fitted
from dashboard.figures._highlight import GREY, HIGHLIGHTED, highlight
from dashboard.figures._style import (BETTER, GRADE_COLORS, MANY, OKABE_ITO, SAME, SHORT, UNJUDGED, WORSE, presented,
                                      safe, short, system_colors, wrapped)
from dashboard.figures.agreement import agreement_heatmap, ordering_scatter
from dashboard.figures.curves import at_k_chart, eleven_point_chart, gain_chart, pr_chart, rule_chart
from dashboard.figures.judges import INTERVALS, confusion_heatmap, interval_chart, rank_chart
from dashboard.figures.learn import anatomy_chart, answers_chart, class_grades_chart, convention_chart
from dashboard.figures.queries import difference_bars, rankings_chart, scatter_chart
from dashboard.figures.repro import REPRO_PANELS, REPRO_RUNS, effect_chart, order_chart
from dashboard.figures.significance import (MATRIX_VALUES, SIGNIFICANT, effect_heatmap, pairwise_matrix, pvalue_heatmap,
                                            win_tie_loss_chart)
from dashboard.figures.summary import distribution_chart, grades_chart, seed_chart, seed_range_chart, summary_chart
from dashboard.figures.trust import RISK_PANELS, judged_residual_chart, risk_chart, risk_topics_chart, tie_range_chart

__all__ = [
    "BETTER", "GRADE_COLORS", "GREY", "HIGHLIGHTED", "INTERVALS", "MANY", "MATRIX_VALUES", "OKABE_ITO",
    "REPRO_PANELS", "REPRO_RUNS", "RISK_PANELS", "SAME", "SHORT", "SIGNIFICANT", "UNJUDGED", "WORSE",
    "agreement_heatmap", "anatomy_chart", "answers_chart", "at_k_chart", "class_grades_chart", "confusion_heatmap",
    "convention_chart", "described", "difference_bars", "distribution_chart", "effect_chart", "effect_heatmap",
    "eleven_point_chart", "fitted", "gain_chart", "grades_chart", "highlight", "interval_chart",
    "judged_residual_chart", "order_chart", "ordering_scatter", "pairwise_matrix", "pr_chart", "presented",
    "pvalue_heatmap", "rank_chart",
    "rankings_chart", "risk_chart", "risk_topics_chart", "rule_chart", "safe", "scatter_chart", "seed_chart", "seed_range_chart", "short",
    "summary_chart", "summary_of", "system_colors", "text_alternative", "tie_range_chart", "win_tie_loss_chart",
    "wrapped",
]
