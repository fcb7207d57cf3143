"""Report: the evaluation manifest, the self-contained HTML report, every export, and the session file."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard import data, exports, widgets
from dashboard.data import judging as judging_data
from dashboard.report import render_report, report_files
from dashboard.session import state
from dashboard.widgets import md
from metrics import RankscopeError
from metrics.review.compare import to_csv, to_latex, to_markdown
from metrics.stats.significance import MAXT, TEST_REGISTRY

st.title("Report")
loaded = state.get()
if not widgets.need_collection(loaded):
    st.stop()
widgets.start_here("Everything to take away: one HTML file with every table and chart, the exports, and the "
                   "command that recomputes every number. Try the HTML report first.")
st.caption("The report and the exports use the measures, baseline and tests chosen here (the same as on the "
           "overview page), the conventions of the data page and the review notes of the queries page.")

measures, baseline, test, correction, alpha = widgets.results_controls(loaded.systems)
tested_with = correction  # a test of random sign flips may also be corrected by max-T, on those flips
if TEST_REGISTRY.get(test).sign_flips and st.toggle("Correct by max-T instead", key="report_maxt",
                                       help="Westfall and Young's step-down max-T on the same sign flips as the "
                                            "randomisation test: exact family-wise error control."):
    tested_with = MAXT
family = widgets.choose("family", "Family", data.FAMILIES,
                        help="The tests a correction counts together: each measure's pairs on their own, or "
                             "every pair of every measure (stricter).")
notes = state.notes()

try:
    made = data.report(loaded, measures, baseline, test, tested_with, alpha, notes, family)
except RankscopeError as err:
    widgets.error(err)
    st.stop()
manifest = made.manifest
if made.provenance is not None:
    widgets.provenance(loaded, card=made.provenance)

try:
    tasks = judging_data.records(loaded)  # the collection's judging tasks: a section, files and the session's
except RankscopeError as err:
    widgets.error(err)
    tasks = []
st.subheader("Download")
view = {"page": "overview", "measures": list(measures), "baseline": baseline, "test": test, "correction": correction,
        "alpha": float(alpha)}
widgets.downloads({
    "HTML report": (lambda: render_report(made, judging=tasks).encode("utf-8"), "rankscope-report.html"),
    "Everything (zip)": (lambda: exports.zip_bytes(report_files(made, judging=tasks)), "rankscope-report.zip"),
    "Session file": (data.session_file(loaded, notes, view, manifest, tasks), "rankscope-session.json"),
}, key="report_main")
st.caption("The HTML report is one file that opens offline, charts included; the zip adds every table, the "
           "LaTeX and Markdown results, and each figure as PNG and SVG. A session file (names and digests of the "
           "files, conventions, notes, view) loads back on the data page.")
widgets.downloads({
    "Per-query CSV": (lambda: exports.per_query_csv(made.per_query), "per_query.csv"),
    "Per-query Parquet": (lambda: exports.per_query_parquet(made.per_query, manifest), "per_query.parquet"),
    "Summary CSV": (lambda: exports.summary_csv(made.summary, made.provenance), "summary.csv"),
    "Summary Parquet": (lambda: exports.summary_parquet(made.summary, manifest), "summary.parquet"),
}, key="report_tables")
widgets.downloads({
    "Results LaTeX": (lambda: to_latex(made.table, ci=True, manifest=manifest).encode(), "results.tex"),
    "Results Markdown": (lambda: to_markdown(made.table, ci=True, manifest=manifest).encode(), "results.md"),
    "Results CSV": (lambda: to_csv(made.table).encode(), "results.csv"),
    "Manifest JSON": (lambda: exports.manifest_json(manifest), "manifest.json"),
}, key="report_results")

st.subheader("Evaluation manifest")
st.markdown("Recompute every number of this report with:")
st.code(manifest.reproduce_command("all"), language="bash", wrap_lines=True)
files = pd.DataFrame([record.to_dict() for record in (manifest.qrels, *manifest.runs)])
st.dataframe(files, hide_index=True, width="stretch", key="report_files",
             column_order=[c for c in ("role", "system", "name", "size", "sha256") if c in files.columns],
             column_config={"size": st.column_config.NumberColumn("bytes", format="localized"),
                            "sha256": st.column_config.TextColumn("SHA-256", width="large")})
cols = st.columns(2)
cols[0].markdown(md("rankscope {}, made {}", manifest.rankscope_version, manifest.created_utc))
cols[1].markdown(md("Conventions: {}", loaded.conventions.describe()))
for caveat in manifest.caveats:
    st.warning(md("{}", caveat), icon=":material/warning:")
with st.expander("The whole manifest (JSON, embedded in every export)", icon=":material/data_object:"):
    st.json(manifest.to_dict(), expanded=2)

st.subheader("Review notes")
if notes:
    st.dataframe(exports.notes_frame(notes), hide_index=True, width="stretch", key="report_notes")
else:
    st.caption("No notes yet: tag or comment a topic on the queries page (One topic).")
