"""Runs, qrels and their means that the expectations tests state claims about."""

from __future__ import annotations

# Three topics; every run answers each of them.
QRELS = "q1 0 a 1\nq1 0 b 0\nq1 0 c 1\nq2 0 d 1\nq2 0 e 0\nq3 0 f 1\n"

RUNS = {
    # AP: q1 (1/1 + 2/3) / 2 = 5/6, q2 (1/2) / 1 = 1/2, q3 1: mean 7/9
    "bm25": "q1 Q0 a 1 3 r\nq1 Q0 b 2 2 r\nq1 Q0 c 3 1 r\nq2 Q0 e 1 2 r\nq2 Q0 d 2 1 r\nq3 Q0 f 1 1 r\n",
    # AP: q1 (1/1 + 2/2) / 2 = 1, q2 1, q3 (1/2) / 1 = 1/2: mean 5/6
    "dense": "q1 Q0 c 1 3 r\nq1 Q0 a 2 2 r\nq2 Q0 d 1 2 r\nq3 Q0 x 1 2 r\nq3 Q0 f 2 1 r\n",
    # AP: q1 (1/2) / 2 = 1/4, q2 0, q3 1: mean 5/12
    "weak": "q1 Q0 b 1 3 r\nq1 Q0 a 2 2 r\nq2 Q0 e 1 2 r\nq3 Q0 f 1 1 r\n",
}

MEANS = {"bm25": 7 / 9, "dense": 5 / 6, "weak": 5 / 12}
