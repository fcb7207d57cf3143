"""Effect sizes of a paired comparison: Cohen's d_z, the rank-biserial correlation, wins/ties/losses."""

from __future__ import annotations

from typing import Any

import numpy as np

from metrics.errors import ValidationError
from metrics.stats.significance._inputs import check_options, pair_differences
from metrics.stats.significance._kernels import describe, rank_biserial_rows


def cohens_dz(a: Any, b: Any, *, fill: str | None = None) -> float:
    """Cohen's d_z: the mean of ``b - a`` over its standard deviation.

    Parameters
    ----------
    a, b : array-like or pandas.Series
        Per-query scores, as for :func:`paired_test`.
    fill : {None, "zero"}, default=None

    Returns
    -------
    float

    Raises
    ------
    ValidationError
        Fewer than two queries, or every difference the same (the standard deviation is 0, so d_z is
        undefined), or the inputs of :func:`paired_test`'s errors.

    Notes
    -----
    ``d_z = mean(d) / sd(d)`` with ``sd(d) = sqrt(sum((d_i - mean(d))**2) / (n - 1))`` (Cohen, 1988):
    the standardised mean difference of paired data, equal to ``t / sqrt(n)`` of the paired t-test.

    Examples
    --------
    >>> cohens_dz([0, 0, 0], [1, 2, 3])
    2.0
    """
    D, K = pair_differences(a, b, fill)
    if np.all(K == K[:, :1]):
        raise ValidationError(f"every difference b - a is {K[0, 0]:.6g} on these {D.shape[1]} queries: their "
                              "standard deviation is 0, so Cohen's d_z is undefined")
    return float(describe(D, K, 0.0, 0.95)["effect_size"][0])


def rank_biserial(a: Any, b: Any, *, fill: str | None = None) -> float:
    """Matched-pairs rank-biserial correlation of ``b - a``.

    Parameters
    ----------
    a, b : array-like or pandas.Series
    fill : {None, "zero"}, default=None

    Returns
    -------
    float
        In [-1, 1]: +1 when ``b`` wins on every query that differs, -1 when it loses on every one.

    Raises
    ------
    ValidationError
        Every difference zero (no query differs), or bad inputs.

    Notes
    -----
    The ``|d_i|`` of the non-zero differences are ranked (ties averaged); with ``R+`` and ``R-`` the rank
    sums of the positive and negative ones, ``r = (R+ - R-) / (R+ + R-)`` (Kerby, 2014), the effect size
    that goes with the Wilcoxon signed-rank test (zero differences dropped, as its ``wilcox`` rule).

    Examples
    --------
    >>> rank_biserial([0.0, 0.0, 0.0, 0.0], [0.1, 0.2, -0.3, 0.0])
    0.0
    """
    _, K = pair_differences(a, b, fill)
    if not np.any(K != 0):
        raise ValidationError(f"the systems are identical on these {K.shape[1]} queries (every difference b - a "
                              "is 0): the rank-biserial correlation is undefined")
    return float(rank_biserial_rows(K)[0])


def win_tie_loss(a: Any, b: Any, tie_tolerance: float = 0.0, *, fill: str | None = None) -> tuple[int, int, int]:
    """Queries where ``b`` beats ``a`` by more than ``tie_tolerance``, ties within it, and loses.

    Parameters
    ----------
    a, b : array-like or pandas.Series
    tie_tolerance : float, default=0.0
        A query is a tie when ``|b - a| <= tie_tolerance``.
    fill : {None, "zero"}, default=None

    Returns
    -------
    (int, int, int)
        Wins, ties and losses of ``b``; they add up to the number of queries.

    Notes
    -----
    ``wins = #{d_i > tol}``, ``ties = #{|d_i| <= tol}``, ``losses = #{d_i < -tol}``, on the differences
    rounded as in :func:`paired_test` (so scores equal up to floating-point rounding tie with ``tol = 0``).
    Unlike the tests, identical systems and a single query are allowed.

    Examples
    --------
    >>> win_tie_loss([0.5, 0.5, 0.5], [0.6, 0.5, 0.49], tie_tolerance=0.02)
    (1, 2, 0)
    """
    tol = check_options(tie_tolerance=tie_tolerance)["tie_tolerance"]
    _, K = pair_differences(a, b, fill, min_queries=1)
    wins, losses = int(np.count_nonzero(K > tol)), int(np.count_nonzero(K < -tol))
    return wins, K.shape[1] - wins - losses, losses
