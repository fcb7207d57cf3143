"""Seeded random test collections full of edge cases, as qrels/run texts and as pytrec_eval dicts."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Collection:
    qrels_text: str
    run_text: str
    qrels: dict  # {qid: {docid: grade}}
    run: dict  # {qid: {docid: score}}


def _docid(rng: np.random.Generator) -> str:
    # variable widths and letters make byte-wise order differ from numeric order ("D10" < "D9")
    return rng.choice(["D", "d", "doc-", "X_"]) + str(int(rng.integers(0, 120)))


def random_collection(seed: int, *, max_queries: int = 10, max_docs: int = 60) -> Collection:
    """A small collection with ties, float32 near-ties, graded and negative grades, unjudged documents,
    queries missing on either side, queries without relevant documents and short rankings."""
    rng = np.random.default_rng(seed)
    names = sorted({str(int(x)) for x in rng.integers(1, 40, size=int(rng.integers(1, max_queries + 1)))})
    qrels: dict = {}
    run: dict = {}
    for qid in names:
        docs = sorted({_docid(rng) for _ in range(int(rng.integers(1, max_docs + 1)))})
        kind = rng.random()
        if kind < 0.85:  # judged
            grades = rng.choice([-1, 0, 0, 0, 1, 1, 2, 3], size=len(docs))
            if rng.random() < 0.15:
                grades = np.minimum(grades, 0)  # no relevant documents
            judged = rng.random(len(docs)) < 0.6
            qrels[qid] = {d: int(g) for d, g, j in zip(docs, grades, judged) if j}
            if not qrels[qid]:
                qrels[qid] = {docs[0]: 0}
        if kind > 0.1 or qid not in qrels:  # retrieved (some queries only judged, some only retrieved)
            take = [d for d in docs if rng.random() < 0.7] or docs[:1]
            style = rng.random()
            if style < 0.3:
                scores = rng.integers(0, 5, size=len(take)).astype(float)  # heavy ties
            elif style < 0.5:
                base = rng.random(len(take))
                scores = np.where(rng.random(len(take)) < 0.5, 0.5, base) + rng.choice([0, 1e-9, 2e-9], len(take))
            else:
                scores = np.round(rng.normal(10, 3, size=len(take)), int(rng.integers(1, 7)))
            run[qid] = {d: float(s) for d, s in zip(take, scores)}
    if not qrels:
        qrels[names[0]] = {"D0": 1}
    if not run:
        run[names[0]] = {"D0": 1.0}
    qrels_lines = [f"{q} 0 {d} {g}" for q, docs in qrels.items() for d, g in docs.items()]
    run_lines = []
    for q, docs in run.items():
        for i, (d, s) in enumerate(docs.items()):
            run_lines.append(f"{q} Q0 {d} {i + 1} {s!r} sys")
    order = rng.permutation(len(run_lines))  # file order must not matter
    run_text = "\n".join(run_lines[i] for i in order) + "\n"
    return Collection(qrels_text="\n".join(qrels_lines) + "\n", run_text=run_text, qrels=qrels, run=run)


def trec_order(docs: dict, score_dtype=np.float32) -> list[str]:
    """Textbook trec_eval ranking: score (stored in ``score_dtype``) descending, docid descending byte-wise."""
    return sorted(docs, key=lambda d: (-float(score_dtype(docs[d])), [-b for b in d.encode()] + [1]))
