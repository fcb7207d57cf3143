"""Gain: DCG@k against the ideal DCG@k, and nDCG@k, under each gain, discount and ideal ranking."""

from __future__ import annotations

import streamlit as st

from dashboard import data, figures, widgets
from dashboard.session import state
from dashboard.widgets import md
from metrics.gains import DISCOUNTS, GAINS, IDEALS

st.title("Gain")
loaded = state.get()
if not widgets.need_collection(loaded):
    st.stop()
widgets.start_here("Graded relevance: each document adds its gain, discounted by its rank (DCG), and nDCG divides "
                   "by the best possible ranking (the ideal). Try exponential gain, or move the cutoff k.")

cols = st.columns([2, 2, 2, 3, 1])
with cols[0]:
    topic = widgets.pick_topic("topic", data.topics_of(loaded), allow_all=True, texts=data.topic_texts(loaded))
with cols[1]:
    gain = widgets.choose("gain", "Gain of grade g", GAINS, radio=True, horizontal=False,
                          help="trec_eval gains the grade itself; Burges et al. 2^grade − 1.")
with cols[2]:
    discount = widgets.choose("discount", "Discount at rank i", DISCOUNTS, radio=True, horizontal=False,
                              help="trec_eval divides by log2(i + 1); Järvelin and Kekäläinen leave rank 1 undiscounted, "
                                   "then divide by log2(i).")
with cols[3]:
    ideal = widgets.choose("ideal", "Ideal ranking from", IDEALS, radio=True, horizontal=False,
                           help="trec_eval sorts every judged document by grade (all judged); using only the "
                                "retrieved ones lets a run that misses relevant documents score higher.")
cutoff = cols[4].number_input("Cutoff k", 1, 1000, 10, **widgets.in_link("k"))
ranked = data.by_mean(loaded, "nDCG@10") if len(loaded.systems) > widgets.FEW else None
shown = widgets.pick_systems("systems", loaded.systems, ranked=ranked)
depth = st.select_slider("Ranks shown", [10, 20, 50, 100, 200, 500, 1000], value=50, **widgets.in_link("depth"))

frame = data.gain_curves(loaded, shown, topic, gain, discount, ideal, max(int(depth), int(cutoff)))
where = f"topic {figures.safe(topic)}" if topic else "mean over topics"
widgets.show_figure(figures.gain_chart(frame, figures.system_colors(loaded.systems),
                                       f"DCG@k against the ideal DCG@k, {where}", cutoff=int(cutoff),
                                       highlighted=widgets.highlighted(shown, ranked)),
                       key="gain_chart", name="gain")
same = data.identical_curves(frame, ("dcg", "ndcg"), "on this topic" if topic else "over all topics")
if same:
    st.caption(md("{}", same))

at_k = data.gain_table(loaded, frame, shown, topic, int(cutoff), gain, discount, ideal)
widgets.table(at_k, key="gain_table", numbers=[c for c in at_k.columns if c != "system"])
cut = data.ndcg_measure(gain, discount, ideal, int(cutoff))
st.caption(md("At the cutoff k = {}: the measure {}{}. The last column divides the DCG of the whole ranking by that "
              "of the whole ideal ranking (trec_eval's ndcg without a cutoff): it is not the curve's value at one k "
              "unless the ranking is at least as long as the ideal one.", cutoff, cut,
              f" (trec_eval's ndcg_cut_{cutoff})" if cut == f"nDCG@{cutoff}" else "")
           + (" Over all topics each column is the mean of the per-topic values, so the nDCG column is not the DCG "
              "column divided by the IDCG column." if topic is None else ""))
widgets.provenance(loaded, (cut,))
