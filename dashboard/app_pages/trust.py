"""Trust: can this conclusion be trusted? How far each mean moves over the orders of tied scores, how much rests
on unjudged documents (Judged@k beside the gap to the residual), and what a system loses against a baseline
when its losses weigh more than its wins (URisk, TRisk, GeoRisk). One page rather than sections of the others:
the three views share one choice of systems and measures."""

from __future__ import annotations

import streamlit as st

from dashboard import data, exports, figures, widgets
from dashboard.data import leaderboard
from dashboard.panels import judging_tasks
from dashboard.session import state
from dashboard.widgets import md
from metrics import RankscopeError

RISK_ALPHAS = [0.0, 0.5, 1.0, 2.0, 5.0]  # α: a loss weighs 1 + α (TREC Web track: 1 and 5)

st.title("Trust")
loaded = state.get()
if not widgets.need_collection(loaded):
    st.stop()
widgets.start_here("Three checks before believing a ranking of systems: would another order of tied scores "
                   "change it, do its numbers rest on unjudged documents, and does a system that wins on "
                   "average lose badly on some topics? Choose the measures and systems once for all three.")

measures = widgets.pick_measures("measures", data.DEFAULT_MEASURES)
cols = st.columns([2, 3])
with cols[0]:
    measure = widgets.pick_measure("measure", measures, label="Measure of the judged and risk views")
ranked = data.by_mean(loaded, measures[0]) if len(loaded.systems) > widgets.FEW else None
with cols[1]:
    shown = widgets.pick_systems("systems", loaded.systems, ranked=ranked)
colors = figures.system_colors(loaded.systems)
mark = widgets.highlighted(shown, ranked)
ties, judged_tab, risk_tab = st.tabs(["Tied scores", "Unjudged documents", "Risk"], key="trust_tab")
with ties:
    summary = leaderboard.rows_of(data.tie_summary(loaded, measures), shown)
    widgets.show_figure(figures.tie_range_chart(summary, measures, colors, mark), key="trust_ties",
                        name="tie-ranges")
    widgets.provenance(loaded, measures, "range")
    widgets.table(summary, key="trust_ties_table", numbers=["low", "reported", "high"])
    flips = data.tie_flips(loaded, measures)
    if len(flips):
        st.warning(md("{} pair(s) of systems could change order under another order of tied scores: the first "
                      "reports at least the second's value, yet the second's best order beats the first's worst.",
                      len(flips)), icon=":material/swap_vert:")
        widgets.table(flips, key="trust_flips", numbers=["first_reported", "second_reported", "first_low",
                                                         "second_high"])
    else:
        st.caption("No pair of systems changes order under any order of tied scores.")
    st.caption("Low and high: the means with each topic's tied documents in their worst and best order (the "
               "exact bounds; n/a for a measure without exact ones). Reported: trec_eval's order, by document id.")
    tie_card = data.provenance(loaded, measures, "range")
    widgets.downloads({"CSV": (lambda: exports.csv_bytes(summary, tie_card), "rankscope-tie-ranges.csv")},
                      key="trust_ties_dl")

with judged_tab:
    judged = data.judged_measure(measure)
    for sentence in data.judged_gaps(loaded, judged):
        st.warning(md("{}", sentence), icon=":material/warning:")
    residual = data.residual_of(measure)
    if residual is None:
        st.info(md("{} has no residual measure: choose one of {} (at any cutoff) to see what the unjudged documents "
                   "could add.", measure, ", ".join(data.RESIDUALS)))
    else:
        overlay = data.judged_residual(loaded, measure, judged, shown)
        widgets.show_figure(figures.judged_residual_chart(overlay, colors, measure, residual, judged, mark),
                            key="trust_judged", name=f"judged-residual-{measure}")
        widgets.table(overlay, key="trust_judged_table", numbers=["value", "residual", "gap", "judged"])
        widgets.provenance(loaded, (measure, residual, judged))
        st.caption(md("{} counts every unjudged document as relevant: the gap is the most judging them could add on "
                      "the topic (it can be negative for AP and nDCG, whose ideal grows too).", residual))
    judging_tasks.firming_view(loaded, "trust_judging")  # the collection's judging task, as its judgments arrive

with risk_tab:
    if len(loaded.systems) < 2:
        st.info("Load at least two runs to compare a system with a baseline.")
        st.stop()
    cols = st.columns(3)
    with cols[0]:
        baseline = widgets.pick_system("baseline", loaded.systems, "Baseline")
    alpha = cols[1].select_slider("Extra weight of a loss α", RISK_ALPHAS, value=1.0, key="trust_alpha",
                                  help="A topic the system loses counts 1 + α times; α = 0 is the plain "
                                       "difference of the means.")
    with cols[2]:
        system = widgets.pick_system("trust_system", [s for s in loaded.systems if s != baseline], "Topics of")
    try:
        risks = data.risk(loaded, measure, baseline, alpha)
        topics = data.risk_topics(loaded, measure, system, baseline, alpha)
    except RankscopeError as err:
        widgets.error(err)
        st.stop()
    widgets.show_figure(figures.risk_chart(risks, measure), key="trust_risk", name=f"risk-{measure}")
    widgets.provenance(loaded, (measure,))
    widgets.table(risks, key="trust_risk_table", numbers=["urisk", "trisk", "t_critical", "zrisk", "georisk"],
                  p_value=st.column_config.NumberColumn("p_value", format="%.3g"))
    st.caption(md("{}", data.risk_caption(risks)))
    widgets.show_figure(figures.risk_topics_chart(topics, system, baseline, measure), key="trust_topics",
                        name=f"risk-topics-{measure}")
    risk_card = data.provenance(loaded, (measure,))
    widgets.downloads({"CSV": (lambda: exports.csv_bytes(risks, risk_card), "rankscope-risk.csv")},
                      key="trust_risk_dl")
