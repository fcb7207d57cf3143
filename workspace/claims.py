"""Claims carried by review notes: how they are kept, and the versions each is checked on.

A note may carry claims (:mod:`metrics.review.claims`: a threshold, one system better than another, a
rank), kept in ``notes.claims`` (schema 9) as a JSON list, one item per claim::

    {"claim": {"better": "dense", "than": "bm25", "measure": "nDCG@10"},   # the claim's plain entry
     "since": "Xy3...",                     # the version it was saved on
     "author": "ana", "at": "2026-11-27T10:00:00+00:00"}

A revision of a note keeps the claims of the revisions it edits unless its save names others (an edit of
the words keeps the claims; two concurrent additions, merged, keep both). The claims a team concludes on
a collection as a whole are carried by the note on :data:`ALL_TOPICS`, a topic no qrels can name (it holds
a space). A claim is checked on every version from the one it was saved on to the one looked at
(:func:`path`); :mod:`workspace.recheck` evaluates them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from metrics.errors import RankscopeError
from workspace.errors import WorkspaceError
from workspace.model import CollectionInfo, StoredClaim

__all__ = ["ALL_TOPICS", "MAX_CLAIMS", "decode", "encode", "items", "key_of", "path", "union"]

ALL_TOPICS = "all topics"
"""The topic of the note that carries a collection's claims: no topic id of a qrels file holds a space."""
MAX_CLAIMS = 200
"""The most claims one note carries."""
_MAX_ENTRY = 4096  # characters of one claim's JSON


def key_of(claim: Any) -> str:
    """A claim's identity: its plain entry as canonical JSON (two claims that say the same are one)."""
    return json.dumps(claim.entry(), sort_keys=True, separators=(",", ":"))


def _item(stored: StoredClaim) -> dict[str, Any]:
    if not callable(getattr(stored.claim, "entry", None)):
        raise WorkspaceError(f"claim: expected a Threshold, Better or Rank claim, found "
                             f"{type(stored.claim).__name__}")
    for what in ("since", "author", "at"):
        value = getattr(stored, what)
        if not isinstance(value, str) or not value.strip() or len(value) > 256 or "\n" in value:
            raise WorkspaceError(f"claim {what}: expected one line of at most 256 characters, found {value!r:.80}")
    item = {"claim": stored.claim.entry(), "since": stored.since, "author": stored.author, "at": stored.at}
    if len(json.dumps(item)) > _MAX_ENTRY:
        raise WorkspaceError(f"claim: expected at most {_MAX_ENTRY} characters of JSON, found more")
    return item


def encode(claims: Sequence[StoredClaim | dict]) -> str | None:
    """The ``notes.claims`` text of claims (stored ones, or items already in their stored form); None for none.

    Raises
    ------
    WorkspaceError
        More than :data:`MAX_CLAIMS`, or a claim that is not one.
    """
    if len(claims) > MAX_CLAIMS:
        raise WorkspaceError(f"note claims: expected at most {MAX_CLAIMS}, found {len(claims)}")
    rows = [c if isinstance(c, dict) else _item(c) for c in claims]
    return json.dumps(rows, separators=(",", ":")) if rows else None


def items(text: str | None) -> list[dict[str, Any]]:
    """The stored items of a ``notes.claims`` text, as stored (never rebuilt into claims)."""
    if not text:
        return []
    try:
        found = json.loads(text)
    except ValueError:
        return []
    return [i for i in found if isinstance(i, dict)] if isinstance(found, list) else []


def union(texts: Sequence[str | None]) -> list[dict[str, Any]]:
    """The stored items of several notes' claims, each claim once (the first seen), in order."""
    seen: dict[str, dict[str, Any]] = {}
    for text in texts:
        for item in items(text):
            seen.setdefault(json.dumps(item.get("claim"), sort_keys=True, separators=(",", ":")), item)
    return list(seen.values())


def decode(text: str | None) -> tuple[StoredClaim, ...]:
    """The claims of a ``notes.claims`` text. An item a release cannot read (a measure it does not know) is
    left out here; an edit of the note that names no claims keeps it as stored."""
    from metrics.review.claims import claim_from_entry

    out = []
    for item in items(text):
        try:
            out.append(StoredClaim(claim_from_entry(item["claim"]), str(item["since"]), str(item["author"]),
                                   str(item["at"])))
        except (KeyError, TypeError, ValueError, RankscopeError):
            continue
    return tuple(out)


def path(versions: Sequence[CollectionInfo], since: str, current: str) -> list[str]:
    """The versions a claim saved on ``since`` is checked on when version ``current`` is looked at, oldest first.

    From ``since``, the chain of its replacements (an amended version's ``replaced_by``) until one is an
    ancestor of ``current`` (or ``current`` itself), then the chain of parents down to ``current``. When
    ``since`` never leads there (another branch of the lineage, a later version), the path is ``since`` then
    ``current``; when ``since`` is not among ``versions`` (deleted), it is ``current`` alone.

    Parameters
    ----------
    versions : sequence of CollectionInfo
        The versions of the lineage (amended ones included).

    Examples
    --------
    >>> def v(cid, parent=None, replaced_by=None):
    ...     return CollectionInfo(cid, "c", 1, parent, "ana", "", False, 0, (), 0, "a", replaced_by)
    >>> lineage = [v("a"), v("b", "a", replaced_by="c"), v("c", "a"), v("d", "c")]
    >>> path(lineage, "b", "d"), path(lineage, "a", "d"), path(lineage, "d", "d")
    (['b', 'c', 'd'], ['a', 'c', 'd'], ['d'])
    """
    by_id = {v.id: v for v in versions}
    chain: list[str] = []
    at: str | None = current
    while at in by_id and at not in chain:
        chain.append(at)
        at = by_id[at].parent
    chain.reverse()
    if current not in chain:
        chain.append(current)
    steps: list[str] = []
    at = since
    while at in by_id and at not in chain and at not in steps:
        steps.append(at)
        at = by_id[at].replaced_by
    if at in chain:
        return steps + chain[chain.index(at):]
    return steps + [current]
