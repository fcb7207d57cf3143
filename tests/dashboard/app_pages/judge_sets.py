"""Two judgment sets of one collection, and the values the judges page must show, shared by its tests."""

from __future__ import annotations

import pytest

pytrec_eval = pytest.importorskip("pytrec_eval", reason="pytrec-eval-terrier (the oracle) is not installed")

# the assessors judged topics 1-3; a language model judged them too, and topic 4 besides (prediction-powered)
REF = b"1 0 a 2\n1 0 b 0\n1 0 c 1\n2 0 d 1\n2 0 e 0\n2 0 f 2\n3 0 g 1\n3 0 h 0\n3 0 k 2\n"

LLM = b"1 0 a 1\n1 0 b 1\n1 0 c 1\n2 0 d 0\n2 0 e 0\n2 0 f 2\n3 0 g 1\n3 0 h 1\n3 0 i 1\n4 0 j 1\n4 0 m 0\n"

RUNS = {
    "a.run": "1 Q0 a 1 3 a\n1 Q0 b 2 2 a\n1 Q0 c 3 1 a\n2 Q0 f 1 3 a\n2 Q0 d 2 2 a\n3 Q0 g 1 2 a\n3 Q0 i 2 1 a\n"
    "4 Q0 j 1 2 a\n4 Q0 m 2 1 a\n",
    "b.run": "1 Q0 b 1 3 b\n1 Q0 c 2 2 b\n1 Q0 a 3 1 b\n2 Q0 e 1 3 b\n2 Q0 f 2 2 b\n3 Q0 h 1 2 b\n3 Q0 k 2 1 b\n"
    "4 Q0 m 1 2 b\n4 Q0 j 2 1 b\n",
    "c.run": "1 Q0 c 1 3 c\n1 Q0 a 2 2 c\n2 Q0 d 1 3 c\n2 Q0 e 2 2 c\n3 Q0 i 1 2 c\n3 Q0 g 2 1 c\n4 Q0 x 1 1 c\n",
}


def grades_of(text: bytes) -> dict:
    return {(q, d): int(g) for q, _, d, g in (line.split() for line in text.decode().splitlines())}


def measure_means(qrels: bytes, topics, measure: str = "map", runs: dict | None = None) -> dict:
    judged = {}
    for (q, d), g in grades_of(qrels).items():
        if q in topics:
            judged.setdefault(q, {})[d] = g
    out = {}
    for name, text in (runs or RUNS).items():
        run = {}
        for line in text.splitlines():
            q, _, d, _, score, _ = line.split()
            run.setdefault(q, {})[d] = float(score)
        values = pytrec_eval.RelevanceEvaluator(judged, {measure}).evaluate(
            {q: r for q, r in run.items() if q in judged}
        )
        out[name[0]] = sum(v[measure] for v in values.values()) / len(values)
    return out
