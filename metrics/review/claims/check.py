"""Check claims against a per-query table: holds, fails or cannot be checked, with the numbers behind it.

The table is :func:`metrics.evaluate`'s (``system | query | measure | value``); the values a claim reads are
:func:`metrics.aggregate`'s (each measure's own rule: the mean for nearly all) and the tests are
:func:`metrics.stats.significance.compare_systems`'s, so a claim says what the leaderboard, ``rankscope
compare`` and the significance page say on the same table. A claim whose system or measure the table lacks
cannot be checked, and says why; checking never raises for that.

Two values equal to 12 significant digits are equal here (a tolerance of 0 is not defeated by the order
in which a sum was added up, nor does a rank tie depend on it).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from metrics.errors import ValidationError
from metrics.evaluate import aggregate
from metrics.measures import parse_measure
from metrics.measures.per_query import PerQuery
from metrics.review.claims.kinds import FAILS, HOLDS, UNCHECKABLE, Better, Claim, ClaimResult, Rank, Threshold

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["check_claims", "same"]

RELATIVE = 1e-12
"""Two values within this fraction of the larger (or of 1, near 0) are equal: floating-point rounding."""
SHOWN = 10
"""The most system names a reason lists."""


def same(a: float, b: float) -> bool:
    """Whether two values are equal up to floating-point rounding (:data:`RELATIVE`)."""
    return abs(a - b) <= RELATIVE * max(1.0, abs(a), abs(b))


class _Table:
    """The means of a per-query table, by system and measure, with the table's measure labels."""

    def __init__(self, per_query: "pd.DataFrame") -> None:
        self.per_query = per_query = PerQuery.of(per_query).frame
        means = aggregate(per_query)
        self.systems = list(dict.fromkeys(str(s) for s in means["system"]))
        self.labels = {parse_measure(str(label)): str(label) for label in dict.fromkeys(means["measure"])}
        self.means = {(str(s), str(m)): float(v) for s, m, v in zip(means["system"], means["measure"], means["value"])}
        self.tests: dict[tuple, Any] = {}

    def label(self, measure: str) -> str | None:
        """The table's label of ``measure`` (``map`` finds ``AP``), or None."""
        return self.labels.get(parse_measure(measure))

    def missing(self, systems: Iterable[str], measure: str) -> str | None:
        """Why a claim on ``systems`` and ``measure`` cannot be checked, or None when it can."""
        label = self.label(measure)
        if label is None:
            return f"no measure {measure} in the table, whose measures are {_listed(self.labels.values())}"
        absent = [s for s in systems if (s, label) not in self.means]
        if absent:
            return f"no system {absent[0]} in the table, whose systems are {_listed(self.systems)}"
        undefined = [s for s in systems if not math.isfinite(self.means[s, label])]
        if undefined:
            return f"{measure} is undefined for {undefined[0]}"
        return None


def _listed(names: Iterable[str]) -> str:
    names = list(names)
    return ", ".join(names[:SHOWN]) + (f" and {len(names) - SHOWN} more" if len(names) > SHOWN else "")


def check_claims(per_query: "pd.DataFrame", claims: Sequence[Claim]) -> list[ClaimResult]:
    """Check each claim against a per-query table.

    Parameters
    ----------
    per_query : pandas.DataFrame
        Columns ``system``, ``query``, ``measure``, ``value``, as :func:`metrics.evaluate` returns.
        A claim's measure is found in it by meaning (``map`` and ``AP`` are one measure).
    claims : sequence of Threshold, Better or Rank

    Returns
    -------
    list of ClaimResult
        One per claim, in order. Claims that need the same test of the same measure share one
        :func:`~metrics.stats.significance.compare_systems` call.

    Raises
    ------
    ValidationError
        The table lacks one of its columns, or a claim is not one of the three kinds.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"system": ["a", "a", "b", "b"], "query": ["1", "2", "1", "2"],
    ...                       "measure": "AP", "value": [0.5, 0.25, 1.0, 0.5]})
    >>> for result in check_claims(table, [Threshold("a", "AP", value=0.375), Rank("a", "AP", 1)]):
    ...     print(result.line())
    HOLDS              a scores AP = 0.375 +/- 0 (value 0.375; off +0)
    FAILS              a ranks first on AP (rank 2; systems 2; value 0.375)
    """
    table = _Table(per_query)
    results = []
    for claim in claims:
        if isinstance(claim, Threshold):
            results.append(_threshold(table, claim))
        elif isinstance(claim, Better):
            results.append(_better(table, claim))
        elif isinstance(claim, Rank):
            results.append(_rank(table, claim))
        else:
            raise ValidationError(f"expected a Threshold, Better or Rank claim, found {type(claim).__name__}")
    return results


