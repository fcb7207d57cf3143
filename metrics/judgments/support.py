"""How many judged documents each measure rests on, under each judgment set.

A set that judged only part of a pool (a language model asked about some documents, a human subset) leaves
more of a run's documents unjudged; counted as not relevant, they lower its scores whether or not they are
relevant, and two sets can then seem to disagree about systems when one of them simply judged less. So next
to every comparison the report says, per set, system and measure, how many of the documents the measure
reads carry a judgment of that set.

The documents a measure reads are each topic's ranking within the measure's cutoff (``nDCG@10``: the top
10), or the whole ranking for a measure without one (``AP``), after the depth ``-M`` and the judged-only
``-J`` conventions. The counts come from the same evaluation as the measures: ``Judged@k``
(:class:`metrics.measures.judged.Judged`) and ``NumRet`` are evaluated beside them
(:func:`support_measures`), and :func:`judged_support` reads them back. The condensed measures
(``AP_condensed``, ``nDCG_condensed(k=10)``: Sakai's AP', nDCG') and the residuals can be asked for like any
measure to see what the unjudged documents could change.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from metrics.evaluate import resolve_measures
from metrics.judgments.systems import set_names

__all__ = ["judged_support", "support_measures"]

_RETRIEVED = "NumRet"


def _cutoff(label: str) -> int | None:
    cutoff = resolve_measures([label])[0][1].values.get("cutoff")
    return int(cutoff) if cutoff is not None else None


def _judged_label(cutoff: int | None) -> str:
    from metrics.measures.judged import Judged

    return str(Judged(cutoff=cutoff))


def support_measures(measures: Sequence[str]) -> list[str]:
    """The measures to evaluate beside ``measures`` for :func:`judged_support`: ``Judged@k`` for each cutoff
    (``Judged`` for a measure without one) and ``NumRet``, without repeats.

    Examples
    --------
    >>> support_measures(["AP", "nDCG@10", "P_10"])
    ['Judged', 'Judged@10', 'NumRet']
    """
    labels = [label for label, _ in resolve_measures(list(measures))]
    needed = dict.fromkeys(_judged_label(_cutoff(label)) for label in labels)
    return [*needed, _RETRIEVED]


def judged_support(per_query: pd.DataFrame, measures: Sequence[str]) -> pd.DataFrame:
    """Per set, system and measure: the documents the measure reads, and how many of them that set judged.

    Parameters
    ----------
    per_query : pandas.DataFrame
        As :func:`metrics.judgments.systems.evaluate_sets` returns it, holding ``measures`` and
        :func:`support_measures` of them.
    measures : sequence of str
        The measures' labels.

    Returns
    -------
    pandas.DataFrame
        Columns ``judges``, ``system``, ``measure``, ``topics``, ``documents`` (ranked documents within the
        measure's cutoff, all topics), ``judged`` (of them, those the set judged), ``judged_share``
        (``judged / documents``; NaN without documents).
    """
    wide = per_query.pivot_table(index=["judges", "system", "query"], columns="measure", values="value",
                                 aggfunc="first", sort=False)
    retrieved = wide[_RETRIEVED].to_numpy(dtype=np.float64)
    rows = []
    for label in [label for label, _ in resolve_measures(list(measures))]:
        cutoff = _cutoff(label)
        share = wide[_judged_label(cutoff)].to_numpy(dtype=np.float64)
        if cutoff is None:
            documents, judged = retrieved, np.rint(share * retrieved)
        else:
            documents, judged = np.minimum(retrieved, cutoff), np.rint(share * cutoff)
        part = pd.DataFrame({"documents": documents, "judged": judged}, index=wide.index)
        summed = part.groupby(level=["judges", "system"], sort=False).agg(
            topics=("documents", "size"), documents=("documents", "sum"), judged=("judged", "sum"))
        rows.append(summed.reset_index().assign(measure=label))
    frame = pd.concat(rows, ignore_index=True)
    frame = frame.astype({"documents": np.int64, "judged": np.int64, "topics": np.int64})
    with np.errstate(invalid="ignore", divide="ignore"):
        frame["judged_share"] = np.where(frame["documents"] > 0, frame["judged"] / frame["documents"], np.nan)
    order = {name: i for i, name in enumerate(set_names(per_query))}
    frame = frame.iloc[np.argsort(frame["judges"].map(order).to_numpy(), kind="stable")]
    return frame[["judges", "system", "measure", "topics", "documents", "judged", "judged_share"]].reset_index(drop=True)
