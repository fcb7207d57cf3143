"""Fixtures of the workspace tests: every store test runs on SQLite and on a real PostgreSQL.

PostgreSQL is ``$RANKSCOPE_TEST_POSTGRES_URL`` when set (a fresh database is created in it for each test);
otherwise a throwaway cluster is started from ``/usr/lib/postgresql/15/bin`` (as user ``postgres``, which
``initdb`` requires when the tests run as root), listening on a free loopback port with trust
authentication, and stopped at the end. When neither is possible the PostgreSQL cases are skipped, naming
what is missing, except under ``CI=true`` where that is a failure.
"""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests import processes

PG_BIN = Path("/usr/lib/postgresql/15/bin")
ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Target:
    """A fresh workspace to open: ``open_workspace(target.location, files=target.files)``."""

    kind: str  # "sqlite" | "postgresql"
    location: str
    files: str
    folder: Path  # the test's own folder (the SQLite workspace folder)

    def open(self, **options):
        from workspace import open_workspace

        return open_workspace(self.location, files=self.files, **options)


def _missing(what: str):
    if os.environ.get("CI") == "true":
        pytest.fail(f"PostgreSQL tests must run in CI; missing: {what}", pytrace=False)
    pytest.skip(f"PostgreSQL not available: {what}")


def _as_postgres(argv: list[str]) -> list[str]:
    return (["runuser", "-u", "postgres", "--"] + argv) if os.geteuid() == 0 else argv


def _wait_for(url: str, timeout: float = 30.0) -> None:
    import psycopg

    deadline = time.monotonic() + timeout
    while True:
        try:
            psycopg.connect(url, connect_timeout=2).close()
            return
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


@pytest.fixture(scope="session")
def postgres_server():
    """The URL of a PostgreSQL server's ``postgres`` database, for creating test databases in."""
    given = os.environ.get("RANKSCOPE_TEST_POSTGRES_URL")
    if given:
        yield given
        return
    missing = [str(PG_BIN / tool) for tool in ("initdb", "pg_ctl") if not (PG_BIN / tool).exists()]
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        missing.append("runuser")
    if missing:
        _missing(f"no RANKSCOPE_TEST_POSTGRES_URL and no {', '.join(missing)}")
    temp = Path(tempfile.mkdtemp(prefix="rankscope-pg-"))
    data, log = temp / "data", temp / "server.log"
    if os.geteuid() == 0:
        shutil.chown(temp, "postgres")
    port = processes.free_port()
    server = None
    try:
        init = subprocess.run(_as_postgres([str(PG_BIN / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres",
                                            "--no-sync", "-E", "UTF8"]), capture_output=True, text=True)
        if init.returncode != 0:
            _missing(f"initdb failed: {init.stderr.strip().splitlines()[-1:]}")
        options = (f"-c listen_addresses=127.0.0.1 -p {port} -c unix_socket_directories={temp} -c fsync=on "
                   f"-c max_connections=200")
        server = processes.start(_as_postgres([str(PG_BIN / "pg_ctl"), "start", "-w", "-D", str(data), "-l", str(log),
                                               "-o", options]), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        url = f"postgresql://postgres@127.0.0.1:{port}/postgres"
        _wait_for(url)
        yield url
    finally:
        if server is not None:
            subprocess.run(_as_postgres([str(PG_BIN / "pg_ctl"), "stop", "-D", str(data), "-m", "immediate"]),
                           capture_output=True)
            processes.stop(server, grace=5)
        shutil.rmtree(temp, ignore_errors=True)


def fresh_database(server_url: str) -> str:
    """Create an empty database on the server; its URL."""
    import psycopg

    name = "rs_" + secrets.token_hex(6)
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return server_url.rsplit("/", 1)[0] + "/" + name


@pytest.fixture(params=["sqlite", "postgresql"])
def target(request, tmp_path) -> Target:
    """A fresh, empty workspace on each backend."""
    if request.param == "sqlite":
        return Target("sqlite", str(tmp_path / "ws"), str(tmp_path / "ws" / "files"), tmp_path)
    server = request.getfixturevalue("postgres_server")
    return Target("postgresql", fresh_database(server), str(tmp_path / "files"), tmp_path)


def child_env() -> dict[str, str]:
    """The environment of a child Python process that imports the project from this checkout."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env
