"""A stored collection's claims on its pages: at the top of the overview, the claims that flipped (each with the
version that flipped it and its numbers before and after, one cell each); below, the list (each claim's status
on this version, flipped ones first; each version named by its number, author and time, since two sibling
versions share a number), a form that adds one, and
the buttons that save, in one click, the conclusion a page shows ("S's M is v" on the overview, "A is better
than B on M" on the significance page, and on the queries page the same pair by the sign test of its topics
won and lost).

Claims are kept with the collection's note on all topics (:mod:`workspace.recheck`), saved on the version
shown, by the person who writes (:func:`dashboard.server.identity.author`); every text is shown as text.
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from dashboard import widgets
from dashboard.data import claim_checks as checked
from dashboard.data.constants import RESAMPLED, SEED, TEST_CORRECTIONS, TESTS
from dashboard.server import identity
from dashboard.session.state import Loaded
from dashboard.store import opened, sync
from dashboard.widgets import md
from metrics import RankscopeError
from metrics.errors import ValidationError
from metrics.review.claims import Better, claim_from_entry

__all__ = ["better_button", "checked_claims", "flipped_notice", "pair_button", "panel", "save", "value_button"]

KINDS = {"threshold": "a system's value", "better": "one system better than another", "rank": "a system's rank"}
BOUNDS = {"at_least": "at least", "at_most": "at most", "value": "equal to"}
NO_TEST = "no test: the means alone"
READ_ONLY = "Your role on this collection lets you read its claims, not add them (editors and owners do)."


def _kept(loaded: Loaded) -> bool:
    return opened.enabled() and loaded.collection is not None


def save(loaded: Loaded, claims: Sequence) -> None:
    """Add claims to the stored collection, saved on the version shown.

    Raises
    ------
    metrics.RankscopeError
        No author yet, a role that may not write notes, or the workspace cannot be written.
    """
    from workspace.recheck import add_claims

    who = identity.author()
    if who is None:
        raise ValidationError("type your name before saving a claim")
    add_claims(opened.store(), loaded.collection, list(claims), author=who)


def _button(loaded: Loaded, claim, key: str) -> None:
    """One click saves ``claim``; the button says it in words."""
    allowed = sync.may("note")
    widgets.ask_name(f"{key}_author", "Your name (saved with the claim)")
    if st.button(md("Save as a claim: {}", claim.describe()), key=key, icon=":material/fact_check:",
                 disabled=not allowed, help=None if allowed else READ_ONLY):
        try:
            save(loaded, [claim])
            st.success(md("Saved: {}. The overview checks it again on every new version.", claim.describe()),
                       icon=":material/fact_check:")
        except RankscopeError as err:
            widgets.error(err)


def value_button(loaded: Loaded, systems: Sequence[str], measure: str) -> None:
    """The overview's one click: "S's M is v", v the mean shown (to 4 decimals)."""
    if not _kept(loaded) or not systems:
        return
    system = st.selectbox("Claim about", list(systems), key="overview_claim_system",
                          help="Keep this system's value of the chart's measure as a claim, checked again on "
                               "every new version of the collection.")
    try:
        claim = checked.shown_threshold(loaded, system, measure)
    except (RankscopeError, IndexError):  # no value of the measure for this system
        return
    _button(loaded, claim, "overview_claim_save")


def better_button(loaded: Loaded, order: Sequence[str], measure: str, test: str, correction: str,
                  alpha: float) -> None:
    """The significance page's one click: the first system better than the second on ``measure``, significantly
    under the page's test, correction and alpha (corrected over all pairs of systems)."""
    if not _kept(loaded) or len(order) < 2:
        return
    cols = st.columns(2)
    better = cols[0].selectbox("Claim that", list(order), key="sig_claim_better")
    than = cols[1].selectbox("is better than", [s for s in order if s != better], key="sig_claim_than")
    settings = (("seed", SEED),) if test in RESAMPLED else ()
    try:
        claim = Better(better, than, measure, test, correction, float(alpha), settings=settings)
    except RankscopeError as err:
        st.caption(md("This test and correction cannot be kept as a claim: {}", err))
        return
    _button(loaded, claim, "sig_claim_save")


def pair_button(loaded: Loaded, better: str, than: str, measure: str) -> None:
    """The queries page's one click: ``better`` better than ``than`` on ``measure``, significantly by the sign
    test of the topics it wins and loses (the page's evidence), the pair alone, alpha 0.05."""
    if not _kept(loaded) or better == than:
        return
    _button(loaded, Better(better, than, measure, "sign", "holm", 0.05, pairs="claimed"), "queries_claim_save")


