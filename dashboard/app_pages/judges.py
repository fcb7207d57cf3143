"""Judges: does the conclusion survive another judge? Several judgment sets of one collection compared on
their labels, on the systems' orders and conclusions, topic by topic, and by prediction-powered means."""

from __future__ import annotations

import streamlit as st

from dashboard import data, figures, pages, widgets
from dashboard.panels import judging_start, judging_tasks
from dashboard.session import state
from dashboard.widgets import md
from metrics import RankscopeError
from metrics.judgments.systems import TOPIC_WORDS

st.title("Judges")
loaded = state.get()
if not widgets.need_collection(loaded):
    st.stop()
widgets.start_here("Two or more judgment sets of one collection (assessors, a crowd, a language model): do they "
                   "grade the documents alike, do they order the systems alike, and which conclusions hold under "
                   "every set? Add sets on the data page, under Judgment sets.")
if loaded.collection:  # a stored collection: its judging tasks, as they firm up
    with st.expander("Judging tasks", icon=":material/rate_review:"):
        judging_tasks.tasks_view(loaded)
        judging_start.form(loaded)
named = state.judgment_sets(loaded)
if len(named) < 2:
    st.info("Only one judgment set is loaded. Upload another qrels file for the same topics on the data page "
            "(More judgment sets) to compare them.")
    st.page_link(pages.by_script("data").path, label="Go to data", icon=":material/upload_file:")
    st.stop()
names = [n for n, _ in named]
widgets.table(data.sets_summary(loaded), key="judges_sets")

labels, alpha = data.label_agreement(loaded)
measures = widgets.pick_measures("measures", data.DEFAULT_MEASURES)
by_labels, by_systems, by_topics, by_ppi = st.tabs(["Labels", "Systems", "Where they disagree", "Prediction-powered"])
with by_labels:
    cols = st.columns(2)
    first = cols[0].selectbox("First set", names, index=0, key="judges_first")
    second = cols[1].selectbox("Second set", [n for n in names if n != first], index=0, key="judges_second")
    row = labels.loc[f"{first}|{second}"] if f"{first}|{second}" in labels.index else labels.loc[f"{second}|{first}"]
    shown = st.columns(5)
    shown[0].metric("Cohen's κ", f"{row['kappa']:.4f}")
    shown[1].metric(md("κ, relevant or not (grade ≥ {})", loaded.conventions.relevance_level), f"{row['kappa_binary']:.4f}")
    shown[2].metric("κ, linear weights", f"{row['kappa_linear']:.4f}")
    shown[3].metric("κ, quadratic weights", f"{row['kappa_quadratic']:.4f}")
    shown[4].metric(md("Krippendorff's α, all {} sets", len(names)), f"{alpha:.4f}")
    counts = st.columns(4)
    counts[0].metric("Judged by both", f"{int(row['both_judged']):,}")
    counts[1].metric(md("Only by {}", row["first"]), f"{int(row['only_first']):,}")
    counts[2].metric(md("Only by {}", row["second"]), f"{int(row['only_second']):,}")
    counts[3].metric("Mean grade shift (second − first)", f"{row['mean_grade_shift']:+.3f}")
    cells, per_topic = data.pair_labels(loaded, row["first"], row["second"])
    widgets.show_figure(figures.confusion_heatmap(cells, row["first"], row["second"]), key="judges_confusion",
                        name="judges-confusion")
    st.caption("κ: agreement beyond what two judges grading at random with their own frequencies would reach (1: "
               "the same grades; 0: chance). Weighted κ counts a near miss (grade 2 for 3) less than a far one; α "
               "(ordinal) reads the grades as ordered, over every document two or more sets judged. A positive "
               "shift: the second set grades higher than the first.")
    st.subheader("Topic by topic")
    widgets.table(per_topic, key="judges_per_topic", numbers=["agreement", "kappa", "kappa_binary", "kappa_linear",
                                                               "kappa_quadratic", "alpha", "mean_grade_shift"])

