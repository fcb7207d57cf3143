"""Paired tests of two systems: t, Wilcoxon signed-rank, sign, randomisation and bootstrap."""

from __future__ import annotations

from typing import Any

from metrics.errors import ValidationError
from metrics.stats.significance._inputs import (TEST_ALIASES, TESTS, canonical, check_options, check_testable,
                                                pair_differences)
from metrics.stats.significance._kernels import analyse
from metrics.stats.significance._results import TestResult


def paired_test(a: Any, b: Any, test: str = "t", *, zero_method: str = "wilcox", method: str = "auto",
                n_resamples: int = 10000, seed: int = 0, ci: str = "bca", confidence: float = 0.95,
                tie_tolerance: float = 0.0, fill: str | None = None) -> TestResult:
    """Paired test of two systems' per-query scores.

    Parameters
    ----------
    a, b : array-like or pandas.Series
        Per-query scores: two aligned 1-D arrays, or two Series indexed by query id (joined on the id
        with :func:`align_scores` and put in order of query id). The differences tested are ``b - a``.
    test : {"t", "wilcoxon", "sign", "permutation", "bootstrap"}, default="t"
        See :func:`t_test`, :func:`wilcoxon_test`, :func:`sign_test`, :func:`permutation_test`,
        :func:`bootstrap_test`; ``randomization`` and ``randomisation`` mean ``permutation``.
    zero_method : {"wilcox", "pratt", "zsplit"}, default="wilcox"
        Wilcoxon's treatment of zero differences.
    method : {"auto", "exact", "asymptotic"}, default="auto"
        Wilcoxon's exact or approximate p-value.
    n_resamples : int, default=10000
        Random resamples of the permutation and bootstrap tests.
    seed : int, default=0
        Seed of the permutation and bootstrap tests.
    ci : {"bca", "percentile"}, default="bca"
        The bootstrap test's interval.
    confidence : float, default=0.95
        Coverage of the interval of the mean difference.
    tie_tolerance : float, default=0.0
        Differences with ``|d| <= tie_tolerance`` are ties: in the win/tie/loss counts and the sign test.
    fill : {None, "zero"}, default=None
        For Series: score a query missing from one side 0 instead of raising (trec_eval ``-c``).

    Returns
    -------
    TestResult

    Raises
    ------
    ValidationError
        Fewer than two queries, non-finite scores, different query sets, every difference zero (the
        systems are identical on these queries: there is nothing to test), for the t-test every
        difference the same (the t statistic is undefined), or a bad option.

    Notes
    -----
    The differences are ``d_i = b_i - a_i``. Whether a difference is 0, whether two are tied (in ranks,
    wins and ties) and whether all are equal is decided on the differences rounded to multiples of
    ``2**-40`` times the largest ``|score|`` of the two systems (about 1e-12 of it), so scores equal up to
    floating-point rounding (0.1 + 0.2 and 0.3) tie. Every test is two-sided.
    Besides the test, the result holds the mean difference ``mean(d)``, its interval, Cohen's
    ``d_z = mean(d) / sd(d)``, the rank-biserial correlation and the win/tie/loss counts.

    Examples
    --------
    >>> r = paired_test([0.1, 0.2, 0.3, 0.4], [0.2, 0.4, 0.3, 0.6], "sign")
    >>> r.statistic, r.p_value, (r.wins, r.ties, r.losses)
    (3.0, 0.25, (3, 1, 0))
    """
    test = canonical(test, TESTS, TEST_ALIASES, "test")
    if test == "tukey":
        raise ValidationError("Tukey's HSD compares many systems at once: use tukey_hsd or compare_systems")
    opts = check_options(n_resamples=n_resamples, seed=seed, confidence=confidence, tie_tolerance=tie_tolerance,
                         zero_method=zero_method, wilcoxon_method=method, ci=ci)
    D, K = pair_differences(a, b, fill)
    check_testable(K, test)
    info = analyse(D, K, test, **opts)
    randomised = test in ("permutation", "bootstrap") and not bool(info["exact"][0])
    return TestResult(test=test, statistic=float(info["statistic"][0]), p_value=float(info["p_value"][0]),
                      mean_diff=float(info["mean"][0]), ci_low=float(info["ci_low"][0]),
                      ci_high=float(info["ci_high"][0]), effect_size=float(info["effect_size"][0]),
                      rank_biserial=float(info["rank_biserial"][0]), wins=int(info["wins"][0]),
                      ties=int(info["ties"][0]), losses=int(info["losses"][0]), n=int(D.shape[1]),
                      seed=opts["seed"] if randomised else None)


