"""Compact letter display of many pairwise comparisons (Piepho 2004, insert-and-absorb).

Systems are ordered by mean (best first); each gets a string of letters such that two systems share a
letter exactly when they are *not* significantly different. The relation "not different" need not be
transitive (A ~ B, B ~ C, A != C gives ``a``, ``ab``, ``b``), so a system may carry several letters.

Reference: H.-P. Piepho, "An algorithm for a letter-based representation of all-pairwise comparisons",
Journal of Computational and Graphical Statistics 13(2), 2004.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from metrics.errors import ValidationError

MAX_LETTERS = 26 * 26
"""Letters ``a``..``z``, then ``aa``, ``ab``, ...: at most this many groups are named."""


def letter_groups(differs: Any) -> list[frozenset[int]]:
    """Piepho's insert-and-absorb: groups (sets of items) such that two items share a group iff not ``differs``.

    Parameters
    ----------
    differs : array-like of bool, shape (k, k)
        Symmetric: ``differs[i, j]`` when items ``i`` and ``j`` differ significantly (diagonal ignored).

    Returns
    -------
    list of frozenset of int
        The groups, each a maximal set of mutually non-different items, ordered by their smallest item.

    Notes
    -----
    Start with one group of every item. For each significant pair ``(i, j)``, every group holding both is
    split in two: one without ``i``, one without ``j`` (insert); then any group contained in another is
    removed (absorb). Last, a group whose items and pairs the other groups all cover is dropped, smallest
    first (sweep). The result covers every non-different pair and separates every different one.
    """
    M = np.asarray(differs, dtype=bool)
    k = M.shape[0]
    if M.ndim != 2 or M.shape != (k, k):
        raise ValidationError(f"expected a square table of significance, got shape {M.shape}")
    if not np.array_equal(M, M.T):
        raise ValidationError("the table of significance: expected a symmetric table, found an asymmetric one")
    groups: list[frozenset[int]] = [frozenset(range(k))] if k else []
    for i, j in zip(*np.nonzero(np.triu(M, 1))):
        i, j = int(i), int(j)
        changed = []
        for g in groups:
            if i in g and j in g:
                changed.extend([g - {i}, g - {j}])
            else:
                changed.append(g)
        unique = list(dict.fromkeys(changed))
        groups = [g for g in unique if g and not any(g < h for h in unique)]
    return sorted(_swept(groups), key=lambda g: (min(g), sorted(g)))


def _swept(groups: list[frozenset[int]]) -> list[frozenset[int]]:
    """Piepho's sweep: drop a group whose pairs (and items) other groups all cover, largest groups kept first."""
    def covered(g: frozenset[int], others: list[frozenset[int]]) -> bool:
        items = sorted(g)
        return all(any(x in h for h in others) for x in items) and all(
            any(x in h and y in h for h in others) for n, x in enumerate(items) for y in items[n + 1:])

    kept = list(groups)
    for g in sorted(groups, key=lambda g: (len(g), sorted(g))):
        others = [h for h in kept if h is not g]
        if covered(g, others):
            kept = others
    return kept


def _leaderboard_order(key: np.ndarray, differs: np.ndarray) -> np.ndarray:
    """The systems by ``key`` (smallest first), equal keys told apart by what they differ from, never by name.

    The letters depend on the order (:func:`letter_groups` sweeps and names groups by position), so systems
    with the same mean are ordered by the classes of the systems they differ from, refined until nothing
    changes (colour refinement: a system's class is its key, then its class with the sorted classes of the
    systems it differs from). Two systems still in one class have the same mean and as many differences in
    every class; when they also differ from the same systems and not from each other they are in the same
    groups and get the same letters in any order; otherwise the table is symmetric in them, and the display
    is the same but for the two exchanged.
    """
    others = differs & ~np.eye(len(key), dtype=bool)
    classes = np.unique(key, return_inverse=True)[1]
    for _ in range(len(key)):
        signatures = [(int(c), tuple(sorted(classes[row].tolist()))) for c, row in zip(classes, others)]
        ranked = {s: i for i, s in enumerate(sorted(set(signatures)))}
        refined = np.array([ranked[s] for s in signatures], dtype=np.int64)
        if len(ranked) == len(np.unique(classes)):
            break
        classes = refined
    return np.argsort(classes, kind="stable")


