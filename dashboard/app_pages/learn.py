"""Learn: every measure worked through on one ranking, rank by rank, with its formula and this ranking's
numbers, and what each convention does to a number."""

from __future__ import annotations

import streamlit as st

from dashboard import data, figures, widgets
from dashboard.panels import class_teacher
from dashboard.session import state
from dashboard.widgets import md
from metrics import RankscopeError
from metrics.gains import DISCOUNTS, GAINS

SOURCES = {"example": "worked example", "loaded": "loaded data", "typed": "my own"}
START_TEXT = "3 2 3 0 0 1 2 2 3 0"
SHOWN = ["rank", "docid", "grade", "relevant", "precision", "recall", "f1", "ap_contribution", "ap", "gain",
         "discount", "dcg", "idcg", "ndcg", "rr", "err"]

st.title("Learn")
widgets.start_here("One ranking, rank by rank: every measure worked through with its formula and this ranking's "
                   "numbers. Choose **my own**, type the grades of a ranking, change one, and watch each measure "
                   "move. Every number comes from the same code that evaluates full runs.")

source = widgets.choose("source", "Ranking from", SOURCES, radio=True,
                        help="A small worked example from a textbook or lecture, a topic of the loaded collection, "
                             "or a ranking you type in as grades.")
if source == "example":
    examples = data.teaching_examples()
    name = st.selectbox("Worked example", list(examples), **widgets.in_link("example"),
                        format_func=widgets.example_title)
    st.caption(md("{}", examples[name]))
    collection = state.example(name)
elif source == "loaded":
    collection = state.get()
    if not widgets.need_collection(collection):
        st.stop()
else:
    left, middle, right = st.columns([3, 1, 1])
    typed = left.text_input("Grades at ranks 1, 2, 3, …", START_TEXT, key="learn_grades",
                            help="The grade of the document at each rank, separated by spaces: 0 not relevant, 1, 2, "
                                 "3 ... more relevant; ? for a document without a judgment.")
    missing = middle.number_input("Relevant not retrieved", 0, 1000, 0, key="learn_missing",
                                  help="Judged relevant documents the ranking missed: they lower recall and AP.")
    typed_level = right.number_input("Relevant from grade", 1, 9, 1, key="learn_typed_level")
    try:
        grades = data.typed_grades(typed)
    except RankscopeError as err:
        widgets.error(err)
        st.stop()
    if not grades:
        st.info("Give the ranking at least one document.")
        st.stop()
    collection = data.typed_ranking(grades, int(missing), int(typed_level))

cols = st.columns([2, 2, 3, 3, 2])
if source == "typed":  # one ranking of one topic: nothing to choose
    system, topic = collection.systems[0], data.topics_of(collection)[0]
else:
    with cols[0]:
        system = widgets.pick_system("system", collection.systems, "System")
    with cols[1]:
        topic = widgets.pick_topic("topic", data.topics_of(collection), texts=data.topic_texts(collection))
with cols[2]:
    gain = widgets.choose("gain", "Gain of grade g", GAINS, radio=True, horizontal=False)
with cols[3]:
    discount = widgets.choose("discount", "Discount at rank i", DISCOUNTS, radio=True, horizontal=False)
depth = cols[4].number_input("Ranks shown", 1, 100, 20, key="learn_depth")
level = collection.conventions.relevance_level

full = data.anatomy(collection, system, topic, gain, discount)
if full.empty:
    st.info(md("{} retrieves nothing for topic {}.", system, topic))
    st.stop()
table = full.head(int(depth))
complete = len(table) == len(full)
num_rel = data.relevant_count(collection, system, topic)
st.markdown(("Your ranking" if source == "typed" else md("Topic **{}** of **{}**", topic, system))
            + md(": {} documents ranked, R = {} relevant (grade ≥ {}) in the judgments", len(full), num_rel, level)
            + ("." if complete else md("; the first {} are shown, and every measure below is cut there.", len(table))))
if source == "example" and data.printed(name, system, topic):
    st.caption(md("The source of this example prints: {}. Compare with the last row below (rounded as printed).",
                  ", ".join(f"{m} = {v}" for m, v in data.printed(name, system, topic).items())))
widgets.table(table[SHOWN], key="learn_table",
              numbers=["precision", "recall", "f1", "ap_contribution", "ap", "gain", "discount", "dcg", "idcg",
                       "ndcg", "rr", "err"])
widgets.show_figure(figures.anatomy_chart(table, ["precision", "recall", "ndcg", "ap"],
                                          "Running values: each point is the measure of the top i documents"),
                       key="learn_chart", name="anatomy")

st.subheader("Each measure on this ranking")
for item in data.worked(table, num_rel, gain, discount, complete):
    with st.expander(md("{} = {:.4f}", item.measure, item.value), expanded=item.measure.startswith("AP")):
        st.markdown(md("{}", item.description))
        st.latex(widgets.formula_lines(item.formula))
        st.latex(widgets.formula_lines(item.substituted))

st.subheader("Ask the class")
class_teacher.question_maker(collection, system, topic, SOURCES[source], len(full),
                              stored=collection.collection if source == "loaded" else None)
if source == "loaded":
    class_teacher.judging_maker(collection, system, topic)

st.subheader("What a convention changes")
effects = data.convention_effects(collection, system, topic, len(table))
widgets.show_figure(figures.convention_chart(effects, f"Topic {figures.safe(topic)}: the same ranking under each "
                                                      f"convention (blue: trec_eval's choice)"),
                       key="learn_effects", name="conventions")
st.caption(md("nDCG is cut at k = {}; the interpolation rules change the 11-point average; AP divides by the relevant "
              "documents in the judgments (trec_eval) or, in some textbooks, by those found.", len(table)))
