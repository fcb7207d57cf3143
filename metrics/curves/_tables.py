"""Tables read off the curves: the means over queries of per-query curves, the eleven interpolated points
side by side with their average (trec_eval's ``11pt_avg``), and each curve at one x."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from metrics.curves._frames import ALL, LEVEL_NAMES, _average_rows, _columns, _concat, _mean
from metrics.errors import ValidationError


def mean_over_queries(frame: pd.DataFrame, x: str, values: Sequence[str]) -> pd.DataFrame:
    """The "all" rows of per-query curves: per system and x, the mean of each value column over queries.

    Parameters
    ----------
    frame : pandas.DataFrame
        Per-query rows with columns ``system``, ``query``, ``x`` and the value columns, one row per
        (system, query, x) and, for each system, every query at every x of that system (rows of
        ``query == "all"`` are ignored). For example a subset of the queries of :func:`gain_curves`.
    x : str
        The column the curve runs along (``"k"``, ``"recall"``).
    values : sequence of str
        The columns to average.

    Returns
    -------
    pandas.DataFrame
        Columns ``system``, ``query`` (``"all"``), ``x``, ``y`` (the first value column), the column
        ``x`` (unless it is ``"x"``), the value columns and ``n_queries``; systems in order of first
        appearance, x ascending.

    Raises
    ------
    ValidationError
        When a column is missing, a (system, query, x) repeats, or some query lacks a point at some x
        (curves whose x differs between queries, like the raw precision-recall curve, cannot be averaged
        point by point; use :func:`eleven_point`).

    Notes
    -----
    .. math:: \\bar{v}(x) = \\frac{1}{|Q|} \\sum_{q \\in Q} v_q(x)

    The mean of a column is computed as :meth:`metrics.measures.Measure.aggregate` computes the mean of a
    measure for trec_eval's ``all`` line (NaN propagates), so averaging the per-query rows of
    :func:`precision_recall_at_k` over the queries of one system gives the mean ``P@k`` exactly. See :mod:`metrics.curves` for which queries count.

    Examples
    --------
    >>> per_query = pd.DataFrame({"system": ["s"] * 4, "query": ["1", "1", "2", "2"], "k": [1, 2, 1, 2],
    ...                           "precision": [1.0, 0.5, 0.0, 0.5]})
    >>> mean_over_queries(per_query, "k", ["precision"])[["system", "query", "k", "precision", "n_queries"]]
      system query  k  precision  n_queries
    0      s   all  1        0.5          2
    1      s   all  2        0.5          2
    """
    values = list(values)
    if not values:
        raise ValidationError("give at least one value column to average")
    missing = [c for c in ("system", "query", x, *values) if c not in frame.columns]
    if missing:
        raise ValidationError(f"expected columns system, query, {x} and {values}; missing {missing}")
    rows = frame[frame["query"] != ALL]
    frames = []
    for system, group in rows.groupby("system", sort=False):
        queries = pd.unique(group["query"])
        xs = np.sort(pd.unique(group[x]))
        qi = pd.Index(queries).get_indexer(group["query"])
        xi = np.searchsorted(xs, group[x].to_numpy())
        cells = np.zeros((len(queries), len(xs)), dtype=np.int64)
        np.add.at(cells, (qi, xi), 1)
        if (cells > 1).any():
            raise ValidationError(f"system {system!r}: a (query, {x}) pair appears more than once")
        if (cells == 0).any():
            raise ValidationError(f"system {system!r}: not every query has a point at every {x}; curves whose "
                                  f"{x} differs between queries cannot be averaged point by point")
        columns = {}
        for name in values:
            matrix = np.empty((len(queries), len(xs)))
            matrix[qi, xi] = group[name].to_numpy(dtype=np.float64)
            columns[name] = _mean(matrix)
        frames.append(_average_rows(str(system), xs, columns, x, values[0], len(queries)))
    if not frames:
        return pd.DataFrame(columns=_columns(x, values[0], values))
    return _concat(frames)


def eleven_point_table(points: pd.DataFrame, query: str = ALL) -> pd.DataFrame:
    """The eleven interpolated points of one query, or their means, side by side with their average.

    Parameters
    ----------
    points : pandas.DataFrame
        As :func:`metrics.curves.eleven_point` returns (with the per-query rows); a ``rule`` column, as
        :func:`metrics.curves.eleven_point_rules` adds, gives one row per system and rule.
    query : str, default="all"
        A query id, or ``"all"`` for the means over each system's queries.

    Returns
    -------
    pandas.DataFrame
        One row per system (and rule), in order of appearance: ``system``, [``rule``], the columns
        ``"0.0"``, ``"0.1"``, ..., ``"1.0"`` (interpolated precision at that recall level), ``11pt_avg``
        and ``n_queries``. Systems without the query have no row.

    Notes
    -----
    .. math:: 11pt = \\frac{1}{11} \\sum_{x \\in \\{0, 0.1, \\dots, 1\\}} IPrec(x)

    For one query, ``11pt_avg`` adds the eleven points from recall 1.0 down, as trec_eval does, so it equals
    the measure ``IPrecAvg`` (trec_eval ``11pt_avg``) to the last bit. For ``"all"`` the level columns are
    the means over queries of each point, and ``11pt_avg`` is the mean over queries of each query's
    average: the mean ``11pt_avg`` as :func:`metrics.aggregate` computes it.

    Examples
    --------
    >>> from metrics import rank_runs
    >>> from metrics.curves import eleven_point
    >>> r = rank_runs("1 0 a 1\\n1 0 b 0\\n1 0 c 1\\n", {"x": "1 Q0 b 1 3 x\\n1 Q0 a 2 2 x\\n1 Q0 c 3 1 x\\n"})
    >>> eleven_point_table(eleven_point(r), "1")[["system", "0.0", "1.0", "11pt_avg"]].round(4)
      system     0.0     1.0  11pt_avg
    0      x  0.6667  0.6667    0.6667
    """
    missing = [c for c in ("system", "query", "recall", "iprec") if c not in points.columns]
    if missing:
        raise ValidationError(f"expected the frame of eleven_point(); missing columns {missing}")
    keys = ["system"] + (["rule"] if "rule" in points.columns else [])
    rows = points[points["query"] != ALL]
    if query != ALL:
        rows = rows[rows["query"] == str(query)]
    out = []
    for key, group in rows.groupby(keys, sort=False):
        values = group["iprec"].to_numpy(dtype=np.float64)
        if len(values) % 11:
            raise ValidationError(f"{key}: expected eleven points per query, found {len(values)} rows")
        matrix = values.reshape(-1, 11)
        total = np.zeros(matrix.shape[0])
        for column in reversed(range(11)):  # trec_eval's order of summation
            total += matrix[:, column]
        record = dict(zip(keys, key if isinstance(key, tuple) else (key,)))
        record.update(zip(LEVEL_NAMES, _mean(matrix)))
        record["11pt_avg"] = float(_mean((total / 11)[:, None])[0])
        record["n_queries"] = matrix.shape[0]
        out.append(record)
    return pd.DataFrame(out, columns=[*keys, *LEVEL_NAMES, "11pt_avg", "n_queries"])


def at_x(frame: pd.DataFrame, x: float) -> pd.DataFrame:
    """The rows of a curve frame at one x (for example rank k), one per system and query.

    Parameters
    ----------
    frame : pandas.DataFrame
        A frame of :func:`metrics.curves.gain_curves` or :func:`metrics.curves.precision_recall_at_k`
        (columns ``system``, ``query``, ``x`` ...), or a part of one.
    x : number
        The x to read at; it must be one of the frame's x (compute the curves to a depth of at least k).

    Returns
    -------
    pandas.DataFrame
        The matching rows, in the frame's order, index reset.

    Raises
    ------
    ValidationError
        When no row has that x.

    Examples
    --------
    >>> curve = pd.DataFrame({"system": ["s", "s"], "query": ["all", "all"], "x": [1, 2], "ndcg": [1.0, 0.5]})
    >>> at_x(curve, 2)["ndcg"].tolist()
    [0.5]
    """
    if "x" not in frame.columns:
        raise ValidationError("expected a curve frame with an x column")
    rows = frame[frame["x"] == x]
    if rows.empty and len(frame):
        raise ValidationError(f"the curves have no point at x = {x} (they run from {frame['x'].min()} to "
                              f"{frame['x'].max()}); compute them deeper")
    return rows.reset_index(drop=True)


def identical_series(frame: pd.DataFrame, x: str, values: Sequence[str], by: str = "system",
                     tolerance: float = 1e-12) -> list[tuple[str, ...]]:
    """The groups of series (one per value of ``by``) that draw the same curve: same x, same values.

    Two series are the same when they have the same x in the same order and every value in ``values``
    differs by at most ``tolerance``. Drawn one over the other, such curves show as one line.

    Parameters
    ----------
    frame : pandas.DataFrame
        A curve frame, or a part of one (for example one query's rows).
    x : str
        The column of the x values.
    values : sequence of str
        The columns that must agree.
    by : str
        The column naming the series.
    tolerance : float
        The largest absolute difference still counted as equal.

    Returns
    -------
    list of tuple of str
        Each group of two or more identical series, in the frame's order (first appearance), each group in
        that order too; empty when every series differs.

    Examples
    --------
    >>> curve = pd.DataFrame({"system": ["a", "a", "b", "b", "c", "c"], "k": [1, 2] * 3,
    ...                       "precision": [1.0, 0.5, 1.0, 0.5, 0.0, 0.5]})
    >>> identical_series(curve, "k", ["precision"])
    [('a', 'b')]
    """
    series = []
    for name, rows in frame.groupby(by, sort=False):
        series.append((name, rows[x].to_numpy(), rows[list(values)].to_numpy(dtype=float)))
    groups: list[list] = []
    for name, xs, ys in series:
        for group in groups:
            _, gx, gy = group[0]
            if len(gx) == len(xs) and np.array_equal(gx, xs) and gy.shape == ys.shape and \
                    np.allclose(gy, ys, rtol=0.0, atol=tolerance, equal_nan=True):
                group.append((name, xs, ys))
                break
        else:
            groups.append([(name, xs, ys)])
    return [tuple(str(member[0]) for member in group) for group in groups if len(group) > 1]
