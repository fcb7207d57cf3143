"""A stored collection's claims, checked again on its versions (:mod:`workspace.recheck`), as the pages show them.

Each version's per-query table is cached per server process keyed on the version's id and the measures (a
version never changes), and kept in the workspace as derived tables, so that the overview and the
Collections list of every session evaluate a version once. The results themselves follow from the
versions and the claims; they are computed on each run from those cached tables, never stored.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from metrics.evaluate import aggregate
from metrics.review.claims import FLIPPED, Threshold

from dashboard.data.measures import per_query
from dashboard.session.state import Loaded
from dashboard.store import opened

__all__ = ["COLUMNS", "DECIMALS", "FLIPPED_COLUMNS", "claims_table", "flipped_counts", "flipped_table",
           "history_table", "rechecked", "shown_threshold", "version_labels"]

COLUMNS = ("status", "claim", "numbers", "saved on", "flipped by", "before", "after", "added by")
"""The columns of :func:`claims_table`."""
FLIPPED_COLUMNS = ("claim", "flipped by", "before", "after")
"""The columns of :func:`flipped_table`."""
DECIMALS = 4
"""The decimals a value is shown to: a claim of a value seen on a page holds within half of the last one."""


@st.cache_data(max_entries=256, show_spinner=False)
def _table(location: str, version: str, measures: tuple[str, ...], _ws) -> pd.DataFrame:
    from workspace.recheck import version_table

    return version_table(_ws, version, measures)


def rechecked(cid: str) -> list:
    """``[(StoredClaim, Trail)]`` of every claim of the stored collection ``cid``, checked on its versions up to
    ``cid`` (:func:`workspace.recheck.rechecked`)."""
    from workspace.recheck import rechecked as recheck

    ws = opened.store()
    return recheck(ws, cid, table=lambda version, measures: _table(ws.location.label, version, measures, ws))


def version_labels(lineage) -> dict[str, str]:
    """``{id: label}`` of a lineage's versions (:class:`workspace.CollectionInfo`) as the claims name them: the
    number, who made it and when (``v2 by bo, 2026-11-29 10:31``), since two sibling versions (made from one
    parent by two people) share a number; the id is added to labels that would still be the same."""
    labels = {v.id: f"v{v.version} by {v.created_by}, {v.created_at[:16].replace('T', ' ')}" for v in lineage}
    shared = {label for label in labels.values() if list(labels.values()).count(label) > 1}
    return {cid: f"{label} ({cid})" if label in shared else label for cid, label in labels.items()}


def claims_table(found: list, versions: dict[str, str]) -> pd.DataFrame:
    """The claims as the overview lists them (:data:`COLUMNS`, plain text): the status (``flipped`` first),
    the claim, its numbers now, the version it was saved on, and for a flipped claim the version that
    flipped it with its numbers before and after. ``versions``: :func:`version_labels` of the lineage."""
    def named(cid: str | None) -> str:
        return "" if cid is None else versions.get(cid, cid)

    rows = [(trail.status, trail.claim.describe(), trail.now.details(), named(claim.since), named(trail.flipped_by),
             trail.before.details() if trail.before else "", trail.after.details() if trail.after else "",
             claim.author) for claim, trail in found]
    rows.sort(key=lambda row: row[0] != FLIPPED)  # stable: flipped claims first, each group in order
    return pd.DataFrame(rows, columns=list(COLUMNS))


def flipped_table(found: list, versions: dict[str, str]) -> pd.DataFrame:
    """The flipped claims alone (:data:`FLIPPED_COLUMNS`, plain text): each claim, the version that flipped it
    and its numbers on the version before and on that one, one cell each."""
    table = claims_table(found, versions)
    return table[table["status"] == FLIPPED][list(FLIPPED_COLUMNS)].reset_index(drop=True)


def history_table(found: list, versions: dict[str, str]) -> pd.DataFrame:
    """Every claim's status and numbers on each version it was checked on, oldest first (plain text)."""
    rows = [(trail.claim.describe(), versions.get(v, v), result.status, result.details())
            for _, trail in found for v, result in zip(trail.versions, trail.results)]
    return pd.DataFrame(rows, columns=["claim", "version", "status", "numbers"])


def flipped_counts(listed: list) -> dict[str, int]:
    """``{id: number of flipped claims}`` of listed collections (0 for those without claims)."""
    from workspace.recheck import collection_claims

    ws = opened.store()
    counts: dict[str, int] = {}
    has_claims: dict[str, bool] = {}
    for info in listed:
        if info.lineage not in has_claims:
            has_claims[info.lineage] = bool(collection_claims(ws.notes(info.id)))
        counts[info.id] = sum(t.flipped for _, t in rechecked(info.id)) if has_claims[info.lineage] else 0
    return counts


def shown_threshold(loaded: Loaded, system: str, measure: str) -> Threshold:
    """The claim "``system``'s ``measure`` is v", v its mean as shown (:data:`DECIMALS` decimals), within half
    of the last decimal."""
    means = aggregate(per_query(loaded, (measure,)))  # the value a claim is checked on (each measure's own rule)
    value = float(means[(means["system"] == system) & (means["measure"] == measure)]["value"].iloc[0])
    return Threshold(system, measure, value=round(value, DECIMALS), tolerance=0.5 * 10 ** -DECIMALS)
