"""Statistical power and topic-set size, after Sakai's "Topic set size design" (IRJ 19(3), 2016).

Two questions about a test collection, from the per-topic scores of the runs already evaluated:

* with the topics we have, what is the smallest difference a test detects with probability ``1 - beta``
  at level ``alpha`` (the *minimum detectable effect*)?
* how many topics would a test need to detect a given difference?

Two designs, as Sakai's Excel tools:

* **paired t-test** (two systems): the power of the two-sided test at ``n`` topics and standardised
  effect ``d = delta / sigma_d`` is ``P(|T'| >= t_{1-alpha/2; n-1})`` with ``T'`` the noncentral t on
  ``n - 1`` degrees of freedom and noncentrality ``sqrt(n) d``;
* **one-way ANOVA** (``m`` systems): the smallest range ``delta`` between the best and the worst system
  is standardised by the within-system standard deviation, ``Delta = delta / sigma``; the worst case for
  the test puts two systems at ``±delta/2`` and the rest at the mean, so the noncentrality is
  ``lambda = n Delta**2 / 2`` and the power ``P(F' >= F_{1-alpha; m-1, m(n-1)})`` with ``F'`` the
  noncentral F. In Cohen's terms, ``f**2 = Delta**2 / (2 m)`` and ``lambda = f**2 m n``.

**Which variance.** Sakai (2016) estimates the within-system variance ``sigma**2`` from a topic-by-run
matrix and takes the paired-difference variance as ``sigma_d**2 = 2 sigma**2``. Two estimates:

* ``variance="residual"`` (the default): the residual variance ``V_E`` of the two-way (system x topic, no
  interaction) ANOVA, the variance left once the topics' difficulty is removed, which is what a paired
  design (every system on the same topics) sees. It is also the paired-difference estimate: on a complete
  systems x topics table the mean, over every pair of systems, of the sample variance (ddof=1) of the
  pair's per-topic differences is exactly ``2 V_E`` (an identity of the sums of squares, not an
  approximation), so a third choice "paired" would only repeat this one (:func:`topic_variances` returns
  that mean beside ``V_E`` as a check);
* ``variance="within"``: the pooled within-system variance of the one-way ANOVA,
  ``sum_st (x_st - xbar_s.)**2 / (m (n - 1))`` (topic difficulty included), as Sakai's IRJ 2016 paper
  does for its tools: larger, so more topics (conservative for paired data).

**Post hoc power.** :func:`pair_power` gives each pair the power of the paired t-test at that pair's own
observed standardised effect, its mean difference over the standard deviation of its differences (Cohen's
``d_z``). This *post hoc* (observed) power is a function of the pair's p-value alone (Hoenig and Heisey,
"The abuse of power", The American Statistician 55(1), 2001): a pair that is not significant always has
low post hoc power, so it says nothing the p-value does not. Plan with the minimum detectable effect and
the topics needed instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from metrics.checks import LEVEL, Integer, Number, Options, check, checked, refuse
from metrics.errors import ValidationError

__all__ = ["MAX_TOPICS", "VARIANCES", "PowerAnalysis", "anova_min_range", "anova_power", "anova_topics",
           "design_names", "pair_power", "power_analysis", "t_min_effect", "t_power", "t_topics", "topic_variances"]

VARIANCES = ("residual", "within")
"""How the per-topic variance is estimated (see the module's notes)."""

MAX_TOPICS = 10_000_000
"""The largest number of topics a search for a topic-set size considers."""


_TOPICS = Integer(2)
_SYSTEMS = Integer(2, label="m (systems)")
_EFFECT = Number()
_NONZERO = Number(0, closed="neither")  # the size of an effect whose sign does not matter


def _size(effect: float) -> float:
    """``|effect|``, refused when it is 0 (no number of topics detects no difference)."""
    return check("effect", abs(effect), _NONZERO)


@checked(effect=_EFFECT, n=_TOPICS, alpha=LEVEL)
def t_power(effect: float, n: int, alpha: float = 0.05) -> float:
    """Power of the two-sided paired t-test at standardised effect ``effect`` (``delta / sigma_d``).

    Parameters
    ----------
    effect : float
        The difference to detect over the standard deviation of the differences (Cohen's ``d_z``);
        its sign does not matter.
    n : int
        Topics (at least 2).
    alpha : float, default=0.05

    Returns
    -------
    float
        ``P(T' >= c) + P(T' <= -c)``, ``c = t_{1-alpha/2; n-1}``, ``T'`` noncentral t with ``n - 1``
        degrees of freedom and noncentrality ``sqrt(n) effect``.
    """
    from scipy import stats

    crit = stats.t.isf(alpha / 2.0, n - 1)
    nc = np.sqrt(n) * abs(float(effect))
    upper = stats.nct.sf(crit, n - 1, nc)
    if np.isnan(upper):
        upper = 1.0 - stats.nct.cdf(crit, n - 1, nc)
    lower = stats.nct.cdf(-crit, n - 1, nc)
    if np.isnan(lower):  # scipy's noncentral t fails at some points far in the tail
        lower = stats.nct.sf(crit, n - 1, -nc)
    if np.isnan(lower):  # P(T' <= -c) <= P(T' <= 0) = Phi(-nc)
        lower = 0.0 if stats.norm.cdf(-nc) < 1e-15 else float("nan")
    return float(upper + lower)


@checked(effect=_EFFECT, alpha=LEVEL, power=LEVEL)
def t_topics(effect: float, alpha: float = 0.05, power: float = 0.8) -> int:
    """The fewest topics for which the paired t-test reaches ``power`` at standardised ``effect``."""
    effect = _size(effect)
    return _smallest(lambda n: t_power(effect, n, alpha) >= power, 2)


@checked(n=_TOPICS, alpha=LEVEL, power=LEVEL)
def t_min_effect(n: int, alpha: float = 0.05, power: float = 0.8) -> float:
    """The smallest standardised effect the paired t-test detects with ``power`` at ``n`` topics."""
    from scipy import optimize

    if power <= alpha:
        raise ValidationError(f"power must exceed alpha, got power {power} and alpha {alpha}")
    high = 1.0
    while t_power(high, n, alpha) < power:
        high *= 2.0
    return float(optimize.brentq(lambda d: t_power(d, n, alpha) - power, 0.0, high, xtol=1e-12, rtol=1e-12))


@checked(effect=_EFFECT, m=_SYSTEMS, n=_TOPICS, alpha=LEVEL)
def anova_power(effect: float, m: int, n: int, alpha: float = 0.05) -> float:
    """Power of the one-way ANOVA of ``m`` systems on ``n`` topics each, at standardised range ``effect``.

    Parameters
    ----------
    effect : float
        ``Delta = delta / sigma``: the range between the best and worst system over the within-system
        standard deviation.
    m : int
        Systems (at least 2).
    n : int
        Topics (at least 2).
    alpha : float, default=0.05

    Returns
    -------
    float
        ``P(F' >= F_{1-alpha; m-1, m(n-1)})``, noncentrality ``n effect**2 / 2``.
    """
    from scipy import stats

    df1, df2 = m - 1, m * (n - 1)
    crit = stats.f.isf(alpha, df1, df2)
    return float(stats.ncf.sf(crit, df1, df2, n * float(effect) ** 2 / 2.0))


@checked(effect=_EFFECT, m=_SYSTEMS, alpha=LEVEL, power=LEVEL)
def anova_topics(effect: float, m: int, alpha: float = 0.05, power: float = 0.8) -> int:
    """The fewest topics for which the one-way ANOVA of ``m`` systems reaches ``power`` at range ``effect``."""
    effect = _size(effect)
    return _smallest(lambda n: anova_power(effect, m, n, alpha) >= power, 2)


@checked(m=_SYSTEMS, n=_TOPICS, alpha=LEVEL, power=LEVEL)
def anova_min_range(m: int, n: int, alpha: float = 0.05, power: float = 0.8) -> float:
    """The smallest standardised range ``Delta`` the one-way ANOVA of ``m`` systems detects at ``n`` topics."""
    from scipy import optimize

    if power <= alpha:
        raise ValidationError(f"power must exceed alpha, got power {power} and alpha {alpha}")
    high = 1.0
    while anova_power(high, m, n, alpha) < power:
        high *= 2.0
    return float(optimize.brentq(lambda d: anova_power(d, m, n, alpha) - power, 0.0, high, xtol=1e-12, rtol=1e-12))


def design_names(variance: str) -> tuple[str, str]:
    """The names of the two designs of :func:`power_analysis` under ``variance`` (:data:`VARIANCES`).

    The ANOVA's power is the one-way ANOVA's (its degrees of freedom ``m - 1`` and ``m (n - 1)``); with the
    ``"residual"`` variance it is given the two-way ANOVA's residual variance instead of its own within-system
    one, and its name says so.

    Examples
    --------
    >>> design_names("residual")
    ('paired t', 'one-way ANOVA, two-way residual variance')
    >>> design_names("within")
    ('paired t', 'one-way ANOVA')
    """
    check("variance", variance, Options(*VARIANCES))
    return "paired t", "one-way ANOVA" if variance == "within" else "one-way ANOVA, two-way residual variance"


def _smallest(reached, low: int) -> int:
    """The smallest integer ``n >= low`` with ``reached(n)`` (power grows with n): doubling, then bisection."""
    if reached(low):
        return low
    high = low * 2
    while not reached(high):
        if high > MAX_TOPICS:
            raise ValidationError(f"more than {MAX_TOPICS} topics would be needed: the effect is too small")
        low, high = high, high * 2
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (low, mid) if reached(mid) else (mid, high)
    return high


def _matrix(per_query: pd.DataFrame, measure: str, systems: Sequence[str] | None) -> tuple[np.ndarray, list[str]]:
    """Systems x topics scores of one measure (every system on the same topics)."""
    from metrics.stats.significance._many import score_table

    if not isinstance(per_query, pd.DataFrame) or not {"system", "query", "measure", "value"} <= set(per_query):
        raise ValidationError("expected a per-query table with columns system, query, measure, value")
    rows = per_query[per_query["measure"].astype(str) == str(measure)]
    if rows.empty:
        raise ValidationError(f"no values of measure {measure!r} in the table; it has "
                              f"{sorted(per_query['measure'].astype(str).unique().tolist())}")
    rows = rows.assign(system=rows["system"].astype(str))
    present = list(pd.unique(rows["system"]))
    names = present if systems is None else [str(s) for s in systems]
    unknown = [s for s in names if s not in present]
    if unknown:
        raise ValidationError(f"no {measure} values for system(s) {unknown}; the table has {present}")
    X, _ = score_table(rows[rows["system"].isin(names)], str(measure), names, None)
    if X.shape[1] < 2:
        raise ValidationError(f"power needs at least two topics; {measure} has {X.shape[1]}")
    return X, names


def topic_variances(scores: Any) -> tuple[float, float, float]:
    """The residual and within-system variances of a systems x topics table, and the mean paired-difference
    variance.

    Parameters
    ----------
    scores : array-like of shape (m systems, n topics)

    Returns
    -------
    residual, paired, within : float
        ``V_E = sum (x_st - xbar_s. - xbar_.t + xbar_..)**2 / ((m - 1)(n - 1))``; the mean over the
        pairs of systems of the sample variance (ddof=1) of their per-topic differences, which equals
        ``2 V_E`` on every complete table (the module's notes); and ``sum (x_st - xbar_s.)**2 / (m (n - 1))``.
    """
    X = np.asarray(scores, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] < 2 or X.shape[1] < 2:
        raise ValidationError(f"expected a systems x topics table with at least 2 x 2 scores, got shape {X.shape}")
    if not np.all(np.isfinite(X)):
        raise ValidationError("scores: expected finite numbers, found NaN or infinity")
    m, n = X.shape
    residual = X - X.mean(axis=1, keepdims=True) - X.mean(axis=0, keepdims=True) + X.mean()
    v_e = float((residual ** 2).sum() / ((m - 1) * (n - 1)))
    i, j = np.triu_indices(m, 1)
    paired = float(np.var(X[j] - X[i], axis=1, ddof=1).mean())
    within = float(((X - X.mean(axis=1, keepdims=True)) ** 2).sum() / (m * (n - 1)))
    return v_e, paired, within


@dataclass(frozen=True, eq=False)
class PowerAnalysis:
    """Topic-set size and power of one measure (see :func:`power_analysis`).

    Attributes
    ----------
    measure : str
    variance : str
        ``"residual"`` or ``"within"``: which estimate ``sigma2`` comes from.
    sigma2 : float
        Within-system variance ``sigma**2`` (the paired-difference variance is ``2 sigma2``).
    n_topics, n_systems : int
        Of the runs analysed.
    alpha, power : float
    summary : pandas.DataFrame
        One row per design (:func:`design_names`: the paired t-test, and the one-way ANOVA, named with the
        variance it is given when that is not its own): ``design``, ``systems``, ``topics``,
        ``min_effect`` (in the measure's units: a mean difference for the t-test, a range for the ANOVA),
        ``min_effect_std`` (standardised), ``effect`` (the ``effect`` asked, or NaN), ``topics_needed``
        (for it, or NaN).
    pairs : pandas.DataFrame
        One row per pair: ``system_a``, ``system_b``, ``mean_diff`` (b - a), ``sd_diff``, ``effect_size``
        (``d_z``), ``post_hoc_power`` (at the pair's observed ``d_z`` and ``alpha``; a function of its
        p-value, see the module's notes; not the ``power`` aimed at).
    """

    measure: str
    variance: str
    sigma2: float
    n_topics: int
    n_systems: int
    alpha: float
    power: float
    summary: pd.DataFrame
    pairs: pd.DataFrame


@checked(alpha=LEVEL)
def pair_power(scores: Any, systems: Sequence[str], alpha: float = 0.05) -> pd.DataFrame:
    """The post hoc power of the paired t-test of every pair of rows of a systems x topics table.

    Post hoc (observed) power adds nothing to the pair's p-value, of which it is a function (see the
    module's notes); it is given for readers who ask for it. Each pair's effect is its own ``d_z`` (mean
    difference over the standard deviation of the differences, ddof=1); a pair with constant differences
    has ``d_z`` infinite (power 1) or NaN (0/0, identical systems: power NaN).
    """
    X = np.asarray(scores, dtype=np.float64)
    names = np.asarray([str(s) for s in systems], dtype=object)
    i, j = np.triu_indices(X.shape[0], 1)
    D = X[j] - X[i]
    mean, sd = D.mean(axis=1), D.std(axis=1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        dz = mean / sd
    power = [float("nan") if np.isnan(e) else 1.0 if np.isinf(e) else t_power(float(e), X.shape[1], alpha)
             for e in dz]
    return pd.DataFrame({"system_a": names[i], "system_b": names[j], "mean_diff": mean, "sd_diff": sd,
                         "effect_size": dz, "post_hoc_power": np.asarray(power, dtype=np.float64)})


@checked(alpha=LEVEL, power=LEVEL, effect=Number(0, closed="neither", none=True),
         n_systems=Integer(2, none=True, label="systems"))
def power_analysis(per_query: pd.DataFrame, measure: str, *, alpha: float = 0.05, power: float = 0.8,
                   effect: float | None = None, systems: Sequence[str] | None = None,
                   n_systems: int | None = None, variance: str = "residual") -> PowerAnalysis:
    """Minimum detectable effects, topics needed and each pair's post hoc power, from the runs' per-topic scores.

    Parameters
    ----------
    per_query : pandas.DataFrame
        Columns ``system``, ``query``, ``measure``, ``value`` (:func:`metrics.evaluate`); every system
        must have a value for every topic.
    measure : str
    alpha : float, default=0.05
    power : float, default=0.8
        The power ``1 - beta`` aimed at.
    effect : float, optional
        A difference in the measure's units (e.g. 0.02 of AP): the topics needed to detect it, as a
        paired difference (t-test) and as the range of ``n_systems`` systems (ANOVA).
    systems : sequence of str, optional
        The runs whose variance is used (default: all).
    n_systems : int, optional
        Systems of the ANOVA design (default: the number analysed).
    variance : {"residual", "within"}, default="residual"
        See the module's notes (the mean variance of the pairs' differences is ``2`` x ``"residual"``).

    Returns
    -------
    PowerAnalysis

    Raises
    ------
    ValidationError
        Fewer than two systems or topics, topics missing for a system, a bad level or effect, a
        variance of zero.
    """
    if power <= alpha:
        raise ValidationError(f"power must exceed alpha, got power {power} and alpha {alpha}")
    if variance == "paired":
        raise ValidationError("variance 'paired' is 'residual': on a complete systems x topics table the mean "
                              "variance of the pairs' differences is exactly 2 x the residual variance; "
                              "choose 'residual' or 'within'")
    check("variance", variance, Options(*VARIANCES))
    X, names = _matrix(per_query, measure, systems)
    if len(names) < 2:
        raise refuse("systems", "at least two systems (power compares pairs)", names)
    m_design = len(names) if n_systems is None else n_systems
    v_e, _, v_w = topic_variances(X)
    sigma2 = {"residual": v_e, "within": v_w}[variance]
    if not sigma2 > 0:
        raise ValidationError(f"the per-topic variance of {measure} is 0: the systems differ by a constant")
    sigma, sigma_d, n = np.sqrt(sigma2), np.sqrt(2.0 * sigma2), X.shape[1]
    d_t, d_f = t_min_effect(n, alpha, power), anova_min_range(m_design, n, alpha, power)
    need_t = float(t_topics(effect / sigma_d, alpha, power)) if effect is not None else np.nan
    need_f = float(anova_topics(effect / sigma, m_design, alpha, power)) if effect is not None else np.nan
    summary = pd.DataFrame({"design": list(design_names(variance)), "systems": [2, m_design], "topics": [n, n],
                            "min_effect": [d_t * sigma_d, d_f * sigma], "min_effect_std": [d_t, d_f],
                            "effect": [np.nan if effect is None else effect] * 2,
                            "topics_needed": [need_t, need_f]})
    return PowerAnalysis(measure=str(measure), variance=variance, sigma2=float(sigma2), n_topics=n,
                         n_systems=len(names), alpha=alpha, power=power, summary=summary,
                         pairs=pair_power(X, names, alpha))
