"""Risk-sensitive comparison of systems against a baseline, on per-topic values.

A mean hides the topics a system makes worse. The measures here weigh those losses more than the wins.
With per-topic values ``s_j`` of a system and ``b_j`` of a baseline on ``c`` topics, ``δ_j = s_j − b_j``:

URisk_α (Wang, Bennett and Collins-Thompson, SIGIR 2012; the TREC Web track 2013-14)
    ``URisk_α = (1/c) [Σ_{j: δ_j > 0} δ_j − (1 + α) Σ_{j: δ_j < 0} |δ_j|]``, the mean of the
    *risk-adjusted deltas* ``δ'_j = δ_j`` for a win or a tie and ``(1 + α) δ_j`` for a loss. α ≥ 0; α = 0 is
    the difference of the means. Positive: better than the baseline after paying for its losses.
TRisk_α (Dinçer, Macdonald and Ounis, SIGIR 2014)
    The studentised URisk: ``TRisk_α = URisk_α / SE(URisk_α)``, ``SE = sd(δ') / √c`` with the sample
    standard deviation (c − 1 in the divisor). It is the one-sample t statistic of the risk-adjusted deltas,
    so its two-sided p-value is that of Student's t with c − 1 degrees of freedom. A system is flagged
    riskier (TRisk < 0) or safer (> 0) than the baseline when that p-value is below the level (0.05 by
    default). The rule of thumb ``|TRisk| > 2`` is that test only near the 5% level and with many topics:
    the critical value is 2.26 at 10 topics, 2.09 at 20 and 2.01 at 50.
ZRisk_α and GeoRisk_α (Dinçer, Macdonald and Ounis, SIGIR 2016)
    Against a set of systems at once. On the matrix ``x_ij`` (system i, topic j, values ≥ 0), with row sums
    ``S_i = Σ_j x_ij``, column sums ``T_j = Σ_i x_ij`` and total ``N = Σ_i S_i``, the expected value of a
    cell is ``e_ij = S_i T_j / N`` (as for a chi-square test of independence) and its standardised
    residual ``z_ij = (x_ij − e_ij) / √e_ij``. Then
    ``ZRisk_α(i) = Σ_{j: z_ij > 0} z_ij + (1 + α) Σ_{j: z_ij < 0} z_ij`` and
    ``GeoRisk_α(i) = √( (S_i / c) · Φ(ZRisk_α(i) / c) )``, Φ the standard normal distribution function:
    the geometric mean of the system's mean effectiveness and of its (normalised) risk-reward trade-off.
    A cell whose expected value is 0 (every system scores 0 on the topic, or the system on every topic)
    contributes ``z_ij = 0``: it says nothing of the system's risk.

:func:`risk_table` computes all of them for each measure of a per-query table, the systems against one
baseline, with the win/tie/loss counts and the number of losses times (1 + α), a count (each loss counted
1 + α times), not losses in the measure's units. A win follows the measure's declaration: for a measure
where lower is better (MR, Fallout, ...) the deltas are ``b_j − s_j``, and ZRisk and GeoRisk, which weigh
effectiveness, are not defined (NaN).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import special, stats

from metrics.checks import Number, checked
from metrics.errors import ValidationError
from metrics.measures.per_query import PerQuery, higher_is_better

__all__ = ["RISK_COLUMNS", "TRISK_LEVEL", "TRisk", "georisk", "risk_adjusted_deltas", "risk_table", "trisk",
           "urisk", "zrisk"]

TRISK_LEVEL = 0.05
"""The default level of TRisk's two-sided test: a p-value below it flags a system riskier or safer."""

RISK_COLUMNS = ("measure", "system", "baseline", "alpha", "n", "wins", "ties", "losses", "weighted_loss_count",
                "urisk", "trisk", "p_value", "t_critical", "flag", "zrisk", "georisk")
"""The columns of :func:`risk_table`, in order."""


@dataclass(frozen=True)
class TRisk:
    """The studentised URisk of a system against a baseline (see :func:`trisk`).

    Attributes
    ----------
    statistic : float
        URisk / SE(URisk); NaN when every risk-adjusted delta is the same (SE is 0).
    p_value : float
        Two-sided, Student's t with ``df`` degrees of freedom; NaN with the statistic.
    df : int
        Topics minus one.
    urisk : float
    flag : str
        ``"riskier"`` (statistic below 0 and p-value below ``level``), ``"safer"`` (above 0, p-value below
        ``level``), or ``""``.
    level : float
        The level of the two-sided test behind ``flag``.
    critical : float
        The two-sided critical value of Student's t at ``level`` and ``df``: ``|statistic|`` beyond it is
        exactly ``p_value < level``.
    """

    statistic: float
    p_value: float
    df: int
    urisk: float
    flag: str
    level: float = TRISK_LEVEL
    critical: float = float("nan")


_ALPHA = Number(0, label="risk alpha")


