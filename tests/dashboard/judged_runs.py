"""What the judging tests of the dashboard share: a collection's judgments and runs small enough to reason about
(two topics, five documents each)."""

from __future__ import annotations

QRELS = b"1 0 d1 1\n2 0 d2 0\n"
"""The collection's own judgments: d1 relevant on topic 1, d2 not relevant on topic 2."""


def run_bytes(tag: str, order: str) -> bytes:
    """A run of both topics ranking the documents of ``order`` (space-separated), first the highest score."""
    return "".join(f"{q} Q0 {d} {r} {9 - r} {tag}\n" for q in ("1", "2")
                   for r, d in enumerate(order.split(), 1)).encode()
