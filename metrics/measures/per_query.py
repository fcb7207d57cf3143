"""What evaluating one ranked run means: measure names resolved, then one tidy per-query table.

:func:`resolve_measures` turns names into ``(label, measure)`` pairs; :func:`per_query_frame` computes them
on one :class:`~metrics.rankings.Rankings` as the tidy table ``system | query | measure | value``
(:data:`COLUMNS`). :func:`metrics.evaluate` does this for every run, in this process or through
:mod:`metrics.scale` on workers, which import this module and never :mod:`metrics.evaluate`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Union

import numpy as np

from metrics.errors import ValidationError
from metrics.measures.base import Measure
from metrics.measures.parse import parse_measure
from metrics.measures.base import list_measures
from metrics.measures.trec_names import expand_trec, trec_table
from metrics.rankings import Rankings

if TYPE_CHECKING:  # pandas is imported where a table is built, not at start-up
    import pandas as pd

__all__ = ["COLUMNS", "DEFAULT_MEASURES", "MeasureSpec", "names_table", "per_query_frame", "per_query_values",
           "resolve_measures"]

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