def _threshold(table: _Table, claim: Threshold) -> ClaimResult:
    why = table.missing([claim.system], claim.measure)
    if why:
        return ClaimResult(claim, UNCHECKABLE, reason=why)
    value = table.means[claim.system, table.label(claim.measure)]
    if claim.value is not None:
        off = value - claim.value
        holds = abs(off) <= claim.tolerance or same(abs(off), claim.tolerance) or same(value, claim.value)
        return ClaimResult(claim, HOLDS if holds else FAILS, (("value", value), ("off", off)))
    if claim.at_least is not None:
        bound = claim.at_least - claim.tolerance
        holds = value >= bound or same(value, bound)
    else:
        bound = claim.at_most + claim.tolerance
        holds = value <= bound or same(value, bound)
    return ClaimResult(claim, HOLDS if holds else FAILS, (("value", value),))


def _rank(table: _Table, claim: Rank) -> ClaimResult:
    why = table.missing([claim.system], claim.measure)
    if why:
        return ClaimResult(claim, UNCHECKABLE, reason=why)
    label = table.label(claim.measure)
    higher = parse_measure(label).higher_is_better
    mine = table.means[claim.system, label]
    others = [v for (s, m), v in table.means.items() if m == label and s != claim.system and not math.isnan(v)]
    tied = sum(1 for v in others if same(v, mine))
    ahead = sum(1 for v in others if not same(v, mine) and (v > mine if higher else v < mine))
    rank = ahead + 1 + (tied if claim.ties == "worst" else 0)
    observed = (("rank", rank), ("systems", len(others) + 1), ("value", mine))
    reason = f"tied with {tied} other{'s' if tied != 1 else ''}" if tied else ""
    return ClaimResult(claim, HOLDS if rank <= claim.at_most else FAILS, observed, reason)


def _better(table: _Table, claim: Better) -> ClaimResult:
    why = table.missing([claim.better, claim.than], claim.measure)
    if why:
        return ClaimResult(claim, UNCHECKABLE, reason=why)
    label = table.label(claim.measure)
    difference = table.means[claim.better, label] - table.means[claim.than, label]
    ahead = not same(table.means[claim.better, label], table.means[claim.than, label]) and \
        (difference > 0 if parse_measure(label).higher_is_better else difference < 0)
    observed: tuple[tuple[str, Any], ...] = (("difference", difference),)
    if claim.test is None:
        return ClaimResult(claim, HOLDS if ahead else FAILS, observed)
    try:
        row = _test_row(table, claim, label)
    except ValidationError as err:  # e.g. the systems answer different topics, or fewer than two
        return ClaimResult(claim, UNCHECKABLE, observed, reason=f"the test cannot run: {err}")
    p, adjusted = float(row["p_value"]), float(row["p_adjusted"])
    observed += (("p_value", p), ("p_adjusted", adjusted), ("n", int(row["n"])))
    if math.isnan(adjusted):
        return ClaimResult(claim, UNCHECKABLE, observed,
                           reason=f"the {claim.test} test is undefined here (every topic differs by the same amount)")
    significant = adjusted < claim.alpha
    reason = "" if significant or not ahead else f"not significant at alpha {claim.alpha:g}"
    return ClaimResult(claim, HOLDS if ahead and significant else FAILS, observed, reason)


def _test_row(table: _Table, claim: Better, label: str):
    """The row of ``compare_systems``' frame for the claim's pair (one call per measure and settings)."""
    from metrics.stats.significance import compare_systems

    systems = tuple(table.systems) if claim.pairs == "all" else (claim.than, claim.better)
    key = (label, claim.test, claim.correction, claim.alpha, systems, claim.settings)
    if key not in table.tests:
        rows = table.per_query[table.per_query["measure"].astype(str) == label]
        if claim.pairs == "claimed":
            rows = rows[rows["system"].astype(str).isin(systems)]
        rows = rows.assign(system=rows["system"].astype(str), measure=label)
        table.tests[key] = compare_systems(rows, measures=[label], test=claim.test, correction=claim.correction,
                                           alpha=claim.alpha, systems=list(systems), **dict(claim.settings)).frame
    frame = table.tests[key]
    pair = frame[((frame["system_a"] == claim.than) & (frame["system_b"] == claim.better))
                 | ((frame["system_a"] == claim.better) & (frame["system_b"] == claim.than))]
    return pair.iloc[0]
