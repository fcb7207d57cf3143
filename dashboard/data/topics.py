"""Topic by topic: two systems' values on each topic with the largest gains and losses, the topic table with
query texts and review tags, each system's top documents side by side (with their texts when loaded), and
the topic labels of the selectors.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from metrics.review import topic_by_topic

from dashboard.data.files import _of, document_texts, topic_texts
from dashboard.data.measures import per_query
from dashboard.state import Loaded


# ---- topic by topic -------------------------------------------------------------------------------------
@st.cache_data(max_entries=64, show_spinner=False)
def _paired(key: tuple, measure: str, a: str, b: str, _loaded: Loaded) -> topic_by_topic.PairedTopics:
    return topic_by_topic.paired_topics(per_query(_loaded, (measure,)), measure, a, b)


def paired(loaded: Loaded, measure: str, a: str, b: str) -> topic_by_topic.PairedTopics:
    """One measure of systems A and B on each topic both answer, sorted by B − A."""
    return _paired(loaded.key, measure, a, b, loaded)


@st.cache_data(max_entries=64, show_spinner=False)
def _side_by_side(key: tuple, topic: str, systems: tuple[str, ...], depth: int, _loaded: Loaded) -> pd.DataFrame:
    ranked = {r.system: r for r in _of(_loaded, systems)}
    return topic_by_topic.side_by_side([ranked[s] for s in systems if s in ranked], topic, depth)


def side_by_side(loaded: Loaded, topic: str, systems: tuple[str, ...], depth: int) -> pd.DataFrame:
    """The top ``depth`` documents of one topic for each system (in the order given), with their judgments."""
    return _side_by_side(loaded.key, topic, tuple(systems), int(depth), loaded)


def extremes(loaded: Loaded, measure: str, a: str,
             b: str) -> tuple[topic_by_topic.Extreme | None, topic_by_topic.Extreme | None]:
    """The topics where B gains most and loses most against A (metrics.review.topic_by_topic.extremes)."""
    return topic_by_topic.extremes(paired(loaded, measure, a, b))


@st.cache_data(max_entries=64, show_spinner=False)
def _topic_table(key: tuple, measure: str, a: str, b: str, texts: str | None, notes_json: str, tag: str | None,
                 worst_first: bool, _loaded: Loaded) -> pd.DataFrame:
    import json

    return topic_by_topic.topic_table(paired(_loaded, measure, a, b), topic_texts(_loaded), json.loads(notes_json), tag,
                              worst_first)


def topic_table(loaded: Loaded, measure: str, a: str, b: str, notes: dict, tag: str | None = None,
                worst_first: bool = True) -> pd.DataFrame:
    """Every topic with its query text (when loaded), A, B, B − A and its review tags, sorted by B − A."""
    import json

    return _topic_table(loaded.key, measure, a, b, loaded.topics.digest if loaded.topics else None,
                        json.dumps(notes, sort_keys=True), tag, bool(worst_first), loaded)


@st.cache_data(max_entries=64, show_spinner=False)
def _side_by_side_texts(key: tuple, topic: str, systems: tuple[str, ...], depth: int, documents: str,
                        _loaded: Loaded) -> pd.DataFrame:
    return topic_by_topic.ranking_texts(side_by_side(_loaded, topic, systems, depth), document_texts(_loaded))


def side_by_side_texts(loaded: Loaded, topic: str, systems: tuple[str, ...], depth: int) -> pd.DataFrame:
    """:func:`side_by_side` with each document's ``title`` and ``preview`` when documents are loaded."""
    if loaded.documents is None:
        return side_by_side(loaded, topic, systems, depth)
    return _side_by_side_texts(loaded.key, topic, tuple(systems), int(depth), loaded.documents.digest, loaded)


@st.cache_data(max_entries=32, show_spinner=False)
def _topic_labels(texts: str | None, ids: tuple[str, ...], _loaded: Loaded) -> dict[str, str]:
    return topic_by_topic.topic_labels(ids, topic_texts(_loaded))


def topic_labels(loaded: Loaded, ids) -> dict[str, str]:
    """Each topic id with the start of its query text (just the id without texts), for selectors."""
    return _topic_labels(loaded.topics.digest if loaded.topics else None, tuple(map(str, ids)), loaded)
