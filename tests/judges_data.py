"""Judgment sets and runs of Cranfield that the tests can trust without a language model.

Everything is made here from the shared Cranfield files (never copied into the repository), by rules
written down below, and is the same on every call (fixed seeds):

* ``nist``: Cranfield's graded qrels as distributed (``derived/cranfield.graded.qrels``: 4 = complete
  answer ... 1 = minimum interest, 0 the one judged non-relevant document per query).
* ``merged``: the same judgments with grades merged onto three: 0 -> 0, 1 and 2 -> 1, 3 and 4 -> 2.
* ``noisy``: the same judgments with 15% of them dropped (seed 29) and each kept grade moved by -1 with
  probability 0.15 or +1 with probability 0.30 (seed 29, clipped to 0..4): a judge that overrates.
* ``lexical``: a judge that reads words, not meaning: for every topic, the documents of the pool (each run's
  top 20, and every document ``nist`` judged) graded by the share of the query's content words (lower-cased
  alphanumeric tokens, not in :data:`STOP`) found in the document's title and abstract: 3 from 0.6, 2 from
  0.4, 1 from 0.25, else 0.
* ``subset``: ``nist`` on 40 of its topics (seed 7): the small human-judged sample of prediction-powered
  inference.

Runs (each the top 100 per topic of one scoring of the documents' title and abstract): ``bm25`` (k1 0.9,
b 0.4, scores rounded to 3 decimals so that ties occur), ``bm25b`` (k1 1.2, b 0.75), ``tfidf`` (sum of
``(1 + log tf) idf``), ``overlap`` (distinct query terms present: many ties), ``title`` (BM25 on the titles
only) and ``idf`` (sum of the idf of the query terms present).
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

import numpy as np

SHARED = Path("/work/shared")
CRANFIELD = SHARED / "data" / "cranfield" / "derived"
STOP = frozenset("a an and are as at be by can do does for from has have how in into is it of on or so such that "
                 "the their there these this to was what when where which with why".split())
SETS = ("nist", "merged", "noisy", "lexical", "subset")
SYSTEMS = ("bm25", "bm25b", "tfidf", "overlap", "title", "idf")
DEPTH = 100


def available() -> bool:
    return CRANFIELD.is_dir()


def _tokens(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


@functools.cache
def _collection() -> tuple[dict[str, str], dict[str, str], dict[str, str], list[tuple[str, str, int]]]:
    docs, titles = {}, {}
    for line in (CRANFIELD / "cranfield.docs.jsonl").read_text().splitlines():
        record = json.loads(line)
        docs[record["doc_id"]] = record["title"] + " " + record["text"]
        titles[record["doc_id"]] = record["title"]
    queries = dict(line.split("\t", 1) for line in (CRANFIELD / "cranfield.queries.tsv").read_text().splitlines())
    qrels = [(q, d, int(g)) for q, _, d, g in (line.split() for line in
                                             (CRANFIELD / "cranfield.graded.qrels").read_text().splitlines())]
    return docs, titles, queries, qrels


def index(texts: dict[str, str]):
    """An inverted index of ``{doc id: text}``: ids, vocabulary, postings (document, tf) by term, term starts,
    document frequencies and document lengths."""
    ids = list(texts)
    vocabulary: dict[str, int] = {}
    rows, cols, lengths = [], [], np.zeros(len(ids))
    for i, doc in enumerate(ids):
        words = _tokens(texts[doc])
        lengths[i] = len(words)
        for word in words:
            rows.append(i)
            cols.append(vocabulary.setdefault(word, len(vocabulary)))
    pairs = np.unique(np.array(cols, dtype=np.int64) * len(ids) + np.array(rows, dtype=np.int64), return_counts=True)
    term, doc_index, tf = pairs[0] // len(ids), pairs[0] % len(ids), pairs[1].astype(np.float64)
    starts = np.searchsorted(term, np.arange(len(vocabulary) + 1))
    df = np.diff(starts)
    return ids, vocabulary, doc_index, tf, starts, df, lengths


def scores(built, text: str) -> dict[str, np.ndarray]:
    """Each document's score for ``text`` under every scoring of the module's notes (``bm25`` rounded)."""
    ids, vocabulary, doc_index, tf, starts, df, lengths = built
    n = len(ids)
    idf = np.log(1 + (n - df + 0.5) / (df + 0.5))
    out = {k: np.zeros(n) for k in ("bm25", "bm25b", "tfidf", "overlap", "idf")}
    for word in set(_tokens(text)):
        t = vocabulary.get(word)
        if t is None:
            continue
        d, f = doc_index[starts[t]:starts[t + 1]], tf[starts[t]:starts[t + 1]]
        for name, k1, b in (("bm25", 0.9, 0.4), ("bm25b", 1.2, 0.75)):
            norm = k1 * (1 - b + b * lengths[d] / lengths.mean())
            out[name][d] += idf[t] * f * (k1 + 1) / (f + norm)
        out["tfidf"][d] += (1 + np.log(f)) * idf[t]
        out["overlap"][d] += 1
        out["idf"][d] += idf[t]
    out["bm25"] = np.round(out["bm25"], 3)
    return out


@functools.cache
def runs() -> dict[str, str]:
    """``{system: run text}`` of the six systems (see the module's notes)."""
    docs, titles, queries, _ = _collection()
    whole, heads = index(docs), index(titles)
    ids = whole[0]
    lines: dict[str, list[str]] = {name: [] for name in SYSTEMS}
    for qid, text in queries.items():
        found = scores(whole, text)
        found["title"] = np.round(scores(heads, text)["bm25"], 3)
        for name in SYSTEMS:
            top = np.argsort(-found[name], kind="stable")[:DEPTH]
            lines[name].extend(f"{qid} Q0 {ids[i]} {rank} {found[name][i]:.6g} {name}" for rank, i in enumerate(top, 1))
    return {name: "\n".join(rows) + "\n" for name, rows in lines.items()}


def _text(rows) -> str:
    return "".join(f"{q} 0 {d} {g}\n" for q, d, g in rows)


@functools.cache
def judgment_sets() -> dict[str, str]:
    """``{name: qrels text}`` of the five sets (see the module's notes)."""
    docs, _, queries, nist = _collection()
    merged = [(q, d, {0: 0, 1: 1, 2: 1, 3: 2, 4: 2}[g]) for q, d, g in nist]
    rng = np.random.default_rng(29)
    keep = rng.random(len(nist)) >= 0.15
    shift = rng.choice([-1, 0, 1], size=len(nist), p=[0.15, 0.55, 0.30])
    noisy = [(q, d, int(np.clip(g + s, 0, 4))) for (q, d, g), k, s in zip(nist, keep, shift) if k]
    pool: dict[str, set[str]] = {}
    for q, d, _ in nist:
        pool.setdefault(q, set()).add(d)
    for text in runs().values():
        for line in text.splitlines():
            q, _, d, rank = line.split()[:4]
            if int(rank) <= 20:
                pool.setdefault(q, set()).add(d)
    lexical, words_of = [], {d: set(_tokens(text)) for d, text in docs.items()}
    for q in sorted(pool, key=int):
        words = {w for w in _tokens(queries[q]) if w not in STOP}
        for d in sorted(pool[q], key=int):
            share = len(words & words_of[d]) / max(len(words), 1)
            lexical.append((q, d, 3 if share >= 0.6 else 2 if share >= 0.4 else 1 if share >= 0.25 else 0))
    topics = sorted({q for q, _, _ in nist}, key=int)
    chosen = set(np.random.default_rng(7).choice(topics, size=40, replace=False).tolist())
    subset = [(q, d, g) for q, d, g in nist if q in chosen]
    return {"nist": _text(nist), "merged": _text(merged), "noisy": _text(noisy), "lexical": _text(lexical),
            "subset": _text(subset)}


def write(folder: Path, sets=SETS, systems=SYSTEMS) -> tuple[dict[str, Path], dict[str, Path]]:
    """The chosen sets and runs written to ``folder``: ``({set: path}, {system: path})``."""
    folder.mkdir(parents=True, exist_ok=True)
    qrels, made = judgment_sets(), runs()
    set_paths, run_paths = {}, {}
    for name in sets:
        set_paths[name] = folder / f"{name}.qrels"
        set_paths[name].write_text(qrels[name])
    for name in systems:
        run_paths[name] = folder / f"{name}.run"
        run_paths[name].write_text(made[name])
    return set_paths, run_paths
