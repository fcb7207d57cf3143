"""Where the tests find the repository, their own data and the shared data beside the repository."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
"""The repository."""
TESTS = ROOT / "tests"
"""The tests, with their data (``tests/data``)."""
SHARED = ROOT.parent / "shared"
"""``../shared``: the collections, trec_eval's test files and sources used as oracles; never copied into the repository."""
