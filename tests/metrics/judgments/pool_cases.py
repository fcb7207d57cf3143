"""Seeded random runs and judgments for the pool tests: several runs over shared topics, full of edge cases.

Ties of scores (many runs score with a few integers), runs shorter than the pool's depth and runs that leave
topics out, document ids whose byte order differs from their numeric order (``d10`` before ``d9``), a run
file's rank column that disagrees with its scores (trectools' RBP and RRF read it), and judgments with
negative grades ("not judged") and documents no run retrieves.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Case:
    runs: dict[str, str]  # {name: run text}
    qrels: str  # judgments already made ("" for none)
    topics: tuple[str, ...]


def _docid(rng: np.random.Generator) -> str:
    return str(rng.choice(["d", "D", "doc-"])) + str(int(rng.integers(0, 40)))


def random_case(seed: int, *, n_runs: int | None = None, judged: float = 0.3) -> Case:
    rng = np.random.default_rng(seed)
    n_runs = n_runs or int(rng.integers(2, 7))
    topics = tuple(str(t) for t in sorted(rng.choice(np.arange(1, 60), size=int(rng.integers(1, 5)),
                                                     replace=False)))
    runs = {}
    for r in range(n_runs):
        lines = []
        for i, topic in enumerate(topics):
            if i > 0 and rng.random() < 0.15:
                continue  # the run leaves this topic out (never the first: the runs share a topic)
            docs = sorted({_docid(rng) for _ in range(int(rng.integers(1, 30)))})
            docs = list(rng.permutation(docs))
            if rng.random() < 0.5:
                scores = rng.integers(0, 5, size=len(docs)).astype(float)  # heavy ties
            else:
                scores = np.round(rng.normal(10, 3, size=len(docs)), 1)
            ranks = np.argsort(np.argsort(-scores, kind="stable"), kind="stable") + 1
            if rng.random() < 0.3:  # a rank column that disagrees with the scores
                ranks = rng.permutation(len(docs)) + 1
            lines += [f"{topic} Q0 {d} {k} {float(s)!r} r{r}" for d, k, s in zip(docs, ranks, scores)]
        runs[f"r{r}"] = "\n".join(lines) + "\n"
    qrels = []
    retrieved = {(line.split()[0], line.split()[2]) for text in runs.values() for line in text.splitlines()}
    for topic in topics:
        for d in sorted({_docid(rng) for _ in range(40)} | {d for t, d in retrieved if t == topic}):
            if rng.random() < judged:
                qrels.append(f"{topic} 0 {d} {int(rng.choice([-1, 0, 0, 1, 2]))}")
    return Case(runs=runs, qrels="\n".join(qrels) + "\n" if qrels else "", topics=topics)
