"""Corrections of p-values for multiple comparisons, each declared in ``corrections/``: one family at a time
(:func:`adjust_pvalues`), or every family of a comparison (:func:`adjust_families`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from metrics.checks import refuse
from metrics.errors import ValidationError
from metrics.stats.significance.corrections import CORRECTION_REGISTRY, Correction
from metrics.stats.significance.tests import TEST_REGISTRY, Test


def on_p_values(correction: Correction) -> bool:
    """Whether a correction adjusts p-values (and not a test's resamples, as max-T does)."""
    return not correction.resampled


def adjust_pvalues(p_values: Any, method: str = "holm") -> np.ndarray:
    """Adjust the p-values of one family of tests for multiple comparisons.

    Parameters
    ----------
    p_values : array-like of float
        The family's p-values, each in [0, 1].
    method : {"holm", "bonferroni", "bh", "by", "none"}, default="holm"
        A correction that adjusts p-values (see :data:`~metrics.stats.significance.CORRECTIONS`; each is
        declared in ``metrics/stats/significance/corrections/``). ``holm`` and ``bonferroni`` control the
        family-wise error rate (the chance of any false rejection); ``bh`` (Benjamini-Hochberg) and ``by``
        (Benjamini-Yekutieli) the false discovery rate (the expected share of false rejections among the
        rejections). ``fdr_bh`` and ``fdr_by`` are accepted as aliases.

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
    correction = CORRECTION_REGISTRY.get(method, on_p_values)
    try:
        p = np.asarray(p_values, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise ValidationError(f"p-values: expected numbers, found {err}") from None
    if p.ndim != 1:
        raise ValidationError(f"expected a 1-D array of p-values, got shape {p.shape}")
    if np.any(np.isnan(p)) or np.any((p < 0) | (p > 1)):
        raise ValidationError("p-values: expected numbers from 0 to 1, found others")
    return correction.adjust(p) if p.size else p.copy()


def adjust_families(p: np.ndarray, families: np.ndarray, method: str) -> np.ndarray:
    """Adjust ``p`` within each family (equal labels); NaN p-values stay NaN and are in no family."""
    adjusted = np.full(p.shape, np.nan)
    tested = ~np.isnan(p)
    for label in dict.fromkeys(families[tested].tolist()):
        mask = tested & (families == label)
        adjusted[mask] = adjust_pvalues(p[mask], method)
    return adjusted


def test_and_correction(test: Any, correction: Any) -> tuple[Test, Correction]:
    """The declared test and correction that two names give, checked together.

    A correction made from resamples (max-T) needs a test whose resamples it can reuse (``sign_flips``).

    Raises
    ------
    ValidationError
        An unknown test or correction, or a pair that does not go together.
    """
    chosen, fix = TEST_REGISTRY.get(test), CORRECTION_REGISTRY.get(correction)
    if fix.resampled and not chosen.sign_flips:
        flipping = " or ".join(repr(t.name) for t in TEST_REGISTRY if t.sign_flips)
        raise refuse("test", f"{flipping} (the {fix.name} correction resamples a test's sign flips)", chosen.name)
    return chosen, fix
