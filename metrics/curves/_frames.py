"""What every curve is made of: checked inputs, the per-query grid of values and the "all" rows that average
it, and tidy frames put together. Private to :mod:`metrics.curves`."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from metrics.checks import Integer, Options, check, refuse
from metrics.conventions import INTERPOLATIONS
from metrics.errors import ValidationError
from metrics.rankings import Rankings

ALL = "all"
MAX_DEPTH = 100_000
"""The largest ``depth`` a curve over ranks takes: its frame has ``depth`` rows per query, whatever the
rankings hold (without a depth, the longest ranking sets it, however long)."""
LEVEL_NAMES = tuple(f"{level / 10:.1f}" for level in range(11))


def _as_list(rankings, queries: Sequence[str] | None = None) -> list[Rankings]:
    """The rankings as a checked list, cut down to ``queries`` when given (see :meth:`Rankings.select_queries`)."""
    if isinstance(rankings, Rankings):
        return [rankings] if queries is None else [rankings.select_queries(queries)]
    if isinstance(rankings, (str, bytes)) or not isinstance(rankings, Sequence):
        raise refuse("rankings", "Rankings or a sequence of Rankings (from metrics.rank_runs)", rankings)
    out = list(rankings)
    if not out:
        raise ValidationError("no rankings given")
    for item in out:
        if not isinstance(item, Rankings):
            raise refuse("rankings", "Rankings (from metrics.rank_runs) only", item)
    names = [r.system for r in out]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ValidationError(f"two rankings share the system name(s) {dupes}")
    return out if queries is None else [r.select_queries(queries) for r in out]


def _rule(r: Rankings, rule: str | None) -> str:
    return check("rule", r.conventions.interpolation if rule is None else rule, Options(*INTERPOLATIONS))


def _depth(depth: int | None, rankings: list[Rankings]) -> int:
    if depth is None:
        longest = max((int(r.num_ret.max()) if r.n_queries else 0) for r in rankings)
        return max(longest, 1)
    return check("depth", depth, Integer(1, MAX_DEPTH, none=True))


def _repeat(value: str, n: int) -> np.ndarray:
    return np.full(n, value, dtype=object)


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
