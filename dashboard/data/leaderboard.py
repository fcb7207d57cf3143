"""The overview's leaderboard: systems filtered by name, sorted by a measure (the best first, as its declaration
says; equal values by name), cut to the top N, baseline first.

Pure: a :class:`metrics.review.compare.SummaryTable` in, a ``pandas.DataFrame`` out, no Streamlit. Each group of
columns comes from a *column provider*, a function ``(table, baseline) -> DataFrame`` indexed by system;
:data:`COLUMNS` lists them in the order they are shown, so a new column (tie ranges, significance groups) is
one more provider in that list, or in the ``columns`` argument of :func:`leaderboard`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from metrics.measures import best_first
from metrics.review.compare import SummaryTable, to_frame

__all__ = ["COLUMNS", "DIFFERENCES", "Provider", "cells", "differences", "in_order", "leaderboard", "letter_groups",
           "means", "ranked", "rows_of", "tie_ranges"]

Provider = Callable[[SummaryTable, "str | None"], pd.DataFrame]


def cells(table: SummaryTable, baseline: str | None) -> pd.DataFrame:
    """Each measure's value as shown, its marker and its confidence interval (``0.4820†  [0.4100, 0.5500]``),
    one text column per measure: the cells of :func:`metrics.review.compare.to_frame`."""
    return to_frame(table, ci=True).drop(columns="system").set_axis(list(table.systems))


def means(table: SummaryTable, baseline: str | None) -> pd.DataFrame:
    """Each measure's value per system as a number (the mean for averaged measures), one column per measure."""
    return table.values.astype(float)


def differences(table: SummaryTable, baseline: str | None) -> pd.DataFrame:
    """Each measure's value minus the baseline's, one column per measure (NaN without a baseline)."""
    values = table.values.astype(float)
    if baseline is None or baseline not in values.index:
        return values * np.nan
    return values - values.loc[baseline]


def tie_ranges(summary: pd.DataFrame, flips: pd.DataFrame, named: int = 3) -> Provider:
    """A provider of each measure's range over the orders of tied scores, beside its value.

    Parameters
    ----------
    summary : pandas.DataFrame
        :func:`metrics.stats.ties.tie_summary` (system, measure, low, reported, high).
    flips : pandas.DataFrame
        :func:`metrics.stats.ties.tie_flips` of that summary (measure, first, second, ...).
    named : int, default=3
        How many of the systems a row could change order with are named (then ``+n``).

    Returns
    -------
    Provider
        One text column ``<measure> ties`` per measure of the table: ``[low, high]`` (``no effect`` when
        the ties change nothing, ``n/a`` without exact bounds), then ``⇅`` and the systems whose order
        with this one some order of the ties reverses.
    """

    def provider(table: SummaryTable, baseline: str | None) -> pd.DataFrame:
        out = {}
        for measure in table.measures:
            bounds = summary[summary["measure"] == measure].set_index("system")
            pairs = flips[flips["measure"] == measure]
            partners: dict[str, list[str]] = {}
            for a, b in zip(pairs["first"], pairs["second"]):
                partners.setdefault(a, []).append(str(b))
                partners.setdefault(b, []).append(str(a))
            column = []
            for system in table.systems:
                low, high = (bounds[c].get(system, np.nan) for c in ("low", "high"))
                text = ("n/a" if not (np.isfinite(low) and np.isfinite(high)) else "no effect" if low == high
                        else f"[{low:.4f}, {high:.4f}]")
                others = partners.get(system, [])
                if others:
                    more = len(others) - named
                    text += " ⇅ " + ", ".join(others[:named]) + (f" +{more}" if more > 0 else "")
                column.append(text)
            out[f"{measure} ties"] = column
        return pd.DataFrame(out, index=list(table.systems))

    return provider


def letter_groups(boards: Mapping[str, pd.DataFrame]) -> Provider:
    """A provider of each measure's significance groups (compact letter display) beside its value.

    Parameters
    ----------
    boards : mapping of str to pandas.DataFrame
        Per measure, :func:`metrics.stats.significance.grouped_leaderboard` (system, mean, group): two systems
        that share a letter do not differ significantly.

    Returns
    -------
    Provider
        One text column ``<measure> group`` per measure of the table with a board (empty for a system the
        board does not hold).
    """

    def provider(table: SummaryTable, baseline: str | None) -> pd.DataFrame:
        out = {f"{m} group": boards[m].set_index("system")["group"].reindex(list(table.systems)).fillna("").tolist()
               for m in table.measures if m in boards}
        return pd.DataFrame(out, index=list(table.systems))

    return provider