def t_test(a: Any, b: Any, *, confidence: float = 0.95, tie_tolerance: float = 0.0,
           fill: str | None = None) -> TestResult:
    """Paired t-test of ``b - a``: ``statistic`` and ``p_value`` equal ``scipy.stats.ttest_rel(b, a)``'s.

    Parameters
    ----------
    a, b : array-like or pandas.Series
        As for :func:`paired_test`.
    confidence : float, default=0.95
        Coverage of the t interval of the mean difference.
    tie_tolerance : float, default=0.0
        For the win/tie/loss counts.
    fill : {None, "zero"}, default=None

    Returns
    -------
    TestResult

    Raises
    ------
    ValidationError
        As :func:`paired_test`; in particular when every difference is the same number (``sd = 0``).

    Notes
    -----
    With ``n`` queries, ``mean = sum(d) / n`` and ``sd = sqrt(sum((d - mean)**2) / (n - 1))``:

    ``t = mean / (sd / sqrt(n))``, ``p = 2 P(T_{n-1} >= |t|)``, and the interval is
    ``mean ± t_{n-1}((1 + confidence) / 2) sd / sqrt(n)``.

    Examples
    --------
    >>> r = t_test([0.1, 0.2, 0.3], [0.2, 0.4, 0.3])
    >>> round(r.statistic, 4), round(r.p_value, 4), round(r.mean_diff, 4)
    (1.7321, 0.2254, 0.1)
    """
    return paired_test(a, b, "t", confidence=confidence, tie_tolerance=tie_tolerance, fill=fill)


def wilcoxon_test(a: Any, b: Any, *, zero_method: str = "wilcox", method: str = "auto", confidence: float = 0.95,
                  tie_tolerance: float = 0.0, fill: str | None = None) -> TestResult:
    """Wilcoxon signed-rank test of ``b - a``, computed by :func:`scipy.stats.wilcoxon`.

    Parameters
    ----------
    a, b : array-like or pandas.Series
    zero_method : {"wilcox", "pratt", "zsplit"}, default="wilcox"
        Zero differences (``b == a`` on a query): ``wilcox`` drops them before ranking (Wilcoxon's rule;
        the test is then on the ``n - n0`` non-zero differences); ``pratt`` ranks them with the others,
        then drops their ranks (Pratt, 1959; keeps the information that they are the smallest);
        ``zsplit`` ranks them and gives half of each zero's rank to ``R+`` and half to ``R-``.
    method : {"auto", "exact", "asymptotic"}, default="auto"
        As scipy: ``auto`` is exact up to 50 queries without ties or zeros, a permutation distribution
        (complete, so exact) up to 13 queries with them, and the normal approximation otherwise.
    confidence, tie_tolerance, fill
        As for :func:`paired_test` (the interval is Student's t interval of the mean difference; the tie
        tolerance is for the win/tie/loss counts only: zeros here are exact zeros of ``b - a``).

    Returns
    -------
    TestResult
        ``statistic`` is scipy's two-sided statistic ``min(R+, R-)``.

    Notes
    -----
    The ``|d_i|`` are ranked (ties averaged); ``R+`` and ``R-`` are the sums of the ranks of the positive
    and negative differences. Under the null hypothesis each sign is a fair coin, so
    ``E[R+] = m (m + 1) / 4`` and ``Var[R+] = m (m + 1)(2m + 1) / 24 - sum(t^3 - t) / 48`` over the
    groups of ``t`` tied ranks (``m`` queries ranked). The normal approximation uses
    ``z = (R+ - E[R+]) / sqrt(Var[R+])``, without a continuity correction (scipy's ``correction=False``,
    its default). Differences equal up to
    floating-point rounding are equal here (see :func:`paired_test`), so, for example, P@10 differences
    of 0.3 - 0.1 and 0.2 - 0.0 are tied, which a raw ``scipy.stats.wilcoxon(b - a)`` would not see.

    Examples
    --------
    The differences 0.2, 0.3, 0.1, 0.5, -0.1 hold a tie (``|0.1| = |-0.1|``), which floating point would break:

    >>> r = wilcoxon_test([0.1, 0.2, 0.3, 0.4, 0.5], [0.3, 0.5, 0.4, 0.9, 0.4])
    >>> r.statistic, r.p_value
    (1.5, 0.1875)
    """
    return paired_test(a, b, "wilcoxon", zero_method=zero_method, method=method, confidence=confidence,
                       tie_tolerance=tie_tolerance, fill=fill)