def _check_level(level: Any) -> float:
    if isinstance(level, bool) or not isinstance(level, (int, float)) or not 0.0 < level < 1.0:
        raise ValidationError(f"TRisk level: expected a number between 0 and 1, found {level!r}")
    return float(level)


def _pair(system: Any, baseline: Any) -> np.ndarray:
    s = np.asarray(system, dtype=float)
    b = np.asarray(baseline, dtype=float)
    if s.ndim != 1 or s.shape != b.shape:
        raise ValidationError(f"risk: expected two per-topic vectors of one length, found shapes {s.shape} and "
                              f"{b.shape}")
    if s.size < 1 or not (np.isfinite(s).all() and np.isfinite(b).all()):
        raise ValidationError("risk: expected finite per-topic values on at least one topic")
    return s - b


@checked(alpha=_ALPHA)
def risk_adjusted_deltas(system: Any, baseline: Any, alpha: float = 1.0) -> np.ndarray:
    """Per-topic deltas ``s − b`` with each loss multiplied by ``1 + alpha``.

    Parameters
    ----------
    system, baseline : array_like of float
        Per-topic values, aligned (the same topic at the same position).
    alpha : float, default=1.0
        The extra weight of a loss (α ≥ 0).

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> risk_adjusted_deltas([0.5, 0.2, 0.3], [0.4, 0.4, 0.3], alpha=1.0).round(3).tolist()
    [0.1, -0.4, 0.0]
    """
    delta = _pair(system, baseline)
    return np.where(delta < 0, (1.0 + alpha) * delta, delta)


def urisk(system: Any, baseline: Any, alpha: float = 1.0) -> float:
    """URisk_α: the mean risk-adjusted delta of a system against a baseline (see the module's formula).

    Parameters
    ----------
    system, baseline : array_like of float
        Per-topic values, aligned.
    alpha : float, default=1.0
        The extra weight of a loss (α ≥ 0).

    Returns
    -------
    float

    Examples
    --------
    >>> round(urisk([0.5, 0.2, 0.3], [0.4, 0.4, 0.3], alpha=1.0), 6)  # (0.1 - 2 * 0.2) / 3
    -0.1
    """
    return float(np.mean(risk_adjusted_deltas(system, baseline, alpha)))


def trisk(system: Any, baseline: Any, alpha: float = 1.0, level: float = TRISK_LEVEL) -> TRisk:
    """TRisk_α: URisk_α over its standard error, with a two-sided p-value (Student's t, c − 1 df).

    Parameters
    ----------
    system, baseline : array_like of float
        Per-topic values on at least two topics, aligned.
    alpha : float, default=1.0
        The extra weight of a loss (α ≥ 0).
    level : float, default=0.05
        The level of the two-sided test: a p-value below it flags the system riskier or safer.

    Returns
    -------
    TRisk

    Raises
    ------
    ValidationError
        Fewer than two topics, mismatched or non-finite values, a negative alpha, or a level outside (0, 1).
    """
    level = _check_level(level)
    adjusted = risk_adjusted_deltas(system, baseline, alpha)
    c = adjusted.size
    if c < 2:
        raise ValidationError(f"TRisk: expected at least 2 topics, found {c}")
    mean = float(np.mean(adjusted))
    sd = float(np.std(adjusted, ddof=1))
    critical = float(stats.t.isf(level / 2.0, c - 1))
    if not sd > 0.0 or sd <= 1e-12 * max(1.0, float(np.max(np.abs(adjusted)))):
        return TRisk(float("nan"), float("nan"), c - 1, mean, "", level, critical)
    statistic = mean / (sd / np.sqrt(c))
    p_value = float(min(1.0, 2.0 * stats.t.sf(abs(statistic), c - 1)))
    flag = "" if not p_value < level else "riskier" if statistic < 0 else "safer"
    return TRisk(float(statistic), p_value, c - 1, mean, flag, level, critical)


def _matrix(values: Any) -> np.ndarray:
    x = np.asarray(values, dtype=float)
    if x.ndim != 2 or x.shape[0] < 1 or x.shape[1] < 1:
        raise ValidationError(f"ZRisk: expected a systems x topics matrix, found shape {x.shape}")
    if not np.isfinite(x).all():
        raise ValidationError("ZRisk: expected finite values, found NaN or infinity")
    if (x < 0).any():
        raise ValidationError(f"ZRisk: expected values >= 0 (effectiveness scores), found {float(x.min())!r}")
    return x


