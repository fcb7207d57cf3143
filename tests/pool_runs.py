"""Runs of Cranfield and NPL made by eight rankers, for the pool tests and the pool benchmark.

Made here from the shared collections (never copied into the repository), the same on every call. Each run
is the top :data:`DEPTH` documents per topic of one scoring of the documents' words (lower-cased alphanumeric
tokens of title and text, the query's distinct words), with the inverted index and the first six scorings of
:mod:`tests.judges_data`:

* ``bm25`` (k1 0.9, b 0.4, scores rounded to 3 decimals so that ties occur), ``bm25b`` (k1 1.2, b 0.75),
  ``tfidf`` (``(1 + log tf) idf``), ``overlap`` (distinct query words present: many ties), ``idf`` (the idf
  of the query words present), ``title`` (BM25 on the titles only; an NPL document's title is its text up to
  the first double space, or its first line);
* ``lm`` (query likelihood, Dirichlet smoothing, mu 300) and ``jm`` (query likelihood, Jelinek-Mercer
  smoothing, lambda 0.5), over every document, so that a document with no query word still has a score.

Judgments: Cranfield's graded qrels (``derived/cranfield.graded.qrels``: 1 to 4 relevant, 0 the one judged
non-relevant document per query), NPL's binary qrels as distributed.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import numpy as np

from tests import judges_data

SHARED = judges_data.SHARED / "data"
COLLECTIONS = {"cranfield": SHARED / "cranfield" / "derived", "npl": SHARED / "vaswani_npl"}
RANKERS = ("bm25", "bm25b", "tfidf", "overlap", "idf", "title", "lm", "jm")
DEPTH = 100
MU, LAMBDA = 300.0, 0.5


def available(name: str) -> bool:
    return COLLECTIONS[name].is_dir()


@functools.cache
def collection(name: str) -> tuple[dict[str, str], dict[str, str], dict[str, str], str]:
    """``(documents, titles, queries, qrels text)`` of ``"cranfield"`` or ``"npl"``."""
    folder = COLLECTIONS[name]
    if name == "cranfield":  # read as the judges' tests read it
        docs, titles, queries, _ = judges_data._collection()
        return docs, titles, queries, (folder / "cranfield.graded.qrels").read_text()
    text = (folder / "doc-text.trec").read_text()
    docs = {m.group(1): m.group(2).strip() for m in re.finditer(r"<DOCNO>(\d+)</DOCNO>(.*?)</DOC>", text, re.S)}
    titles = {d: re.split(r" {2,}|\n", body, maxsplit=1)[0] for d, body in docs.items()}
    topics = (folder / "query-text.trec").read_text()
    queries = {m.group(1): " ".join(m.group(2).split()).lower()
               for m in re.finditer(r"<num>(\d+)</num><title>(.*?)</title>", topics, re.S)}
    return docs, titles, queries, (folder / "qrels").read_text()


def _likelihood(built, text: str) -> dict[str, np.ndarray]:
    """Every document's query likelihood for ``text``: Dirichlet (``lm``) and Jelinek-Mercer (``jm``)."""
    ids, vocabulary, doc_index, tf, starts, df, lengths = built
    collection_tf = np.add.reduceat(tf, starts[:-1]) if len(tf) else np.zeros(0)
    total = lengths.sum()
    lm, jm = np.zeros(len(ids)), np.zeros(len(ids))
    for word in set(re.findall(r"[a-z0-9]+", text.lower())):
        t = vocabulary.get(word)
        if t is None:
            continue
        background = collection_tf[t] / total
        d, f = doc_index[starts[t]:starts[t + 1]], tf[starts[t]:starts[t + 1]]
        count = np.zeros(len(ids))
        count[d] = f
        lm += np.log((count + MU * background) / (lengths + MU))
        jm += np.log((1 - LAMBDA) * count / np.maximum(lengths, 1) + LAMBDA * background)
    return {"lm": lm, "jm": jm}


@functools.cache
def runs(name: str) -> dict[str, str]:
    """``{ranker: run text}`` of the eight rankers on ``"cranfield"`` or ``"npl"``."""
    docs, titles, queries, _ = collection(name)
    whole, heads = judges_data.index(docs), judges_data.index(titles)
    ids = whole[0]
    lines: dict[str, list[str]] = {ranker: [] for ranker in RANKERS}
    for qid, text in queries.items():
        found = judges_data.scores(whole, text)
        found["title"] = np.round(judges_data.scores(heads, text)["bm25"], 3)
        found.update(_likelihood(whole, text))
        for ranker in RANKERS:
            top = np.argsort(-found[ranker], kind="stable")[:DEPTH]
            lines[ranker].extend(f"{qid} Q0 {ids[i]} {rank} {found[ranker][i]:.6g} {ranker}"
                                 for rank, i in enumerate(top, 1))
    return {ranker: "\n".join(rows) + "\n" for ranker, rows in lines.items()}


def write(name: str, folder: Path, rankers=RANKERS) -> tuple[Path, dict[str, Path]]:
    """The qrels and the chosen runs of a collection written to ``folder``: ``(qrels path, {ranker: path})``."""
    folder.mkdir(parents=True, exist_ok=True)
    qrels = folder / f"{name}.qrels"
    qrels.write_text(collection(name)[3])
    made, paths = runs(name), {}
    for ranker in rankers:
        paths[ranker] = folder / f"{name}-{ranker}.run"
        paths[ranker].write_text(made[ranker])
    return qrels, paths
