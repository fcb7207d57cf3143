"""Small seeded collections for the workspace tests, as file bytes."""

from __future__ import annotations

import numpy as np

from tests.random_collections import random_collection


def qrels_bytes(seed: int) -> bytes:
    """The qrels of :func:`tests.random_collections.random_collection` ``seed``."""
    return random_collection(seed).qrels_text.encode()


def run_bytes(seed: int, lines: int | None = None) -> bytes:
    """A run: that of ``random_collection(seed)``, or ``lines`` lines over 50 topics when given."""
    if lines is None:
        return random_collection(seed).run_text.encode()
    rng = np.random.default_rng(seed)
    topics = rng.integers(1, 51, size=lines)
    scores = rng.random(lines)
    docs = np.arange(lines)
    return "".join(f"{t} Q0 D{d} 0 {s:.6f} tag{seed}\n" for t, d, s in zip(topics, docs, scores)).encode()