def checked_claims(loaded: Loaded) -> tuple[list, dict[str, str]] | None:
    """The stored collection's claims checked on this version and the labels of its versions, or None when
    the collection is not stored (an error is shown, and None returned, when the store cannot be read)."""
    if not _kept(loaded):
        return None
    try:
        versions = checked.version_labels(opened.store().lineage(loaded.collection))
        return checked.rechecked(loaded.collection), versions
    except RankscopeError as err:
        widgets.error(err)
        return None


def flipped_notice(claims: tuple[list, dict[str, str]] | None) -> None:
    """At the top of the overview: the claims that flipped since they were saved, one row each (the claim, the
    version that flipped it, the numbers before and after), so that nobody in a meeting misses one."""
    if not claims or not any(trail.flipped for _, trail in claims[0]):
        return
    found, versions = claims
    flipped = checked.flipped_table(found, versions)
    st.warning(md("{} of {} claims flipped since they were saved: their status on this version differs from the one "
                  "on the version they were saved on. Each is listed below, and with every claim under Claims.",
                  len(flipped), len(found)), icon=":material/swap_vert:")
    st.dataframe(flipped, hide_index=True, width="stretch", key="overview_flipped")


def panel(loaded: Loaded, measures: Sequence[str], claims: tuple[list, dict[str, str]] | None) -> None:
    """The collection's claims (:func:`checked_claims`), checked on this version, and a form to add one."""
    st.subheader("Claims")
    if not _kept(loaded):
        st.caption("Claims are kept with a collection saved in the workspace, and checked again on each of its "
                   "versions.")
        return
    if claims is None:
        return
    found, versions = claims
    if found:
        table = checked.claims_table(found, versions)
        st.dataframe(table, hide_index=True, width="stretch", key="overview_claims")
        st.caption("Each claim is checked on every version from the one it was saved on to this one, with the "
                   "stored runs, reference judgments and conventions of each; flipped claims come first.")
        with st.expander("History of each claim", icon=":material/history:"):
            st.dataframe(checked.history_table(found, versions), hide_index=True, width="stretch",
                         key="overview_claims_history")
    else:
        st.caption("No claims yet: save one below, or from the significance page, to have it checked again on "
                   "every new version.")
    with st.expander("Add a claim", icon=":material/add_task:"):
        _form(loaded, measures)


def _form(loaded: Loaded, measures: Sequence[str]) -> None:
    kind = st.radio("Claim", list(KINDS), format_func=KINDS.get, horizontal=True, key="claims_kind")
    systems = list(loaded.systems)
    allowed = sync.may("note")
    if not allowed:
        st.caption(READ_ONLY)
    widgets.ask_name("claims_author", "Your name (saved with the claim)")
    with st.form("claims_form", border=False):
        cols = st.columns(3)
        measure = cols[0].selectbox("Measure", list(measures), key="claims_measure")
        if kind == "threshold":
            entry = {"system": cols[1].selectbox("System", systems, key="claims_system"), "measure": measure}
            bound = cols[2].selectbox("Its value is", list(BOUNDS), format_func=BOUNDS.get, key="claims_bound")
            entry[bound] = cols[0].number_input("Value", value=0.0, step=0.01, format="%.4f", key="claims_value")
            entry["tolerance"] = cols[1].number_input("Tolerance", min_value=0.0, value=0.0, step=0.0005,
                                                      format="%.4f", key="claims_tolerance")
        elif kind == "better":
            entry = {"better": cols[1].selectbox("System", systems, key="claims_better"),
                     "than": cols[2].selectbox("is better than", systems, index=min(1, len(systems) - 1),
                                               key="claims_than"), "measure": measure}
            test = cols[0].selectbox("Significantly, by", [NO_TEST, *TESTS], format_func=lambda t: TESTS.get(t, t),
                                     key="claims_test")
            correction = cols[1].selectbox("Correction", list(TEST_CORRECTIONS), format_func=TEST_CORRECTIONS.get,
                                           key="claims_correction")
            alpha = cols[2].select_slider("α", [0.01, 0.05, 0.1], value=0.05, key="claims_alpha")
            if test != NO_TEST:
                entry.update(test=test, correction=correction, alpha=alpha, **({"seed": SEED} if test in RESAMPLED
                                                                               else {}))
        else:
            entry = {"system": cols[1].selectbox("System", systems, key="claims_rank_system"), "measure": measure,
                     "rank_at_most": int(cols[2].number_input("Among the first", 1, max(1, len(systems)), 1,
                                                              key="claims_rank"))}
        if st.form_submit_button("Add the claim", icon=":material/add_task:", disabled=not allowed):
            try:
                save(loaded, [claim_from_entry(entry)])
            except (ValueError, RankscopeError) as err:
                widgets.error(err)
            else:
                st.rerun()
