"""Session files to load, shared by the session file's tests."""

from __future__ import annotations

import random


def session_collection(i: int):
    """Session i's collection: i + 1 topics, 1 + i % 3 systems, random grades and scores (seed i)."""
    rnd = random.Random(i)
    topics = range(1, i + 2)
    qrels = "".join(f"{q} 0 d{q}-{j} {rnd.choice((0, 0, 1, 2))}\n" for q in topics for j in range(8)).encode()
    runs = []
    for s in range(1 + i % 3):
        lines = "".join(f"{q} Q0 d{q}-{j} {j + 1} {rnd.random():.6f} s{s}\n" for q in topics for j in range(10))
        runs.append((f"session{i}_system{s}.run", lines.encode(), "text/plain"))
    return qrels, runs
