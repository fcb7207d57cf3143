"""Do two measures (or two conventions) rank the systems the same way?

Each system has one score per measure (its mean over topics); two measures give two orderings of the same
systems. Their agreement is read with

* **Kendall's tau-b**: ``(C - D) / sqrt((C + D + T_x)(C + D + T_y))``, with ``C`` and ``D`` the concordant
  and discordant pairs and ``T_x`` (``T_y``) the pairs tied in ``x`` only (``y`` only); equal to
  :func:`scipy.stats.kendalltau`;
* **tau_AP** (Yilmaz, Aslam & Robertson, "A new rank correlation coefficient for information retrieval",
  SIGIR 2008), which weighs swaps near the top more: with the systems in order of ``y`` (best first),
  ``tau_AP = 2 / (N - 1) sum_{i=2}^{N} C(i) / (i - 1) - 1``, ``C(i)`` the systems above position ``i``
  that ``x`` also puts above it. It is not symmetric: ``x`` is the reference (the paper's true order) and
  ``y`` the order compared with it (the estimated one), and the top that weighs most is ``y``'s, the order
  walked: a system ``y`` puts too high costs more than one it puts too low. With the reference
  ``s1 > s2 > s3 > s4 > s5``, ``y`` putting the best last (``s2 s3 s4 s5 s1``: an error at the bottom of
  ``y``) gives 0.50, and ``y`` putting the worst first (``s5 s1 s2 s3 s4``: an error at its top) gives
  -0.0417, while Kendall's tau is 0.20 for both. The *symmetric* tau_AP
  (:func:`tau_ap` with ``symmetric=True``, the default of :func:`agreement_matrix`) is the mean of both
  directions, ``(tau_AP(x, y) + tau_AP(y, x)) / 2``. **Ties** (two systems with the same mean) follow
  Urbano and Marrero's tau_AP,b ("The treatment of ties in AP correlation", ICTIR 2017), the variant for
  two orderings that may both tie: a tie is taken as a tie, never broken by the systems' names or order.
  Each system ``i`` below the top tie group of ``y`` counts the systems strictly above it in ``y``,
  ``p_i - 1`` of them, and those of them ``x`` also puts strictly above it, ``C_i``; then
  ``tau_AP,b(x, y) = 2 / |I| sum_{i in I} C_i / (p_i - 1) - 1`` over those systems ``I``, and the
  symmetric value is the mean of both directions. Without ties it is the tau_AP above; when every system
  ties in ``y`` there is no ``I`` and the value is NaN;
* the **swaps**: the pairs of systems the two orderings put the other way round (a tie in either is not
  a swap).

Higher scores are better unless said otherwise (``higher_is_better``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from metrics.errors import ValidationError

__all__ = ["STATISTICS", "agreement_matrix", "kendall_tau", "ordering_agreement", "swapped_pairs", "system_means",
           "tau_ap"]

STATISTICS = ("tau", "tau_ap")
"""The agreement statistics :func:`agreement_matrix` computes."""


def _scores(x: Any, y: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Two score vectors aligned on system name (Series) or position (arrays), and the names."""
    if isinstance(x, pd.Series) and isinstance(y, pd.Series):
        xi, yi = x.index.astype(str), y.index.astype(str)
        if xi.has_duplicates or yi.has_duplicates:
            raise ValidationError("a system appears twice in the scores")
        if set(xi) != set(yi):
            raise ValidationError(f"the two orderings hold different systems: only in x {sorted(set(xi) - set(yi))}, "
                                  f"only in y {sorted(set(yi) - set(xi))}")
        names = np.array(sorted(xi), dtype=object)
        a = pd.Series(x.to_numpy(dtype=np.float64), index=xi).reindex(names).to_numpy()
        b = pd.Series(y.to_numpy(dtype=np.float64), index=yi).reindex(names).to_numpy()
    else:
        a, b = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
        if a.ndim != 1 or a.shape != b.shape:
            raise ValidationError(f"expected two score vectors of the same length, found shapes {a.shape} and {b.shape}")
        names = np.array([str(i) for i in range(a.size)], dtype=object)
    if a.size < 2:
        raise ValidationError(f"an ordering: expected at least two systems, found {a.size}")
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise ValidationError("scores: expected finite numbers, found NaN or infinity")
    return a, b, names


