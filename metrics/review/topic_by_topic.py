"""Topic by topic: where two systems differ, and how several systems ranked one topic.

:func:`paired_topics` puts one measure of two systems side by side for every topic, sorted by the
difference, with the count of topics each one wins; :func:`side_by_side` lists the top of several systems'
rankings of one topic with each document's judgment. Both read what :func:`metrics.evaluate` and
:func:`metrics.rank_runs` produce and compute nothing the measures do not.

:func:`extremes` names the topics where B gains and loses most, :func:`topic_table` lists every topic with
its query text and review tags, and :func:`ranking_texts` puts each ranked document's title beside it; the
texts are any mappings ``topic -> query text`` and ``docid -> DocText`` (:func:`metrics.read_topics`,
:func:`metrics.read_documents`).
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from metrics.checks import COUNT, Options, checked
from metrics.errors import ValidationError
from metrics.measures.per_query import PerQuery, higher_is_better
from metrics.rankings import Rankings
from metrics.teaching.anatomy import anatomy

__all__ = [
    "RANKING_COLUMNS",
    "TOPIC_COLUMNS",
    "Extreme",
    "PairedTopics",
    "extremes",
    "paired_topics",
    "ranking_texts",
    "side_by_side",
    "topic_labels",
    "topic_table",
]

MISSING = ("drop", "zero")
RANKING_COLUMNS = ("system", "rank", "docid", "score", "grade", "judged", "relevant")
TOPIC_COLUMNS = ("topic", "text", "a", "b", "diff", "tags")


@dataclass(frozen=True, eq=False)
class PairedTopics:
    """One measure of systems A and B on each topic (see :func:`paired_topics`).

    Attributes
    ----------
    measure, a, b : str
    frame : pandas.DataFrame
        Columns ``query``, ``a``, ``b`` (the two values) and ``diff`` (``b - a``), one row per topic,
        sorted from the largest gain of B to its largest loss, ties by query id. A gain follows the
        measure's declaration: ``diff`` above 0 where higher is better, below 0 where lower is (MR, ...).
    only_a, only_b : tuple of str
        Topics evaluated for one system only: left out (``missing="drop"``) or scored 0 for the other
        (``missing="zero"``).
    wins, ties, losses : int
        Topics where B is better than A (in the measure's direction), the same, worse.
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


@checked(missing=Options(*MISSING))
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
    The values are aligned by :func:`metrics.stats.significance.align_scores` and the wins, ties and losses
    counted by :func:`metrics.stats.significance.win_tie_loss` (with no tolerance), so they agree with the
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
    from metrics.stats.significance import align_scores, win_tie_loss

    per_query = PerQuery.of(per_query).frame
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
    frame = _by_gain(frame, measure, largest_first=True)
    if len(diff) >= 2:
        wins, ties, losses = win_tie_loss(x, y)
    else:  # the paired helpers need two topics; with one the counts are read off directly
        wins, ties, losses = int((diff > 0).sum()), int((diff == 0).sum()), int((diff < 0).sum())
    if not higher_is_better(measure):  # B's lower values are its wins
        wins, losses = losses, wins
    return PairedTopics(measure=measure, a=a, b=b, frame=frame, only_a=only_a, only_b=only_b, wins=int(wins),
                        ties=int(ties), losses=int(losses), missing=missing)


def _by_gain(frame: pd.DataFrame, measure: str, largest_first: bool) -> pd.DataFrame:
    """The topics in order of B's gain over A (``diff``, turned round where lower is better), ties by topic id."""
    key = "query" if "query" in frame.columns else "topic"
    gain = frame["diff"] if higher_is_better(measure) else -frame["diff"]
    order = frame.assign(_gain=gain).sort_values(["_gain", key], ascending=[not largest_first, True], kind="stable")
    return frame.loc[order.index].reset_index(drop=True)


@checked(depth=COUNT)
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


@dataclass(frozen=True)
class Extreme:
    """One topic of a :class:`PairedTopics`: its id, the values of A and B, and ``diff = b - a``."""

    query: str
    a: float
    b: float
    diff: float


def extremes(pair: PairedTopics) -> tuple[Extreme | None, Extreme | None]:
    """The topic where B gains most over A and the one where it loses most.

    Returns
    -------
    (best, worst) : Extreme or None each
        ``best`` has B's largest gain, ``worst`` its largest loss (a gain is a difference above 0 where
        higher values of the measure are better, below 0 where lower are; ties go to the smallest topic
        id); None when B gains (or loses) on no topic.

    Examples
    --------
    >>> per_query = pd.DataFrame({"system": ["x"] * 3 + ["y"] * 3, "query": ["1", "2", "3"] * 2,
    ...                           "measure": "AP", "value": [0.2, 0.5, 0.9, 0.6, 0.5, 0.3]})
    >>> best, worst = extremes(paired_topics(per_query, "AP", "x", "y"))
    >>> best.query, round(best.diff, 2), worst.query, round(worst.diff, 2)
    ('1', 0.4, '3', -0.6)
    """
    frame = pair.frame
    if frame.empty:
        return None, None
    gain = frame["diff"].to_numpy(dtype=np.float64) * (1.0 if higher_is_better(pair.measure) else -1.0)

    def at(i: int) -> Extreme:
        row = frame.iloc[i]
        return Extreme(str(row["query"]), float(row["a"]), float(row["b"]), float(row["diff"]))

    best = at(0) if gain[0] > 0 else None  # the frame is sorted by gain, largest first, ties by id
    low = gain.min()
    worst = at(int(np.flatnonzero(gain == low)[0])) if low < 0 else None
    return best, worst


def topic_table(pair: PairedTopics, texts: Mapping[str, str] | None = None,
                notes: Mapping[str, Mapping[str, Any]] | None = None, tag: str | None = None,
                worst_first: bool = True) -> pd.DataFrame:
    """Every topic of a pair with its query text, the two values, the difference and its review tags.

    Parameters
    ----------
    pair : PairedTopics
    texts : mapping, optional
        Topic id -> query text; without it the ``text`` column is left out.
    notes : mapping, optional
        Review notes ``{topic: {"tags": [...], "comment": str}}`` (:func:`metrics.review.notes.normalise_notes`).
    tag : str, optional
        Keep only the topics whose note carries this tag.
    worst_first : bool, default=True
        Sort from B's largest loss up (else from its largest gain down), a gain following the measure's
        direction (see :class:`PairedTopics`); ties by topic id.

    Returns
    -------
    pandas.DataFrame
        Columns ``topic``, ``text`` (with ``texts``; empty for a topic it does not have), ``a``, ``b``,
        ``diff`` (``b - a``) and ``tags`` (comma-separated).

    Examples
    --------
    >>> per_query = pd.DataFrame({"system": ["x"] * 3 + ["y"] * 3, "query": ["1", "2", "3"] * 2,
    ...                           "measure": "AP", "value": [0.2, 0.5, 0.9, 0.6, 0.5, 0.3]})
    >>> pair = paired_topics(per_query, "AP", "x", "y")
    >>> notes = {"3": {"tags": ["hard"], "comment": ""}}
    >>> table = topic_table(pair, {"1": "wing flutter", "3": "heat transfer"}, notes)
    >>> table[["topic", "text", "tags"]].values.tolist()
    [['3', 'heat transfer', 'hard'], ['2', '', ''], ['1', 'wing flutter', '']]
    >>> topic_table(pair, notes=notes, tag="hard")["topic"].tolist()
    ['3']
    """
    notes = notes or {}
    frame = pair.frame.rename(columns={"query": "topic"})
    frame = _by_gain(frame, pair.measure, largest_first=not worst_first)
    tags = [list(notes.get(t, {}).get("tags", [])) for t in frame["topic"]]
    frame = frame.assign(tags=[", ".join(t) for t in tags])
    if tag is not None:
        frame = frame[[tag in t for t in tags]]
    if texts is not None:
        frame.insert(1, "text", [str(texts.get(t, "")) for t in frame["topic"]])
    return frame.reset_index(drop=True)


def topic_labels(topics: Iterable[str], texts: Mapping[str, str] | None = None, width: int = 90) -> dict[str, str]:
    """Each topic id with the start of its query text, for a selector: ``{"129": "129 · what similarity …"}``.

    Examples
    --------
    >>> topic_labels(["1", "2"], {"1": "what similarity laws must be obeyed when constructing models"}, width=30)
    {'1': '1 · what similarity laws must be …', '2': '2'}
    """
    texts = texts or {}
    out = {}
    for topic in topics:
        text = " ".join(str(texts.get(topic, "")).split())
        out[topic] = f"{topic} · {textwrap.shorten(text, width, placeholder=' …')}" if text else str(topic)
    return out


def ranking_texts(ranked: pd.DataFrame, documents: Mapping[str, Any], words: int = 30) -> pd.DataFrame:
    """The rankings of :func:`side_by_side` with each document's ``title`` and ``preview`` (its first words).

    ``documents`` maps a document id to a record with ``title`` and ``text`` and has ``preview(docid,
    words)``, the title or else the first words (:class:`metrics.io.texts.Documents`). A document without a
    title is named by its first words; a document the mapping does not have gets empty texts.

    Examples
    --------
    >>> from metrics.io.texts import DocText, Documents
    >>> ranked = pd.DataFrame({"system": ["x", "x", "x"], "rank": [1, 2, 3], "docid": ["a", "b", "z"]})
    >>> docs = Documents({"a": DocText("Wing flutter", "wings flutter at speed"), "b": DocText("", "heat flows in slabs")})
    >>> ranking_texts(ranked, docs, words=2)[["docid", "title", "preview"]].values.tolist()
    [['a', 'Wing flutter', 'wings flutter'], ['b', 'heat flows', 'heat flows'], ['z', '', '']]
    """
    titles, previews = [], []
    for docid in ranked["docid"].astype(str):
        doc = documents.get(docid)
        titles.append(str(documents.preview(docid, words)) if doc is not None else "")
        previews.append(" ".join(str(getattr(doc, "text", "") or "").split()[:words]) if doc is not None else "")
    return ranked.assign(title=titles, preview=previews)
