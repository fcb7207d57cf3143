"""What evaluating one ranked run means: measure names resolved, then one tidy per-query table, and that
table's type.

:func:`resolve_measures` turns names into ``(label, measure)`` pairs; :func:`per_query_frame` computes them
on one :class:`~metrics.rankings.Rankings` as the tidy table ``system | query | measure | value``
(:data:`COLUMNS`). :func:`metrics.evaluate` does this for every run, in this process or through
:mod:`metrics.scale` on workers, which import this module and never :mod:`metrics.evaluate`.

:class:`PerQuery` is what every function that reads such a table takes it through: its columns checked once,
with one wording, and each measure's declaration at hand (its direction, :func:`higher_is_better`, and its
exactness under ties). :func:`best_first` is the one rule that orders systems by a measure's values.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Union

from functools import lru_cache

import numpy as np

from metrics.checks import refuse
from metrics.errors import RankscopeError, Refused, ValidationError
from metrics.measures.base import Measure
from metrics.measures.parse import parse_measure
from metrics.measures.base import list_measures
from metrics.measures.trec_names import expand_trec, trec_table
from metrics.rankings import Rankings

if TYPE_CHECKING:  # pandas is imported where a table is built, not at start-up
    import pandas as pd

__all__ = ["COLUMNS", "DEFAULT_MEASURES", "MeasureSpec", "PerQuery", "best_first", "higher_is_better", "names_table",
           "per_query_frame", "per_query_values", "resolve_measures"]

COLUMNS = ("system", "query", "measure", "value")
DEFAULT_MEASURES = ("AP", "nDCG@10", "P@10", "R@100", "RR")
MeasureSpec = Union[str, Measure]


def resolve_measures(specs: MeasureSpec | Iterable[MeasureSpec]) -> list[tuple[str, Measure]]:
    """Turn measure names into ``(label, measure)`` pairs, in the order given, without repeats.

    A trec_eval name keeps its spelling as the label (``P_10``, ``iprec_at_recall_0.10``); trec_eval's
    ``-m`` forms expand as on its command line (``P`` -> ``P_5`` ... ``P_1000``, ``P.5,10``, ``all_trec``,
    ``official``). Any other name is parsed in ir_measures syntax and labelled canonically (``nDCG@10``),
    except where that name would read back as a trec_eval list: set precision (``SetP``) is ``set_P``.
    """
    if isinstance(specs, (str, Measure)):
        specs = [specs]
    table = trec_table()
    pairs: list[tuple[str, Measure]] = []
    for spec in specs:
        if isinstance(spec, Measure):
            found = [(_label(spec, table), spec)]
        elif spec in ("all_trec", "official") or spec in table or spec.partition(".")[0] in table:
            found = [(m.trec_label() or str(m), m) for m in expand_trec(spec)]
        else:
            measure = parse_measure(spec)
            label = spec if measure.trec_label() == spec else _label(measure, table)
            found = [(label, measure)]
        for pair in found:
            if pair[0] not in {p[0] for p in pairs}:
                pairs.append(pair)
    if not pairs:
        raise ValidationError("no measures given")
    return pairs


def names_table() -> str:
    """The measures page's table of names (docs/_ext/measures_page.py): for each ir_measures spelling a measure declares, rankscope's
    label (:func:`resolve_measures`) and trec_eval's name of the same measure, and whether ir_measures' values
    are rankscope's."""
    rows = ["| measure | ir_measures | rankscope | trec_eval | values |", "|---|---|---|---|---|"]
    for cls in list_measures():
        for spelling in cls.ir_measures:
            label, measure = resolve_measures([spelling])[0]
            trec = measure.trec_label()
            rows.append(f"| {cls.pretty_name} | `{spelling}` | `{label}` | {f'`{trec}`' if trec else '—'} | "
                        f"{cls.ir_measures_differs.get(spelling, 'equal')} |")
    return "\n".join(rows) + "\n"


def _label(measure: Measure, table) -> str:
    """The canonical name of ``measure`` (``nDCG@10``), or its trec_eval name where the canonical one is also a
    trec_eval ``-m`` list (set precision, ``P``, would read back as ``P_5`` ... ``P_1000``: it is ``set_P``)."""
    text = str(measure)
    return (measure.trec_label() or text) if text in table else text


def per_query_values(rankings: Rankings, pairs: Sequence[tuple[str, Measure]]) -> np.ndarray:
    """Values of resolved ``(label, measure)`` pairs for one ranked run: shape (measures, queries)."""
    nq = rankings.n_queries
    if not pairs:
        return np.zeros((0, nq))
    return np.vstack([np.asarray(m.compute(rankings), dtype=np.float64).reshape(nq) for _, m in pairs])


def per_query_frame(rankings: Rankings, pairs: Sequence[tuple[str, Measure]]) -> "pd.DataFrame":
    """The tidy per-query table of one ranked run for resolved ``(label, measure)`` pairs."""
    import pandas as pd

    nq, labels = rankings.n_queries, np.asarray([label for label, _ in pairs], dtype=object)
    values = per_query_values(rankings, pairs)
    return pd.DataFrame({
        "system": np.full(nq * len(pairs), rankings.system, dtype=object),
        "query": np.repeat(rankings.queries.astype(object), len(pairs)),
        "measure": np.tile(labels, nq),
        "value": values.T.ravel(),
    })


# ---- the per-query table as a type ---------------------------------------------------------------------------


@lru_cache(maxsize=1024)
def _declared(label: str) -> Measure | None:
    try:
        return parse_measure(label)
    except RankscopeError:
        return None


def declaration(measure: MeasureSpec) -> Measure | None:
    """The measure a label names (parsed once per label), or None for a label no measure declares."""
    return measure if isinstance(measure, Measure) else _declared(str(measure))


