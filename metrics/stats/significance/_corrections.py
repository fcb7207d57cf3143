"""Corrections of p-values for multiple comparisons: Bonferroni, Holm, Benjamini-Hochberg, Benjamini-Yekutieli."""

from __future__ import annotations

from typing import Any

import numpy as np

from metrics.errors import ValidationError
from metrics.stats.significance._inputs import CORRECTION_ALIASES, CORRECTIONS, canonical


def adjust_pvalues(p_values: Any, method: str = "holm") -> np.ndarray:
    """Adjust the p-values of one family of tests for multiple comparisons.

    Parameters
    ----------
    p_values : array-like of float
        The family's p-values, each in [0, 1].
    method : {"holm", "bonferroni", "bh", "by", "none"}, default="holm"
        ``holm`` and ``bonferroni`` control the family-wise error rate (the chance of any false
        rejection); ``bh`` (Benjamini-Hochberg) and ``by`` (Benjamini-Yekutieli) the false discovery rate
        (the expected share of false rejections among the rejections). ``fdr_bh`` and ``fdr_by`` are
        accepted as aliases.

    Returns
    -------
    numpy.ndarray
        Adjusted p-values in the input order; a test is rejected at level ``alpha`` when its adjusted
        p-value is below ``alpha``.

    Raises
    ------
    ValidationError
        An unknown method, or p-values that are not numbers in [0, 1] (NaN included).

    Notes
    -----
    With ``m`` tests and ``p_(1) <= ... <= p_(m)`` the sorted p-values (ties kept in input order), every
    adjusted value is capped at 1:

    * Bonferroni: ``p~_i = m p_i``;
    * Holm (1979), step-down: ``p~_(i) = max_{j <= i} (m - j + 1) p_(j)``;
    * Benjamini-Hochberg (1995), step-up: ``p~_(i) = min_{j >= i} m p_(j) / j``;
    * Benjamini-Yekutieli (2001): ``p~_(i) = min_{j >= i} c(m) m p_(j) / j``, ``c(m) = sum_{k=1}^m 1/k``.

    Bonferroni, Holm and BY hold under any dependence between the tests. BH assumes independent or
    positively dependent tests (PRDS); two-sided tests of pairs of systems that share queries are
    dependent in no guaranteed direction, so BY is the safe false-discovery choice and BH the
    customary, more powerful one.

    Examples
    --------
    >>> adjust_pvalues([0.01, 0.04, 0.03], "holm").tolist()
    [0.03, 0.06, 0.06]
    >>> adjust_pvalues([0.01, 0.04, 0.03], "bh").round(6).tolist()
    [0.03, 0.04, 0.04]
    """
    method = canonical(method, CORRECTIONS, CORRECTION_ALIASES, "correction")
    try:
        p = np.asarray(p_values, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise ValidationError(f"p-values: expected numbers, found {err}") from None
    if p.ndim != 1:
        raise ValidationError(f"expected a 1-D array of p-values, got shape {p.shape}")
    if np.any(np.isnan(p)) or np.any((p < 0) | (p > 1)):
        raise ValidationError("p-values: expected numbers from 0 to 1, found others")
    m = p.size
    if m == 0 or method == "none":
        return p.copy()
    if method == "bonferroni":
        return np.minimum(1.0, p * m)
    order = np.argsort(p, kind="stable")
    ranked = p[order]
    rank = np.arange(1, m + 1)
    if method == "holm":
        adjusted = np.maximum.accumulate((m - rank + 1) * ranked)
    else:
        adjusted = np.minimum.accumulate((m * ranked / rank)[::-1])[::-1]
        if method == "by":
            adjusted = adjusted * np.sum(1.0 / rank)
    out = np.empty(m)
    out[order] = np.minimum(adjusted, 1.0)
    return out


def adjust_families(p: np.ndarray, families: np.ndarray, method: str) -> np.ndarray:
    """Adjust ``p`` within each family (equal labels); NaN p-values stay NaN and are in no family."""
    adjusted = np.full(p.shape, np.nan)
    tested = ~np.isnan(p)
    for label in dict.fromkeys(families[tested].tolist()):
        mask = tested & (families == label)
        adjusted[mask] = adjust_pvalues(p[mask], method)
    return adjusted
