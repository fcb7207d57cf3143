"""Significance: paired tests between systems, corrected for multiple comparisons, read in plain words; with many
systems, one matrix of every pair, the systems ordered by mean."""

from __future__ import annotations

import streamlit as st

from dashboard import data, exports, figures, widgets
from dashboard.exports.tables import groups_latex
from dashboard.panels import claim_panel
from dashboard.session import state
from dashboard.widgets import md
from metrics import RankscopeError
from metrics.review.cautions import MANY_TOPICS

MODES = {"pairs": "all pairs", "baseline": "against a baseline"}
EFFECTS = {"mean_diff": "mean difference", "effect_size": "Cohen's d_z"}

st.title("Significance")
loaded = state.get()
if not widgets.need_two_runs(loaded, "Load at least two runs to compare systems."):
    st.stop()
widgets.start_here("Is a difference between two systems more than luck? Each test pairs the systems topic by "
                   "topic; read the sentence below, then try another test or correction and see what changes.")

cols = st.columns([3, 2, 2, 2, 1, 2])
with cols[0]:
    measure = widgets.pick_measure("measure", data.DEFAULT_MEASURES)
with cols[1]:
    test = widgets.choose("test", "Test", data.TESTS, help=data.TEST_HELP)
with cols[2]:
    correction = widgets.choose("correction", "Correction", data.TEST_CORRECTIONS, help=data.CORRECTION_HELP)
with cols[3]:
    family = widgets.choose("family", "Family", data.FAMILIES,
                            help="The tests a correction counts together: each measure's pairs on their own, or "
                                 "every pair of every measure chosen (stricter).")
alpha = cols[4].select_slider("α", [0.01, 0.05, 0.1], value=0.05, **widgets.in_link("alpha"))
with cols[5]:
    mode = widgets.choose("compare", "Compare", MODES, radio=True, horizontal=False)
baseline = widgets.pick_system("baseline", loaded.systems, "Baseline") if mode == "baseline" else None
tested = (measure,) if family != "all" else tuple(dict.fromkeys(
    (measure, *widgets.pick_measures("measures", data.DEFAULT_MEASURES, "Measures of the family"))))

many = len(loaded.systems) > widgets.FEW
try:
    if many:
        with st.status(md("Testing {} systems…", len(loaded.systems)), expanded=False) as status:
            result = data.comparison(loaded, tested, test, baseline, correction, alpha, family)
            status.update(label=md("{:,} pairs tested", len(result.frame)), state="complete")
    else:
        result = data.comparison(loaded, tested, test, baseline, correction, alpha, family)
except RankscopeError as err:
    widgets.error(err)
    st.stop()
st.info(widgets.md_paragraphs(data.reading(result)), icon=":material/record_voice_over:")
widgets.cautions(data.cautions(loaded, tested, test, baseline, correction, alpha, family))
st.caption(md("Family: {} ({}); {} tests corrected together for {}", data.FAMILIES[result.family],
              ", ".join(result.measures), result.family_sizes.get(measure, 0), measure)
           + (md(", the {} adjusting for its pairs itself.", result.declared_test.phrase)
              if result.declared_test.adjusts_itself else md(", by {}.", result.declared_correction.label)))
widgets.provenance(loaded, (measure,), test=test, correction=correction, family=family)
order = data.by_mean(loaded, measure) if many else loaded.systems
claim_panel.better_button(loaded, data.by_mean(loaded, measure), measure, test, correction, alpha)
top = list(dict.fromkeys(([baseline] if baseline else []) + list(order)))[:widgets.FEW] if many else None
pvalues, effects, counts = st.tabs(["p-values", "Effect sizes", "Topics won and lost"], key="sig_tab")
with pvalues:
    title = f"Adjusted p-values, {figures.safe(measure)} (dark: below α = {alpha})"
    widgets.show_figure(figures.pairwise_matrix(result.frame, measure, order, "p_adjusted", alpha, title) if many
                        else figures.pvalue_heatmap(result.pvalue_matrix(measure), title, alpha),
                        key="sig_p", name=f"p-values-{measure}")
