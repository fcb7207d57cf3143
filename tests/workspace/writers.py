"""Worker processes that write to one workspace at once, and the check of SQLite's settings, shared by the concurrency and judging tests."""

from __future__ import annotations

import sqlite3
import subprocess
import sys

from tests import processes
from tests.workspace.conftest import ROOT, child_env


def start_writer(target, *args: str, **popen) -> subprocess.Popen:
    return processes.start(
        [sys.executable, "-m", "tests.workspace.worker", args[0], target.location, target.files, *args[1:]],
        cwd=ROOT,
        env=child_env(),
        **popen,
    )


def check_sqlite(target) -> None:
    if target.kind == "sqlite":
        with sqlite3.connect(target.folder / "ws" / "workspace.db") as conn:
            assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
