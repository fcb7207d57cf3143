"""Inputs of the paired tests: option names and checks, the alignment of two systems' queries, and the
differences ``b - a`` that every test reads."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from metrics.checks import COUNT, LEVEL, SEED, Number, Options, checked
from metrics.errors import MissingTopicsError, ValidationError

TESTS = ("t", "wilcoxon", "sign", "permutation", "bootstrap", "tukey")
"""The tests :func:`~metrics.stats.significance.compare_systems` runs (``randomization``/``randomisation`` are
accepted for ``permutation``)."""

CORRECTIONS = ("holm", "bonferroni", "bh", "by", "none")
"""Multiple-comparison corrections: Holm, Bonferroni, Benjamini-Hochberg, Benjamini-Yekutieli, none."""

FAMILIES = ("per_measure", "all")
"""The family a correction applies to: the tests of one measure, or every test of the comparison."""

ZERO_METHODS = ("wilcox", "pratt", "zsplit")
"""How the Wilcoxon test treats zero differences (see :func:`~metrics.stats.significance.wilcoxon_test`)."""

CI_METHODS = ("bca", "percentile")
"""Bootstrap confidence intervals: bias-corrected and accelerated, or percentile."""

WILCOXON_METHODS = ("auto", "exact", "asymptotic")
"""How the Wilcoxon p-value is computed (as :func:`scipy.stats.wilcoxon`)."""

EXACT_MAX = 20
"""Up to this many queries the randomisation test enumerates all ``2**n`` sign flips."""

GRID_BITS = 40
"""Equalities of differences are decided on multiples of ``2**-GRID_BITS`` times the pair's largest
absolute score (see :func:`snap`)."""

TEST_ALIASES = {"randomization": "permutation", "randomisation": "permutation"}
FAMILY_ALIASES = {"measure": "per_measure", "per-measure": "per_measure"}
CORRECTION_ALIASES = {"fdr_bh": "bh", "fdr_by": "by"}


def canonical(value: Any, allowed: Sequence[str], aliases: dict[str, str], what: str) -> str:
    """``value`` as one of ``allowed`` (case-insensitive, aliases resolved), or a ValidationError."""
    key = aliases.get(value.lower(), value.lower()) if isinstance(value, str) else value
    if key not in allowed:
        raise ValidationError(f"unknown {what} {value!r}; choose one of {list(allowed)}")
    return key


FILL = Options(None, "zero")
"""What a query one system lacks becomes: left out (None), or 0 (``"zero"``)."""


@checked(n_resamples=COUNT, seed=SEED, confidence=LEVEL, tie_tolerance=Number(0),
         zero_method=Options(*ZERO_METHODS), wilcoxon_method=Options(*WILCOXON_METHODS))
def check_options(*, n_resamples: Any = 1, seed: Any = 0, confidence: Any = 0.95, tie_tolerance: Any = 0.0,
                  zero_method: str = "wilcox", wilcoxon_method: str = "auto", ci: str = "bca") -> dict[str, Any]:
    """The options shared by the tests, checked by their declaration; returned normalised (Python ints and
    floats, the bootstrap interval by its canonical name)."""
    return dict(n_resamples=n_resamples, seed=seed, confidence=confidence, tie_tolerance=tie_tolerance,
                zero_method=zero_method, wilcoxon_method=wilcoxon_method,
                ci=canonical(ci, CI_METHODS, {}, "bootstrap interval"))


def listing(items: Sequence[Any], limit: int = 10) -> str:
    """``['q1', 'q2'] and 3 more``: a short, sorted list of ids for a message."""
    shown = [str(i) for i in sorted(items, key=str)[:limit]]
    more = f" and {len(items) - limit} more" if len(items) > limit else ""
    return "[" + ", ".join(repr(s) for s in shown) + "]" + more


def sorted_queries(queries: Any) -> tuple[np.ndarray, np.ndarray]:
    """The distinct query ids as text, sorted, and each input's position among them."""
    text = np.asarray([str(q) for q in queries], dtype=object).astype(str)
    unique, inverse = np.unique(text, return_inverse=True)
    return unique.astype(object), inverse.reshape(-1)