with effects:
    effect = widgets.choose("effect", "Effect size", EFFECTS, radio=True)
    title = f"{EFFECTS[effect]}, {figures.safe(measure)}: column system − row system"
    widgets.show_figure(figures.pairwise_matrix(result.frame, measure, order, effect, alpha, title) if many
                        else figures.effect_heatmap(result.frame, measure, effect, title, loaded.systems),
                        key="sig_effect", name=f"effects-{measure}")
with counts:
    if many:
        st.caption(md("The pairs among the {} best systems by mean{}; the table below has every pair.", len(top),
                      " and the baseline" if baseline else ""))
    widgets.show_figure(figures.win_tie_loss_chart(result.frame, measure, top), key="sig_wtl",
                        name=f"win-tie-loss-{measure}")
widgets.table(result.frame, key="sig_table",
              numbers=["statistic", "mean_a", "mean_b", "mean_diff", "ci_low", "ci_high", "effect_size",
                       "rank_biserial"],
              p_value=st.column_config.NumberColumn("p_value", format="%.3g"),
              p_adjusted=st.column_config.NumberColumn("p_adjusted", format="%.3g"))
card = data.provenance(loaded, (measure,), test=test, correction=correction, family=family)
widgets.downloads({"CSV": (lambda: exports.csv_bytes(result.frame, card), "rankscope-significance.csv"),
                   **({} if baseline else {"LaTeX groups": (lambda: groups_latex(data.letter_groups(
                       loaded, tested, test, correction, alpha, family)), "rankscope-groups.tex")})},
                     key="sig_dl")

st.subheader("Power: how small a difference can these topics show?")
cols = st.columns(2)
aim = cols[0].select_slider("Power aimed at (1 − β)", [0.5, 0.7, 0.8, 0.9, 0.95], value=0.8, key="sig_power")
effect = cols[1].number_input(md("Difference to detect, in {}", measure), 0.001, 1.0, 0.02, 0.005, format="%.3f",
                              key="sig_effect_size")
try:
    found = data.power(loaded, measure, alpha, aim, effect)
except RankscopeError as err:
    widgets.error(err)
    st.stop()
pair_t, anova = found.summary.iloc[0], found.summary.iloc[1]
if found.n_topics > MANY_TOPICS:
    st.warning(md("With {:,} topics even a tiny difference is significant: judge each difference by its size (the "
                  "effect sizes above) first, and by its p-value second.", found.n_topics), icon=":material/warning:")
shown = st.columns(4)
shown[0].metric("Smallest difference, paired t-test", f"{pair_t['min_effect']:.4f}")
shown[1].metric(md("Smallest range, ANOVA of {}", found.n_systems), f"{anova['min_effect']:.4f}",
                help=md("{}: the one-way ANOVA's degrees of freedom with the {} variance", anova["design"],
                        found.variance))
shown[2].metric(md("Topics for {:g}, paired t-test", effect), f"{pair_t['topics_needed']:,.0f}")
shown[3].metric(md("Topics for {:g}, ANOVA", effect), f"{anova['topics_needed']:,.0f}")
st.caption(md("With these {} topics, a paired t-test at α = {} finds a true difference of {:.4f} in {} {:.0%} of the "
              "time (Sakai's topic set size design; per-topic variance {:.4g}, the {} estimate).", found.n_topics,
              alpha, pair_t["min_effect"], measure, aim, found.sigma2, found.variance))
st.caption("Below, each pair's post hoc power: the power of the t-test at the pair's own observed difference. It "
           "is a function of the pair's p-value (a pair that is not significant always has a low one), so it "
           "adds nothing to the p-value and says nothing of a difference not observed: plan with the smallest "
           "difference above.")
widgets.table(found.pairs, key="sig_power_pairs",
                 numbers=["mean_diff", "sd_diff", "effect_size", "post_hoc_power"])