with by_systems:
    cols = st.columns([3, 3, 3, 2, 2])
    topics = cols[0].selectbox("Topics", list(TOPIC_WORDS), format_func=TOPIC_WORDS.get, key="judges_topics",
                               help="The topics every set judged: one topic set for every pair of sets and every "
                                    "conclusion, so a set that judged fewer topics narrows them all.")
    test = cols[1].selectbox("Test", list(data.TESTS), format_func=data.TESTS.get, key="judges_test")
    correction = cols[2].selectbox("Correction", list(data.CORRECTIONS), format_func=data.CORRECTIONS.get,
                                   key="judges_correction")
    alpha_level = cols[3].select_slider("Significance level α", [0.01, 0.05, 0.1], value=0.05, key="judges_alpha")
    top_k = cols[4].number_input("Top k", min_value=1, max_value=max(len(loaded.systems), 1),
                                 value=min(5, len(loaded.systems)), key="judges_top_k")
    found = None
    if len(loaded.systems) < 2:
        st.info("Ordering and testing systems needs two runs or more: load another on the data page.")
    else:
        try:
            orders, agreement, changes, support = data.sets_systems(loaded, measures, topics, int(top_k))
            found = data.conclusions(loaded, measures, test, correction, alpha_level, topics)
        except RankscopeError as err:
            widgets.error(err)
    if found is not None:
        label = st.selectbox("Measure", list(orders["measure"].unique()), key="judges_measure",
                             format_func=widgets.measure_label)
        pair = agreement[(agreement["measure"] == label) & (agreement["first"] == names[0])]
        for column, r in zip(st.columns(max(len(pair), 1)), pair.itertuples(index=False)):
            column.metric(md("Kendall's τ_b, {} and {}", r.first, r.second), f"{r.tau_b:.4f}")
            column.metric(md("τ_AP, {} the reference", r.first), f"{r.tau_ap:.4f}")
            column.metric(md("Top {} in common", r.top_k), f"{r.top_k_overlap:.0%}")
        missing = data.unanswered(loaded, measures, topics)
        for r in missing.drop_duplicates(["system", "topics", "unanswered"]).itertuples(index=False):
            st.info(md("{} did not answer {} of the {} compared topics: a paired test needs every system on every "
                       "topic, so it scores 0 on them (complete topics, trec_eval -c).", r.system, r.unanswered,
                       r.topics), icon=":material/info:")
        widgets.show_figure(figures.rank_chart(orders[orders["measure"] == label], names, loaded.systems),
                            key="judges_ranks", name="judges-ranks")
        st.caption("τ_b counts the pairs of systems two sets order alike. τ_AP walks the second set's order, the "
                   "first the reference: a system the second set puts too high near its own top costs most (the "
                   "reference's best put last costs less than its worst put first). Systems tied at the top k share "
                   "the places left; tied systems share a rank. Orders with τ of 0.9 or more are customarily read as "
                   "equivalent.")
        st.subheader("Which conclusions hold under every set?")
        st.caption(md("Better: the better system under {0}. Under {0}, the {1} finds the difference significant "
                      "after {2} correction (α = {3}): found; orders the pair without: not found; tied: equal values. "
                      "Under each other set the difference is found in the same direction, reversed, not found, or "
                      "differs (significant, where {0} ties).", names[0], data.TESTS[test],
                      data.CORRECTIONS[correction], alpha_level))
        widgets.table(found[found["measure"] == label].drop(columns="measure"), key="judges_conclusions")
        st.subheader("The largest rank changes")
        widgets.table(changes[changes["measure"] == label], key="judges_changes")
        st.subheader("The judged documents the measure rests on")
        st.caption("Per set and system: the documents the measure reads (the top k, or the whole ranking), and how "
                   "many of them that set judged. A set that judged less counts more documents as not relevant.")
        widgets.table(support[support["measure"] == label], key="judges_support", numbers=["judged_share"])

with by_topics:
    measure = widgets.pick_measure("judges_topic_measure", measures)
    topics_frame = data.topic_disagreement(loaded, measure)
    widgets.table(topics_frame, key="judges_topics_table",
                  numbers=["disagreement", "differ_share", "alpha", "measure_spread"])
    topic = widgets.pick_topic("judges_topic", topics_frame["query"].astype(str).tolist(),
                               texts=data.topic_texts(loaded))
    if topic is not None:
        st.caption("The documents of this topic the sets judged differently (a blank: that set did not judge it); "
                   "with the documents' texts when they are loaded on the data page.")
        widgets.table(data.judged_differently(loaded, topic), key="judges_documents")

with by_ppi:
    automatic = data.ppi_candidates(loaded)
    if not automatic:
        st.info(md("Prediction-powered means need a set that judged topics the reference ({}) did not, and two "
                   "or more it did.", names[0]))
    else:
        cols = st.columns(2)
        chosen = cols[0].selectbox("Automatic set", automatic, key="judges_automatic")
        measure = cols[1].selectbox("Measure", measures, key="judges_ppi_measure", format_func=widgets.measure_label)
        means = data.ppi_means(loaded, chosen, (measure,))
        widgets.show_figure(figures.interval_chart(means, measure, chosen), key="judges_ppi", name="judges-ppi")
        widgets.table(means, key="judges_ppi_table", numbers=[c for c in means.columns if c not in (
            "measure", "system", "labelled", "unlabelled")])
        st.caption("The mean the reference's judges would give over all topics, estimated from the topics they "
                   "judged and corrected by the automatic set's error there (Angelopoulos et al., Science 2023; "
                   "Oosterhuis et al., KDD 2024), with λ tuned (PPI++); 95% intervals. It assumes the reference's "
                   "topics are a random sample of the topics.")
widgets.provenance(loaded, card=data.judges_provenance(loaded, measures, topics, test, correction))