def _letter(index: int) -> str:
    if index < 26:
        return chr(ord("a") + index)
    return _letter(index // 26 - 1) + chr(ord("a") + index % 26)


def letter_display(systems: Sequence[str], means: Sequence[float], differs: Any, *,
                   higher_is_better: bool = True) -> pd.DataFrame:
    """The grouped leaderboard: systems ordered by mean, with their group letters.

    Parameters
    ----------
    systems : sequence of str
    means : sequence of float
        One per system.
    differs : array-like of bool, shape (k, k)
        ``differs[i, j]`` when systems ``i`` and ``j`` (in the order of ``systems``) differ significantly.
    higher_is_better : bool, default=True
        Order the leaderboard by decreasing mean (else increasing); ties keep the input order.

    Returns
    -------
    pandas.DataFrame
        Columns ``system``, ``mean``, ``group``: the first group (in leaderboard order) is ``a``, and each
        system's letters are sorted.
    """
    names = [str(s) for s in systems]
    mu = np.asarray(means, dtype=np.float64)
    M = np.asarray(differs, dtype=bool)
    if mu.shape != (len(names),) or M.shape != (len(names), len(names)):
        raise ValidationError(f"{len(names)} systems need {len(names)} means and a {len(names)} x {len(names)} "
                              f"table, found {mu.shape} and {M.shape}")
    order = _leaderboard_order(-mu if higher_is_better else mu, M)
    groups = letter_groups(M[np.ix_(order, order)])
    if len(groups) > MAX_LETTERS:
        raise ValidationError(f"{len(groups)} groups: more than the {MAX_LETTERS} letters a display can name")
    letters = [""] * len(names)
    for index, g in enumerate(groups):
        for item in g:
            letters[item] += _letter(index) if index < 26 else f"({_letter(index)})"
    return pd.DataFrame({"system": [names[o] for o in order], "mean": mu[order], "group": letters})


def grouped_leaderboard(comparison: Any, measure: str, *, higher_is_better: bool = True) -> pd.DataFrame:
    """The letter display of one measure of a :class:`~metrics.stats.significance.Comparison` of all pairs.

    Two systems differ when the comparison's ``significant`` (corrected p-value below ``alpha``) is true;
    Tukey's HSD (``test="tukey"``) gives its own adjusted p-values. A pair that was not tested (a
    comparison against a baseline) cannot be displayed: a ValidationError says so.

    Returns
    -------
    pandas.DataFrame
        Columns ``system``, ``mean``, ``group`` (see :func:`letter_display`).
    """
    if measure not in comparison.measures:
        raise ValidationError(f"measure {measure!r} was not compared; compared: {list(comparison.measures)}")
    if comparison.baseline is not None:
        raise ValidationError("a letter display needs every pair of systems tested, not each against a baseline")
    rows = comparison.frame[comparison.frame["measure"] == measure]
    systems = list(comparison.systems)
    where = {s: i for i, s in enumerate(systems)}
    k = len(systems)
    differs = np.zeros((k, k), dtype=bool)
    means = np.full(k, np.nan)
    for a, b, sig, ma, mb in zip(rows["system_a"], rows["system_b"], rows["significant"], rows["mean_a"],
                                 rows["mean_b"]):
        differs[where[a], where[b]] = differs[where[b], where[a]] = bool(sig)
        means[where[a]], means[where[b]] = ma, mb
    return letter_display(systems, means, differs, higher_is_better=higher_is_better)
