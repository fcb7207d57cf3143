r"""Prediction-powered estimates: a measure's mean under human judgments, with an automatic judge's help.

When humans judged a few topics and an automatic judge (a language model, a crowd) judged many, the mean
of a measure under the automatic judgments alone is biased by the judge's errors, and the mean under the
human judgments alone rests on few topics. Prediction-powered inference (PPI; Angelopoulos, Bates,
Fannjiang, Jordan and Zrnic, "Prediction-powered inference", Science 382, 2023) uses the topics both judged
to measure the automatic judge's bias and corrects the automatic mean by it; applied to IR evaluation by
Oosterhuis, Jagerman, Qin, Wang and Bendersky ("Reliable confidence intervals for information retrieval
evaluation using generative AI", KDD 2024). Here it works at the level of topics.

The estimator, exactly. For one system and one measure:

* the *labelled* topics ``i = 1..n`` are those the reference (human) set and the automatic set both judged,
  ``Y_i`` the measure under the reference, ``Yhat_i`` under the automatic set;
* the *unlabelled* topics ``j = 1..N`` are those only the automatic set judged, ``Yhat^u_j`` the measure
  under it;
* the estimand is the measure's mean over the population of topics under the reference's judgments. The
  labelled topics must be a uniform random sample of the topics (what the interval assumes; a human
  subset chosen for being easy or hard breaks it).

With a weight ``lambda`` (power tuning),

.. math::

   \hat\theta_\lambda = \frac{1}{N}\sum_j \lambda \hat Y^u_j + \frac{1}{n}\sum_i (Y_i - \lambda \hat Y_i),
   \qquad
   \widehat{se}^2 = \frac{\hat\sigma^2(\lambda \hat Y^u)}{N} + \frac{\hat\sigma^2(Y - \lambda \hat Y)}{n},

``sigma^2`` the variance with divisor the count (``ddof=0``), and the interval ``theta +- z se`` with ``z``
the standard normal quantile of the confidence. ``lambda = 1`` is the original PPI (Angelopoulos et al.,
2023); ``lambda = 0`` the classical interval of the labelled topics alone. By default (``lam=None``) lambda
is tuned as in PPI++ (Angelopoulos, Duchi and Zrnic, "PPI++: Efficient prediction-powered inference",
arXiv:2311.01453, 2023) for the mean:

.. math::

   \hat\lambda = \mathrm{clip}_{[0,1]}\frac{\widehat{\mathrm{Cov}}(Y, \hat Y)}{(1 + n/N)\,\widehat{\mathrm{Var}}(\hat Y \cup \hat Y^u)},

with the covariance over the labelled topics (divisor ``n``) and the variance over labelled and unlabelled
predictions together (divisor ``n + N - 1``). When the automatic values are all equal the variance is 0 and
every lambda gives the same interval; lambda is then 0. These are the numbers of ``ppi_py.ppi_mean_ci``
(``lam=1`` or ``lam=None``) and ``ppi_py.classical_mean_ci``, which the tests check.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from metrics.errors import ValidationError

__all__ = ["Estimate", "classical_mean", "ppi_mean", "ppi_systems"]


@dataclass(frozen=True)
class Estimate:
    """A mean with its normal confidence interval.

    Attributes
    ----------
    mean : float
    low, high : float
        The interval's bounds.
    std_error : float
    n : int
        Labelled topics (or all topics, for a classical mean).
    unlabelled : int
        Unlabelled topics (0 for a classical mean).
    lam : float
        The power-tuning weight used (NaN for a classical mean).
    """

    mean: float
    low: float
    high: float
    std_error: float
    n: int
    unlabelled: int = 0
    lam: float = float("nan")


def _z(confidence: float) -> float:
    from scipy.stats import norm

    if not 0.0 < confidence < 1.0:
        raise ValidationError(f"confidence: expected a number above 0 and below 1, found {confidence!r}")
    return float(norm.ppf(0.5 + confidence / 2.0))


def _vector(values, what: str) -> np.ndarray:
    v = np.asarray(values, dtype=np.float64)
    if v.ndim != 1:
        raise ValidationError(f"{what}: expected one value per topic, found shape {v.shape}")
    if not np.all(np.isfinite(v)):
        raise ValidationError(f"the {what} values: expected finite numbers, found NaN or infinity")
    return v


def classical_mean(values, *, confidence: float = 0.95) -> Estimate:
    """The mean of ``values`` with the normal interval ``mean +- z sigma / sqrt(n)`` (``sigma`` with ``ddof=0``).

    Examples
    --------
    >>> e = classical_mean([0.2, 0.4, 0.6, 0.8])
    >>> round(e.mean, 6), round(e.low, 6), round(e.high, 6)
    (0.5, 0.280869, 0.719131)
    """
    v = _vector(values, "labelled")
    if v.size < 2:
        raise ValidationError(f"a confidence interval: expected at least two topics, found {v.size}")
    z, mean = _z(confidence), float(v.mean())
    se = float(v.std() / np.sqrt(v.size))
    return Estimate(mean=mean, low=mean - z * se, high=mean + z * se, std_error=se, n=int(v.size))


def _tuned_lambda(y: np.ndarray, yhat: np.ndarray, unlabelled: np.ndarray) -> float:
    n, big_n = y.size, unlabelled.size
    covariance = float(np.mean((y - y.mean()) * (yhat - yhat.mean())))
    variance = float(np.var(np.concatenate([yhat, unlabelled]), ddof=1))
    if not variance > 0:
        return 0.0
    return float(np.clip(covariance / ((1.0 + n / big_n) * variance), 0.0, 1.0))


def ppi_mean(labelled, predicted, unlabelled, *, confidence: float = 0.95, lam: float | None = None) -> Estimate:
    """The prediction-powered mean and interval (see the module's notes for the formulas).

    Parameters
    ----------
    labelled : array-like
        ``Y``: the measure under the reference (human) judgments, one value per labelled topic.
    predicted : array-like
        ``Yhat``: the measure under the automatic judgments on the same topics, in the same order.
    unlabelled : array-like
        ``Yhat^u``: the measure under the automatic judgments on the topics only they judged.
    confidence : float, default=0.95
    lam : float, optional
        The power-tuning weight in [0, 1]; None tunes it (PPI++), 1 is the original PPI.

    Returns
    -------
    Estimate

    Raises
    ------
    ValidationError
        Fewer than two labelled topics or no unlabelled one, ``predicted`` not aligned with ``labelled``,
        or ``lam`` outside [0, 1].

    Examples
    --------
    >>> e = ppi_mean([0.5, 0.7, 0.2], [0.6, 0.9, 0.2], [0.4, 0.8, 0.3, 0.5], lam=1.0)
    >>> round(e.mean, 6), round(e.low, 6), round(e.high, 6)
    (0.4, 0.194697, 0.605303)
    """
    y, yhat, u = _vector(labelled, "labelled"), _vector(predicted, "predicted"), _vector(unlabelled, "unlabelled")
    if y.size != yhat.size:
        raise ValidationError(f"expected one prediction per labelled topic, found {y.size} labelled and "
                              f"{yhat.size} predicted values")
    if y.size < 2 or u.size < 1:
        raise ValidationError(f"a prediction-powered interval: expected at least two labelled topics and one "
                              f"unlabelled topic, found {y.size} and {u.size}")
    if lam is None:
        lam = _tuned_lambda(y, yhat, u)
    elif not 0.0 <= float(lam) <= 1.0:
        raise ValidationError(f"lam: expected a number from 0 to 1 (or None to tune it), found {lam!r}")
    lam, z = float(lam), _z(confidence)
    rectifier = y - lam * yhat
    mean = float(np.mean(lam * u) + np.mean(rectifier))
    se = float(np.sqrt(np.var(lam * u) / u.size + np.var(rectifier) / y.size))
    return Estimate(mean=mean, low=mean - z * se, high=mean + z * se, std_error=se, n=int(y.size),
                    unlabelled=int(u.size), lam=lam)


_PPI_COLUMNS = ["measure", "system", "labelled", "unlabelled", "ppi", "ppi_low", "ppi_high", "lam", "human",
                "human_low", "human_high", "automatic", "automatic_low", "automatic_high"]


def ppi_systems(per_query: pd.DataFrame, reference: str, automatic: str, measures: Sequence[str], *,
                confidence: float = 0.95, lam: float | None = None) -> pd.DataFrame:
    """Each system's prediction-powered mean of each measure, beside the two naive ones.

    Parameters
    ----------
    per_query : pandas.DataFrame
        As :func:`metrics.judgments.systems.evaluate_sets` returns it with ``topics="each"`` (each set on all
        its topics).
    reference : str
        The human set (few topics).
    automatic : str
        The automatic set (many topics).
    measures : sequence of str
    confidence : float, default=0.95
    lam : float, optional
        See :func:`ppi_mean`.

    Returns
    -------
    pandas.DataFrame
        One row per measure and system: ``labelled`` and ``unlabelled`` topics, ``ppi`` with ``ppi_low``,
        ``ppi_high`` and ``lam``; ``human`` (the classical interval of the reference on the labelled topics)
        and ``automatic`` (the classical interval of the automatic set on all its topics: narrow, but around
        the automatic judge's mean, not the humans'). NaN where the topics are too few.
    """
    rows = []
    for measure in measures:
        part = per_query[per_query["measure"] == measure]
        ref = part[part["judges"] == reference].set_index(["system", "query"])["value"]
        auto = part[part["judges"] == automatic].set_index(["system", "query"])["value"]
        for system in pd.unique(auto.index.get_level_values("system")):
            yhat_all = auto.xs(system, level="system")
            has_ref = system in ref.index.get_level_values("system")
            y_all = ref.xs(system, level="system") if has_ref else pd.Series(dtype=np.float64)
            both = yhat_all.index.intersection(y_all.index)
            only = yhat_all.index.difference(y_all.index)
            row = dict.fromkeys(_PPI_COLUMNS, np.nan)
            row.update(measure=measure, system=system, labelled=len(both), unlabelled=len(only))
            if len(both) >= 2 and len(only) >= 1:
                e = ppi_mean(y_all.loc[both], yhat_all.loc[both], yhat_all.loc[only], confidence=confidence, lam=lam)
                row.update(ppi=e.mean, ppi_low=e.low, ppi_high=e.high, lam=e.lam)
            if len(both) >= 2:
                h = classical_mean(y_all.loc[both], confidence=confidence)
                row.update(human=h.mean, human_low=h.low, human_high=h.high)
            if len(yhat_all) >= 2:
                a = classical_mean(yhat_all, confidence=confidence)
                row.update(automatic=a.mean, automatic_low=a.low, automatic_high=a.high)
            rows.append(row)
    return pd.DataFrame(rows, columns=_PPI_COLUMNS)
