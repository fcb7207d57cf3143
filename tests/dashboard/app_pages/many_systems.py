"""A collection of many systems, for the pages' tests of long lists."""

from __future__ import annotations

import numpy as np

FAMILIES = (
    "bm25",
    "Dense",
    "SPLADE",
    "rm3-DENSE",
    "a.b",
)  # "a.b": a dot is a plain character, not a pattern

SYSTEMS, TOPICS, DOCS = 120, 20, 30


def system_names(n: int) -> list[str]:
    return [f"{FAMILIES[i % len(FAMILIES)]}-{i:03d}" for i in range(n)]


# ---- the pages with 120 systems (AppTest) -----------------------------------------------------------------
def collection(seed: int = 7, systems: int = SYSTEMS) -> tuple[bytes, dict[str, bytes]]:
    """Runs (120 by default) of 20 topics x 30 documents; systems differ in how well their scores follow the
    grades; no score ties, so every tool orders the documents the same way."""
    rng = np.random.default_rng(seed)
    grades = rng.choice([0, 0, 0, 1, 2], size=(TOPICS, DOCS))
    qrels = "".join(f"{q + 1} 0 doc{d} {grades[q, d]}\n" for q in range(TOPICS) for d in range(DOCS))
    runs = {}
    for i, name in enumerate(system_names(systems)):
        skill = rng.random() * 2
        lines = []
        for q in range(TOPICS):
            scores = skill * grades[q] + rng.random(DOCS) * 3 + np.arange(DOCS) * 1e-6
            lines += [
                f"{q + 1} Q0 doc{d} {r + 1} {scores[d]:.6f} {name}"
                for r, d in enumerate(np.argsort(-scores, kind="stable"))
            ]
        runs[name] = ("\n".join(lines) + "\n").encode()
    return qrels.encode(), runs