def higher_is_better(measure: MeasureSpec) -> bool:
    """Which way a measure's values are better, as its declaration says.

    Parameters
    ----------
    measure : str or Measure
        A measure or its label (``"MR"``, ``"Fallout@10"``, ``"nDCG@10"``).

    Returns
    -------
    bool
        The declaration's ``higher_is_better``; True for a label no measure declares (a value of the caller's).

    Examples
    --------
    >>> higher_is_better("nDCG@10"), higher_is_better("MR"), higher_is_better("Unjudged@10")
    (True, False, False)
    """
    found = declaration(measure)
    return True if found is None else bool(found.higher_is_better)


def best_first(values: Sequence[float] | np.ndarray, measure: MeasureSpec, *, worst_first: bool = False) -> np.ndarray:
    """The positions of ``values`` (one per system) in order, the best value of ``measure`` first.

    The one rule that orders systems by a measure: descending where higher is better, ascending where
    lower is; equal values keep the order given, and missing values (NaN) come last.

    Parameters
    ----------
    values : sequence of float
        One value of ``measure`` per system.
    measure : str or Measure
        Its declaration gives the direction (:func:`higher_is_better`).
    worst_first : bool, default=False
        The worst value first instead (equal values still in the order given, missing values still last).

    Examples
    --------
    >>> best_first([0.2, float("nan"), 0.5, 0.2], "AP").tolist(), best_first([3.0, 1.0, 2.0], "MR").tolist()
    ([2, 0, 3, 1], [1, 2, 0])
    >>> best_first([0.2, float("nan"), 0.5, 0.2], "AP", worst_first=True).tolist()
    [0, 3, 2, 1]
    """
    key = np.asarray(values, dtype=np.float64)
    key = key if higher_is_better(measure) == worst_first else -key
    return np.argsort(np.where(np.isnan(key), np.inf, key), kind="stable")


class PerQuery:
    """A tidy per-query table, its columns checked once, each measure's declaration at hand.

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per (system, query, measure): the columns ``system``, ``query``, ``measure``, ``value``
        (:data:`COLUMNS`), as :func:`metrics.evaluate` returns them; other columns are kept.
    columns : sequence of str, default=COLUMNS
        The columns required (a table of means has no ``query``).

    Raises
    ------
    ValidationError
        Not a DataFrame, or a required column missing: ``per_query: expected a per-query table with columns
        system, query, measure, value, found no column value``.

    Examples
    --------
    >>> import pandas as pd
    >>> table = PerQuery(pd.DataFrame({"system": ["a", "b"], "query": "1", "measure": "MR", "value": [3.0, 1.0]}))
    >>> table.measures(), table.higher_is_better("MR"), table.ranked("MR")
    (['MR'], False, ['b', 'a'])
    """

    __slots__ = ("frame",)

    def __init__(self, frame: "pd.DataFrame", columns: Sequence[str] = COLUMNS) -> None:
        import pandas as pd

        wanted = ", ".join(columns)
        if not isinstance(frame, pd.DataFrame):
            raise refuse("per_query", f"a per-query table (a DataFrame with columns {wanted})", frame)
        missing = [c for c in columns if c not in frame.columns]
        if missing:
            raise Refused("per_query", f"a per-query table with columns {wanted}",
                          f"no column {' or '.join(missing)}")
        self.frame = frame

    @classmethod
    def of(cls, table: "PerQuery | pd.DataFrame", columns: Sequence[str] = COLUMNS) -> "PerQuery":
        """``table`` as a checked per-query table (a :class:`PerQuery` is checked for ``columns`` again)."""
        return cls(table.frame if isinstance(table, PerQuery) else table, columns)

    def __repr__(self) -> str:
        return f"PerQuery({len(self.frame)} rows, measures {self.measures()})"

    def measures(self) -> list[str]:
        """The measure labels, as text, in order of first appearance."""
        return list(dict.fromkeys(self.frame["measure"].astype(str)))

    def systems(self) -> list[str]:
        """The system names, as text, in order of first appearance."""
        return list(dict.fromkeys(self.frame["system"].astype(str)))

    @staticmethod
    def declaration(label: str) -> Measure | None:
        """The measure a label names, or None for a label no measure declares."""
        return declaration(label)

    @staticmethod
    def higher_is_better(label: str) -> bool:
        """Which way the measure's values are better (:func:`higher_is_better`)."""
        return higher_is_better(label)

    @staticmethod
    def exact_under_ties(label: str) -> bool:
        """Whether ordering tied scores by grade gives the measure's exact bounds (its declaration's
        :meth:`~metrics.measures.Measure.exact_ties`; False for a label no measure declares)."""
        found = declaration(label)
        return found is not None and bool(found.exact_ties())

    def summary(self, label: str) -> "pd.Series":
        """Each system's summary of one measure over its queries, by the measure's own rule (mean, sum,
        geometric mean or median; the mean for a label no measure declares), indexed by system in order."""
        rows = self.frame[self.frame["measure"].astype(str) == str(label)]
        found = declaration(label)
        combine = (lambda v: float(np.mean(v))) if found is None else found.aggregate
        groups = rows.groupby(rows["system"].astype(str), sort=False)["value"]
        return groups.agg(lambda v: combine(v.to_numpy(dtype=np.float64)))

    def ranked(self, label: str) -> list[str]:
        """The systems, the best summary of ``label`` first (:func:`best_first`); a system without a value of
        it comes last, in the order it appears."""
        values = self.summary(label).reindex(self.systems())
        return [values.index[i] for i in best_first(values.to_numpy(dtype=np.float64), label)]
