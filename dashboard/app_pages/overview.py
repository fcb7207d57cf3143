"""Overview: the leaderboard of systems × measures (search, top N, any measure to sort on, the baseline pinned
first), with confidence intervals and markers of significant differences, and the chart of one measure."""

from __future__ import annotations

import streamlit as st

from dashboard import data, exports, figures, widgets
from dashboard.data import leaderboard
from dashboard.exports.tables import groups_latex
from dashboard.panels import claim_panel, judging_tasks
from dashboard.session import state
from dashboard.widgets import md
from metrics import RankscopeError
from metrics.review.compare import to_csv, to_latex, to_markdown

TOP = 20  # systems shown at first when there are many
VIEWS = {"values": "values", "differences": "Δ to the baseline"}
VIEWS_COLUMNS = {"values": leaderboard.COLUMNS, "differences": leaderboard.DIFFERENCES}

st.title("Overview")
loaded = state.get()
if not widgets.need_collection(loaded):
    st.stop()
if loaded.source == "demo":
    st.info(md("This is the **demo collection**: {} made-up search systems, each ranking documents for the same topics, "
               "and the judgments saying which documents are relevant. Load your own files, or a small worked "
               "example, on the **Data** page.", len(loaded.systems)), icon=":material/waving_hand:")
widgets.start_here("Each row is a system, each column a measure averaged over the topics, with its 95% "
                   "confidence interval; † and ‡ mark a significant difference from the baseline, Δ the "
                   "difference. Find systems by name, sort on any measure, or try another baseline.")
claims = claim_panel.checked_claims(loaded)
claim_panel.flipped_notice(claims)

measures, baseline, test, correction, alpha = widgets.results_controls(loaded.systems)
n = len(loaded.systems)
many = n > widgets.FEW
if many:
    with st.status(md("Evaluating {} systems and testing each against the baseline…", n), expanded=False) as status:
        table, untested = data.results(loaded, measures, baseline, test, correction, alpha)
        status.update(label=md("{} systems evaluated and tested against the baseline", n), state="complete")
else:
    table, untested = data.results(loaded, measures, baseline, test, correction, alpha)

cols = st.columns([4, 2, 4], vertical_alignment="bottom")  # two rows: every label whole on a projector
search = cols[0].text_input("Find systems", key="overview_search", placeholder="part of a name, any case")
top = cols[1].number_input("Top N", 1, n, min(n, TOP) if many else n, key=f"overview_top_{n}",
                           help="Systems shown besides the baseline, the first in the sorted order.")
sort_by = cols[2].selectbox("Sort by", list(table.measures), key="overview_sort", format_func=widgets.measure_label)
cols = st.columns([2, 3, 2], vertical_alignment="bottom")
worst_first = cols[0].toggle("Worst first", key="overview_worst_first",
                             help="Best first means highest first, or lowest first for a measure where lower is "
                                  "better (mean rank, fallout...). Equal values are in order of name.")
view = cols[1].segmented_control("Cells", list(VIEWS), format_func=VIEWS.get, default="values", key="overview_view")
grouped = cols[2].toggle("Groups", value=not many, key="overview_groups",
                         help="Letters from every pair's corrected test: systems that share a letter do not differ "
                              "significantly (compact letter display).")
try:
    boards = data.letter_groups(loaded, measures, test, correction, alpha) if grouped and n > 1 else {}
except RankscopeError as err:
    boards = {}
    st.caption(md("No significance groups: {}", err))
ties = leaderboard.tie_ranges(data.tie_summary(loaded, measures), data.tie_flips(loaded, measures))  # beside each mean
board = leaderboard.leaderboard(table, baseline=baseline, search=search, top=int(top), sort_by=sort_by,
                                worst_first=worst_first,
                                columns=VIEWS_COLUMNS.get(view, leaderboard.COLUMNS)
                                + (leaderboard.letter_groups(boards), ties))
st.dataframe(board.assign(system=board["system"].replace({baseline: f"{baseline} (baseline)"})), hide_index=True,
             width="stretch", key="overview_table",
             column_config={"system": st.column_config.TextColumn(pinned=True),  # kept in view when it scrolls
                            **({m: st.column_config.NumberColumn(format="%+.4f") for m in table.measures}
                               if view == "differences" else {})})
st.caption(widgets.scrolls(board.columns)
           + md("{} of {} systems besides the baseline, sorted by {}, {} first",
                len(board) - (baseline in set(board["system"])), n - 1, sort_by, "worst" if worst_first else "best")
           + (md(", names containing “{}”", search) if search else "")
           + (". Each cell: the system's value minus the baseline's. " if view == "differences" else ". ")
           + md("{}", table.caption(ci=True))
           + (" Groups: systems that share a letter do not differ significantly (every pair tested, corrected the "
              "same way)." if boards else ""))
if untested:
    st.caption(md("No significance markers: {}.", untested))
st.caption("Ties: each mean's range over every order of tied scores (trec_eval orders them by document id); "
           "⇅ names the systems whose place it could swap with. The Trust page has the details.")
widgets.provenance(loaded, measures, test=test, correction=correction, family="per_measure")
widgets.cautions(data.cautions(loaded, measures, test, baseline, correction, alpha))
widgets.downloads({
    "CSV": (to_csv(table).encode(), "rankscope-results.csv"),
    "LaTeX": (to_latex(table, ci=True).encode(), "rankscope-results.tex"),
    "Markdown": (to_markdown(table, ci=True).encode(), "rankscope-results.md"),
    **({"LaTeX groups": (groups_latex(boards), "rankscope-groups.tex")} if boards else {}),
    "Summary CSV": (lambda: exports.summary_csv(data.summary(loaded, measures), data.provenance(loaded, measures)),
                    "rankscope-summary.csv"),
}, key="overview_dl")

measure = widgets.pick_measure("measure", measures, label="Chart of")
means = data.summary(loaded, measures + (measure,) if measure not in measures else measures)
markers = table.markers[measure].to_dict() if measure in table.measures else {}
shown = list(board["system"])
widgets.show_figure(figures.summary_chart(leaderboard.rows_of(means, shown), measure,
                                          figures.system_colors(loaded.systems), markers, baseline,
                                          highlighted=widgets.highlighted(shown, pinned=[baseline])),
                       key="overview_chart", name=f"overview-{measure}")
claim_panel.value_button(loaded, shown, measure)
seeded = data.seeds(loaded, measures + (measure,) if measure not in measures else measures)
if seeded is not None:  # runs named name.seed1, name.seed2 ...: one system of several runs
    st.subheader("Systems of several runs (seeds)")
    widgets.show_figure(figures.seed_chart(seeded.spread, measure, figures.system_colors(list(seeded.groups))),
                        key="overview_seeds", name=f"overview-seeds-{measure}")
    if seeded.tests is not None:
        st.dataframe(seeded.tests[seeded.tests["measure"] == measure], hide_index=True, key="overview_seed_tests")
        st.caption("Mixed model, topics and seeds random (REML, Wald z, Holm within each measure): the seed-to-seed "
                   "variance is in the standard error. Each pair is tested on the topics all its runs answer.")
with st.expander(md("About {}", measure), icon=":material/help:"):
    st.markdown(widgets.measure_help(measure))

judging_tasks.firming_view(loaded, "overview_judging")  # the collection's judging task, as its judgments arrive
claim_panel.panel(loaded, measures, claims)
