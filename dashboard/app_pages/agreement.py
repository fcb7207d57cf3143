"""Agreement: do two measures rank the systems the same way? Kendall's τ and τ_AP between the orderings of the
systems by each measure's mean, and the pairs of systems that two measures put the other way round."""

from __future__ import annotations

import streamlit as st

from dashboard import components, data, state
from dashboard import figures_statistics as charts
from metrics import RankscopeError

STATISTICS = {"tau": ("Kendall's τ between the orderings", "τ"),
              "tau_ap": ("τ_AP between the orderings (mean of both directions)", "τ_AP")}

st.title("Agreement")
loaded = state.get()
if not components.need_collection(loaded):
    st.stop()
if len(loaded.systems) < 2:
    st.info("Load at least two runs to compare how measures order them.")
    st.stop()
components.start_here("Each measure orders the systems by their mean over the topics. τ says how many pairs of "
                      "systems two orderings agree on; τ_AP counts a change near the top more. Then pick two "
                      "measures to see which systems change places.")

measures = components.pick_measures("measures", data.DEFAULT_MEASURES)
if len(measures) < 2:
    st.info("Pick at least two measures to compare their orderings.")
    st.stop()
try:
    matrices = {statistic: data.agreement(loaded, measures, statistic) for statistic in STATISTICS}
except RankscopeError as err:
    components.error(err)
    st.stop()
for column, (statistic, (title, short)) in zip(st.columns(len(STATISTICS)), STATISTICS.items()):
    with column:
        components.show_figure(charts.agreement_heatmap(matrices[statistic], title, short),
                               key=f"agreement_{statistic}", name=f"agreement-{statistic}")
st.caption("1: the same ordering; 0: no relation; −1: the reverse ordering. τ is Kendall's tau-b over every pair "
           "of systems. τ_AP (Yilmaz, Aslam and Robertson, 2008) goes down the ordering and asks, for each system, "
           "how many of those above it the other measure also puts above it, so a swap at the top costs most. "
           "Orderings with τ of 0.9 or more are customarily read as equivalent (Voorhees, 2000).")

st.subheader("Which systems change places?")
cols = st.columns(2)
x = cols[0].selectbox("First measure", measures, index=0, key="agreement_x", format_func=components.measure_label)
y = cols[1].selectbox("Second measure", measures, index=1, key="agreement_y", format_func=components.measure_label)
try:
    row, swaps, means = data.ordering(loaded, x, y)
except RankscopeError as err:
    components.error(err)
    st.stop()
shown = st.columns(4)
shown[0].metric("Kendall's τ", f"{row['tau'].iloc[0]:.4f}")
shown[1].metric(f"τ_AP, {x} the reference", f"{row['tau_ap_xy'].iloc[0]:.4f}")
shown[2].metric(f"τ_AP, {y} the reference", f"{row['tau_ap_yx'].iloc[0]:.4f}")
shown[3].metric("Pairs swapped", f"{int(row['swaps'].iloc[0])} of {len(means) * (len(means) - 1) // 2}")
components.show_figure(charts.ordering_scatter(means, x, y, {*swaps["system_a"], *swaps["system_b"]}),
                       key="agreement_scatter", name=f"agreement-{x}-{y}")
if swaps.empty:
    st.caption(f"{components.plain(x)} and {components.plain(y)} put every pair of systems in the same order "
               "(a tie in either is not a swap).")
else:
    st.caption(f"The pairs of systems that {components.plain(x)} and {components.plain(y)} order the other way "
               "round: x is the first measure's mean, y the second's.")
    components.table(swaps, key="agreement_swaps", numbers=["x_a", "x_b", "y_a", "y_b"])
components.provenance(loaded, measures)
