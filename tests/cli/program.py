"""The rankscope program run as a user runs it, shared by the command-line tests."""

from __future__ import annotations

import os
import subprocess
import sys


def run_rankscope(folder, *args: str, env: dict | None = None) -> tuple[int, str, int]:
    """Exit status, stderr and peak resident memory (MB) of ``rankscope ARGS`` run in ``folder``."""
    probe = (
        "import resource, subprocess, sys\n"
        "done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
        "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)\n"
        "sys.stdout.write(done.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, sys.executable, "-m", "rankscope", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, **(env or {})},
    )
    head, _, stderr = done.stdout.partition("\n")
    status, peak = map(int, head.split())
    return status, stderr, peak
