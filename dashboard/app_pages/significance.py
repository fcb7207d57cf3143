"""Significance: paired tests between systems, corrected for multiple comparisons, read in plain words."""

from __future__ import annotations

import streamlit as st

from dashboard import components, data, exports, figures, state
from metrics import RankscopeError

MODES = {"pairs": "all pairs", "baseline": "against a baseline"}
EFFECTS = {"mean_diff": "mean difference", "effect_size": "Cohen's d_z"}

st.title("Significance")
loaded = state.get()
if not components.need_collection(loaded):
    st.stop()
if len(loaded.systems) < 2:
    st.info("Load at least two runs to compare systems.")
    st.stop()
components.start_here("Is a difference between two systems more than luck? Each test pairs the systems topic by "
                      "topic; read the sentence below, then try another test or correction and see what changes.")

cols = st.columns([3, 2, 2, 1, 2])
with cols[0]:
    measure = components.pick_measure("measure", data.DEFAULT_MEASURES)
with cols[1]:
    test = components.choose("test", "Test", data.TESTS)
with cols[2]:
    correction = components.choose("correction", "Correction", data.CORRECTIONS,
                                   help="Adjusts the p-values for the number of comparisons of this measure.")
alpha = cols[3].select_slider("α", [0.01, 0.05, 0.1], value=0.05, key="alpha", bind=components.BIND)
with cols[4]:
    mode = components.choose("compare", "Compare", MODES, radio=True, horizontal=False)
baseline = components.pick_system("baseline", loaded.systems, "Baseline") if mode == "baseline" else None

try:
    result = data.comparison(loaded, (measure,), test, baseline, correction, alpha)
except RankscopeError as err:
    components.error(err)
    st.stop()
st.info("\n\n".join(components.plain(line) for line in data.reading(result)), icon=":material/record_voice_over:")
pvalues, effects, counts = st.tabs(["p-values", "Effect sizes", "Topics won and lost"], key="sig_tab")
with pvalues:
    components.show_figure(figures.pvalue_heatmap(result.pvalue_matrix(measure), f"Adjusted p-values, "
                                                  f"{figures.safe(measure)} (dark: below α = {alpha})", alpha),
                           key="sig_p", name=f"p-values-{measure}")
with effects:
    effect = components.choose("effect", "Effect size", EFFECTS, radio=True)
    components.show_figure(figures.effect_heatmap(result.frame, measure, effect, f"{EFFECTS[effect]}, "
                                                  f"{figures.safe(measure)}: column system − row system",
                                                  loaded.systems), key="sig_effect", name=f"effects-{measure}")
with counts:
    components.show_figure(figures.win_tie_loss_chart(result.frame, measure), key="sig_wtl",
                           name=f"win-tie-loss-{measure}")
components.table(result.frame, key="sig_table",
                 numbers=["statistic", "mean_a", "mean_b", "mean_diff", "ci_low", "ci_high", "effect_size",
                          "rank_biserial"],
                 p_value=st.column_config.NumberColumn("p_value", format="%.3g"),
                 p_adjusted=st.column_config.NumberColumn("p_adjusted", format="%.3g"))
components.downloads({"CSV": (lambda: exports.csv_bytes(result.frame), "rankscope-significance.csv")},
                     key="sig_dl")
