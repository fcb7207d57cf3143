"""A linear mixed model with random topics and random seeds, for two systems of several runs each.

A neural system trained with three seeds is one system with three runs. A paired test on one of its runs,
or on its runs averaged topic by topic, ignores that a new seed would give another number. The model here
(one measure; system ``s``, its run ``i``, topic ``t``)::

    y_sit = mu_s + u_t + w_st + v_si + e_sit,
    u_t ~ N(0, var_topic), w_st ~ N(0, var_topic_system), v_si ~ N(0, var_seed), e_sit ~ N(0, var_residual)

has the topics crossed with the systems and the runs nested in their system. It is statsmodels'
``MixedLM`` fit of ``y ~ system`` in one group with the variance components ``0 + C(topic)``,
``0 + C(topic):C(system)`` and ``0 + C(run)``, by REML; the tests check the estimates and the p-values
against it.

When every run answers the same ``n`` topics (:func:`mixed_model_test` asks for that), the estimate of
``mu_b - mu_a`` is the difference of the two systems' grand means (the layout is balanced, so generalised
and ordinary least squares agree), with variance::

    (2 var_topic_system + var_residual (1/k_a + 1/k_b)) / n + var_seed (1/k_a + 1/k_b)

for ``k_a`` and ``k_b`` runs, and the test is the Wald z test ``MixedLM`` reports: ``z = difference / SE``,
two-sided, standard normal reference.

Why this model: the seed-to-seed variance enters the standard error (a paired test on seed-averaged values
leaves out the part of it shared by all topics of a run), the topics stay paired, and it is the layout
repeated training gives. The normal reference is liberal with few runs (the seed variance then rests on
``k_a + k_b - 2`` degrees of freedom); each result says how many runs and topics it used.

The fit is exact and linear in the data, not ``MixedLM``'s dense matrices (``MixedLM`` in one group holds
an observations-by-observations matrix: 10 seeds of two systems on 7,000 topics would need 150 GB). In a
balanced layout the REML likelihood is that of three independent parts (:func:`_reml_parts`): the run-by-
topic residual sum of squares, the runs' sum of squares around their system's mean, and the 2x2 cross-
product of the systems' centred topic means (Wishart, ``n - 1`` degrees of freedom). The four variances
maximise it under bounds (L-BFGS-B with the exact gradient), from the moment estimates.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import optimize, stats

from metrics.errors import ValidationError

__all__ = ["SeededTest", "mixed_model_test"]

_TINY = 1e-10
"""The lowest residual variance of the scaled data (the likelihood is undefined at 0)."""


@dataclass(frozen=True)
class SeededTest:
    """The mixed-model comparison of two systems of several runs (see :func:`mixed_model_test`).

    Attributes
    ----------
    difference : float
        ``mean_b - mean_a``: the difference of the systems' means over their runs and the topics.
    se : float
        Its standard error under the REML variances.
    statistic : float
        ``difference / se`` (Wald z); NaN when ``se`` is 0.
    p_value : float
        Two-sided, standard normal reference; NaN when ``se`` is 0.
    mean_a, mean_b : float
        Each system's mean over its runs and the topics.
    runs_a, runs_b, topics : int
        The runs of each system and the topics compared.
    var_topic, var_topic_system, var_seed, var_residual : float
        The REML estimates of the four variances.
    """

    difference: float
    se: float
    statistic: float
    p_value: float
    mean_a: float
    mean_b: float
    runs_a: int
    runs_b: int
    topics: int
    var_topic: float
    var_topic_system: float
    var_seed: float
    var_residual: float


def mixed_model_test(a, b) -> SeededTest:
    """Compare two systems of several runs on the same topics: a linear mixed model, topics and runs random.

    Parameters
    ----------
    a, b : array-like of float, shape (runs, topics)
        One row per run, one column per topic, the same topics in the same order in both.

    Returns
    -------
    SeededTest

    Raises
    ------
    ValidationError
        Not two 2-D arrays with the same topics, fewer than two topics, no system with two runs (then there
        is no seed variance to estimate: use a paired test), or values that are not finite.

    Notes
    -----
    The model and its fit are described in :mod:`metrics.stats.mixed`; the result is statsmodels'
    ``MixedLM`` REML fit of ``y ~ system`` with variance components for topic, topic x system and run.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> topics = rng.normal(0.5, 0.2, 30)
    >>> a = topics + rng.normal(0, 0.05, (3, 30))
    >>> b = topics + 0.1 + rng.normal(0, 0.05, (3, 30))
    >>> result = mixed_model_test(a, b)
    >>> round(result.difference, 3), result.p_value < 0.001
    (0.088, True)
    """
    a, b = (np.asarray(x, dtype=np.float64) for x in (a, b))
    if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[1]:
        raise ValidationError(f"expected two (runs, topics) arrays with the same topics, found shapes {a.shape} "
                              f"and {b.shape}")
    n, ka, kb = a.shape[1], a.shape[0], b.shape[0]
    if n < 2:
        raise ValidationError(f"the mixed-model test needs at least 2 topics answered by every run, found {n}")
    if min(ka, kb) < 1 or max(ka, kb) < 2:
        raise ValidationError(f"the mixed-model test needs a system with at least 2 runs (seeds), found {ka} and "
                              f"{kb}; for one run each use a paired test")
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise ValidationError("the mixed-model test needs finite values")
    scale = float(np.concatenate([a.ravel(), b.ravel()]).std()) or 1.0
    parts = _reml_parts(a / scale, b / scale)
    topic, inter, seed, resid = (float(v) * scale ** 2 for v in _fit(parts, n, ka, kb))
    share = 1.0 / ka + 1.0 / kb
    se = float(np.sqrt((2.0 * inter + resid * share) / n + seed * share))
    difference = float(b.mean() - a.mean())
    statistic = difference / se if se > 0 else float("nan")
    p_value = float(2.0 * stats.norm.sf(abs(statistic))) if se > 0 else float("nan")
    return SeededTest(difference=difference, se=se, statistic=statistic, p_value=p_value, mean_a=float(a.mean()),
                      mean_b=float(b.mean()), runs_a=ka, runs_b=kb, topics=n, var_topic=topic,
                      var_topic_system=inter, var_seed=seed, var_residual=resid)


def _reml_parts(a: np.ndarray, b: np.ndarray) -> tuple:
    """The sufficient statistics of the REML likelihood: residual, seed and topic parts, with their dfs.

    With each system's topic means ``m_s``, run means ``r_s`` and grand mean ``g_s``, the error contrasts
    split into independent parts: the run-by-topic residual (sum of squares ``ss_e``, expectation
    ``var_residual`` per degree of freedom), the runs around their system's mean (``ss_seed``,
    ``var_residual + n var_seed``), and the topics' centred mean vectors ``(m_a - g_a, m_b - g_b)`` whose
    2x2 cross-product ``S`` is Wishart with ``n - 1`` degrees of freedom and covariance
    ``[[T + TS + E/k_a, T], [T, T + TS + E/k_b]]``.
    """
    ss_e = ss_seed = 0.0
    centred = []
    for y in (a, b):
        grand = y.mean()
        runs, topics = y.mean(axis=1), y.mean(axis=0)
        ss_e += float(((y - topics[None, :] - runs[:, None] + grand) ** 2).sum())
        ss_seed += float(y.shape[1] * ((runs - grand) ** 2).sum())
        centred.append(topics - grand)
    d = np.vstack(centred)
    n, ka, kb = a.shape[1], a.shape[0], b.shape[0]
    return ss_e, (ka + kb - 2) * (n - 1), ss_seed, ka + kb - 2, d @ d.T, n - 1


def _objective(theta: np.ndarray, parts: tuple, n: int, ka: int, kb: int) -> tuple[float, np.ndarray]:
    """Minus twice the REML log-likelihood (constants dropped) at ``theta = (T, TS, seed, E)``, and its gradient."""
    ss_e, df_e, ss_seed, df_seed, s, df_t = parts
    topic, inter, seed, resid = theta
    lam = resid + n * seed
    value = df_e * np.log(resid) + ss_e / resid + df_seed * np.log(lam) + ss_seed / lam
    dlam = df_seed / lam - ss_seed / lam ** 2
    grad = np.array([0.0, 0.0, n * dlam, df_e / resid - ss_e / resid ** 2 + dlam])
    sigma = np.array([[topic + inter + resid / ka, topic], [topic, topic + inter + resid / kb]])
    det = sigma[0, 0] * sigma[1, 1] - sigma[0, 1] ** 2
    inv = np.array([[sigma[1, 1], -sigma[0, 1]], [-sigma[0, 1], sigma[0, 0]]]) / det
    value += df_t * np.log(det) + float(np.sum(inv * s))
    g = df_t * inv - inv @ s @ inv
    grad += [g.sum(), g[0, 0] + g[1, 1], 0.0, g[0, 0] / ka + g[1, 1] / kb]
    return float(value), grad


def _fit(parts: tuple, n: int, ka: int, kb: int) -> np.ndarray:
    """The REML variances ``(T, TS, seed, E)`` of scaled data: bounded quasi-Newton from the moment estimates."""
    ss_e, df_e, ss_seed, df_seed, s, df_t = parts
    resid = max(ss_e / df_e, _TINY)
    seed = max((ss_seed / df_seed - resid) / n, 0.0)
    cov = s / df_t
    topic = max(cov[0, 1], 0.0)
    inter = max((cov[0, 0] + cov[1, 1]) / 2 - topic - resid * (1 / ka + 1 / kb) / 2, 0.0)
    start = np.array([topic, inter, seed, resid]) + 0.01
    bounds = [(0.0, None), (0.0, None), (0.0, None), (_TINY, None)]
    found = optimize.minimize(_objective, start, args=(parts, n, ka, kb), jac=True, method="L-BFGS-B",
                              bounds=bounds, options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 2000})
    return np.asarray(found.x, dtype=np.float64)