def sign_test(a: Any, b: Any, *, confidence: float = 0.95, tie_tolerance: float = 0.0,
              fill: str | None = None) -> TestResult:
    """Sign test: ``scipy.stats.binomtest(wins, wins + losses, 0.5)``, two-sided; ties are left out.

    Parameters
    ----------
    a, b : array-like or pandas.Series
    confidence : float, default=0.95
    tie_tolerance : float, default=0.0
        A difference with ``|d| <= tie_tolerance`` is a tie and does not count.
    fill : {None, "zero"}, default=None

    Returns
    -------
    TestResult
        ``statistic`` is the number of wins of ``b``; the p-value is 1 when every query is a tie.

    Notes
    -----
    With ``w`` wins and ``l`` losses, ``m = w + l``: ``p = min(1, 2 P(X <= min(w, l)))`` with
    ``X ~ Binomial(m, 1/2)``.

    Examples
    --------
    >>> sign_test([0, 0, 0, 0, 0], [1, 1, 1, 1, 1]).p_value
    0.0625
    """
    return paired_test(a, b, "sign", confidence=confidence, tie_tolerance=tie_tolerance, fill=fill)


def permutation_test(a: Any, b: Any, *, n_resamples: int = 10000, seed: int = 0, confidence: float = 0.95,
                     tie_tolerance: float = 0.0, fill: str | None = None) -> TestResult:
    """Paired randomisation (sign-flip) test of the mean difference.

    Parameters
    ----------
    a, b : array-like or pandas.Series
    n_resamples : int, default=10000
        Random sign patterns, when there are more than :data:`EXACT_MAX` (20) queries.
    seed : int, default=0
        Seed of ``numpy.random.Generator(PCG64(seed))``; the patterns depend only on the seed and the
        number of queries (see :func:`sign_flip_matrix`).
    confidence, tie_tolerance, fill
        As for :func:`paired_test` (the interval is Student's t interval).

    Returns
    -------
    TestResult
        ``statistic`` is the mean difference. Up to 20 queries the p-value is exact and ``seed`` is None.

    Notes
    -----
    Under the null hypothesis the two systems are exchangeable on each query, so each difference is as
    likely to have either sign. With ``T(s) = |sum_i s_i d_i|`` for a sign pattern ``s`` and ``T_obs =
    |sum_i d_i|``:

    * exact (``n <= 20``): ``p = #{s in {-1, 1}^n : T(s) >= T_obs} / 2**n``, the observed pattern included;
    * randomised: ``p = (b + 1) / (B + 1)`` with ``b = #{r : T(s_r) >= T_obs}`` over ``B = n_resamples``
      random patterns (Phipson & Smyth, 2010), so it is never 0.

    A pattern reaches ``T_obs`` within ``1e-12 * sum |d_i|``, so that rounding in the sums does not decide
    an exact tie. Constant non-zero differences give ``2 / 2**n`` (only the identity and its negation).
    Queries are put in order of id first (for Series), so the order of the rows does not change the
    p-value.

    Examples
    --------
    >>> permutation_test([0.1, 0.2, 0.3, 0.4], [0.2, 0.4, 0.3, 0.6]).p_value
    0.25
    """
    return paired_test(a, b, "permutation", n_resamples=n_resamples, seed=seed, confidence=confidence,
                       tie_tolerance=tie_tolerance, fill=fill)


