"""A claim checked again on every version of a collection: whether it still says what it said when saved.

A claim is saved on one version of a collection; later versions replace runs, change the judgments or the
conventions. :func:`recheck` checks each claim on every version from the one it was saved on to the one
looked at (each version's per-query table, as :func:`metrics.evaluate` gives it) and gives a :class:`Trail`
per claim: its result on each version, in order.

A claim has *flipped* when its status now differs from its status on the version it was saved on (holds
to fails, fails to holds, or either to cannot be checked, as when a system is removed). The version that
flipped it is the one since which the status has been what it is now (the last change), and the numbers
*before* and *after* are the results on the version just before it and on it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from metrics.errors import ValidationError
from metrics.review.claims.check import check_claims
from metrics.review.claims.kinds import Claim, ClaimResult

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["FLIPPED", "Trail", "recheck"]

FLIPPED = "flipped"
"""The status shown for a claim whose status now differs from its status when it was saved."""


@dataclass(frozen=True)
class Trail:
    """One claim's results on the versions from the one it was saved on to the one looked at.

    Parameters
    ----------
    claim : Threshold, Better or Rank
    versions : tuple of str
        The versions' labels (ids), oldest first: the first is the version the claim was saved on, the
        last the version looked at (one version when they are the same).
    results : tuple of ClaimResult
        The claim checked on each version, in the same order.
    """

    claim: Claim
    versions: tuple[str, ...]
    results: tuple[ClaimResult, ...]

    def __post_init__(self) -> None:
        if not self.versions or len(self.versions) != len(self.results):
            raise ValidationError(f"expected one result per version and at least one version, found "
                                  f"{len(self.versions)} versions and {len(self.results)} results")

    @property
    def saved(self) -> ClaimResult:
        """The result on the version the claim was saved on."""
        return self.results[0]

    @property
    def now(self) -> ClaimResult:
        """The result on the version looked at."""
        return self.results[-1]

    @property
    def flipped(self) -> bool:
        """Whether the status now differs from the status when the claim was saved."""
        return self.now.status != self.saved.status

    @property
    def status(self) -> str:
        """:data:`FLIPPED` when :attr:`flipped`, else the status now (holds, fails, cannot be checked)."""
        return FLIPPED if self.flipped else self.now.status

    @property
    def changed_at(self) -> int:
        """The index of the version since which the status has been the current one (0: never changed)."""
        at = len(self.results) - 1
        while at > 0 and self.results[at - 1].status == self.now.status:
            at -= 1
        return at

    @property
    def flipped_by(self) -> str | None:
        """The version that flipped the claim (the last change of status), or None when it has not flipped."""
        return self.versions[self.changed_at] if self.flipped else None

    @property
    def before(self) -> ClaimResult | None:
        """The result on the version before the one that flipped the claim; None when it has not flipped."""
        return self.results[self.changed_at - 1] if self.flipped else None

    @property
    def after(self) -> ClaimResult | None:
        """The result on the version that flipped the claim; None when it has not flipped."""
        return self.results[self.changed_at] if self.flipped else None


def recheck(claims: Sequence[tuple[Claim, Sequence[str]]], tables: Mapping[str, "pd.DataFrame"]) -> list[Trail]:
    """Check each claim on each of its versions.

    Parameters
    ----------
    claims : sequence of (claim, versions)
        Each claim with the labels of the versions to check it on, oldest first (the version it was saved
        on first, the version looked at last).
    tables : mapping
        ``{version: per-query table}`` (:func:`metrics.evaluate`'s columns) for every version named; each
        holds at least the measures of the claims checked on it.

    Returns
    -------
    list of Trail
        One per claim, in order. The claims of one version are checked together, so that those needing
        the same test share one :func:`~metrics.stats.significance.compare_systems` call.

    Raises
    ------
    ValidationError
        A claim without versions, or a version with no table.

    Examples
    --------
    >>> import pandas as pd
    >>> from metrics.review.claims import Better
    >>> def table(a, b):
    ...     return pd.DataFrame({"system": ["a", "b"], "query": ["1", "1"], "measure": "AP", "value": [a, b]})
    >>> (trail,) = recheck([(Better("a", "b", "AP"), ["v1", "v2"])], {"v1": table(0.5, 0.25), "v2": table(0.2, 0.25)})
    >>> trail.status, trail.flipped_by, trail.before.details(), trail.after.details()
    ('flipped', 'v2', 'difference +0.25', 'difference -0.05')
    """
    wanted: dict[str, list[int]] = {}
    for i, (_, versions) in enumerate(claims):
        if not versions:
            raise ValidationError(f"claim {i}: expected at least one version to check it on, found none")
        for version in dict.fromkeys(versions):
            wanted.setdefault(version, []).append(i)
    found: dict[tuple[str, int], ClaimResult] = {}
    for version, indices in wanted.items():
        if version not in tables:
            raise ValidationError(f"expected a per-query table of version {version}, found none")
        for i, result in zip(indices, check_claims(tables[version], [claims[i][0] for i in indices])):
            found[version, i] = result
    return [Trail(claim, tuple(versions), tuple(found[v, i] for v in versions))
            for i, (claim, versions) in enumerate(claims)]
