"""A small collection of three runs the claims are stated about, shared by the claims' tests."""

from __future__ import annotations

QRELS = b"q1 0 a 1\nq1 0 b 0\nq1 0 c 1\nq2 0 d 1\nq2 0 e 0\nq3 0 f 1\n"

BM25 = b"q1 Q0 a 1 3 r\nq1 Q0 b 2 2 r\nq1 Q0 c 3 1 r\nq2 Q0 e 1 2 r\nq2 Q0 d 2 1 r\nq3 Q0 f 1 1 r\n"  # AP 7/9

DENSE = b"q1 Q0 c 1 3 r\nq1 Q0 a 2 2 r\nq2 Q0 d 1 2 r\nq3 Q0 x 1 2 r\nq3 Q0 f 2 1 r\n"  # AP 5/6

WEAK = b"q1 Q0 b 1 3 r\nq1 Q0 a 2 2 r\nq2 Q0 e 1 2 r\nq3 Q0 f 1 1 r\n"  # AP 5/12
