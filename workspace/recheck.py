"""A collection's claims, added to its notes and checked again on each of its versions.

:func:`collection_claims` gathers the claims of a collection's current notes (each claim once);
:func:`add_claims` adds claims to the note on :data:`~workspace.claims.ALL_TOPICS`, saved on one version;
:func:`rechecked` checks every claim on each version from the one it was saved on to the one looked at
(:func:`workspace.claims.path`) and gives its :class:`~metrics.review.claims.Trail`.

A version is evaluated as stored: its reference qrels, its runs under their system names, its
conventions, through :func:`metrics.evaluate` (one run at a time). Each run's per-query table is kept as a
derived table (:mod:`workspace.derived`) keyed on the digests of the qrels and the run, the conventions, the
measures and the release, so a version that replaces one run evaluates that run alone, and a version once
evaluated is read back. The results themselves are never stored: they follow from immutable versions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from workspace.claims import ALL_TOPICS, key_of, path
from workspace.model import Note, StoredClaim
from workspace.notes import merged

if TYPE_CHECKING:
    import pandas as pd

    from metrics.review.claims import Trail
    from workspace.store import Workspace

__all__ = ["KIND", "add_claims", "collection_claims", "rechecked", "version_table"]

KIND = "claims_per_query"
"""The kind of the derived tables this module keeps."""


def collection_claims(notes: Sequence[Note]) -> list[StoredClaim]:
    """The claims of current notes, each claim once (as first found: the note on all topics first)."""
    ordered = sorted(notes, key=lambda n: (n.topic != ALL_TOPICS, n.revision))
    seen: dict[str, StoredClaim] = {}
    for note in ordered:
        for stored in note.claims:
            seen.setdefault(key_of(stored.claim), stored)
    return list(seen.values())


def add_claims(ws: "Workspace", cid: str, claims: Sequence[Any], *, author: str | None = None) -> Note:
    """Add claims to the collection's note on all topics, saved on version ``cid``; those it carries already
    are kept as they are (a claim said twice is one).

    The save edits the note's current revisions (merging concurrent ones, as the note editor would), keeping
    their tags and comments.

    Returns
    -------
    Note
        The new revision.
    """
    who = author if author is not None or ws.actor is None else ws.actor.name
    mine = sorted((n for n in ws.notes(cid) if n.topic == ALL_TOPICS and n.system is None), key=lambda n: n.revision)
    draft = merged(mine)
    kept = collection_claims(mine)
    known = {key_of(c.claim) for c in kept}
    at = datetime.now(timezone.utc).isoformat()
    added = [StoredClaim(claim, cid, str(who), at) for claim in dict.fromkeys(claims)
             if key_of(claim) not in known]
    return ws.save_note(cid, ALL_TOPICS, None, ", ".join(draft.tags), draft.comment, author=who, base=draft.base,
                        claims=kept + added)


def version_table(ws: "Workspace", cid: str, measures: Sequence[str]) -> "pd.DataFrame":
    """The per-query table of version ``cid`` (its reference qrels, runs and conventions) for ``measures``."""
    import pandas as pd

    import metrics
    from metrics.conventions import Conventions
    from metrics.evaluate import COLUMNS, evaluate

    stored = ws.load(cid)
    conventions = Conventions.coerce(**stored.conventions)
    qrels = ws.parsed_qrels(stored.qrels.sha256) or metrics.read_qrels(stored.qrels.read(), name=stored.qrels.name)
    tables = []
    for run in stored.runs:
        inputs = {"qrels": stored.qrels.sha256, "run": run.sha256, "conventions": conventions.as_dict(),
                  "measures": sorted(measures), "rankscope": metrics.__version__}
        table = ws.derived_frame(KIND, inputs)
        if table is None:
            parsed = ws.parsed_run(run.sha256) or metrics.read_run(run.read(), name=run.system)
            table = evaluate(qrels, {run.system: parsed.renamed(run.system)}, list(measures),
                             conventions=conventions)
            ws.keep_derived_frame(KIND, inputs, table)
        tables.append(table.assign(system=run.system))
    if not tables:
        return pd.DataFrame({c: pd.Series(dtype=object) for c in COLUMNS})
    return pd.concat([t.astype({"system": str, "query": str, "measure": str}) for t in tables], ignore_index=True)


def rechecked(ws: "Workspace", cid: str, *,
              table: Callable[[str, tuple[str, ...]], "pd.DataFrame"] | None = None
              ) -> list[tuple[StoredClaim, "Trail"]]:
    """Every claim of the collection, checked on each version from the one it was saved on to ``cid``.

    Parameters
    ----------
    ws : Workspace
    cid : str
        The version looked at.
    table : callable, optional
        ``table(version, measures)``: a version's per-query table (default :func:`version_table`; the
        dashboard passes its cached one).

    Returns
    -------
    list of (StoredClaim, Trail)
        In the order of :func:`collection_claims`.
    """
    from metrics.review.claims import recheck

    claims = collection_claims(ws.notes(cid))
    if not claims:
        return []
    versions = ws.lineage(cid)
    paths = [path(versions, c.since, cid) for c in claims]
    measures: dict[str, dict[str, None]] = {}
    for stored, steps in zip(claims, paths):
        for version in steps:
            measures.setdefault(version, {})[stored.claim.measure] = None
    get = table or (lambda version, names: version_table(ws, version, names))
    tables = {version: get(version, tuple(sorted(names))) for version, names in measures.items()}
    trails = recheck([(c.claim, steps) for c, steps in zip(claims, paths)], tables)
    return list(zip(claims, trails))
