"""Agreement: do two measures, or one measure under two conventions, rank the systems the same way? Kendall's
τ and τ_AP between the orderings of the systems by mean, and the pairs of systems put the other way round."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard import data, figures, widgets
from dashboard.session import state
from dashboard.widgets import md
from metrics import Conventions, RankscopeError
from metrics.conventions import RELEVANCE_LEVELS

STATISTICS = {"tau": ("Kendall's τ between the orderings", "τ"),
              "tau_ap": ("τ_AP between the orderings (mean of both directions)", "τ_AP")}
# the conventions another ordering can change (field of Conventions: how it reads) and how each value reads
CHANGES = {"relevance_level": "relevance level (trec_eval -l)", "judged_only": "judged documents only (-J)",
           "complete": "complete topics (-c)"}
SETTING = {"relevance_level": "grade ≥ {}", "judged_only": {True: "-J", False: "without -J"},
           "complete": {True: "-c", False: "without -c"}}


def setting(field: str, conventions: Conventions) -> str:
    value, shown = getattr(conventions, field), SETTING[field]
    return shown.format(value) if isinstance(shown, str) else shown[value]


def show_ordering(row: pd.DataFrame, swaps: pd.DataFrame, means: pd.DataFrame, x: str, y: str, key: str,
                  suffix: str = "") -> None:
    """The agreement row, the scatter of the means (system, x, y) and the swapped pairs of two orderings."""
    shown = st.columns(4)
    shown[0].metric(md("Kendall's τ{}", suffix), f"{row['tau'].iloc[0]:.4f}")
    shown[1].metric(md("τ_AP, {} the reference", x), f"{row['tau_ap_xy'].iloc[0]:.4f}")
    shown[2].metric(md("τ_AP, {} the reference", y), f"{row['tau_ap_yx'].iloc[0]:.4f}")
    shown[3].metric(md("Pairs swapped{}", suffix), f"{int(row['swaps'].iloc[0])} of {len(means) * (len(means) - 1) // 2}")
    widgets.show_figure(figures.ordering_scatter(means, x, y, {*swaps["system_a"], *swaps["system_b"]}),
                        key=f"{key}_scatter", name=f"{key}-{x}-{y}")
    if swaps.empty:
        st.caption(md("{} and {} put every pair of systems in the same order (a tie in either is not a swap).", x, y))
    else:
        st.caption(md("The pairs of systems that {} and {} order the other way round: x is the first ordering's mean, "
                      "y the second's.", x, y))
        widgets.table(swaps, key=f"{key}_swaps", numbers=["x_a", "x_b", "y_a", "y_b"])


st.title("Agreement")
loaded = state.get()
if not widgets.need_two_runs(loaded, "Load at least two runs to compare how measures order them."):
    st.stop()
widgets.start_here("Each measure orders the systems by their mean over the topics. τ says how many pairs of "
                   "systems two orderings agree on; τ_AP counts a change near the top more. Then pick two "
                   "measures, or one measure under two conventions, to see which systems change places.")

measures = widgets.pick_measures("measures", data.DEFAULT_MEASURES)
if len(measures) < 2:
    st.info("Pick at least two measures to compare their orderings.")
    st.stop()
try:
    matrices = {statistic: data.agreement(loaded, measures, statistic) for statistic in STATISTICS}
except RankscopeError as err:
    widgets.error(err)
    st.stop()
for column, (statistic, (title, short)) in zip(st.columns(len(STATISTICS)), STATISTICS.items()):
    with column:
        widgets.show_figure(figures.agreement_heatmap(matrices[statistic], title, short),
                            key=f"agreement_{statistic}", name=f"agreement-{statistic}", share=1 / len(STATISTICS))
st.caption("1: the same ordering; 0: no relation; −1: the reverse ordering. τ is Kendall's tau-b over every pair "
           "of systems. τ_AP (Yilmaz, Aslam and Robertson, 2008) goes down the ordering and asks, for each system, "
           "how many of those above it the other measure also puts above it, so a swap at the top costs most. "
           "Orderings with τ of 0.9 or more are customarily read as equivalent (Voorhees, 2000).")

st.subheader("Which systems change places?")
between_measures, between_conventions = st.tabs(["Between two measures", "Between two conventions"])
with between_measures:
    cols = st.columns(2)
    x = cols[0].selectbox("First measure", measures, index=0, key="agreement_x", format_func=widgets.measure_label)
    y = cols[1].selectbox("Second measure", measures, index=1, key="agreement_y", format_func=widgets.measure_label)
    try:
        show_ordering(*data.ordering(loaded, x, y), x, y, key="agreement")
    except RankscopeError as err:
        widgets.error(err)
with between_conventions:
    cols = st.columns(3)
    measure = cols[0].selectbox("Measure", measures, key="agreement_measure", format_func=widgets.measure_label)
    field = cols[1].selectbox("Convention changed", list(CHANGES), key="agreement_change", format_func=CHANGES.get)
    now = loaded.conventions
    try:
        if field == "relevance_level":
            level = cols[2].number_input("Other relevance level", min_value=RELEVANCE_LEVELS[0],
                                         max_value=RELEVANCE_LEVELS[1], key="agreement_level",
                                         value=min(now.relevance_level + 1, RELEVANCE_LEVELS[1]))
            other = Conventions.coerce(now, relevance_level=int(level))
        else:
            other = Conventions.coerce(now, **{field: not getattr(now, field)})
        x, y = f"{measure}, {setting(field, now)}", f"{measure}, {setting(field, other)}"
        show_ordering(*data.convention_ordering(loaded, measure, other), x, y, key="agreement_conventions",
                      suffix=" between the conventions")
    except RankscopeError as err:
        widgets.error(err)
    st.caption(md("The first ordering is under the data page's conventions ({}), the second under the same ones with "
                  "this convention changed. The relevance level changes only the binary measures (nDCG uses the "
                  "grades as gains, as in trec_eval).", now.describe()))
widgets.provenance(loaded, measures)
