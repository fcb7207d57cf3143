"""Do two judges grade the same documents alike? Cohen's kappa, weighted kappa, Krippendorff's alpha.

Every statistic here reads only the documents the sets judged (grade >= 0, see :mod:`metrics.judgments.sets`);
kappa reads those *both* sets of a pair judged, alpha every document at least two sets judged.

* **Cohen's kappa** ``kappa = 1 - sum w O / sum w E``: ``O`` the observed share of documents at each pair of
  grades, ``E = p_first x p_second`` the share expected if the two judges graded independently with their
  own frequencies, ``w`` the disagreement weight of two grades (Cohen 1960, 1968). Unweighted: ``w = 1``
  off the diagonal. Linear: ``w = |d_i - d_j|``; quadratic: ``w = (d_i - d_j)^2``, with ``d`` the
  *distance scale* of a grade, an explicit convention (``distance``): ``"grade"`` (default) takes the grade
  values themselves, so grades 1 and 3 are two apart whether or not any judge used 2; ``"position"`` takes a
  grade's position among the grades either judge used, as :func:`sklearn.metrics.cohen_kappa_score` does.
  The two agree whenever the grades used have no gaps. Kappa is NaN when ``sum w E`` is 0 (every document
  at one grade under both judges) or nothing was judged by both.
* **Binary kappa** is the unweighted kappa of relevant (grade >= the relevance level, trec_eval ``-l``)
  against not relevant.
* **Krippendorff's alpha** ``alpha = 1 - (n - 1) sum_c sum_k o_ck delta_ck / sum_c sum_k n_c n_k delta_ck``
  over the coincidence matrix ``o`` of the values of every unit (document) judged by two or more sets,
  ``n_c`` the pairable values at ``c``, ``n`` their number (Krippendorff, *Content Analysis*, 2004/2013):
  ``nominal`` ``delta = [c != k]``, ``interval`` ``delta = (c - k)^2``, ``ordinal``
  ``delta = (sum_{g=c}^{k} n_g - (n_c + n_k) / 2)^2``. The ordinal distance is the interval one between the
  *mid-ranks* ``M(g) = sum_{h <= g} n_h - n_g / 2``, which is how it is computed here: from sums over the
  units, in time linear in the judgments, never a matrix sized by the grades. Equal to
  ``krippendorff.alpha``; NaN when no document has two judgments or every pairable value is the same.
* **Fleiss' kappa** ``kappa = (P - P_e) / (1 - P_e)`` for ``n >= 2`` judges who each grade every one of ``N``
  documents (Fleiss 1971): ``P`` the mean over the documents of the share of agreeing pairs of judges,
  ``(sum_g n_dg^2 - n) / (n (n - 1))``, and ``P_e = sum_g p_g^2`` with ``p_g`` the share of all grades at ``g``.
  Equal to ``statsmodels.stats.inter_rater.fleiss_kappa``; NaN when fewer than two judges grade each document
  or every grade is the same (``P_e = 1``: unanimity leaves nothing to tell from chance).

Nothing here allocates by a grade's value: grades are the distinct values present, and the confusion
matrix is a list of its non-zero cells.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from metrics.errors import ValidationError
from metrics.judgments.sets import JudgmentSets, aligned, pair_key

__all__ = ["ALPHA_LEVELS", "DISTANCES", "LABEL_COLUMNS", "WEIGHTS", "alpha_of_sets", "cohen_kappa", "confusion",
           "fleiss_kappa", "krippendorff_alpha", "label_agreement", "topic_label_agreement"]

WEIGHTS = (None, "linear", "quadratic")
"""Cohen's kappa weights: none (unweighted), linear, quadratic."""
DISTANCES = ("grade", "position")
"""The distance scale of weighted kappa: the grade values, or their positions among the grades used."""
ALPHA_LEVELS = ("nominal", "ordinal", "interval")
"""Krippendorff's alpha levels of measurement."""
LABEL_COLUMNS = ("first", "second", "both_judged", "only_first", "only_second", "agreement", "kappa",
                 "kappa_binary", "kappa_linear", "kappa_quadratic", "alpha", "mean_grade_shift",
                 "relevant_first", "relevant_second")
"""The columns of :func:`label_agreement`."""


def _check(weights: str | None, distance: str) -> None:
    if weights not in WEIGHTS:
        raise ValidationError(f"kappa weights: expected one of {', '.join(map(repr, WEIGHTS))}, found {weights!r}")
    if distance not in DISTANCES:
        raise ValidationError(f"kappa distance: expected one of {', '.join(map(repr, DISTANCES))}, found {distance!r}")


