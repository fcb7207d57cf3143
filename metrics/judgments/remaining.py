"""How many more judgments a decision needs: for each pair of runs, and for all of them, in the method's order.

A :class:`~metrics.judgments.decide.Decision` gives each pair's expected difference ``m`` and its standard
deviation ``s`` under the judgments so far; the pair is decided when ``P(order holds) >= confidence``, which
under the normal approximation is ``|m| / s >= z`` (``z`` the confidence's quantile). The estimate assumes
that judging a document leaves ``m`` where it is (its expectation) and takes its share of the variance away:
the linear share ``v (w_a - w_b)^2``, ``w`` each run's weight of the document (:mod:`metrics.judgments.uncertainty`,
scaled by its topic's normaliser), ``v = p (1 - p)``. Walking the documents in the order the decision proposes
them now, a pair needs the judgments until its variance is down to ``(|m| / z)^2``; the task needs the largest
of these over the pairs not decided. Two things make the true number smaller, never larger: AP's quadratic
terms (each judgment takes some of them away too), and a method that re-orders after each judgment. A pair
whose expected difference is 0 (a tie under the model) is never decided by judging alone; a pair still open
after every document the decision proposes needs more than there are.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from metrics.checks import Integer, check
from metrics.errors import ValidationError

if TYPE_CHECKING:
    import pandas as pd

    from metrics.judgments.decide import Decision

__all__ = ["NEEDED_COLUMNS", "WALKED", "still_needed", "total_needed"]

WALKED = 50_000
"""The most proposed documents walked (more: "more than this many")."""
CELLS = 1 << 22
NEEDED_COLUMNS = ("better", "worse", "probability", "decided", "needed", "beyond")


def _weights(decision: "Decision"):
    """Each run's weight of each unjudged candidate, scaled by its topic's normaliser: a sparse
    ``(runs, candidates)`` matrix (judged candidates weigh 0)."""
    from scipy import sparse

    c = decision.candidates
    scaled = decision.omega * decision.scale[decision.topic]
    return sparse.csr_matrix((scaled, (decision.system, decision.candidate)), shape=(c.n_systems, len(c)))


def still_needed(decision: "Decision", *, walked: int = WALKED) -> "pd.DataFrame":
    """Per pair, the judgments of the decision's proposed documents (in its order now) until the pair is decided.

    Parameters
    ----------
    decision : Decision
        Made with ``proposing=True``; read as it is (it is not changed).
    walked : int, default=50000
        The most documents walked.

    Returns
    -------
    pandas.DataFrame
        One row per pair, as :meth:`~metrics.judgments.decide.Decision.probabilities` orders them: ``better``,
        ``worse``, ``probability``, ``decided``, ``needed`` (0 for a decided pair; NaN when the pair is not
        decided within the documents walked, or ties) and ``beyond`` (True for those).
    """
    from scipy.special import ndtri

    check("walked", walked, Integer(1))
    if not decision.proposing:
        raise ValidationError("the estimate walks the documents the decision proposes: make it with proposing=True")
    table = decision.probabilities()
    z = float(ndtri(decision.confidence))
    mean, sd = table["difference"].to_numpy(), table["sd"].to_numpy()
    decided = table["decided"].to_numpy()
    target = (np.abs(mean) / z) ** 2
    need = sd ** 2 - target  # the variance to take away
    order = decision.propose(None)[0][:walked]
    weights = _weights(decision)[:, order].tocsc()
    v = decision.prior * (1.0 - decision.prior)
    needed = np.where(decided, 0.0, np.nan)
    open_ = np.flatnonzero(~decided & (need > 0) & (np.abs(mean) > 1e-12))
    needed[~decided & (need <= 0)] = 0.0  # decided by the normal approximation, not by the exact count: none more
    rows = max(1, CELLS // max(len(order), 1))
    for start in range(0, len(open_), rows):
        chunk = open_[start:start + rows]
        a, b = decision.first[chunk], decision.second[chunk]
        share = np.asarray((weights[a] - weights[b]).power(2).todense()) * v  # pairs x documents, in order
        reached = np.cumsum(share, axis=1) >= need[chunk][:, None]
        found = reached.any(axis=1)
        needed[chunk[found]] = reached[found].argmax(axis=1) + 1
    out = table.loc[:, ["better", "worse", "probability", "decided"]].copy()
    out["needed"] = needed
    out["beyond"] = np.isnan(needed)
    return out


def total_needed(needed: "pd.DataFrame") -> float:
    """The judgments until every pair is decided: the most any pair needs (NaN when one is beyond)."""
    values = needed["needed"].to_numpy(dtype=np.float64)
    return float(values.max()) if len(values) and not np.isnan(values).any() else float("nan")
