"""How evenly the judgments cover the compared systems: mean Judged@k per system and the pairs it biases.

A run that did not contribute to the pool has more unjudged documents near the top than the runs that did;
counted as non-relevant, they lower its scores whether or not they are relevant. When the mean Judged@k of
two systems differs by more than a threshold, their comparison rests partly on that difference.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from metrics.errors import ValidationError
from metrics.measures.judged import Judged
from metrics.rankings import Rankings

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["JUDGED_CUTOFF", "JUDGED_GAP", "judged_rate_gaps", "judged_rates", "residual_gaps", "residual_spec"]

JUDGED_CUTOFF = 10
JUDGED_GAP = 0.1


def judged_rates(rankings: Sequence[Rankings], *, cutoff: int = JUDGED_CUTOFF) -> pd.DataFrame:
    """Mean Judged@k of each system.

    Parameters
    ----------
    rankings : sequence of Rankings
    cutoff : int, default=10
        The k of Judged@k.

    Returns
    -------
    pandas.DataFrame
        Columns ``system``, ``judged`` (mean over the evaluated topics; NaN without topics), ``n_queries``.
    """
    import pandas as pd

    measure = Judged(cutoff=cutoff)
    rows = [{"system": r.system, "judged": float(np.mean(measure.compute(r))) if r.n_queries else np.nan,
             "n_queries": r.n_queries} for r in rankings]
    return pd.DataFrame(rows, columns=["system", "judged", "n_queries"])


def judged_rate_gaps(rankings: Sequence[Rankings], *, cutoff: int = JUDGED_CUTOFF,
                     threshold: float = JUDGED_GAP) -> pd.DataFrame:
    """Pairs of systems whose mean Judged@k differ by more than ``threshold``.

    Parameters
    ----------
    rankings : sequence of Rankings
    cutoff : int, default=10
    threshold : float, default=0.1
        The largest difference of mean Judged@k taken as harmless (a fraction of the top k).

    Returns
    -------
    pandas.DataFrame
        Columns ``more_judged``, ``less_judged``, ``judged_more``, ``judged_less``, ``gap``, one row per
        pair over the threshold, largest gap first.
    """
    import pandas as pd

    if not 0.0 <= threshold <= 1.0:
        raise ValidationError(f"judged-rate threshold must be between 0 and 1, got {threshold!r}")
    rates = judged_rates(rankings, cutoff=cutoff).dropna(subset=["judged"])
    rates = rates.sort_values("judged", ascending=False, kind="stable")
    names, values = rates["system"].to_numpy(), rates["judged"].to_numpy()
    i, j = np.triu_indices(len(rates), k=1)
    gap = values[i] - values[j]
    keep = gap > threshold
    frame = pd.DataFrame({"more_judged": names[i][keep], "less_judged": names[j][keep],
                          "judged_more": values[i][keep], "judged_less": values[j][keep], "gap": gap[keep]})
    return frame.sort_values("gap", ascending=False, kind="stable").reset_index(drop=True)


def residual_spec(spec: str) -> str | None:
    """The residual of a measure with the same parameters (``P@10`` -> ``Precision_resid@10``).

    Parameters
    ----------
    spec : str
        A measure, as :func:`metrics.parse_measure` reads it.

    Returns
    -------
    str or None
        The residual's spec; None when the measure has no residual
        (:data:`metrics.measures.RESIDUAL_OF`) or sets a parameter the residual does not take to other
        than its default.
    """
    from metrics.measures import RESIDUAL_OF
    from metrics.measures.parse import parse_measure

    measure = parse_measure(spec)
    name = RESIDUAL_OF.get(type(measure).name)
    if name is None:
        return None
    residual, defaults = parse_measure(name), parse_measure(type(measure).name).values
    kept = {k: v for k, v in measure.values.items() if k in residual.values}
    if any(v != defaults.get(k) for k, v in measure.values.items() if k not in kept):
        return None
    return str(residual(**kept))


def residual_gaps(per_query: pd.DataFrame, measure: str, residual: str, judged: str,
                  systems: Sequence[str]) -> pd.DataFrame:
    """Per system and topic: a measure, its residual, the gap between them and Judged@k.

    Parameters
    ----------
    per_query : pandas.DataFrame
        Tidy per-query values (system, query, measure, value) holding ``measure``, ``residual`` and
        ``judged``.
    measure, residual, judged : str
        Their labels in ``per_query`` (``residual`` from :func:`residual_spec`, ``judged`` e.g.
        ``Judged@10``).
    systems : sequence of str
        The systems kept, in this order.

    Returns
    -------
    pandas.DataFrame
        Columns ``system``, ``query``, ``value``, ``residual``, ``gap`` (residual − value) and ``judged``;
        the systems in the order given, then topics in trec_eval's order.
    """
    values = per_query[per_query["system"].isin(systems)]
    wide = values.pivot_table(index=["system", "query"], columns="measure", values="value", aggfunc="first",
                              sort=False).reset_index()
    wide = wide.rename(columns={measure: "value", residual: "residual", judged: "judged"})
    wide["gap"] = wide["residual"] - wide["value"]
    order = {s: i for i, s in enumerate(systems)}
    wide = wide.iloc[np.lexsort((wide["query"].map(str).to_numpy(), wide["system"].map(order).to_numpy()))]
    return wide[["system", "query", "value", "residual", "gap", "judged"]].reset_index(drop=True)
