"""Queries: where two systems differ, topic by topic; the best and worst topics named, with their query texts;
clicking a topic opens its drill-down (systems A and B side by side, coloured by grade, with each document's
title, and the per-rank anatomy) and its review notes."""

from __future__ import annotations

import streamlit as st

from dashboard import data, exports, figures, pages, widgets
from dashboard.panels import claim_panel, note_editor
from dashboard.session import state
from dashboard.store import review_notes
from dashboard.widgets import md
from metrics import RankscopeError
from metrics.review.notes import MAX_COMMENT

TABS = ("All topics", "One topic")
ANATOMY = ("rank", "docid", "score", "grade", "relevant", "precision", "recall", "ap", "dcg", "idcg", "ndcg", "rr")
TAGS = ("interesting", "hard topic", "judgments doubtful", "system bug", "ties matter", "check again")
ORDER = {True: "B's losses first", False: "B's gains first"}
EVERY = "every topic"
SEED_RANGE = {"query": "topic", "system": "system", "runs": "runs", "value": "mean", "low": "lowest", "high": "highest"}
DOCUMENTS = {"system": "system", "rank": "rank", "docid": "document", "grade": "grade", "title": "title",
             "preview": "first words"}


def signed(value: float) -> str:
    return f"{value:+.2f}".replace("-", "−")


def open_topic(topic: str) -> None:
    st.session_state["topic"], st.session_state["view"] = str(topic), TABS[1]


def find_topic() -> None:
    if st.session_state.get("queries_find"):
        open_topic(st.session_state["queries_find"])


def open_row(shown) -> None:
    rows = st.session_state.get("queries_topics", {}).get("selection", {}).get("rows", [])
    if rows:
        open_topic(shown["topic"].iloc[rows[0]])


st.title("Queries")
loaded = state.get()
if not widgets.need_collection(loaded):
    st.stop()
widgets.start_here("Where system B wins or loses against A, topic by topic. Choose A and B, open the worst "
                   "topic, read its query and the documents each system ranked, and tag it for the review.")

colors = figures.system_colors(loaded.systems)
cols = st.columns(3)
ranked = None  # with many systems: the box plot's colours go to A, B and the best by mean
with cols[0]:
    measure = widgets.pick_measure("measure", ("nDCG@10", "RR", "AP", "P@10", "R@100"))
with cols[1]:
    a = widgets.pick_system("a", loaded.systems, "System A", default=0)
with cols[2]:
    b = widgets.pick_system("b", loaded.systems, "System B", default=1)
if len(loaded.systems) > widgets.FEW:
    ranked = data.by_mean(loaded, measure)
if st.session_state.get("queries_pair") != (a, b):  # a new pair: the drill-down's anatomy starts on A
    st.session_state["queries_pair"] = (a, b)
    st.session_state["queries_anatomy_system"] = a

texts = data.topic_texts(loaded)
labels = data.topic_labels(loaded, data.topics_of(loaded))
try:
    pair = data.paired(loaded, measure, a, b)
    best, worst = data.extremes(loaded, measure, a, b)
except RankscopeError as err:  # a system evaluated on no judged topic, say: one line, the page stops here
    widgets.error(err)
    st.stop()
