"""Seeded collections of many runs over one set of judgments, written as files."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tests.random_collections import random_collection


def many_runs(seed: int, n_runs: int, directory: Path) -> tuple[Path, list[Path]]:
    """The qrels of one seeded random collection and ``n_runs`` runs (those of other seeds) as files.

    System names are drawn so that the order of the files differs from the order of their names.
    """
    rng = np.random.default_rng(seed)
    qrels = directory / "qrels.txt"
    collection = random_collection(seed)
    qrels.write_text(collection.qrels_text)
    judged = sorted(collection.qrels, key=int)
    names = [f"sys{int(x):03d}" for x in rng.choice(1000, size=n_runs, replace=False)]
    runs = []
    for i, name in enumerate(names):
        path = directory / f"{name}.run"
        path.write_text(_onto(random_collection(seed * 1000 + i + 1).run_text, judged))
        runs.append(path)
    return qrels, runs


def big_run_text(seed: int, n_queries: int, depth: int) -> str:
    """A run with ``n_queries`` queries (ids 1..n) of ``depth`` documents each, ties included."""
    rng = np.random.default_rng(seed)
    lines = []
    for q in range(1, n_queries + 1):
        docs = rng.choice(5 * depth, size=depth, replace=False)
        scores = np.round(rng.normal(10, 3, size=depth), 2)
        lines.extend(f"{q} Q0 D{d} {r + 1} {float(s)!r} tag" for r, (d, s) in enumerate(zip(docs, scores)))
    return "\n".join(lines) + "\n"


def big_qrels_text(seed: int, n_queries: int, depth: int) -> str:
    rng = np.random.default_rng(seed)
    lines = []
    for q in range(1, n_queries + 1):
        judged = rng.choice(5 * depth, size=depth // 2, replace=False)
        grades = rng.choice([0, 0, 1, 2], size=judged.size)
        lines.extend(f"{q} 0 D{d} {g}" for d, g in zip(judged, grades))
    return "\n".join(lines) + "\n"


def _onto(run_text: str, judged: list[str]) -> str:
    """The run with its queries renamed, in order, to the judged ones (those past them keep their ids)."""
    lines = run_text.splitlines()
    own = sorted({line.split()[0] for line in lines}, key=int)
    rename = {q: judged[i] for i, q in enumerate(own) if i < len(judged)}
    taken = set(rename.values())
    rename.update({q: q for q in own[len(judged):] if q not in taken})
    kept = [line for line in lines if line.split()[0] in rename]
    return "".join(" ".join([rename[line.split()[0]], *line.split()[1:]]) + "\n" for line in kept)
