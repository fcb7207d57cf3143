"""Overview: systems × measures with confidence intervals and markers of significant differences."""

from __future__ import annotations

import streamlit as st

from dashboard import components, data, exports, figures, state
from metrics.compare import to_csv, to_latex, to_markdown

st.title("Overview")
loaded = state.get()
if not components.need_collection(loaded):
    st.stop()
if loaded.source == "demo":
    st.info(f"This is the **demo collection**: {len(loaded.systems)} made-up search systems, each ranking documents "
            "for the same topics, and the judgments saying which documents are relevant. Load your own files, or a "
            "small worked example, on the **Data** page.", icon=":material/waving_hand:")
components.start_here("Each row is a system, each column a measure averaged over the topics, with its 95% "
                      "confidence interval; † and ‡ mark a significant difference from the baseline. Try another "
                      "baseline, or pick the measure of the chart below.")

measures, baseline, test, correction, alpha = components.results_controls(loaded.systems)

table, untested = data.results(loaded, measures, baseline, test, correction, alpha)
components.results_table(table, key="overview_table")
if untested:
    st.caption(f"No significance markers: {components.plain(untested)}.")
components.downloads({
    "CSV": (to_csv(table).encode(), "rankscope-results.csv"),
    "LaTeX": (to_latex(table, ci=True).encode(), "rankscope-results.tex"),
    "Markdown": (to_markdown(table, ci=True).encode(), "rankscope-results.md"),
    "Summary CSV": (lambda: exports.summary_csv(data.summary(loaded, measures)), "rankscope-summary.csv"),
}, key="overview_dl")

measure = components.pick_measure("measure", measures, label="Chart of")
means = data.summary(loaded, measures + (measure,) if measure not in measures else measures)
markers = table.markers[measure].to_dict() if measure in table.measures else {}
components.show_figure(figures.summary_chart(means, measure, figures.system_colors(loaded.systems), markers, baseline),
                       key="overview_chart", name=f"overview-{measure}")
with st.expander(f"About {measure}", icon=":material/help:"):
    st.markdown(components.measure_help(measure))