@checked(fill=FILL)
def align_scores(a: pd.Series, b: pd.Series, *, fill: str | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Align two per-query score Series on their query ids, in order of query id.

    Parameters
    ----------
    a, b : pandas.Series
        Scores of two systems, indexed by query id (one value per query).
    fill : {None, "zero"}, default=None
        None: the two must hold the same queries (an explicit join that checks nothing is lost);
        ``"zero"``: a query missing from one side scores 0 there (trec_eval ``-c``).

    Returns
    -------
    queries, a_values, b_values : numpy.ndarray
        Query ids as text, sorted, and the two systems' scores in that order (float64).

    Raises
    ------
    ValidationError
        Not two Series, a query id given twice (ids are compared as text, so ``1`` and ``"1"`` are the
        same query), or query sets that differ (naming the missing queries) without ``fill``.

    Notes
    -----
    The join is on the text of the query ids and its result is ordered by that text, so the order of
    the input rows never changes the aligned vectors, and so never changes a seeded test's p-value.

    Examples
    --------
    >>> q, x, y = align_scores(pd.Series({"2": 0.5, "1": 0.25}), pd.Series({"1": 0.5, "2": 0.5}))
    >>> q.tolist(), x.tolist(), y.tolist()
    (['1', '2'], [0.25, 0.5], [0.5, 0.5])
    """
    keyed = []
    for name, s in (("a", a), ("b", b)):
        if not isinstance(s, pd.Series):
            raise ValidationError(f"{name}: expected a pandas Series indexed by query id, found {type(s).__name__}")
        ids = pd.Index([str(q) for q in s.index])
        dupes = ids[ids.duplicated()].unique().tolist()
        if dupes:
            raise ValidationError(f"{name} has more than one value for query(ies) {listing(dupes)}")
        try:
            keyed.append(pd.Series(s.to_numpy(dtype=np.float64), index=ids))
        except (TypeError, ValueError) as err:
            raise ValidationError(f"the scores of {name}: expected numbers, found {err}") from None
    a, b = keyed
    only_a, only_b = a.index.difference(b.index), b.index.difference(a.index)
    if (len(only_a) or len(only_b)) and fill is None:
        parts = []
        if len(only_b):
            parts.append(f"a has no score for {listing(only_b.tolist())}")
        if len(only_a):
            parts.append(f"b has no score for {listing(only_a.tolist())}")
        raise MissingTopicsError("the two systems were not evaluated on the same queries: " + "; ".join(parts))
    queries = a.index.union(b.index).sort_values() if fill else a.index.sort_values()
    x = a.reindex(queries).to_numpy(dtype=np.float64)
    y = b.reindex(queries).to_numpy(dtype=np.float64)
    if fill == "zero":  # only the missing queries: a NaN score that was given stays NaN, to be refused
        x = np.where(queries.isin(only_b), 0.0, x)
        y = np.where(queries.isin(only_a), 0.0, y)
    return queries.to_numpy(dtype=object), x, y


def snap(D: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """Round each row of differences to multiples of ``2**-GRID_BITS`` times that row's ``scale``.

    ``scale`` is the largest absolute score of the pair: rounding errors of ``b - a`` are far below
    the grid, so differences that are equal in exact arithmetic (0.3 - 0.1 and 0.2 - 0.0) become
    equal, and scores equal up to rounding (0.1 + 0.2 and 0.3) give 0. Scaling by a power of two and
    rounding are exact operations, so the result depends on the values only. The rounded values decide
    equalities (zeros, ties, ranks, constant rows); sums and means use the differences as they are.
    """
    _, exponent = np.frexp(np.asarray(scale, dtype=np.float64))  # scale <= 2**exponent
    step = np.ldexp(1.0, np.maximum(exponent - GRID_BITS, -1000))[:, None]
    return np.round(D / step) * step


def pair_differences(a: Any, b: Any, fill: str | None = None, min_queries: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """The checked differences ``b - a`` of two systems as a 1 x n array, and the same rounded by
    :func:`snap` (the values that decide zeros, ties, ranks and constancy).

    Raises a ValidationError for fewer than ``min_queries`` queries, non-finite scores, arrays of
    different lengths or two Series with different queries (unless ``fill``).
    """
    if isinstance(a, pd.Series) and isinstance(b, pd.Series):
        _, x, y = align_scores(a, b, fill=fill)
    elif isinstance(a, pd.Series) or isinstance(b, pd.Series):
        raise ValidationError("pass two pandas Series (aligned on query id) or two arrays, not one of each")
    else:
        try:
            x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
        except (TypeError, ValueError) as err:
            raise ValidationError(f"per-query scores: expected numbers, found {err}") from None
        if x.ndim != 1 or y.ndim != 1:
            raise ValidationError(f"expected two 1-D arrays of per-query scores, found shapes {x.shape} and {y.shape}")
        if x.shape != y.shape:
            raise ValidationError(f"the two score arrays differ in length ({x.size} and {y.size} queries)")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise ValidationError("per-query scores: expected finite numbers, found NaN or infinity")
    if x.size < min_queries:
        raise ValidationError(f"a paired test: expected at least two queries, found {x.size}" if min_queries == 2
                              else f"expected at least {min_queries} queries, found {x.size}")
    scale = np.array([max(np.abs(x).max(initial=0.0), np.abs(y).max(initial=0.0))])
    D = (y - x)[None, :]
    return D, snap(D, scale)


def check_testable(K: np.ndarray, test: str) -> None:
    """Refuse the two-system tests on differences that leave nothing to test (one row of rounded ``K``)."""
    d = K[0]
    if not np.any(d != 0):
        raise ValidationError(f"the systems are identical on these {d.size} queries (every difference b - a is "
                              "0): there is nothing to test")
    if test == "t" and np.all(d == d[0]):
        raise ValidationError(f"every difference b - a is {d[0]:.6g} on these {d.size} queries: their standard "
                              "deviation is 0, so the t statistic is undefined (the sign, Wilcoxon and "
                              "randomisation tests are defined here)")
