"""Tukey's honestly significant difference on the two-way (system x topic) ANOVA, as Carterette (2012)
recommends for comparing many retrieval systems on the same topics."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from metrics.errors import ValidationError
from metrics.stats.significance._inputs import check_options
from metrics.stats.significance._results import TukeyResult


def tukey_hsd(scores: Any, systems: Sequence[str] | None = None, *, confidence: float = 0.95) -> TukeyResult:
    """Tukey's HSD over all pairs of systems, on the two-way (system x topic) ANOVA without interaction.

    Parameters
    ----------
    scores : array-like of shape (k systems, n topics) or pandas.DataFrame
        One score per system and topic. A DataFrame is read with systems as rows and topics as columns
        (its index names the systems).
    systems : sequence of str, optional
        Names of the rows (default: the DataFrame's index, or ``"0"``, ``"1"``, ...).
    confidence : float, default=0.95
        Coverage of the simultaneous intervals of the differences.

    Returns
    -------
    TukeyResult
        One row per pair ``(i, j)``, ``i < j`` in the order given, with ``mean_diff = mean_j - mean_i``.

    Raises
    ------
    ValidationError
        Fewer than two systems or two topics, non-finite scores, or names that do not match the rows.

    Notes
    -----
    The model is ``x_st = mu + alpha_s + beta_t + e_st``: a system effect, a topic effect (topics differ
    far more in difficulty than systems do, and blocking on them removes that variance) and an error,
    without interaction (one observation per cell). With ``xbar_s.``, ``xbar_.t`` and ``xbar_..`` the
    system, topic and grand means:

    * residual sum of squares ``SSE = sum_st (x_st - xbar_s. - xbar_.t + xbar_..)**2`` on
      ``df = (k - 1)(n - 1)`` degrees of freedom, ``MSE = SSE / df``;
    * for each pair, the studentized range ``q = |xbar_j. - xbar_i.| / sqrt(MSE / n)``, with
      ``p = P(Q_{k, df} >= q)`` from ``scipy.stats.studentized_range(k, df)``: the p-values are adjusted
      for all ``k (k - 1) / 2`` pairs at once;
    * the simultaneous interval ``mean_diff ± q_{k, df}(confidence) sqrt(MSE / n)``.

    With two systems the test is the paired t-test (``q = sqrt(2) |t|``, the same p-value). When the
    model fits exactly (``MSE = 0``), a non-zero difference has ``q = inf`` and ``p = 0``, a zero
    difference ``q = 0`` and ``p = 1``.

    scipy integrates the studentized range's tail numerically and does not resolve it below about 1e-11
    (with 10 systems and 6,980 topics, every ``q`` above about 12 gets 8.9e-12). Each pair's
    ``q / sqrt(2)`` is a Student t on ``df`` degrees of freedom, so the union bound
    ``P(Q >= q) <= k (k - 1) / 2 * 2 P(T_df >= q / sqrt(2))`` holds, and is tight far in the tail; the
    p-value is the smaller of scipy's integral and that bound. With two systems the bound is exact.

    References: B. Carterette, "Multiple testing in statistical analysis of systems-based information
    retrieval experiments", ACM TOIS 30(1), 2012; J. W. Tukey, 1953.

    Examples
    --------
    >>> res = tukey_hsd([[0.1, 0.2, 0.3, 0.4], [0.2, 0.4, 0.3, 0.6], [0.1, 0.3, 0.2, 0.4]], ["x", "y", "z"])
    >>> res.df_residual, res.frame[["system_a", "system_b"]].values.tolist()
    (6, [['x', 'y'], ['x', 'z'], ['y', 'z']])
    """
    from scipy import stats

    confidence = check_options(confidence=confidence)["confidence"]
    try:
        if isinstance(scores, pd.DataFrame):
            systems = [str(s) for s in scores.index] if systems is None else list(systems)
            X = scores.to_numpy(dtype=np.float64)
        else:
            X = np.asarray(scores, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise ValidationError(f"scores: expected numbers, found {err}") from None
    if X.ndim != 2:
        raise ValidationError(f"expected a 2-D table of scores (systems x topics), got shape {X.shape}")
    k, n = X.shape
    systems = [str(i) for i in range(k)] if systems is None else [str(s) for s in systems]
    if len(systems) != k:
        raise ValidationError(f"{len(systems)} system names for {k} rows of scores")
    if len(set(systems)) != k:
        raise ValidationError(f"system names: expected distinct names, found {systems}")
    if k < 2:
        raise ValidationError(f"Tukey's HSD: expected at least two systems, found {k}")
    if n < 2:
        raise ValidationError(f"Tukey's HSD: expected at least two topics, found {n}")
    if not np.all(np.isfinite(X)):
        raise ValidationError("scores: expected finite numbers, found NaN or infinity")
    means = X.mean(axis=1)
    residual = X - means[:, None] - X.mean(axis=0)[None, :] + X.mean()
    df = (k - 1) * (n - 1)
    mse = float((residual ** 2).sum() / df)
    i, j = np.triu_indices(k, 1)
    diff = means[j] - means[i]
    se = np.sqrt(mse / n)
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.where(diff == 0, 0.0, np.abs(diff) / se)
    p = np.where(diff == 0, 1.0, 0.0)
    finite = np.isfinite(q) & (diff != 0)
    if finite.any():
        union = k * (k - 1) * stats.t.sf(q[finite] / np.sqrt(2.0), df)  # C(k, 2) pairs, two-sided
        p[finite] = np.clip(np.minimum(stats.studentized_range.sf(q[finite], k, df), union), 0.0, 1.0)
    q_crit = float(stats.studentized_range.ppf(confidence, k, df))
    half = q_crit * se
    names = np.asarray(systems, dtype=object)
    frame = pd.DataFrame({"system_a": names[i], "system_b": names[j], "mean_a": means[i], "mean_b": means[j],
                          "mean_diff": diff, "statistic": q, "p_value": p, "ci_low": diff - half,
                          "ci_high": diff + half})
    return TukeyResult(frame=frame, ms_residual=mse, df_residual=df, n_systems=k, n_topics=n, q_critical=q_crit)
