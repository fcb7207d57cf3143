"""Reading a run or a qrels file costs time and memory proportional to its size (never quadratic).

Ten times the lines may cost at most about ten times the work; the bounds below leave room for noise
(30x for time, where quadratic reading would take 100x) but not for a super-linear step. Times are compared
as a ratio within one run, the two sizes read in turns (:mod:`tests.cpu_time`). The numbers at scale are in
``benchmarks/read_scaling.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from metrics import read_qrels, read_run
from tests.cpu_time import growth

PROBE = """
import json, resource, sys
import metrics
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
getattr(metrics, sys.argv[1])(sys.argv[2])
print(json.dumps((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024))
"""


def _text(kind: str, lines: int, seed: int = 0) -> str:
    per = 1000 if kind == "run" else 100
    if kind == "run":
        return "".join(f"{i // per} Q0 d{(i * 7919 + seed) % 100003} {i % per + 1} {1000 - i % per * 0.37:.4f} r\n"
                       for i in range(lines))
    return "".join(f"{i // per} 0 d{(i * 7919 + seed) % 100003} {i % 3}\n" for i in range(lines))


@pytest.mark.parametrize("kind, reader", [("run", read_run), ("qrels", read_qrels)])
def test_time_grows_linearly(kind, reader):
    small, large = _text(kind, 30_000), _text(kind, 300_000)
    assert len(reader(large)) == 300_000
    assert growth(reader, small, large) < 30


@pytest.mark.parametrize("kind, reader", [("run", "read_run"), ("qrels", "read_qrels")])
def test_memory_grows_linearly(kind, reader, tmp_path):
    extra = []
    for lines in (50_000, 500_000):
        path = tmp_path / f"{kind}-{lines}"
        path.write_text(_text(kind, lines))
        done = subprocess.run([sys.executable, "-c", PROBE, reader, str(path)], capture_output=True, text=True,
                              check=True, timeout=120)
        extra.append(json.loads(done.stdout))
        size_mb = path.stat().st_size / 2**20
        assert extra[-1] < 20 * size_mb + 64, f"{lines} lines ({size_mb:.1f} MB) took {extra[-1]:.0f} MB"
    assert extra[1] < 15 * extra[0] + 64
