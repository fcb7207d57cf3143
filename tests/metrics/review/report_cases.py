"""Collections of systems that differ and that do not, shared by the report's tests."""

from __future__ import annotations

import numpy as np

MEASURES = ["AP", "nDCG@10", "P@5", "num_rel_ret", "GMAP"]


def collection(topics: dict[str, range], seed: int = 5) -> tuple[bytes, dict[str, bytes]]:
    """Graded judgments on topics 1-12 and one run per entry of ``topics``, answering those topics."""
    rng = np.random.default_rng(seed)
    qrels = "".join(f"{q} 0 d{q}-{d} {int(rng.choice([0, 0, 1, 2]))}\n" for q in range(1, 13) for d in range(15))
    runs = {}
    for name, answered in topics.items():
        lines = []
        for q in answered:
            docs = rng.permutation(15)[:12]
            lines += [f"{q} Q0 d{q}-{d} {i + 1} {20 - i + rng.random():.4f} {name}\n" for i, d in enumerate(docs)]
        runs[name] = "".join(lines).encode()
    return qrels.encode(), runs


SAME = {"a": range(1, 13), "b": range(1, 13), "c": range(1, 13)}

DIFFERENT = {"all": range(1, 13), "early": range(1, 10), "late": range(4, 13)}