COLUMNS: tuple[Provider, ...] = (cells,)  # the leaderboard as shown; a new column is one more provider here
DIFFERENCES: tuple[Provider, ...] = (differences,)  # the same rows as differences to the baseline


def in_order(values: pd.Series, measure: str, worst_first: bool = False) -> list[str]:
    """Systems in order of their value of ``measure``: the best first, in the direction the measure's declaration
    gives (:func:`metrics.measures.best_first`: the lowest first for MR or Fallout), or the worst first.

    Equal values are in order of the systems' names (Python's order of text: ``"B" < "a"``), never in the
    order the systems were loaded, so a top N cut through a tie keeps the same systems whatever the order
    of the files; systems without a value (NaN) come last, by name too.

    Parameters
    ----------
    values : pandas.Series
        One value per system, indexed by system.
    measure : str
        The measure's label (``"AP"``, ``"MR"``).
    worst_first : bool, default=False
        The worst value first instead (ties still by name, missing values still last).
    """
    names = sorted(map(str, values.index))
    key = values.set_axis(list(map(str, values.index))).loc[names].to_numpy(dtype=float)
    return [names[i] for i in best_first(key, measure, worst_first=worst_first)]


def ranked(table: SummaryTable, by: str | None = None, worst_first: bool = False) -> list[str]:
    """The systems sorted by one measure's value (default the first measure), the best first as the measure's
    declaration says; equal values by name, missing values last (:func:`in_order`).

    Parameters
    ----------
    table : metrics.review.compare.SummaryTable
        The values (index the systems, columns the measures).
    by : str, optional
        The measure sorted on; the table's first measure when None.
    worst_first : bool, default=False
        The worst value first instead.

    Returns
    -------
    list of str
        Every system of the table, in that order.
    """
    values = table.values
    if by is None:
        if values.shape[1] == 0:
            return sorted(map(str, values.index))
        by = values.columns[0]
    if by not in values.columns:
        raise KeyError(f"{by}: not a column of the table ({', '.join(map(str, values.columns))})")
    return in_order(values[by], str(by), worst_first)


def leaderboard(table: SummaryTable, *, baseline: str | None = None, search: str = "", top: int | None = None,
                sort_by: str | None = None, worst_first: bool = False,
                columns: Sequence[Provider] = COLUMNS) -> pd.DataFrame:
    """The rows of the leaderboard: search, sort, top N, the baseline pinned first.

    Parameters
    ----------
    table : metrics.review.compare.SummaryTable
        Systems × measures with markers.
    baseline : str, optional
        Always shown, in the first row, whatever the search and the top N; the reference of the
        differences.
    search : str
        Systems whose name contains it, ignoring case (plain text, no pattern); empty: every system.
    top : int, optional
        At most that many systems besides the baseline, the first in the sorted order; None: all.
    sort_by : str, optional
        The measure sorted on (default the first measure), the best value first as the measure's declaration
        says, equal values by name; see :func:`ranked`.
    worst_first : bool, default=False
        The worst value first instead.
    columns : sequence of Provider
        The column providers, in the order of their columns (default :data:`COLUMNS`).

    Returns
    -------
    pandas.DataFrame
        Column ``system``, then each provider's columns; one row per system shown, in the order shown.
    """
    if top is not None and top < 0:
        raise ValueError(f"top: expected a number of systems >= 0, found {top}")
    order = ranked(table, sort_by, worst_first)
    needle = search.casefold()
    chosen = [s for s in order if s != baseline and needle in str(s).casefold()]
    if top is not None:
        chosen = chosen[:top]
    if baseline is not None and baseline in order:
        chosen = [baseline, *chosen]
    frame = pd.DataFrame({"system": chosen})
    for provider in columns:
        part = provider(table, baseline)
        frame = pd.concat([frame, part.reindex(chosen).reset_index(drop=True)], axis=1)
    return frame


def rows_of(summary: pd.DataFrame, systems: Sequence[str]) -> pd.DataFrame:
    """The rows of a tidy summary (a ``system`` column) of ``systems``, in that order (e.g. the leaderboard's)."""
    at = {s: i for i, s in enumerate(systems)}
    rows = summary[summary["system"].isin(at)]
    return rows.iloc[np.argsort(rows["system"].map(at).to_numpy(), kind="stable")]