def _mean_abs_difference(scale: np.ndarray, p: np.ndarray, q: np.ndarray) -> float:
    """``E|X - Y|`` for independent X ~ p and Y ~ q on the ascending support ``scale``, in O(V)."""
    below_p = np.cumsum(p)  # P(X <= s_j)
    below_s = np.cumsum(p * scale)  # E[X; X <= s_j]
    total = below_s[-1]
    per_value = scale * below_p - below_s + (total - below_s) - scale * (1.0 - below_p)
    return float(per_value @ q)


def cohen_kappa(first, second, *, weights: str | None = None, distance: str = "grade") -> float:
    """Cohen's kappa between two judges' grades of the same documents.

    Parameters
    ----------
    first, second : array-like of int
        The grades each judge gave, aligned (one document per position).
    weights : {None, "linear", "quadratic"}, default=None
        Unweighted kappa, or Cohen's weighted kappa.
    distance : {"grade", "position"}, default="grade"
        The scale of the weights (see the module's notes); unweighted kappa does not read it.

    Returns
    -------
    float
        NaN when undefined (no document, or every document at one grade under both judges).

    Examples
    --------
    >>> cohen_kappa([0, 1, 2, 2], [0, 1, 2, 1])
    0.6363636363636364
    >>> round(cohen_kappa([0, 1, 3, 3], [0, 3, 3, 1], weights="linear"), 6)
    0.272727
    """
    _check(weights, distance)
    x, y = np.asarray(first), np.asarray(second)
    if x.ndim != 1 or x.shape != y.shape:
        raise ValidationError(f"expected two grade vectors of the same length, got shapes {x.shape} and {y.shape}")
    n = x.size
    if n == 0:
        return float("nan")
    values, codes = np.unique(np.concatenate([x, y]), return_inverse=True)
    codes = codes.ravel()
    cx, cy = codes[:n], codes[n:]
    p = np.bincount(cx, minlength=values.size) / n
    q = np.bincount(cy, minlength=values.size) / n
    if weights is None:
        observed, expected = float(np.count_nonzero(cx != cy)) / n, 1.0 - float(p @ q)
    else:
        scale = values.astype(np.float64) if distance == "grade" else np.arange(values.size, dtype=np.float64)
        spread = scale[-1] - scale[0]
        scale = (scale - scale[0]) / (spread if spread > 0 else 1.0)  # on [0, 1]: the weights' scale cancels
        gap = np.abs(scale[cx] - scale[cy])
        if weights == "linear":
            observed, expected = float(gap.mean()), _mean_abs_difference(scale, p, q)
        else:
            observed = float((gap * gap).mean())
            mx, my = float(p @ scale), float(q @ scale)
            expected = float(p @ scale ** 2) + float(q @ scale ** 2) - 2.0 * mx * my
    if not expected > 0:
        return float("nan")
    return 1.0 - observed / expected


def _coded(units, values) -> tuple[np.ndarray, np.ndarray]:
    """Each value's unit as a code (0, 1, ... in order of first appearance) and the values as floats."""
    unit_codes = pd.factorize(pd.Series(np.asarray(units, dtype=object)), sort=False)[0].astype(np.int64)
    v = np.asarray(values, dtype=np.float64)
    if unit_codes.shape != v.shape:
        raise ValidationError(f"expected one unit per value, found {unit_codes.size} units and {v.size} values")
    return unit_codes, v


def fleiss_kappa(units, values) -> float:
    """Fleiss' kappa of grades given to units (documents) by judges who each grade every unit.

    Parameters
    ----------
    units : array-like
        The unit of each value (any hashable ids).
    values : array-like of numbers
        One grade per (unit, judge); every unit holds the same number of grades.

    Returns
    -------
    float
        NaN when there is no unit, fewer than two grades per unit, or every grade is the same.

    Raises
    ------
    ValidationError
        Units holding different numbers of grades (Fleiss' kappa needs every judge on every unit).

    Examples
    --------
    >>> round(fleiss_kappa(["a", "a", "b", "b", "c", "c"], [1, 1, 2, 2, 3, 2]), 6)
    0.454545
    """
    unit_codes, v = _coded(units, values)
    if unit_codes.size == 0:
        return float("nan")
    per_unit = np.bincount(unit_codes)
    n = int(per_unit[0])
    if np.any(per_unit != n):
        raise ValidationError(f"Fleiss' kappa: expected the same number of grades on every document, found "
                              f"{int(per_unit.min())} to {int(per_unit.max())}")
    if n < 2:
        return float("nan")
    distinct, code = np.unique(v, return_inverse=True)
    code = code.ravel()
    cells = np.unique(unit_codes * distinct.size + code, return_counts=True)[1].astype(np.float64)
    units_n = per_unit.size
    observed = (float(np.sum(cells ** 2)) - units_n * n) / (units_n * n * (n - 1.0))
    share = np.bincount(code).astype(np.float64) / (units_n * n)
    chance = float(share @ share)
    if not chance < 1.0:
        return float("nan")
    return (observed - chance) / (1.0 - chance)