def kendall_tau(x: Any, y: Any) -> float:
    """Kendall's tau-b between two score vectors (or Series aligned on system name).

    Returns NaN when either vector is constant.

    Examples
    --------
    >>> kendall_tau([0.1, 0.2, 0.3], [0.3, 0.2, 0.1])
    -1.0
    """
    a, b, _ = _scores(x, y)
    i, j = np.triu_indices(a.size, 1)
    sx, sy = np.sign(a[i] - a[j]), np.sign(b[i] - b[j])
    concordant = np.count_nonzero(sx * sy > 0)
    discordant = np.count_nonzero(sx * sy < 0)
    only_x = np.count_nonzero((sx == 0) & (sy != 0))
    only_y = np.count_nonzero((sy == 0) & (sx != 0))
    denominator = np.sqrt(float(concordant + discordant + only_x) * float(concordant + discordant + only_y))
    return float((concordant - discordant) / denominator) if denominator > 0 else float("nan")


def _tau_ap_one(reference: np.ndarray, ranked: np.ndarray, higher_is_better: bool) -> float:
    """tau_AP,b of ``reference`` with the systems in the order of ``ranked`` (see the module's notes)."""
    x, y = (reference, ranked) if higher_is_better else (-reference, -ranked)
    above_y = y[None, :] > y[:, None]  # [i, j]: j strictly above i in the ranked ordering
    above = above_y.sum(axis=1)  # p_i - 1
    pivots = above > 0  # every system below the top tie group
    if not pivots.any():
        return float("nan")
    agreed = (above_y & (x[None, :] > x[:, None])).sum(axis=1)  # C_i
    # summed exactly (fsum), so that the order the systems come in cannot move even the last bit
    return float(2.0 * math.fsum(agreed[pivots] / above[pivots]) / np.count_nonzero(pivots) - 1.0)


def tau_ap(x: Any, y: Any, *, symmetric: bool = True, higher_is_better: bool = True) -> float:
    """tau_AP between two score vectors: ``x`` the reference, the systems taken in the order of ``y``.

    The errors that cost most are those at the top of ``y``'s order (the order walked), not ``x``'s: see the
    module's notes and the examples. Tied scores follow Urbano and Marrero's tau_AP,b (see the module's notes), so the value never depends
    on the systems' names or order; without ties it is Yilmaz et al.'s tau_AP.

    Parameters
    ----------
    x, y : array-like or pandas.Series
        One score per system (Series are aligned on system name).
    symmetric : bool, default=True
        The mean of ``tau_AP(x, y)`` and ``tau_AP(y, x)`` (with ties, Urbano and Marrero's tau_AP,b).
    higher_is_better : bool, default=True

    Returns
    -------
    float
        NaN when every system ties in the ordering the systems are taken in (in either, if symmetric).

    Examples
    --------
    >>> tau_ap([0.3, 0.2, 0.1], [0.3, 0.2, 0.1]), tau_ap([0.3, 0.2, 0.1], [0.1, 0.2, 0.3])
    (1.0, -1.0)
    >>> tau_ap([0.3, 0.3, 0.1], [0.2, 0.3, 0.1]), tau_ap([0.3, 0.3, 0.1], [0.3, 0.2, 0.1])  # names play no part
    (0.5, 0.5)
    >>> reference = [5, 4, 3, 2, 1]  # s1 best, s5 worst
    >>> best_last, worst_first = [1, 4, 3, 2, 0], [4, 3, 2, 1, 5]
    >>> round(tau_ap(reference, best_last, symmetric=False), 4), round(tau_ap(reference, worst_first, symmetric=False), 4)
    (0.5, -0.0417)
    """
    a, b, _ = _scores(x, y)
    one = _tau_ap_one(a, b, higher_is_better)
    return (one + _tau_ap_one(b, a, higher_is_better)) / 2.0 if symmetric else one


