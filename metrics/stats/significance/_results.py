"""What the tests return: frozen dataclasses, and the tidy frame of a comparison of many systems."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from metrics.errors import ValidationError

COLUMNS = ("system_a", "system_b", "measure", "test", "statistic", "p_value", "p_adjusted", "significant",
           "mean_a", "mean_b", "mean_diff", "ci_low", "ci_high", "effect_size", "rank_biserial", "wins", "ties",
           "losses", "n")
"""The columns of :attr:`Comparison.frame`, in order."""


@dataclass(frozen=True)
class TestResult:
    """The outcome of a paired test of two systems.

    Attributes
    ----------
    test : str
        The test's name (one of :data:`~metrics.stats.significance.TESTS`).
    statistic : float
        The test statistic, as its declaration says: t (``t``), Wilcoxon's ``min(R+, R-)`` (``wilcoxon``),
        the number of wins of ``b`` (``sign``), the mean difference (``permutation``, ``bootstrap``).
    p_value : float
        Two-sided p-value.
    mean_diff : float
        Mean over queries of ``b - a``.
    ci_low, ci_high : float
        Confidence interval of the mean difference: Student's t interval, except for the bootstrap test
        (its bootstrap interval, percentile or BCa).
    effect_size : float
        Cohen's d_z, the mean difference over the standard deviation of the differences (ddof=1); NaN
        when every difference is the same (the standard deviation is 0).
    rank_biserial : float
        Matched-pairs rank-biserial correlation ``(R+ - R-) / (R+ + R-)`` of the non-zero differences.
    wins, ties, losses : int
        Queries where ``b`` scores higher than ``a`` by more than the tie tolerance, within it, lower.
    n : int
        Number of queries.
    seed : int or None
        The seed of a randomised test; None when no random draw was used (including the exact
        enumeration of the randomisation test).
    """

    __test__ = False  # not a pytest test class

    test: str
    statistic: float
    p_value: float
    mean_diff: float
    ci_low: float
    ci_high: float
    effect_size: float
    rank_biserial: float
    wins: int
    ties: int
    losses: int
    n: int
    seed: int | None


@dataclass(frozen=True, eq=False)
class TukeyResult:
    """Tukey's honestly significant difference test on the two-way (system x topic) ANOVA layout.

    Attributes
    ----------
    frame : pandas.DataFrame
        One row per pair of systems (``system_a`` before ``system_b`` in the order given), columns
        ``system_a``, ``system_b``, ``mean_a``, ``mean_b``, ``mean_diff`` (b - a), ``statistic`` (the
        studentized range ``q = |mean_diff| / sqrt(ms_residual / n_topics)``), ``p_value``, ``ci_low`` and
        ``ci_high`` (simultaneous interval of the difference).
    ms_residual : float
        Residual mean square of the additive model ``score = system + topic + error``.
    df_residual : int
        Its degrees of freedom, ``(n_systems - 1) * (n_topics - 1)``.
    n_systems, n_topics : int
    q_critical : float
        The studentized range quantile at the interval's confidence, ``q(confidence; k, df)``.
    """

    frame: pd.DataFrame
    ms_residual: float
    df_residual: int
    n_systems: int
    n_topics: int
    q_critical: float = float("nan")


@dataclass(frozen=True, eq=False)
class Comparison:
    """The paired tests of many systems over one or more measures (see
    :func:`~metrics.stats.significance.compare_systems`).

    Attributes
    ----------
    frame : pandas.DataFrame
        One row per (measure, pair), the columns of :data:`COLUMNS`: ``system_a``, ``system_b``,
        ``measure``, ``test``, ``statistic``, ``p_value``, ``p_adjusted``, ``significant``, ``mean_a``,
        ``mean_b``, ``mean_diff`` (``b - a``), ``ci_low``, ``ci_high``, ``effect_size`` (Cohen's d_z),
        ``rank_biserial``, ``wins``, ``ties``, ``losses`` (of ``system_b`` against ``system_a``) and ``n``
        (queries).
    test, correction, family : str
        As run (canonical names).
    alpha : float
    baseline : str or None
        The system every other was tested against; None for all pairs.
    systems, measures : tuple of str
        In the order used.
    seed, n_resamples : int
    confidence : float
        Coverage of the intervals.
    """

    frame: pd.DataFrame
    test: str
    correction: str
    family: str
    alpha: float
    baseline: str | None
    systems: tuple[str, ...]
    measures: tuple[str, ...]
    seed: int
    n_resamples: int
    confidence: float = 0.95

    @property
    def declared_test(self) -> Any:
        """The declaration of the test (:class:`~metrics.stats.significance.Test`): its words and properties."""
        from metrics.stats.significance.tests import TEST_REGISTRY

        return TEST_REGISTRY.get(self.test)

    @property
    def declared_correction(self) -> Any:
        """The declaration of the correction (:class:`~metrics.stats.significance.Correction`)."""
        from metrics.stats.significance.corrections import CORRECTION_REGISTRY

        return CORRECTION_REGISTRY.get(self.correction)

    @property
    def family_sizes(self) -> dict[str, int]:
        """How many tests each measure's p-values were adjusted together with.

        Per measure, that measure's tested pairs; with ``family="all"``, every tested pair of every
        measure. Pairs without a p-value (NaN) are not in a family. For a test that adjusts itself (Tukey's
        HSD), the number of pairs it adjusts for: all pairs of the systems.
        """
        finite = self.frame[np.isfinite(self.frame["p_value"].to_numpy(dtype=np.float64))]
        counts = finite.groupby("measure", sort=False).size()
        if self.declared_test.adjusts_itself:
            k = len(self.systems)
            return {m: k * (k - 1) // 2 for m in self.measures}
        if self.family == "all":
            return {m: int(len(finite)) for m in self.measures}
        return {m: int(counts.get(m, 0)) for m in self.measures}

    def pvalue_matrix(self, measure: str, column: str = "p_adjusted") -> pd.DataFrame:
        """A symmetric systems x systems table of one column (default the adjusted p-values) of a measure.

        Pairs that were not tested (e.g. two non-baseline systems) are NaN, as is the diagonal.
        """
        if measure not in self.measures:
            raise ValidationError(f"measure {measure!r} was not compared; compared: {list(self.measures)}")
        if column not in self.frame.columns:
            raise ValidationError(f"no column {column!r}; columns: {list(self.frame.columns)}")
        matrix = pd.DataFrame(np.nan, index=list(self.systems), columns=list(self.systems), dtype=float)
        rows = self.frame[self.frame["measure"] == measure]
        for a, b, value in zip(rows["system_a"], rows["system_b"], rows[column].astype(float)):
            matrix.loc[a, b] = value
            matrix.loc[b, a] = value
        return matrix
