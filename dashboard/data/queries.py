"""Topic by topic: two systems' values on each topic with the largest gains and losses, the topic table with
query texts and review tags, each system's top documents side by side (with their texts when loaded), and
the topic labels of the selectors.
"""

from __future__ import annotations

import pandas as pd

from metrics.review import topic_by_topic

from dashboard.data.cache import on_collection
from dashboard.data.files import _of, document_texts, topic_texts
from dashboard.data.measures import per_query
from dashboard.session.state import Loaded


# ---- topic by topic -------------------------------------------------------------------------------------
@on_collection(max_entries=64)
def paired(loaded: Loaded, measure: str, a: str, b: str) -> topic_by_topic.PairedTopics:
    """One measure of systems A and B on each topic both answer, sorted by B − A."""
    return topic_by_topic.paired_topics(per_query(loaded, (measure,)), measure, a, b)


@on_collection(max_entries=64)
def side_by_side(loaded: Loaded, topic: str, systems: tuple[str, ...], depth: int) -> pd.DataFrame:
    """The top ``depth`` documents of one topic for each system (in the order given), with their judgments."""
    ranked = {r.system: r for r in _of(loaded, tuple(systems))}
    return topic_by_topic.side_by_side([ranked[s] for s in systems if s in ranked], topic, int(depth))


def extremes(loaded: Loaded, measure: str, a: str,
             b: str) -> tuple[topic_by_topic.Extreme | None, topic_by_topic.Extreme | None]:
    """The topics where B gains most and loses most against A (metrics.review.topic_by_topic.extremes)."""
    return topic_by_topic.extremes(paired(loaded, measure, a, b))


def _with_topics(loaded: Loaded) -> tuple:
    return loaded.key, loaded.topics.digest if loaded.topics else None


def _with_documents(loaded: Loaded) -> tuple:
    return loaded.key, loaded.documents.digest if loaded.documents else None


def _topics_only(loaded: Loaded) -> str | None:
    return loaded.topics.digest if loaded.topics else None


@on_collection(max_entries=64, key=_with_topics)
def _topic_table(loaded: Loaded, measure: str, a: str, b: str, notes_json: str, tag: str | None,
                 worst_first: bool) -> pd.DataFrame:
    import json

    return topic_by_topic.topic_table(paired(loaded, measure, a, b), topic_texts(loaded), json.loads(notes_json),
                                      tag, worst_first)


def topic_table(loaded: Loaded, measure: str, a: str, b: str, notes: dict, tag: str | None = None,
                worst_first: bool = True) -> pd.DataFrame:
    """Every topic with its query text (when loaded), A, B, B − A and its review tags, sorted by B − A."""
    import json

    return _topic_table(loaded, measure, a, b, json.dumps(notes, sort_keys=True), tag, bool(worst_first))


@on_collection(max_entries=64, key=_with_documents)
def side_by_side_texts(loaded: Loaded, topic: str, systems: tuple[str, ...], depth: int) -> pd.DataFrame:
    """:func:`side_by_side` with each document's ``title`` and ``preview`` when documents are loaded."""
    if loaded.documents is None:
        return side_by_side(loaded, topic, systems, depth)
    return topic_by_topic.ranking_texts(side_by_side(loaded, topic, systems, depth), document_texts(loaded))


@on_collection(max_entries=32, key=_topics_only)
def _topic_labels(loaded: Loaded, ids: tuple[str, ...]) -> dict[str, str]:
    return topic_by_topic.topic_labels(ids, topic_texts(loaded))


def topic_labels(loaded: Loaded, ids) -> dict[str, str]:
    """Each topic id with the start of its query text (just the id without texts), for selectors."""
    return _topic_labels(loaded, tuple(map(str, ids)))