def swapped_pairs(x: pd.Series, y: pd.Series) -> pd.DataFrame:
    """The pairs of systems that ``x`` and ``y`` order the other way round.

    Returns
    -------
    pandas.DataFrame
        Columns ``system_a``, ``system_b`` (names in ascending order), ``x_a``, ``x_b``, ``y_a``, ``y_b``.
    """
    if not (isinstance(x, pd.Series) and isinstance(y, pd.Series)):
        raise ValidationError("swapped_pairs takes two pandas Series indexed by system name")
    a, b, names = _scores(x, y)
    i, j = np.triu_indices(a.size, 1)
    swap = np.sign(a[i] - a[j]) * np.sign(b[i] - b[j]) < 0
    i, j = i[swap], j[swap]
    return pd.DataFrame({"system_a": names[i], "system_b": names[j], "x_a": a[i], "x_b": a[j],
                         "y_a": b[i], "y_b": b[j]})


def system_means(per_query: pd.DataFrame, measures: Sequence[str] | None = None) -> pd.DataFrame:
    """Systems x measures table of the mean of each measure over topics (from a per-query table)."""
    if not isinstance(per_query, pd.DataFrame) or not {"system", "measure", "value"} <= set(per_query.columns):
        raise ValidationError("expected a per-query table with columns system, measure, value")
    frame = per_query.assign(system=per_query["system"].astype(str), measure=per_query["measure"].astype(str))
    available = list(pd.unique(frame["measure"]))
    measures = available if measures is None else [str(m) for m in measures]
    unknown = [m for m in measures if m not in available]
    if unknown:
        raise ValidationError(f"no values of measure(s) {unknown} in the table; it has {available}")
    means = frame[frame["measure"].isin(measures)].pivot_table(index="system", columns="measure", values="value",
                                                                aggfunc="mean")
    return means.reindex(columns=measures)


def agreement_matrix(per_query: pd.DataFrame, measures: Sequence[str] | None = None, *,
                     statistic: str = "tau", higher_is_better: bool = True) -> pd.DataFrame:
    """Measures x measures agreement of the system orderings (their means over topics).

    Parameters
    ----------
    per_query : pandas.DataFrame
        Columns ``system``, ``measure``, ``value`` (and ``query``), as :func:`metrics.evaluate` returns.
    measures : sequence of str, optional
        Default: every measure of the table.
    statistic : {"tau", "tau_ap"}, default="tau"
        Kendall's tau-b, or the symmetric tau_AP.
    higher_is_better : bool, default=True

    Returns
    -------
    pandas.DataFrame
        Symmetric, indexed and columned by measure; the diagonal is 1.
    """
    if statistic not in STATISTICS:
        raise ValidationError(f"unknown statistic {statistic!r}; choose one of {list(STATISTICS)}")
    means = system_means(per_query, measures)
    if means.isna().any().any():
        raise ValidationError("every system needs a value of every measure")
    names = list(means.columns)
    out = pd.DataFrame(np.eye(len(names)), index=names, columns=names)
    for p, first in enumerate(names):
        for second in names[p + 1:]:
            if statistic == "tau":
                value = kendall_tau(means[first], means[second])
            else:
                value = tau_ap(means[first], means[second], higher_is_better=higher_is_better)
            out.loc[first, second] = out.loc[second, first] = value
    return out


def ordering_agreement(x: pd.Series, y: pd.Series, *, higher_is_better: bool = True) -> pd.DataFrame:
    """How two orderings of the same systems agree (two measures, or one measure under two conventions).

    Parameters
    ----------
    x, y : pandas.Series
        One score per system (e.g. each system's mean), indexed by system name.
    higher_is_better : bool, default=True

    Returns
    -------
    pandas.DataFrame
        One row: ``systems``, ``tau`` (tau-b), ``tau_ap_xy`` (``x`` the reference), ``tau_ap_yx``,
        ``tau_ap`` (their mean), ``swaps`` (pairs ordered the other way round, see :func:`swapped_pairs`).
    """
    if not (isinstance(x, pd.Series) and isinstance(y, pd.Series)):
        raise ValidationError("ordering_agreement takes two pandas Series indexed by system name")
    xy = tau_ap(x, y, symmetric=False, higher_is_better=higher_is_better)
    yx = tau_ap(y, x, symmetric=False, higher_is_better=higher_is_better)
    return pd.DataFrame([{"systems": len(x), "tau": kendall_tau(x, y), "tau_ap_xy": xy, "tau_ap_yx": yx,
                          "tau_ap": (xy + yx) / 2.0, "swaps": len(swapped_pairs(x, y))}])
