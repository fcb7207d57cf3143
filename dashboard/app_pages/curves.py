"""Curves: precision–recall (raw saw-tooth and interpolated envelope), the 11 points and their average under
each interpolation rule, and P@k and R@k against k."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from dashboard import data, figures, widgets
from dashboard.session import state
from dashboard.widgets import md

st.title("Curves")
loaded = state.get()
if not widgets.need_collection(loaded):
    st.stop()
widgets.start_here("How precision changes as a system finds more of the relevant documents. Pick one topic to "
                   "see its precision–recall curve, or switch the interpolation rule and watch the 11 points move.")

colors = figures.system_colors(loaded.systems)
cols = st.columns([2, 5])
with cols[0]:
    topic = widgets.pick_topic("topic", data.topics_of(loaded), allow_all=True, texts=data.topic_texts(loaded))
with cols[1]:
    ranked = data.by_mean(loaded, data.DEFAULT_MEASURES[0]) if len(loaded.systems) > widgets.FEW else None
    shown = widgets.pick_systems("systems", loaded.systems, ranked=ranked)
marked = widgets.highlighted(shown, ranked)  # with many systems shown: the best few in colour, the rest grey
where = f"topic {figures.safe(topic)}" if topic else "mean over topics"


@widgets.fragment
def interpolation() -> None:
    """The interpolation rule and what it changes (a change of rule reruns only this part of the page)."""
    cols = st.columns([3, 4], vertical_alignment="bottom")
    with cols[0]:
        rule = widgets.choose("rule", "Interpolation rule", data.INTERPOLATIONS,
                              index=list(data.INTERPOLATIONS).index(loaded.conventions.interpolation),
                              help="How recall level x becomes a number of relevant documents k (R relevant in "
                                   "all): trec_eval 9 k = (long)(x·R + 0.9), trec_eval 10 k = x·R rounded, "
                                   "textbook the least k with k/R ≥ x.")
    compare_rules = cols[1].toggle("Show the other rules too", value=True, key="curves_compare",
                                   help="Draw the 11 points under the other interpolation rules, dashed, to see what "
                                        "the rule changes.")

    points = data.eleven_points(loaded, shown, topic)
    chosen = points[(points["rule"] == rule) & (points["query"] == (topic or "all"))]
    others = points[(points["rule"] != rule) & (points["query"] == (topic or "all"))] if compare_rules else None
    table = data.eleven_point_table(points, topic)
    averages = dict(zip(table.loc[table["rule"] == rule, "system"], table.loc[table["rule"] == rule, "11pt_avg"]))
    if topic is None:
        widgets.show_figure(figures.eleven_point_chart(chosen, colors, f"Interpolated precision at 11 recall "
                                                       f"levels, {where} ({rule} rule)", others, averages,
                                                       highlighted=marked),
                               key="curves_11pt", name="eleven-point")
        same = data.identical_curves(chosen, ("y",), "over all topics")
    else:
        raw, envelope = data.pr_curves(loaded, shown, topic, rule)
        widgets.show_figure(figures.pr_chart(raw, envelope, colors, f"Precision–recall, {where}: raw, "
                                             f"interpolated ({rule} rule) and the 11 points", chosen,
                                             highlighted=marked),
                               key="curves_pr", name=f"precision-recall-{topic}")
        widgets.show_figure(figures.eleven_point_chart(chosen, colors, f"The 11 points, {where} ({rule} rule)",
                                                       others, averages, highlighted=marked),
                               key="curves_11pt", name="eleven-point")
        same = data.identical_curves(raw, ("y",), "on this topic")
    if same:
        st.caption(md("{}", same))

    widgets.show_figure(figures.rule_chart(table, colors, f"11-point average under each interpolation rule, "
                                                          f"{where}", highlighted=marked),
                           key="curves_rules", name="eleven-point-rules")
    widgets.table(table[table["rule"] == rule].drop(columns="rule"), key="curves_table",
                  numbers=[c for c in table.columns if c not in ("system", "rule", "n_queries")])
    st.caption("Interpolated precision at each recall level under the chosen rule; 11pt_avg is trec_eval's 11pt_avg "
               "(over all topics, its mean). The chart above shows the same average under each rule: trec_eval 9 "
               "reads recall x after (long)(x·R + 0.9) relevant documents, trec_eval 10 after x·R rounded, the "
               "textbook rule after the least k with k/R ≥ x.")
    widgets.provenance(replace(loaded, conventions=replace(loaded.conventions, interpolation=rule)))


@widgets.fragment
def at_ranks() -> None:
    """P@k and R@k (a change of depth reruns only this part of the page)."""
    depth = st.select_slider("Ranks shown (k up to)", [10, 20, 50, 100, 200, 500, 1000], value=100,
                             **widgets.in_link("depth"))
    at_k = data.at_k(loaded, shown, topic, depth)
    widgets.show_figure(figures.at_k_chart(at_k, colors, f"P@k and R@k, {where}", highlighted=marked),
                        key="curves_at_k", name="precision-recall-at-k")
    same = data.identical_curves(at_k, ("precision", "recall"), "on this topic" if topic else "over all topics")
    if same:
        st.caption(md("{}", same))


interpolation()
st.subheader("Precision and recall at each rank")
at_ranks()
