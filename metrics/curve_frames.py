"""The tidy frames every curve is made of: checked inputs, one query's rankings, the per-query grid, the
means over queries, and tables read off the curves.

The curve functions live in :mod:`metrics.curves` (which re-exports what is public here); this module holds
what they share, and the tables the dashboard and the report show beside the curves:

* :func:`select_queries` cuts a system's rankings down to some queries, so that a curve of one topic costs
  the length of that topic's ranking, not the length of the run;
* :func:`mean_over_queries` averages per-query curves point by point ("all" rows);
* :func:`eleven_point_table` lays the eleven interpolated points side by side with their average
  (trec_eval's ``11pt_avg``);
* :func:`at_x` reads each curve at one x (the row of rank k: DCG@k, IDCG@k, nDCG@k, P@k, R@k).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from metrics.conventions import INTERPOLATIONS
from metrics.errors import ValidationError
from metrics.rankings import Rankings

__all__ = ["ALL", "select_queries", "mean_over_queries", "eleven_point_table", "at_x"]

ALL = "all"
GAINS = ("linear", "exp")
DISCOUNTS = ("log2", "jk")
IDEALS = ("judged", "retrieved")
LEVEL_NAMES = tuple(f"{level / 10:.1f}" for level in range(11))


def select_queries(rankings: Rankings, queries: Sequence[str]) -> Rankings:
    """One system's rankings restricted to some queries (in the rankings' order), sharing the run.

    Parameters
    ----------
    rankings : Rankings
    queries : sequence of str
        Query ids; ids the system was not evaluated on are skipped (the result may have no query).

    Returns
    -------
    Rankings
        The same system, conventions and run, with only the rankings and judgment counts of those
        queries: every measure and curve of a query is the same as on the whole run.

    Examples
    --------
    >>> from metrics import rank_runs
    >>> r = rank_runs("1 0 a 1\\n2 0 b 1\\n", {"x": "1 Q0 a 1 2 x\\n2 Q0 c 1 2 x\\n2 Q0 b 2 1 x\\n"})[0]
    >>> one = select_queries(r, ["2"])
    >>> one.queries.tolist(), one.offsets.tolist(), one.rel.tolist()
    (['2'], [0, 2], [-1, 1])
    """
    if not isinstance(rankings, Rankings):
        raise ValidationError(f"expected Rankings (from metrics.rank_runs), got {type(rankings).__name__}")
    if isinstance(queries, (str, bytes)):
        raise ValidationError("queries must be a sequence of query ids, not one string")
    wanted = np.asarray([str(q) for q in queries], dtype=object)
    index = np.flatnonzero(np.isin(rankings.queries.astype(str), wanted.astype(str)))
    counts = rankings.num_ret[index]
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    positions = np.repeat(rankings.offsets[index] - offsets[:-1], counts) + np.arange(int(offsets[-1]))
    return Rankings(system=rankings.system, queries=rankings.queries[index], offsets=offsets,
                    rel=rankings.rel[positions], rows=rankings.rows[positions],
                    rel_levels=rankings.rel_levels[index], conventions=rankings.conventions, run=rankings.run,
                    ties=rankings.ties)


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
    :func:`precision_recall_at_k` over the queries of one system gives the mean ``P@k`` exactly. See the module notes for which queries count.

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
            raise ValidationError(f"{key}: expected eleven points per query, got {len(values)} rows")
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


# ---- helpers ------------------------------------------------------------------------------------------
def _as_list(rankings, queries: Sequence[str] | None = None) -> list[Rankings]:
    """The rankings as a checked list, cut down to ``queries`` when given (see :func:`select_queries`)."""
    if isinstance(rankings, Rankings):
        return [rankings] if queries is None else [select_queries(rankings, queries)]
    if isinstance(rankings, (str, bytes)) or not isinstance(rankings, Sequence):
        raise ValidationError(f"expected Rankings or a sequence of Rankings (from metrics.rank_runs), "
                              f"got {type(rankings).__name__}")
    out = list(rankings)
    if not out:
        raise ValidationError("no rankings given")
    for item in out:
        if not isinstance(item, Rankings):
            raise ValidationError(f"expected Rankings (from metrics.rank_runs), got {type(item).__name__}")
    names = [r.system for r in out]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ValidationError(f"two rankings share the system name(s) {dupes}")
    return out if queries is None else [select_queries(r, queries) for r in out]


def _rule(r: Rankings, rule: str | None) -> str:
    rule = r.conventions.interpolation if rule is None else rule
    if rule not in INTERPOLATIONS:
        raise ValidationError(f"rule must be one of {INTERPOLATIONS}, got {rule!r}")
    return rule


def _depth(depth: int | None, rankings: list[Rankings]) -> int:
    if depth is None:
        longest = max((int(r.num_ret.max()) if r.n_queries else 0) for r in rankings)
        return max(longest, 1)
    if not isinstance(depth, (int, np.integer)) or isinstance(depth, bool) or depth < 1:
        raise ValidationError(f"depth must be a positive integer or None, got {depth!r}")
    return int(depth)


def _check_gain(gain: str, discount: str, base: float) -> None:
    if gain not in GAINS:
        raise ValidationError(f"gain must be one of {GAINS}, got {gain!r}")
    if discount not in DISCOUNTS:
        raise ValidationError(f"discount must be one of {DISCOUNTS}, got {discount!r}")
    if isinstance(base, bool) or not isinstance(base, (int, float)) or not np.isfinite(base) or base <= 1.0:
        raise ValidationError(f"base must be a finite number > 1, got {base!r}")
    if discount != "jk" and base != 2.0:
        raise ValidationError('base applies to discount="jk" only')


def _repeat(value: str, n: int) -> np.ndarray:
    return np.full(n, value, dtype=object)


def _grade(rel: np.ndarray) -> np.ndarray:
    return np.where(rel >= 0, rel, np.nan).astype(np.float64)


def _frame(columns: dict) -> pd.DataFrame:
    return pd.DataFrame(columns)


def _concat(frames: list[pd.DataFrame]) -> pd.DataFrame:
    frames = [f for f in frames if len(f)] or frames[:1]
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0].reset_index(drop=True)


def _mean(matrix: np.ndarray) -> np.ndarray:
    """Column means of a ``(queries, x)`` matrix, each summed as ``numpy.mean`` sums a 1-d array."""
    if not matrix.shape[0]:
        return np.zeros(matrix.shape[1])
    return np.ascontiguousarray(matrix.T).mean(axis=1)


def _columns(x_name: str, y_name: str, values: Sequence[str], extra: Sequence[str] = ()) -> list[str]:
    head = ["system", "query", "x", "y"] + ([] if x_name == "x" else [x_name])
    return head + [v for v in values if v != x_name] + list(extra) + ["n_queries"]


def _average_rows(system: str, xs: np.ndarray, columns: dict, x_name: str, y_name: str, n_queries: int,
                  extra: dict | None = None) -> pd.DataFrame:
    n = len(xs)
    data = {"system": _repeat(system, n), "query": _repeat(ALL, n), "x": xs, "y": columns[y_name]}
    if x_name != "x":
        data[x_name] = xs
    data.update(columns)
    data.update(extra or {})
    data["n_queries"] = np.full(n, n_queries, dtype=np.int64)
    return pd.DataFrame(data)


def _grid_frame(system: str, queries: np.ndarray, xs: np.ndarray, columns: dict, x_name: str, y_name: str,
                average: bool, extra: dict | None = None, per_query: bool = True) -> pd.DataFrame:
    """Per-query rows (queries x xs, from ``(n_queries, len(xs))`` matrices), then the "all" rows."""
    nq, n = len(queries), len(xs)
    means = {name: _mean(matrix) for name, matrix in columns.items()} if average else {}
    rows = _average_rows(system, xs, means, x_name, y_name, nq, extra) if average else None
    if not per_query:
        return rows if rows is not None else pd.DataFrame(columns=_columns(x_name, y_name, list(columns), list(extra or ())))
    data = {"system": _repeat(system, nq * n), "query": np.repeat(queries.astype(object), n),
            "x": np.tile(xs, nq), "y": columns[y_name].ravel()}
    if x_name != "x":
        data[x_name] = data["x"]
    data.update({name: matrix.ravel() for name, matrix in columns.items()})
    data.update({name: np.tile(value, nq) for name, value in (extra or {}).items()})
    data["n_queries"] = np.ones(nq * n, dtype=np.int64)
    frame = pd.DataFrame(data)
    return frame if rows is None else pd.concat([frame, rows], ignore_index=True)