notes = state.notes()
widgets.provenance(loaded, (measure,))
overall, one = st.tabs(TABS, **widgets.in_link("view"))
with overall:
    st.markdown(md("**{}** is better than **{}** on **{}** topics, worse on **{}**, equal on **{}** ({}).", b, a,
                   pair.wins, pair.losses, pair.ties, measure))
    if pair.only_a or pair.only_b:
        st.caption(md("Left out: {} topics only {} answers, {} only {} answers.", len(pair.only_a), a,
                      len(pair.only_b), b))
    ends = [(word, e) for word, e in (("worst", worst), ("best", best)) if e is not None]
    st.text("\n".join(f"{word}: {e.query} ({signed(e.diff)})" + (f" — {labels[e.query].partition(' · ')[2]}"
                                                                  if texts and e.query in texts else "")
                      for word, e in ends) or "B and A score the same on every topic.")
    claim_panel.pair_button(loaded, *((b, a) if pair.wins >= pair.losses else (a, b)), measure)
    buttons = st.columns(4)
    for i, (word, e) in enumerate(ends):
        buttons[i].button(md("Open the {} topic, {}", word, e.query), key=f"queries_open_{word}",
                          on_click=open_topic, args=(e.query,), icon=":material/open_in_new:")
    widgets.show_figure(figures.difference_bars(pair.frame, a, b, measure, texts), key="queries_diff",
                        name=f"per-topic-{measure}", on_select=lambda: widgets.open_topic("queries_diff", "view", TABS[1]))
    left, right = st.columns(2)
    with left:
        widgets.show_figure(figures.scatter_chart(pair.frame, a, b, measure), key="queries_scatter",
                            name=f"scatter-{measure}", on_select=lambda: widgets.open_topic("queries_scatter", "view", TABS[1]),
                            share=0.5)
    with right:
        widgets.show_figure(figures.distribution_chart(data.per_query(loaded, (measure,)), measure, colors,
                                                        highlighted=widgets.highlighted(
                                                            loaded.systems, ranked, pinned=(a, b))),
                               key="queries_dist", name=f"distribution-{measure}", share=0.5)

    seeded = data.seed_ranges(loaded, measure)
    if seeded is not None:  # runs named name.seed1, name.seed2 ...: each system's range over its runs, per topic
        st.subheader("Seed ranges, topic by topic")
        widgets.show_figure(figures.seed_range_chart(seeded, measure, figures.system_colors(
            list(dict.fromkeys(seeded["system"])))), key="queries_seed_ranges", name=f"seed-ranges-{measure}")
        widgets.table(seeded[list(SEED_RANGE)].rename(columns=SEED_RANGE), key="queries_seed_table",
                      numbers=("mean", "lowest", "highest"))
        st.caption("Each system's runs named name.seed1, name.seed2, ...: its mean over them and its lowest and "
                   "highest run on each topic.")

    st.subheader("Best and worst topics")
    cols = st.columns(2)
    worst_first = cols[0].segmented_control("Order", list(ORDER), format_func=ORDER.get, default=True,
                                            key="queries_order")
    tags = list(dict.fromkeys(tag for n in notes.values() for tag in n["tags"]))
    tag = cols[1].selectbox("Review tag", [EVERY, *tags], key="queries_tag")
    table = data.topic_table(loaded, measure, a, b, notes, None if tag == EVERY else tag, worst_first is not False)
    names = {"topic": "topic", "text": "query", "a": f"A: {a}", "b": f"B: {b}", "diff": "B − A", "tags": "tags"}
    st.dataframe(table.rename(columns=names), hide_index=True, width="stretch", key="queries_topics",
                 on_select=lambda shown=table: open_row(shown), selection_mode="single-row",
                 column_config={names["a"]: widgets.NUMBER, names["b"]: widgets.NUMBER,
                                "B − A": st.column_config.NumberColumn(format="%+.4f")})
    st.caption("Click a row to open its topic.")

with one:
    cols = st.columns([1, 3, 2, 1])
    topic = cols[0].selectbox("Topic", list(labels), **widgets.in_link("topic"))  # ids: what a link says
    if texts is not None:
        cols[1].selectbox("Find a topic by its query", list(labels), index=None, key="queries_find",
                          format_func=labels.get, on_change=find_topic, placeholder="type words of the query")
    also = cols[2].multiselect("Also show", [s for s in loaded.systems if s not in (a, b)], key="queries_also")
    depth = cols[3].number_input("Ranks shown", 5, 200, 20, step=5, key="queries_depth")
    if topic is None:
        st.info("Choose a topic.")
        st.stop()
    shown = tuple(dict.fromkeys([a, b, *also]))
    st.subheader(md("Topic {}", topic))
    if texts is not None:
        st.text(texts.get(topic) or f"{texts.name} has no text for this topic.")
    ranked = data.side_by_side_texts(loaded, topic, shown, int(depth))
    widgets.show_figure(figures.rankings_chart(ranked, int(depth), f"Topic {figures.safe(topic)}: the top "
                                               f"{int(depth)} of each ranking, coloured by grade ('?': unjudged)"),
                           key="queries_rankings", name=f"rankings-{topic}")
    if "title" in ranked:
        with st.expander("The documents of these rankings", expanded=True, icon=":material/description:"):
            st.dataframe(ranked[list(DOCUMENTS)].rename(columns=DOCUMENTS), hide_index=True, width="stretch",
                         key="queries_documents")
    else:
        st.caption("Load the topics and the documents on the data page to read queries and document titles here.")
    system = st.columns([1, 2])[0].selectbox("Per-rank anatomy of", shown, key="queries_anatomy_system")
    if system in set(ranked["system"]):
        steps = data.anatomy(loaded, system, topic).head(int(depth))
        widgets.table(steps[list(ANATOMY)], key="queries_anatomy", numbers=ANATOMY[5:])
        st.caption("Each row holds the measures of the top i documents: P@i, R@i, AP cut at i, DCG@i, nDCG@i, "
                   "RR within the top i.")
        st.page_link(pages.by_script("learn").path, label="Work this ranking through, measure by measure",
                     icon=":material/school:", query_params={"source": "loaded data", "system": system, "topic": topic})
    else:
        st.info(md("{} does not answer topic {}.", system, topic))

    st.subheader("Review notes")
    used = [tag for n in notes.values() for tag in n["tags"]]
    if one.open is not False:  # drawn in the hidden tab, the editor would be "opened" before anyone reads it
        note_editor.editor(loaded, topic, shown, list(dict.fromkeys([*TAGS, *used])), MAX_COMMENT)
    if review_notes.heads():
        st.dataframe(review_notes.notes_frame(review_notes.heads()), hide_index=True, width="stretch", key="queries_notes")
    elif notes:
        st.dataframe(exports.notes_frame(state.notes()), hide_index=True, width="stretch", key="queries_notes")
    if notes:
        st.caption("Notes travel with the HTML report and the session file (report page).")