def krippendorff_alpha(units, values, *, level: str = "ordinal") -> float:
    """Krippendorff's alpha of grades given to units (documents) by any number of judges.

    Parameters
    ----------
    units : array-like
        The unit of each value (any hashable ids); a unit's values are the grades the judges gave it.
    values : array-like of numbers
        One grade per (unit, judge); a judge that did not grade a unit has no entry.
    level : {"ordinal", "interval", "nominal"}, default="ordinal"

    Returns
    -------
    float
        NaN when no unit holds two values or every pairable value is the same.

    Examples
    --------
    >>> round(krippendorff_alpha(["a", "a", "b", "b", "c", "c"], [1, 1, 2, 2, 3, 2]), 6)
    0.777778
    """
    if level not in ALPHA_LEVELS:
        raise ValidationError(f"alpha level: expected one of {', '.join(map(repr, ALPHA_LEVELS))}, found {level!r}")
    unit_codes, v = _coded(units, values)
    if unit_codes.size == 0:
        return float("nan")
    counts = np.bincount(unit_codes)
    keep = counts[unit_codes] >= 2  # a unit judged once pairs with nothing
    u, v = unit_codes[keep], v[keep]
    n = v.size
    if n == 0:
        return float("nan")
    distinct, code = np.unique(v, return_inverse=True)
    code = code.ravel()
    m = np.bincount(u).astype(np.float64)
    used = m > 0
    if level == "nominal":
        cells = np.unique(u * distinct.size + code, return_counts=True)
        same = np.bincount(cells[0] // distinct.size, weights=cells[1].astype(np.float64) ** 2, minlength=m.size)
        observed = float(np.sum((m[used] ** 2 - same[used]) / (m[used] - 1.0)))
        n_c = np.bincount(code).astype(np.float64)
        expected = float(n * n - np.sum(n_c ** 2))
    else:
        if level == "ordinal":
            n_c = np.bincount(code).astype(np.float64)
            scale = np.cumsum(n_c) - n_c / 2.0  # mid-ranks: the ordinal distance is the interval one on them
            t = scale[code]
        else:
            t = v
        t = t - t.mean()  # centred: the sums of squares below lose nothing to cancellation
        s1 = np.bincount(u, weights=t, minlength=m.size)
        s2 = np.bincount(u, weights=t * t, minlength=m.size)
        observed = float(np.sum(2.0 * (m[used] * s2[used] - s1[used] ** 2) / (m[used] - 1.0)))
        expected = float(2.0 * (n * np.sum(t * t) - np.sum(t) ** 2))
    if not expected > 0:
        return float("nan")
    return 1.0 - (n - 1.0) * observed / expected


def _long(sets: JudgmentSets, names: Sequence[str] | None = None) -> pd.DataFrame:
    """Every judgment of the chosen sets: ``set`` (position in ``names``), ``query``, ``docid``, ``grade``."""
    names = list(sets.names if names is None else names)
    parts = [sets.judged(name).assign(set=i) for i, name in enumerate(names)]
    return pd.concat(parts, ignore_index=True)


def alpha_of_sets(sets: JudgmentSets, names: Sequence[str] | None = None, *, level: str = "ordinal",
                  topic: str | None = None) -> float:
    """Krippendorff's alpha of the grades of several sets (default: all), the documents being the units.

    Parameters
    ----------
    sets : JudgmentSets
    names : sequence of str, optional
        The sets taken (default: every set).
    level : {"ordinal", "interval", "nominal"}, default="ordinal"
    topic : str, optional
        Only this topic's documents.
    """
    frame = _long(sets, names)
    if topic is not None:
        frame = frame[frame["query"] == topic]
    units = frame.groupby(["query", "docid"], sort=False).ngroup().to_numpy()  # one code per document
    return krippendorff_alpha(units, frame["grade"].to_numpy(), level=level)


def _pair_row(both: pd.DataFrame, only_first: int, only_second: int, relevance_level: int,
              distance: str) -> dict:
    x = both["first"].to_numpy(dtype=np.int64)
    y = both["second"].to_numpy(dtype=np.int64)
    n = x.size
    units = np.repeat(np.arange(n), 2)
    pairs = np.column_stack([x, y]).ravel()
    with np.errstate(invalid="ignore"):
        return {
            "both_judged": n, "only_first": only_first, "only_second": only_second,
            "agreement": float(np.mean(x == y)) if n else float("nan"),
            "kappa": cohen_kappa(x, y),
            "kappa_binary": cohen_kappa(x >= relevance_level, y >= relevance_level),
            "kappa_linear": cohen_kappa(x, y, weights="linear", distance=distance),
            "kappa_quadratic": cohen_kappa(x, y, weights="quadratic", distance=distance),
            "alpha": krippendorff_alpha(units, pairs, level="ordinal"),
            "mean_grade_shift": float(np.mean(y - x)) if n else float("nan"),
            "relevant_first": float(np.mean(x >= relevance_level)) if n else float("nan"),
            "relevant_second": float(np.mean(y >= relevance_level)) if n else float("nan"),
        }


def label_agreement(sets: JudgmentSets, pairs: Sequence[tuple[str, str]] | None = None, *,
                    relevance_level: int = 1, distance: str = "grade") -> pd.DataFrame:
    """How alike two sets grade the documents both judged, for each pair of sets.

    Parameters
    ----------
    sets : JudgmentSets
    pairs : sequence of (str, str), optional
        Default :meth:`JudgmentSets.pairs` (every pair, the reference's first).
    relevance_level : int, default=1
        The lowest relevant grade, for binary kappa and the shares relevant (trec_eval ``-l``).
    distance : {"grade", "position"}, default="grade"
        The scale of weighted kappa.

    Returns
    -------
    pandas.DataFrame
        One row per pair, indexed by its key ``"first|second"``, columns :data:`LABEL_COLUMNS`:
        ``both_judged``, ``only_first``, ``only_second`` (documents judged by one set of the pair only),
        ``agreement`` (share of both-judged documents given the same grade), the four kappas, ``alpha``
        (ordinal, of the pair), ``mean_grade_shift`` (mean of second minus first grade over the documents
        both judged: above 0, the second set grades higher), and the shares of those documents each set
        judged relevant.
    """
    _check(None, distance)
    rows = []
    for first, second in pairs if pairs is not None else sets.pairs():
        table = aligned(sets.judged(first), sets.judged(second))
        has_first, has_second = table["first"].notna().to_numpy(), table["second"].notna().to_numpy()
        row = _pair_row(table[has_first & has_second], int(np.sum(has_first & ~has_second)),
                        int(np.sum(has_second & ~has_first)), relevance_level, distance)
        rows.append({"first": first, "second": second, **row})
    frame = pd.DataFrame(rows, columns=list(LABEL_COLUMNS))
    frame.index = [pair_key(a, b) for a, b in zip(frame["first"], frame["second"])]
    return frame


def topic_label_agreement(sets: JudgmentSets, first: str, second: str, *, relevance_level: int = 1,
                          distance: str = "grade") -> pd.DataFrame:
    """:func:`label_agreement` of one pair of sets, topic by topic.

    Returns
    -------
    pandas.DataFrame
        One row per topic either set judged (trec_eval's order), column ``query`` then the columns of
        :func:`label_agreement` but ``first`` and ``second``; a topic one set did not judge has
        ``both_judged`` 0 and NaN statistics.
    """
    _check(None, distance)
    table = aligned(sets.judged(first), sets.judged(second))
    has_first, has_second = table["first"].notna().to_numpy(), table["second"].notna().to_numpy()
    queries = table["query"].astype(str).to_numpy()
    bounds = np.flatnonzero(np.r_[True, queries[1:] != queries[:-1], True])  # the table is sorted by query
    rows = []
    for start, stop in zip(bounds[:-1], bounds[1:]):
        f, s = has_first[start:stop], has_second[start:stop]
        part = table.iloc[start:stop]
        row = _pair_row(part[f & s], int(np.sum(f & ~s)), int(np.sum(s & ~f)), relevance_level, distance)
        rows.append({"query": queries[start], **row})
    return pd.DataFrame(rows, columns=["query", *LABEL_COLUMNS[2:]])


def confusion(sets: JudgmentSets, first: str, second: str) -> pd.DataFrame:
    """The confusion matrix of two sets' grades on the documents both judged, as its non-zero cells.

    Returns
    -------
    pandas.DataFrame
        Columns ``first`` (grade under the first set), ``second``, ``documents``; sorted by both grades.
        A grade that only one set uses appears on that set's side only.
    """
    table = aligned(sets.judged(first), sets.judged(second)).dropna(subset=["first", "second"])
    cells = table.groupby(["first", "second"], sort=True).size().reset_index(name="documents")
    return cells.astype({"first": np.int64, "second": np.int64, "documents": np.int64})
