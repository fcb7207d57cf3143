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

__all__ = ["JUDGED_CUTOFF", "JUDGED_GAP", "judged_rate_gaps", "judged_rates"]

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