@checked(alpha=_ALPHA)
def zrisk(values: Any, alpha: float = 1.0) -> np.ndarray:
    """ZRisk_α of every system of a systems x topics matrix (Dinçer, Macdonald and Ounis, SIGIR 2016).

    Parameters
    ----------
    values : array_like of float, shape (systems, topics)
        Per-topic values ≥ 0; row i is system i. The baselines are the other rows.
    alpha : float, default=1.0
        The extra weight of a topic where a system does worse than expected (α ≥ 0).

    Returns
    -------
    numpy.ndarray
        One value per system: ``Σ_{z>0} z_ij + (1 + α) Σ_{z<0} z_ij``, ``z_ij = (x_ij − e_ij) / √e_ij``,
        ``e_ij = S_i T_j / N`` (a cell with ``e_ij = 0`` gives ``z_ij = 0``).
    """
    x = _matrix(values)
    rows, cols, total = x.sum(axis=1), x.sum(axis=0), x.sum()
    expected = np.outer(rows, cols) / total if total > 0 else np.zeros_like(x)
    positive = expected > 0
    z = np.zeros_like(x)
    z[positive] = (x[positive] - expected[positive]) / np.sqrt(expected[positive])
    return np.where(z > 0, z, 0.0).sum(axis=1) + (1.0 + alpha) * np.where(z < 0, z, 0.0).sum(axis=1)


def georisk(values: Any, alpha: float = 1.0) -> np.ndarray:
    """GeoRisk_α of every system of a systems x topics matrix: ``√((S_i / c) · Φ(ZRisk_α(i) / c))``.

    Parameters
    ----------
    values : array_like of float, shape (systems, topics)
        Per-topic values ≥ 0; row i is system i.
    alpha : float, default=1.0
        As for :func:`zrisk`.

    Returns
    -------
    numpy.ndarray
        One value per system, between 0 and √(mean value).
    """
    x = _matrix(values)
    c = x.shape[1]
    return np.sqrt(x.sum(axis=1) / c * special.ndtr(zrisk(x, alpha) / c))


@checked(alpha=_ALPHA)
def risk_table(per_query: pd.DataFrame, baseline: str, alpha: float = 1.0,
               measures: Sequence[str] | None = None, level: float = TRISK_LEVEL) -> pd.DataFrame:
    """Every system against the baseline, per measure: URisk, TRisk, its p-value and flag, ZRisk, GeoRisk.

    Parameters
    ----------
    per_query : pandas.DataFrame
        Tidy per-query values (columns system, query, measure, value), as :func:`metrics.evaluate`
        returns them; a row of query ``"all"`` is ignored.
    baseline : str
        The system the others are compared with.
    alpha : float, default=1.0
        The extra weight of a loss (α ≥ 0).
    measures : sequence of str, optional
        The measures to compare (default: every measure of the table, in order of appearance).
    level : float, default=0.05
        The level of TRisk's two-sided test (``flag``: the p-value below it).

    Returns
    -------
    pandas.DataFrame
        One row per (measure, system other than the baseline), the columns of :data:`RISK_COLUMNS`:
        ``weighted_loss_count`` is ``(1 + α)`` times the number of losses (a count, not in the measure's
        units); ``t_critical`` the two-sided critical value of TRisk at ``level`` (``|trisk|`` beyond it
        is ``p_value < level``).
        ZRisk and GeoRisk are computed on the matrix of every system (the baseline included) for the
        measure; they are NaN when a value is negative or when lower values of the measure are better.
        Wins, losses and the risk-adjusted deltas follow the measure's direction (its declaration).

    Raises
    ------
    ValidationError
        An unknown baseline or measure, fewer than two topics, or a system without a value on a topic the
        others have (evaluate with complete topics, trec_eval ``-c``).
    """
    per_query = PerQuery.of(per_query).frame
    frame = per_query[per_query["query"].astype(str) != "all"]
    systems = list(dict.fromkeys(frame["system"]))
    if baseline not in systems:
        raise ValidationError(f"risk: the baseline {baseline!r} is not one of the systems {systems}")
    known = list(dict.fromkeys(frame["measure"]))
    measures = known if measures is None else list(measures)
    rows = []
    for measure in measures:
        if measure not in known:
            raise ValidationError(f"risk: no per-topic values of measure {measure!r}; found {known}")
        wide = frame[frame["measure"] == measure].pivot_table(index="query", columns="system", values="value",
                                                              aggfunc="first")[systems]
        missing = wide.isna().sum()
        if missing.any():
            system = missing.idxmax()
            raise ValidationError(f"risk: {measure}: system {system!r} has no value on {int(missing.max())} "
                                  f"topic(s) the others have; evaluate with complete topics (-c)")
        x = wide.to_numpy(dtype=float).T
        z = g = np.full(len(systems), np.nan)
        if (x >= 0).all() and higher_is_better(measure):
            z, g = zrisk(x, alpha), georisk(x, alpha)
        if not higher_is_better(measure):  # turned round, so that a delta above 0 is a win
            x = -x
        b = x[systems.index(baseline)]
        for i, system in enumerate(systems):
            if system == baseline:
                continue
            delta = x[i] - b
            t = trisk(x[i], b, alpha, level)
            losses = int((delta < 0).sum())
            rows.append((measure, system, baseline, alpha, len(b), int((delta > 0).sum()), int((delta == 0).sum()),
                         losses, (1.0 + alpha) * losses, t.urisk, t.statistic, t.p_value, t.critical, t.flag,
                         float(z[i]),
                         float(g[i])))
    return pd.DataFrame(rows, columns=list(RISK_COLUMNS))
