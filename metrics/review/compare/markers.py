"""Significance markers of the results table: daggers against a baseline, letters for all pairs.

Both read a comparison's tidy table (:attr:`metrics.stats.significance.Comparison.frame`): a difference is marked
when its row is ``significant`` and its mean difference is not zero, and "better" follows each measure's
direction (``higher_is_better``).
"""

from __future__ import annotations

import string
from functools import lru_cache

import numpy as np
import pandas as pd

from metrics.checks import refuse
from metrics.errors import RankscopeError, ValidationError

__all__ = ["BETTER", "WORSE", "baseline_markers"]

BETTER = "†"
"""Marker of a value significantly better than the baseline's."""
WORSE = "‡"
"""Marker of a value significantly worse than the baseline's."""


def baseline_markers(tests: pd.DataFrame | None, baseline: str | None) -> dict[tuple[str, str], str]:
    """Which (system, measure) differ significantly from the baseline, and in which direction.

    Parameters
    ----------
    tests : pandas.DataFrame or None
        A comparison's tidy table (:attr:`Comparison.frame`): columns ``system_a``, ``system_b``,
        ``measure``, ``significant`` and ``mean_diff`` (mean of ``system_b`` minus that of ``system_a``).
    baseline : str or None

    Returns
    -------
    dict
        ``{(system, measure): "better" | "worse"}`` for each significant, non-zero difference with the
        baseline; "better" follows the measure's direction (``higher_is_better``).

    Examples
    --------
    >>> tests = pd.DataFrame({"system_a": ["b", "b"], "system_b": ["x", "x"], "measure": ["AP", "MR"],
    ...                       "significant": [True, True], "mean_diff": [0.1, 2.0]})
    >>> baseline_markers(tests, "b")
    {('x', 'AP'): 'better', ('x', 'MR'): 'worse'}
    """
    if tests is None or baseline is None or not len(tests):
        return {}
    _require(tests, ("system_a", "system_b", "measure", "significant", "mean_diff"), "comparison")
    out: dict[tuple[str, str], str] = {}
    rows = tests[tests["significant"].astype(bool)]
    for a, b, measure, diff in zip(rows["system_a"], rows["system_b"], rows["measure"],
                                   rows["mean_diff"].astype(float)):
        if str(baseline) not in (a, b) or a == b or not np.isfinite(diff) or diff == 0:
            continue
        other, gain = (b, diff) if a == baseline else (a, -diff)
        out[(str(other), str(measure))] = "better" if (gain > 0) == _info(str(measure))[0] else "worse"
    return out


@lru_cache(maxsize=512)
def _info(label: str) -> tuple[bool, bool, str]:
    """``(higher_is_better, integer, aggregation)`` of a measure label (unknown labels: higher, real, mean)."""
    from metrics.measures import parse_measure

    try:
        m = parse_measure(label)
    except RankscopeError:
        return True, False, "mean"
    return bool(m.higher_is_better), bool(m.integer), str(m.aggregation)


def _letters(count: int) -> list[str]:
    alphabet = string.ascii_lowercase + string.ascii_uppercase
    if count <= len(alphabet):
        return list(alphabet[:count])
    return [str(i + 1) for i in range(count)]


def _letter_markers(tests: pd.DataFrame, systems: list[str], letters: dict[str, str]) -> dict[tuple[str, str], str]:
    found: dict[tuple[str, str], set[str]] = {}
    rows = tests[tests["significant"].astype(bool)]
    for a, b, measure, diff in zip(rows["system_a"], rows["system_b"], rows["measure"],
                                   rows["mean_diff"].astype(float)):
        if a == b or not np.isfinite(diff) or diff == 0:
            continue
        winner, loser = (b, a) if (diff > 0) == _info(measure)[0] else (a, b)
        found.setdefault((winner, measure), set()).add(loser)
    order = {s: i for i, s in enumerate(systems)}
    sep = "" if len(systems) <= 52 else ","
    return {key: sep.join(letters[s] for s in sorted(losers, key=order.get)) for key, losers in found.items()}


def _require(frame: pd.DataFrame, columns: tuple[str, ...], what: str) -> None:
    if not isinstance(frame, pd.DataFrame):
        raise refuse(what, f"a {what} DataFrame", frame)
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValidationError(f"expected a {what} table with columns {list(columns)}; missing {missing}")
