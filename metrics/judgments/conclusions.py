"""Do the reference's conclusions survive the other judges? Every pair of systems tested under every set.

:func:`set_tests` tests every pair of systems under every set with
:func:`metrics.stats.significance.compare_systems` and its correction, each set on its own. :func:`conclusions`
then reads, for each measure and pair of systems, two things apart:

* **what the reference found** (``reference``, one of :data:`REFERENCE_FINDINGS`): ``"found"`` when its test
  finds the difference significant (after correction), ``"not found"`` when it orders the two systems but its
  test does not find the difference, ``"tied"`` when their summaries are exactly equal (no order to keep);
* **what each other set finds of it** (:data:`VERDICTS`): the difference significant in the reference's
  direction (``"found"``), significant the other way (``"reversed"``), or not significant (``"not found"``);
  for a pair the reference ties, ``"differs"`` where a set finds either system significantly better.

``better`` and ``worse`` are the pair in the reference's order: by its significant direction when its test
finds one, else by its summaries. A tie has no order; its two systems are then listed in order of name, and
nothing in the row depends on which comes first. So a difference the reference never found and another set
finds (``not found``, then ``found`` under that set) no longer reads like one the reference found and another
set loses (``found``, then ``not found``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from metrics.errors import ValidationError
from metrics.judgments.systems import higher_is_better, set_names

__all__ = ["COLUMNS", "REFERENCE_FINDINGS", "VERDICTS", "conclusions", "pair_conclusions", "set_tests", "verdicts"]

REFERENCE_FINDINGS = ("found", "not found", "tied")
"""What the reference's test says of a pair: a significant difference, an order without one, exactly equal
summaries."""
VERDICTS = {"found": "found_under", "reversed": "reversed_under", "not found": "not_found_under",
            "differs": "differs_under"}
"""What another set finds of the reference's conclusion, and the column listing the sets that find it."""
COLUMNS = ("measure", "better", "worse", "reference", *VERDICTS.values(), "p_adjusted")
"""The columns of :func:`conclusions`."""


def set_tests(per_query: pd.DataFrame, measures: Sequence[str] | None = None, **settings: Any) -> pd.DataFrame:
    """Every pair of systems tested under every set, corrected within each set as ``settings`` say.

    Parameters
    ----------
    per_query : pandas.DataFrame
        As :func:`metrics.judgments.systems.evaluate_sets` returns it.
    measures : sequence of str, optional
    **settings
        Keywords of :func:`metrics.stats.significance.compare_systems` (``test``, ``correction``, ``alpha``,
        ``family``, ``seed``, ...).

    Returns
    -------
    pandas.DataFrame
        ``judges`` then the columns of :attr:`metrics.stats.significance.Comparison.frame`.
    """
    from metrics.stats.significance import compare_systems

    frames = []
    for name in set_names(per_query):
        rows = per_query[per_query["judges"] == name][["system", "query", "measure", "value"]]
        systems = list(pd.unique(rows["system"]))
        tested = compare_systems(rows, measures=measures, systems=systems, **settings)
        frames.append(tested.frame.assign(judges=name))
    frame = pd.concat(frames, ignore_index=True)
    return frame[["judges", *[c for c in frame.columns if c != "judges"]]]


def _direction(tests: pd.DataFrame) -> np.ndarray:
    """+1 where ``system_b`` is significantly better, -1 where ``system_a`` is, 0 elsewhere."""
    higher = np.array([higher_is_better(m) for m in tests["measure"]], dtype=bool)
    sign = np.sign(tests["mean_diff"].to_numpy(dtype=np.float64)) * np.where(higher, 1, -1)
    return np.where(tests["significant"].to_numpy(dtype=bool), sign, 0).astype(np.int64)


def conclusions(tests: pd.DataFrame, orders: pd.DataFrame, reference: str) -> pd.DataFrame:
    """Every pairwise conclusion of the reference, and what each other set finds of it.

    Parameters
    ----------
    tests : pandas.DataFrame
        As :func:`set_tests` returns it.
    orders : pandas.DataFrame
        As :func:`metrics.judgments.systems.system_orders` returns it (the reference's summaries order a
        pair its test does not separate).
    reference : str

    Returns
    -------
    pandas.DataFrame
        One row per measure and pair of systems, the columns :data:`COLUMNS`: ``measure``; ``better`` and
        ``worse`` (the reference's order; for a tie, in order of name); ``reference`` (one of
        :data:`REFERENCE_FINDINGS`); ``found_under``, ``reversed_under``, ``not_found_under`` and
        ``differs_under`` (tuples of the other sets, in order, by :data:`VERDICTS`: every other set is in
        exactly one of them, ``differs_under`` for a tie only); ``p_adjusted`` (each set's corrected p-value).
    """
    names = list(pd.unique(tests["judges"]))
    if reference not in names:
        raise ValidationError(f"the reference {reference!r} has no tests; the sets are {names}")
    others = [n for n in names if n != reference]
    tests = tests.assign(direction=_direction(tests))
    mine = orders[orders["judges"] == reference]
    summary = {(m, s): v for m, s, v in mine[["measure", "system", "value"]].itertuples(index=False)}
    rows = []
    for (measure, a, b), group in tests.groupby(["measure", "system_a", "system_b"], sort=False):
        by_set = dict(zip(group["judges"], group["direction"]))
        toward = int(by_set.get(reference, 0))  # +1: b better, -1: a better, 0: the test does not separate them
        if toward == 0:
            apart = summary.get((measure, b), np.nan) - summary.get((measure, a), np.nan)
            toward = int(np.sign(apart)) * (1 if higher_is_better(measure) else -1) if np.isfinite(apart) else 0
        if toward == 0:
            better, worse = sorted((str(a), str(b)))
            finding = "tied"
        else:
            better, worse = (b, a) if toward > 0 else (a, b)
            finding = "found" if by_set.get(reference, 0) == toward else "not found"
        under: dict[str, list[str]] = {column: [] for column in VERDICTS.values()}
        for name in others:
            seen = int(by_set.get(name, 0))
            verdict = ("not found" if seen == 0 else "differs" if toward == 0
                       else "found" if seen == toward else "reversed")
            under[VERDICTS[verdict]].append(name)
        rows.append({"measure": measure, "better": better, "worse": worse, "reference": finding,
                     **{column: tuple(sets) for column, sets in under.items()},
                     "p_adjusted": dict(zip(group["judges"], group["p_adjusted"].astype(float)))})
    return pd.DataFrame(rows, columns=list(COLUMNS))


def pair_conclusions(tests: pd.DataFrame, orders: pd.DataFrame, first: str, second: str) -> pd.DataFrame:
    """The conclusions of two sets alone, ``first`` the reference: :func:`conclusions` of their tests."""
    return conclusions(tests[tests["judges"].isin((first, second))], orders, first)


def verdicts(found: pd.DataFrame, reference: str) -> pd.DataFrame:
    """The conclusions as words, one column per set: what the reference found, then each other set's verdict.

    Returns
    -------
    pandas.DataFrame
        ``measure``, ``better``, ``worse``, then a column named after each set: the reference's
        :data:`REFERENCE_FINDINGS`, the others' :data:`VERDICTS`, in the sets' order.
    """
    out = found[["measure", "better", "worse"]].copy()
    out[reference] = found["reference"].to_numpy()
    others = [n for n in dict.fromkeys(n for p in found["p_adjusted"] for n in p) if n != reference]
    for name in others:  # in the sets' order, as the tests hold them
        out[name] = [next((v for v, column in VERDICTS.items() if name in getattr(r, column)), "")
                     for r in found.itertuples(index=False)]
    return out
