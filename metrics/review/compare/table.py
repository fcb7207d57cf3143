"""The results table as data: systems x measures, with intervals, markers, best values and a caption.

:func:`summary_table` builds a :class:`SummaryTable` from the means (:func:`metrics.summarise`, or
:func:`metrics.aggregate`) and, optionally, a :class:`~metrics.stats.significance.Comparison`. Every rendering
(:mod:`metrics.review.compare.render`, the HTML report, the dashboard) reads the same object, so a number, a marker
or a bold cell is decided once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from metrics.checks import Integer, Options, check, refuse
from metrics.errors import ValidationError
from metrics.review.compare.caption import caption
from metrics.review.compare.markers import BETTER, WORSE, _info, _letter_markers, _letters, _require, baseline_markers
from metrics.stats.significance import Comparison

__all__ = ["BETTER", "WORSE", "SummaryTable", "baseline_markers", "summary_table"]

_GLYPHS = {"better": BETTER, "worse": WORSE}


@dataclass(frozen=True, eq=False)
class SummaryTable:
    """Systems x measures values with confidence intervals and significance markers.

    Build it with :func:`summary_table` (markers from a comparison) or :meth:`from_markers`.

    Attributes
    ----------
    values : pandas.DataFrame
        Index the systems, columns the measures (in the order of the means table): each system's value
        (the mean for averaged measures, trec_eval's ``all`` line).
    ci_low, ci_high : pandas.DataFrame
        Same shape: the confidence interval of each mean (NaN where there is none).
    markers : pandas.DataFrame
        Same shape, text: ``""``, :data:`BETTER`, :data:`WORSE` (against a baseline) or the letters of the
        systems a system is significantly better than (all pairs).
    best : pandas.DataFrame
        Same shape, bool: the best value of each measure as shown (ties all best; none when every value ties).
    letters : tuple of (str, str)
        ``(system, letter)`` when markers are letters; empty otherwise.
    baseline : str or None
    test, correction, family : str or None
        The significance test behind the markers (None: no test).
    alpha : float or None
    seed, n_resamples : int or None
        Of randomised tests (None otherwise).
    comparisons : int or None
        How many p-values each correction counted together (the size of the family).
    n_queries : int or None
        Topics behind every value (None when the systems were evaluated on different numbers of topics).
    digits : int
        Decimals shown (counts are shown without decimals).
    decimals : tuple of (str, int)
        Decimals shown per measure.
    aggregations : tuple of (str, str)
        How each measure is aggregated over topics (``mean``, ``sum``, ``gmean``...).
    untested : tuple of str
        Measures in the table that the comparison did not test.
    confidence : float
        Coverage of the intervals.
    """

    values: pd.DataFrame
    ci_low: pd.DataFrame
    ci_high: pd.DataFrame
    markers: pd.DataFrame
    best: pd.DataFrame
    letters: tuple[tuple[str, str], ...] = ()
    baseline: str | None = None
    test: str | None = None
    correction: str | None = None
    family: str | None = None
    alpha: float | None = None
    seed: int | None = None
    n_resamples: int | None = None
    comparisons: int | None = None
    n_queries: int | None = None
    digits: int = 4
    decimals: tuple[tuple[str, int], ...] = ()
    aggregations: tuple[tuple[str, str], ...] = ()
    untested: tuple[str, ...] = ()
    confidence: float = 0.95

    @property
    def systems(self) -> list[str]:
        """The systems (rows), in order."""
        return [str(s) for s in self.values.index]

    @property
    def measures(self) -> list[str]:
        """The measures (columns), in order."""
        return [str(m) for m in self.values.columns]

    @property
    def has_ci(self) -> bool:
        """Whether any value has a confidence interval."""
        return bool(np.isfinite(self.ci_low.to_numpy(dtype=np.float64)).any())

    def text(self, system: str, measure: str) -> str:
        """A value as shown: ``0.4500``, ``12`` for counts, ``–`` when undefined."""
        return _number(float(self.values.loc[system, measure]), dict(self.decimals).get(measure, self.digits))

    def interval(self, system: str, measure: str) -> str:
        """A value's confidence interval as shown, ``[0.3100, 0.5900]``, or ``""`` when it has none."""
        low, high = float(self.ci_low.loc[system, measure]), float(self.ci_high.loc[system, measure])
        if not (np.isfinite(low) and np.isfinite(high)):
            return ""
        places = dict(self.decimals).get(measure, self.digits)
        return f"[{_number(low, places)}, {_number(high, places)}]"

    def cells(self) -> pd.DataFrame:
        """The table in tidy form, one row per cell, systems then measures in order.

        Returns
        -------
        pandas.DataFrame
            Columns ``system``, ``measure``, ``value``, ``ci_low``, ``ci_high``, ``text`` (the value as
            shown), ``interval`` (as shown, or ``""``), ``best`` (bool) and ``marker``.
        """
        rows = [(s, m, float(self.values.loc[s, m]), float(self.ci_low.loc[s, m]), float(self.ci_high.loc[s, m]),
                 self.text(s, m), self.interval(s, m), bool(self.best.loc[s, m]), str(self.markers.loc[s, m]))
                for s in self.systems for m in self.measures]
        return pd.DataFrame(rows, columns=["system", "measure", "value", "ci_low", "ci_high", "text", "interval",
                                           "best", "marker"])

    def caption(self, style: str = "text", *, bold: bool = True, ci: bool = False) -> str:
        """The sentences that explain the table: what the values are, the intervals and the markers.

        Parameters
        ----------
        style : {"text", "latex", "markdown"}, default="text"
            ``latex`` and ``markdown`` escape user text and write markers in their syntax.
        bold : bool, default=True
            Say that the best values are bold.
        ci : bool, default=False
            Say what the bracketed intervals are (when there are any).

        Returns
        -------
        str
        """
        return caption(self, style, bold=bold, ci=ci)

    @classmethod
    def from_markers(cls, means_frame: pd.DataFrame, markers: Mapping[tuple[str, str], str] | None = None, *,
                     baseline: str | None = None, test: str | None = None, correction: str | None = None,
                     alpha: float | None = None, digits: int = 4, confidence: float = 0.95) -> SummaryTable:
        """A table whose baseline markers were decided elsewhere (e.g. :func:`baseline_markers` of a saved frame).

        Parameters
        ----------
        means_frame : pandas.DataFrame
            As for :func:`summary_table`.
        markers : mapping, optional
            ``{(system, measure): "better" | "worse"}``; pairs not in the table are ignored.
        baseline, test, correction : str, optional
            Named in the caption.
        alpha : float, optional
        digits : int, default=4
        confidence : float, default=0.95
            Coverage of the intervals in ``means_frame``.

        Returns
        -------
        SummaryTable
        """
        parts = _parts(means_frame, digits)
        systems, measures = parts.systems, parts.measures
        if baseline is not None and str(baseline) not in systems:
            raise ValidationError(f"baseline {baseline!r} is not one of the systems {systems}")
        marks = pd.DataFrame("", index=systems, columns=measures, dtype=object)
        if markers and baseline is None:
            raise ValidationError("markers against a baseline need the baseline's name")
        for (system, measure), kind in dict(markers or {}).items():
            if kind not in _GLYPHS:
                check("a marker", kind, Options(*_GLYPHS))
            if str(system) in systems and str(measure) in measures:
                marks.loc[str(system), str(measure)] = _GLYPHS[kind]
        return cls(markers=marks, baseline=None if baseline is None else str(baseline), test=test,
                   correction=correction, alpha=None if alpha is None else float(alpha),
                   confidence=float(confidence), **parts.fields())


def summary_table(comparison: Comparison | None, means_frame: pd.DataFrame, *, baseline: str | None = None,
                  digits: int = 4, confidence: float = 0.95) -> SummaryTable:
    """Systems x measures values, marked where a difference is significant.

    Parameters
    ----------
    comparison : Comparison or None
        From :func:`metrics.stats.significance.compare_systems`; None for a table without markers.
    means_frame : pandas.DataFrame
        Columns ``system``, ``measure``, ``value`` and optionally ``n_queries``, ``ci_low``, ``ci_high``
        (:func:`metrics.summarise` or :func:`metrics.aggregate`); a per-query table (with a ``query``
        column) is summarised first. Its order sets the rows and columns; other columns are ignored.
    baseline : str, optional
        Mark differences against this system (default: the comparison's baseline). When both are None,
        each system gets a letter and each value the letters of the systems it is significantly better
        than. With an all-pairs comparison and a baseline, only the pairs with the baseline are read.
    digits : int, default=4
        Decimals shown; the best value is chosen on the values as shown.
    confidence : float, default=0.95
        Coverage of the intervals in ``means_frame`` (named in the caption).

    Returns
    -------
    SummaryTable

    Raises
    ------
    ValidationError
        Not a Comparison, a means table without its columns or with duplicate cells, an unknown baseline.

    Notes
    -----
    "Better" follows each measure's direction (``higher_is_better``); a difference is marked when its row
    of the comparison is ``significant`` (``p_adjusted < alpha``) and its mean difference is not zero.

    Examples
    --------
    >>> from metrics.review.compare import to_text
    >>> from metrics.stats.significance import compare_systems
    >>> per_query = pd.DataFrame({"system": ["b"] * 6 + ["x"] * 6, "query": list("123456") * 2,
    ...                           "measure": "AP", "value": [0.1, 0.2, 0.3, 0.2, 0.1, 0.2,
    ...                                                      0.5, 0.6, 0.7, 0.6, 0.6, 0.5]})
    >>> table = summary_table(compare_systems(per_query, baseline="b"), per_query)
    >>> print(to_text(table), end="")
    System              AP
    b (baseline)   0.1833
    x              0.5833†
    <BLANKLINE>
    Mean over 6 topics. † / ‡: significantly better / worse than the baseline b (paired t-test, Holm-corrected per measure, 1 comparison each, alpha = 0.05).
    """
    if comparison is not None and not isinstance(comparison, Comparison):
        raise refuse("comparison", "a Comparison (from compare_systems) or None", comparison)
    parts = _parts(means_frame, digits)
    systems, measures = parts.systems, parts.measures
    if baseline is None and comparison is not None:
        baseline = comparison.baseline
    baseline = None if baseline is None else str(baseline)
    if baseline is not None and baseline not in systems:
        raise ValidationError(f"baseline {baseline!r} is not one of the systems {systems}")
    markers = pd.DataFrame("", index=systems, columns=measures, dtype=object)
    if comparison is None:
        return SummaryTable(markers=markers, baseline=baseline, confidence=float(confidence), **parts.fields())
    frame = comparison.frame
    frame = frame[frame["measure"].isin(measures) & frame["system_a"].isin(systems) & frame["system_b"].isin(systems)]
    letters: dict[str, str] = {}
    if baseline is None:
        letters = dict(zip(systems, _letters(len(systems))))
        for (system, measure), mark in _letter_markers(frame, systems, letters).items():
            markers.loc[system, measure] = mark
    else:
        for (system, measure), kind in baseline_markers(frame, baseline).items():
            markers.loc[system, measure] = _GLYPHS[kind]
    if comparison.test == "tukey":
        family = None
    elif comparison.family == "all":
        family = len(comparison.frame)
    else:
        family = int(comparison.frame.groupby("measure").size().max()) if len(comparison.frame) else 0
    randomised = comparison.test in ("permutation", "bootstrap")
    return SummaryTable(
        markers=markers, letters=tuple(letters.items()), baseline=baseline, test=comparison.test,
        correction=comparison.correction, family=comparison.family, alpha=float(comparison.alpha),
        seed=comparison.seed if randomised else None, n_resamples=comparison.n_resamples if randomised else None,
        comparisons=family, untested=tuple(m for m in measures if m not in comparison.measures),
        confidence=float(confidence), **parts.fields())


# ---- helpers -----------------------------------------------------------------------------------------------


def _number(value: float, places: int) -> str:
    return f"{value:.{places}f}" if np.isfinite(value) else "–"


@dataclass(frozen=True, eq=False)
class _Means:
    """What both constructors read off a means table: its systems and measures in order, and the fields of
    :class:`SummaryTable` that come from it (:meth:`fields`)."""

    systems: list[str]
    measures: list[str]
    values: pd.DataFrame
    ci_low: pd.DataFrame
    ci_high: pd.DataFrame
    best: pd.DataFrame
    n_queries: int | None
    digits: int
    decimals: tuple[tuple[str, int], ...]
    aggregations: tuple[tuple[str, str], ...]

    def fields(self) -> dict[str, Any]:
        """The keywords of :class:`SummaryTable` this table gives."""
        return {"values": self.values, "ci_low": self.ci_low, "ci_high": self.ci_high, "best": self.best,
                "n_queries": self.n_queries, "digits": self.digits, "decimals": self.decimals,
                "aggregations": self.aggregations}


def _parts(means_frame: pd.DataFrame, digits: int) -> _Means:
    """Values, intervals, decimals and best cells of a means table (shared by both constructors)."""
    digits = check("digits", digits, Integer(0, 12))
    _require(means_frame, ("system", "measure", "value"), "means")
    if "query" in means_frame.columns:
        from metrics.evaluate import summarise

        means_frame = summarise(means_frame)
    frame = means_frame.assign(system=means_frame["system"].astype(str), measure=means_frame["measure"].astype(str))
    if frame.duplicated(["system", "measure"]).any():
        first = frame[frame.duplicated(["system", "measure"])].iloc[0]
        raise ValidationError(f"the means table has more than one value for system {first['system']!r}, "
                              f"measure {first['measure']!r}")
    systems = list(dict.fromkeys(frame["system"]))
    measures = list(dict.fromkeys(frame["measure"]))

    def wide(column: str) -> pd.DataFrame:
        if column not in frame.columns:
            return pd.DataFrame(np.nan, index=systems, columns=measures, dtype=np.float64)
        out = frame.pivot(index="system", columns="measure", values=column).reindex(index=systems, columns=measures)
        out = out.astype(np.float64)
        out.index.name = out.columns.name = None
        return out

    values = wide("value")
    decimals = {}
    for m in measures:
        column = values[m].to_numpy()
        finite = column[np.isfinite(column)]
        decimals[m] = 0 if _info(m)[1] and np.all(finite == np.round(finite)) else int(digits)
    best = pd.DataFrame(False, index=systems, columns=measures)
    for m in measures:
        shown = np.round(values[m].to_numpy(), decimals[m])
        finite = np.isfinite(shown)
        if finite.sum() >= 2:
            target = shown[finite].max() if _info(m)[0] else shown[finite].min()
            ties = finite & (shown == target)
            if ties.sum() < finite.sum():  # when every value ties, none stands out
                best[m] = ties
    n_queries = None
    if "n_queries" in frame.columns:
        counts = pd.unique(frame["n_queries"])
        n_queries = int(counts[0]) if len(counts) == 1 and pd.notna(counts[0]) else None
    return _Means(systems=systems, measures=measures, values=values, ci_low=wide("ci_low"), ci_high=wide("ci_high"),
                  best=best, n_queries=n_queries, digits=digits, decimals=tuple(decimals.items()),
                  aggregations=tuple((m, _info(m)[2]) for m in measures))
