"""Curves over ranks and recall: the eleven interpolated points under every rule, one topic's precision-recall
curve, P@k and R@k, DCG@k against the ideal with its nDCG table, and which systems' curves coincide.
"""

from __future__ import annotations

import pandas as pd

import metrics
from metrics import curves

from dashboard.data.cache import on_collection
from dashboard.data.files import _of
from dashboard.data.measures import per_query, summary
from dashboard.session.state import Loaded


# ---- curves -----------------------------------------------------------------------------------------------
def _queries(topic: str | None) -> list[str] | None:
    return None if topic is None else [topic]


@on_collection(max_entries=32, show_spinner="Computing curves…")
def eleven_points(loaded: Loaded, systems: tuple[str, ...], topic: str | None) -> pd.DataFrame:
    """The eleven interpolated points under every rule, per query and averaged (``rule`` column)."""
    return curves.eleven_point_rules(_of(loaded, tuple(systems)), queries=_queries(topic))


def eleven_point_table(points: pd.DataFrame, topic: str | None) -> pd.DataFrame:
    """One row per system and rule: the eleven points side by side and their average (11pt_avg)."""
    return curves.eleven_point_table(points, curves.ALL if topic is None else topic)


@on_collection(max_entries=32, show_spinner="Computing curves…")
def pr_curves(loaded: Loaded, systems: tuple[str, ...], topic: str, rule: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One topic's raw precision–recall points and the envelope of its interpolated precision."""
    chosen = _of(loaded, tuple(systems))
    envelope = curves.interpolated_pr(chosen, rule=rule, queries=[topic]).envelope
    return curves.pr_curve(chosen, queries=[topic]), envelope


@on_collection(max_entries=32, show_spinner="Computing curves…")
def at_k(loaded: Loaded, systems: tuple[str, ...], topic: str | None, depth: int) -> pd.DataFrame:
    """P@k and R@k for k = 1..depth, for one topic or averaged (system, k, precision, recall)."""
    return curves.precision_recall_at_k(_of(loaded, tuple(systems)), depth=int(depth), queries=_queries(topic),
                                        per_query=False)


@on_collection(max_entries=32, show_spinner="Computing gain curves…")
def gain_curves(loaded: Loaded, systems: tuple[str, ...], topic: str | None, gain: str, discount: str, ideal: str,
                depth: int) -> pd.DataFrame:
    """DCG@k, IDCG@k and nDCG@k for k = 1..depth, for one topic or averaged (system, k, dcg, idcg, ndcg)."""
    return curves.gain_curves(_of(loaded, tuple(systems)), gain=gain, discount=discount, ideal=ideal,
                              depth=int(depth), queries=_queries(topic), per_query=False)


def identical_curves(frame: pd.DataFrame, values: tuple[str, ...], where: str, x: str = "x") -> str | None:
    """The systems whose curves coincide in ``frame``, in words ("lucene is identical to bm25 on this
    topic"), or None when every curve differs (:func:`metrics.curves.identical_series`)."""
    groups = curves.identical_series(frame, x, list(values))
    if not groups:
        return None
    parts = []
    for first, *same in groups:
        names = same[0] if len(same) == 1 else ", ".join(same[:-1]) + " and " + same[-1]
        parts.append(f"{names} {'is' if len(same) == 1 else 'are'} identical to {first}")
    return "; ".join(parts) + f" {where}: the lines lie on top of each other, each with its own dash and marker."


def ndcg_measure(gain: str, discount: str, ideal: str, cutoff: int | None = None) -> str:
    """The registry's spelling of nDCG with these options (``nDCG@10``, ``nDCG(gain="exp")@10``)."""
    measure = metrics.parse_measure("nDCG")(gain=gain, discount=discount, ideal=ideal)
    return str(measure @ cutoff if cutoff else measure)


def gain_table(loaded: Loaded, frame: pd.DataFrame, systems: tuple[str, ...], topic: str | None, cutoff: int,
               gain: str, discount: str, ideal: str) -> pd.DataFrame:
    """Per system: DCG@k, IDCG@k and nDCG@k read off the curves at the cutoff, and nDCG of the whole ranking."""
    rows = curves.at_x(frame, cutoff)[["system", "dcg", "idcg", "ndcg"]]
    rows = rows.rename(columns={"dcg": f"DCG@{cutoff}", "idcg": f"IDCG@{cutoff}", "ndcg": f"nDCG@{cutoff}"})
    whole = measure_means(loaded, systems, topic, ndcg_measure(gain, discount, ideal))
    return rows.merge(whole.rename(columns={"value": "nDCG, whole ranking"}), on="system", how="left")


def measure_means(loaded: Loaded, systems: tuple[str, ...], topic: str | None, measure: str) -> pd.DataFrame:
    """One measure per system: its mean over topics, or its value on one topic (system, value)."""
    if topic is None:
        rows = summary(loaded, (measure,))
    else:
        rows = per_query(loaded, (measure,))
        rows = rows[rows["query"] == topic]
    return rows[rows["system"].isin(systems)][["system", "value"]].reset_index(drop=True)