def bootstrap_test(a: Any, b: Any, *, n_resamples: int = 10000, seed: int = 0, ci: str = "bca",
                   confidence: float = 0.95, tie_tolerance: float = 0.0, fill: str | None = None) -> TestResult:
    """Paired bootstrap test of the mean difference, with a bootstrap confidence interval.

    Parameters
    ----------
    a, b : array-like or pandas.Series
    n_resamples : int, default=10000
    seed : int, default=0
        The resamples are those ``scipy.stats.bootstrap`` draws with ``rng=numpy.random.default_rng(seed)``.
    ci : {"bca", "percentile"}, default="bca"
        Interval of the mean difference from the same resamples (see :func:`bootstrap_ci`).
    confidence, tie_tolerance, fill
        As for :func:`paired_test`.

    Returns
    -------
    TestResult
        ``statistic`` is the mean difference ``mean(d)``.

    Notes
    -----
    Queries are drawn with replacement ``B = n_resamples`` times, keeping each query's pair of scores
    together; ``m*_r`` is the mean difference of resample ``r``. Shifting the resampled means by the
    observed one makes the null hypothesis (mean 0) hold (Efron & Tibshirani, 1993, §16.4):
    ``p = (b + 1) / (B + 1)`` with ``b = #{r : |m*_r - mean(d)| >= |mean(d)|}``. Constant differences give
    ``p = 1 / (B + 1)`` and a one-point interval.

    Examples
    --------
    >>> r = bootstrap_test([0.1, 0.2, 0.3, 0.4, 0.5], [0.3, 0.5, 0.4, 0.9, 0.4], n_resamples=999, seed=3)
    >>> r.ci_low < r.mean_diff < r.ci_high
    True
    """
    return paired_test(a, b, "bootstrap", n_resamples=n_resamples, seed=seed, ci=ci, confidence=confidence,
                       tie_tolerance=tie_tolerance, fill=fill)


def bootstrap_ci(a: Any, b: Any, *, method: str = "bca", confidence: float = 0.95, n_resamples: int = 10000,
                 seed: int = 0, fill: str | None = None) -> tuple[float, float]:
    """Bootstrap confidence interval of the mean of ``b - a`` (queries resampled in pairs).

    Parameters
    ----------
    a, b : array-like or pandas.Series
    method : {"bca", "percentile"}, default="bca"
        As ``scipy.stats.bootstrap(..., method=...)``.
    confidence : float, default=0.95
    n_resamples : int, default=10000
    seed : int, default=0
    fill : {None, "zero"}, default=None

    Returns
    -------
    (float, float)
        The interval's ends: those of ``scipy.stats.bootstrap((b - a,), numpy.mean, method=method,
        n_resamples=n_resamples, rng=numpy.random.default_rng(seed))`` (same resamples).

    Notes
    -----
    With ``alpha = (1 - confidence) / 2`` and ``Q`` the quantile function of the resampled means
    ``m*_r`` (numpy's linear interpolation):

    * percentile: ``[Q(alpha), Q(1 - alpha)]``;
    * BCa (Efron & Tibshirani, 1993, §14.3): the bias ``z0 = Phi^-1(share of m*_r below mean(d), ties
      counted half)``, the acceleration ``a = sum(c_i^3) / (6 (sum(c_i^2))^(3/2))`` with
      ``c_i = d_i - mean(d)`` (the jackknife of the mean), and the interval
      ``[Q(Phi(z0 + (z0 + z) / (1 - a (z0 + z)))), Q(Phi(z0 + (z0 - z) / (1 - a (z0 - z))))]``,
      ``z = Phi^-1(alpha)``. A resampled mean within ``1e-12 * mean(|d|)`` of ``mean(d)`` counts as equal
      to it. When every resampled mean falls on one side of ``mean(d)``, ``z0`` is infinite and the BCa
      interval is NaN (scipy's answer too); constant differences give the one-point interval.

    Examples
    --------
    >>> low, high = bootstrap_ci([0.1, 0.2, 0.3, 0.4], [0.2, 0.4, 0.3, 0.6], method="percentile")
    >>> 0.0 <= low < high <= 0.2
    True
    """
    r = paired_test(a, b, "bootstrap", ci=method, confidence=confidence, n_resamples=n_resamples, seed=seed,
                    fill=fill)
    return r.ci_low, r.ci_high

