"""Reproducibility: did a reproduction reproduce? Breuer et al.'s measures between an original baseline and
advanced run and their reproductions, chosen among the loaded runs: the order of the documents per topic, the
scores per topic, the overall effect and the paired t-tests."""

from __future__ import annotations

import streamlit as st

from dashboard import data, figures, widgets
from dashboard.session import state
from dashboard.widgets import md
from metrics import RankscopeError

ROLES = {"ob": "Original baseline", "oa": "Original advanced", "rb": "Reproduced baseline",
         "ra": "Reproduced advanced"}
EXPLAINED = {
    "Kendall's τ union (KTU)": "per topic, do the original and the reproduced run put the same documents in the "
                               "same order? 1: the same order, 0: unrelated, −1: reversed (the first 1,000).",
    "RBO": "per topic, how much the two rankings share, the top weighing most (persistence 0.95): 1 the same "
           "ranking, 0 no document in common.",
    "RMSE": "per measure, how far the reproduced scores are from the original ones, topic by topic: 0 the same "
            "scores.",
    "ER": "effect ratio: the reproduced mean improvement of advanced over baseline divided by the original one: "
          "1 the same improvement, below 1 a smaller one, above 1 a larger one.",
    "ΔRI": "the original relative improvement minus the reproduced one: 0 the same relative improvement, above 0 "
           "a smaller one reproduced.",
    "p-value": "the paired t-test of the original against the reproduced scores of each run: a small value says "
               "the scores differ; a large one is no proof that they are the same.",
}
EXPLAINED_LIST = "\n".join(f"- **{name}**: {text}" for name, text in EXPLAINED.items())  # our Markdown

st.title("Reproducibility")
loaded = state.get()
if not widgets.need_two_runs(loaded, "Load at least two runs: an original run and its reproduction."):
    st.stop()
widgets.start_here("Choose the original experiment's baseline and advanced runs and their reproductions among "
                   "the loaded runs. Read the order of the documents first, then the scores, then the effect.")

systems = list(loaded.systems)
cols = st.columns(len(ROLES))
chosen = [col.selectbox(md("{}", label), systems, index=min(i, len(systems) - 1), key=f"repro_{role}")
          for i, (col, (role, label)) in enumerate(zip(cols, ROLES.items()))]
measures = widgets.pick_measures("measures", data.DEFAULT_MEASURES)
try:
    found = data.reproduction(loaded, *chosen, measures)
except RankscopeError as err:
    widgets.error(err)
    st.stop()

st.subheader("Order of the documents")
widgets.show_figure(figures.order_chart(found.order), key="repro_order", name="reproduction-order")
widgets.table(found.order, key="repro_order_table", numbers=["ktu", "rbo"])
st.subheader("Scores and effect")
widgets.show_figure(figures.effect_chart(found.effects), key="repro_effect", name="reproduction-effect")
widgets.table(found.summary(), key="repro_summary",
              numbers=["er", "delta_ri", "rmse_baseline", "rmse_advanced"],
              p_value_baseline=st.column_config.NumberColumn("p_value_baseline", format="%.3g"),
              p_value_advanced=st.column_config.NumberColumn("p_value_advanced", format="%.3g"))
st.markdown(EXPLAINED_LIST)
st.caption("After T. Breuer, N. Ferro, N. Fuhr, M. Maistro, T. Sakai, P. Schaer and I. Soboroff, “How to measure "
           "the reproducibility of system-oriented IR experiments”, SIGIR 2020; the numbers agree with their "
           "repro_eval package.")
widgets.provenance(loaded, measures)
