"""Queries: where two systems differ, topic by topic; clicking a topic opens its drill-down (the rankings side
by side, coloured by grade, with the per-rank anatomy) and its review notes."""

from __future__ import annotations

import streamlit as st

from dashboard import components, data, exports, figures, state
from metrics import RankscopeError
from metrics.notes import MAX_COMMENT

TABS = ("All topics", "One topic")
ANATOMY = ("rank", "docid", "score", "grade", "relevant", "precision", "recall", "ap", "dcg", "idcg", "ndcg", "rr")
TAGS = ("interesting", "hard topic", "judgments doubtful", "system bug", "ties matter", "check again")


st.title("Queries")
loaded = state.get()
if not components.need_collection(loaded):
    st.stop()

colors = figures.system_colors(loaded.systems)
cols = st.columns(3)
with cols[0]:
    measure = components.pick_measure("measure", ("nDCG@10", "RR", "AP", "P@10", "R@100"))
with cols[1]:
    a = components.pick_system("a", loaded.systems, "System A", default=0)
with cols[2]:
    b = components.pick_system("b", loaded.systems, "System B", default=1)

pair = data.paired(loaded, measure, a, b)
overall, one = st.tabs(TABS, key="view", bind=components.BIND)
with overall:
    st.markdown(f"**{components.plain(b)}** is better than **{components.plain(a)}** on **{pair.wins}** topics, "
                f"worse on **{pair.losses}**, equal on **{pair.ties}** ({components.plain(measure)}).")
    if pair.only_a or pair.only_b:
        st.caption(f"Left out: {len(pair.only_a)} topics only {components.plain(a)} answers, "
                   f"{len(pair.only_b)} only {components.plain(b)} answers.")
    components.show_figure(figures.difference_bars(pair.frame, a, b, measure), key="queries_diff",
                           name=f"per-topic-{measure}", on_select=lambda: components.open_topic("queries_diff", "view", TABS[1]))
    left, right = st.columns(2)
    with left:
        components.show_figure(figures.scatter_chart(pair.frame, a, b, measure), key="queries_scatter",
                               name=f"scatter-{measure}", on_select=lambda: components.open_topic("queries_scatter", "view", TABS[1]))
    with right:
        components.show_figure(figures.distribution_chart(data.per_query(loaded, (measure,)), measure, colors),
                               key="queries_dist", name=f"distribution-{measure}")
    with st.expander("Every topic", icon=":material/table_rows:"):
        names = {"a": f"A: {a}", "b": f"B: {b}", "diff": "B − A"}
        components.table(pair.frame.rename(columns=names), key="queries_pairs", numbers=list(names.values()))

with one:
    cols = st.columns([1, 3, 1])
    with cols[0]:
        topic = components.pick_topic("topic", data.topics_of(loaded))
    with cols[1]:
        shown = st.multiselect("Systems", loaded.systems, default=list(dict.fromkeys([a, b])), key="systems",
                               bind=components.BIND)
    depth = cols[2].number_input("Ranks shown", 5, 200, 20, step=5, key="queries_depth")
    if topic is None or not shown:
        st.info("Choose a topic and at least one system.")
        st.stop()
    ranked = data.side_by_side(loaded, topic, tuple(shown), int(depth))
    components.show_figure(figures.rankings_chart(ranked, int(depth), f"Topic {figures.safe(topic)}: the top "
                                                  f"{int(depth)} of each ranking, coloured by grade ('?': unjudged)"),
                           key="queries_rankings", name=f"rankings-{topic}")
    system = st.columns([1, 2])[0].selectbox("Per-rank anatomy of", shown, key="queries_anatomy_system")
    if system in set(ranked["system"]):
        table = data.anatomy(loaded, system, topic).head(int(depth))
        components.table(table[list(ANATOMY)], key="queries_anatomy", numbers=ANATOMY[5:])
        st.caption("Each row holds the measures of the top i documents: P@i, R@i, AP cut at i, DCG@i, nDCG@i, "
                   "RR within the top i.")
        st.page_link("app_pages/learn.py", label="Work this ranking through, measure by measure",
                     icon=":material/school:", query_params={"source": "loaded data", "system": system, "topic": topic})
    else:
        st.info(f"{components.plain(system)} does not answer topic {components.plain(topic)}.")

    st.subheader("Review notes")
    notes = state.notes()
    note = notes.get(topic, {"tags": [], "comment": ""})
    used = [tag for n in notes.values() for tag in n["tags"]]
    with st.form(f"queries_note_{topic}", border=True):
        tags = st.multiselect("Tags", list(dict.fromkeys([*TAGS, *used, *note["tags"]])), default=note["tags"],
                              accept_new_options=True, key=f"queries_tags_{topic}")
        comment = st.text_area("Comment", value=note["comment"], key=f"queries_comment_{topic}",
                               max_chars=MAX_COMMENT)
        if st.form_submit_button(f"Save the note on topic {components.plain(topic)}", icon=":material/bookmark_add:"):
            try:
                state.put_notes(exports.set_note(notes, topic, tags, comment))
                st.rerun()
            except RankscopeError as err:
                components.error(err)
    if notes:
        st.dataframe(exports.notes_frame(state.notes()), hide_index=True, width="stretch", key="queries_notes")
        st.caption("Notes travel with the HTML report and the session file (report page).")
