"""Westfall and Young's step-down max-T (algorithm 2.8) written out with loops: the reference the max-T
correction is checked against."""

from __future__ import annotations

import numpy as np


def slow_maxt(D: np.ndarray, signs: np.ndarray, exact: bool) -> np.ndarray:
    """Westfall & Young's algorithm 2.8, written out with loops over resamples and tests."""
    m = D.shape[0]
    norm = [np.sqrt(sum(x * x for x in row)) or 1.0 for row in D]
    observed = [abs(sum(row)) / norm[k] for k, row in enumerate(D)]
    slack = [1e-12 * sum(abs(x) for x in row) / norm[k] for k, row in enumerate(D)]
    order = sorted(range(m), key=lambda k: -observed[k])
    hits = [0] * m
    for s in signs:
        stat = [abs(float(np.dot(s, D[k]))) / norm[k] for k in range(m)]
        for pos in range(m):
            u = max(stat[order[j]] for j in range(pos, m))
            if u >= observed[order[pos]] - slack[order[pos]]:
                hits[pos] += 1
    B = len(signs)
    raw = [h / B if exact else (h + 1) / (B + 1) for h in hits]
    adjusted = np.empty(m)
    running = 0.0
    for pos in range(m):
        running = max(running, raw[pos])
        adjusted[order[pos]] = min(running, 1.0)
    return adjusted
