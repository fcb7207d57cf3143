"""Topic by topic: where two systems differ, and how several systems ranked one topic.

:func:`paired_topics` puts one measure of two systems side by side for every topic, sorted by the
difference, with the count of topics each one wins; :func:`side_by_side` lists the top of several systems'
rankings of one topic with each document's judgment. Both read what :func:`metrics.evaluate` and
:func:`metrics.rank_runs` produce and compute nothing the measures do not.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd

from metrics.anatomy import anatomy
from metrics.errors import ValidationError
from metrics.rankings import Rankings

__all__ = ["PairedTopics", "paired_topics", "side_by_side", "RANKING_COLUMNS"]

MISSING = ("drop", "zero")
RANKING_COLUMNS = ("system", "rank", "docid", "score", "grade", "judged", "relevant")


@dataclass(frozen=True, eq=False)
class PairedTopics:
    """One measure of systems A and B on each topic (see :func:`paired_topics`).

    Attributes
    ----------
    measure, a, b : str
    frame : pandas.DataFrame
        Columns ``query``, ``a``, ``b`` (the two values) and ``diff`` (``b - a``), one row per topic,
        sorted by ``diff`` from the largest gain of B to its largest loss, ties by query id.
    only_a, only_b : tuple of str
        Topics evaluated for one system only: left out (``missing="drop"``) or scored 0 for the other
        (``missing="zero"``).
    wins, ties, losses : int
        Topics where B scores higher than A, the same, lower.
    missing : str
    """

    measure: str
    a: str
    b: str
    frame: pd.DataFrame
    only_a: tuple[str, ...]
    only_b: tuple[str, ...]
    wins: int
    ties: int
    losses: int
    missing: str


def paired_topics(per_query: pd.DataFrame, measure: str, a: str, b: str, *, missing: str = "drop") -> PairedTopics:
    """One measure of two systems, topic by topic, sorted by how much B gains over A.

    Parameters
    ----------
    per_query : pandas.DataFrame
        Columns ``system``, ``query``, ``measure``, ``value`` (:func:`metrics.evaluate`).
    measure : str
        A measure label of the table.
    a, b : str
        The two systems (they may be the same: every topic is then a tie).
    missing : {"drop", "zero"}, default="drop"
        A topic evaluated for one system only is left out, or scores 0 for the other (as trec_eval ``-c``
        scores a topic a run does not answer).

    Returns
    -------
    PairedTopics

    Raises
    ------
    ValidationError
        An unknown system or measure, or a bad option.

    Notes
    -----
    The values are aligned by :func:`metrics.significance.align_scores` and the wins, ties and losses
    counted by :func:`metrics.significance.win_tie_loss` (with no tolerance), so they agree with the
    ``wins``, ``ties`` and ``losses`` of the paired tests.

    Examples
    --------
    >>> per_query = pd.DataFrame({"system": ["x", "x", "x", "y", "y"], "query": ["1", "2", "3", "1", "2"],
    ...                           "measure": "AP", "value": [0.2, 0.5, 0.9, 0.6, 0.5]})
    >>> pair = paired_topics(per_query, "AP", "x", "y")
    >>> pair.frame.round(2).to_dict("list")
    {'query': ['1', '2'], 'a': [0.2, 0.5], 'b': [0.6, 0.5], 'diff': [0.4, 0.0]}
    >>> pair.only_a, (pair.wins, pair.ties, pair.losses)
    (('3',), (1, 1, 0))
    """
    from metrics.significance import align_scores, win_tie_loss

    if missing not in MISSING:
        raise ValidationError(f"missing must be one of {MISSING}, got {missing!r}")
    needed = [c for c in ("system", "query", "measure", "value") if c not in per_query.columns]
    if needed:
        raise ValidationError(f"expected a per-query table with columns system, query, measure, value; "
                              f"missing {needed}")
    rows = per_query[per_query["measure"] == measure]
    if rows.empty:
        raise ValidationError(f"no values of {measure!r} in the table")
    series = {}
    for name in (a, b):
        values = rows[rows["system"] == name]
        if values.empty and name not in set(per_query["system"]):
            raise ValidationError(f"no system {name!r}; the table has {sorted(set(per_query['system']))}")
        series[name] = pd.Series(values["value"].to_numpy(dtype=np.float64),
                                 index=values["query"].astype(str).to_numpy(), dtype=np.float64)
    sa, sb = series[a], series[b]
    only_a = tuple(str(q) for q in sa.index.difference(sb.index))
    only_b = tuple(str(q) for q in sb.index.difference(sa.index))
    if missing == "drop":
        common = sa.index.intersection(sb.index)
        sa, sb = sa.loc[common], sb.loc[common]
    queries, x, y = align_scores(sa, sb, fill="zero" if missing == "zero" else None)
    diff = y - x
    frame = pd.DataFrame({"query": queries.astype(object), "a": x, "b": y, "diff": diff})
    frame = frame.sort_values(["diff", "query"], ascending=[False, True], kind="stable").reset_index(drop=True)
    if len(diff) >= 2:
        wins, ties, losses = win_tie_loss(x, y)
    else:  # the paired helpers need two topics; with one the counts are read off directly
        wins, ties, losses = int((diff > 0).sum()), int((diff == 0).sum()), int((diff < 0).sum())
    return PairedTopics(measure=measure, a=a, b=b, frame=frame, only_a=only_a, only_b=only_b, wins=int(wins),
                        ties=int(ties), losses=int(losses), missing=missing)


def side_by_side(rankings: Rankings | Sequence[Rankings], query: str, depth: int = 20) -> pd.DataFrame:
    """The top of each system's ranking of one topic, with each document's judgment.

    Parameters
    ----------
    rankings : Rankings or sequence of Rankings
        One per system (from :func:`metrics.rank_runs`).
    query : str
        The topic. Systems not evaluated on it have no rows.
    depth : int, default=20
        Ranks shown per system.

    Returns
    -------
    pandas.DataFrame
        Columns ``system``, ``rank``, ``docid``, ``score``, ``grade`` (NaN when the document has no
        judgment), ``judged`` and ``relevant`` (grade >= the conventions' relevance level), systems in
        the order given.

    Examples
    --------
    >>> from metrics import rank_runs
    >>> r = rank_runs("1 0 a 2\\n1 0 b 0\\n", {"x": "1 Q0 z 1 3 x\\n1 Q0 a 2 2 x\\n1 Q0 b 3 1 x\\n"})
    >>> side_by_side(r, "1", depth=2)[["system", "rank", "docid", "grade", "relevant"]]
      system  rank docid  grade  relevant
    0      x     1     z    NaN     False
    1      x     2     a    2.0      True
    """
    if isinstance(rankings, Rankings):
        rankings = [rankings]
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1:
        raise ValidationError(f"depth must be a positive integer, got {depth!r}")
    frames = []
    for r in rankings:
        one = r.select_queries([query])
        if not one.n_queries:
            continue
        table = anatomy(one, str(query)).head(int(depth))
        table.insert(0, "system", r.system)
        frames.append(table[list(RANKING_COLUMNS)])
    if not frames:
        return pd.DataFrame(columns=list(RANKING_COLUMNS))
    return pd.concat(frames, ignore_index=True)
