#!/usr/bin/env python3
"""Set up and run rankscope from a clean checkout: ``python3 dev.py run`` or ``python3 dev.py test``.

``run``  creates ``.venv`` (once), installs rankscope with the dashboard and the workspace, builds the
         documentation the dashboard serves (once: ``docs`` below), and opens the dashboard at
         http://127.0.0.1:8501 on the workspace ./rankscope-workspace (created and seeded with the demo
         collection and the worked examples on first use; ``--workspace LOC`` for another).
``setup`` creates ``.venv`` (once) and installs the test dependencies and Chromium, without running anything.
``test`` creates ``.venv`` (once), installs the test dependencies, installs Debian's Chromium when it is
         missing and this runs as root, and runs the whole test suite. Extra arguments go to pytest.
``docs`` creates ``.venv`` (once), installs what builds the documentation and builds the site into
         ``dashboard/static/docs/``, every warning an error: the dashboard serves it there, and each page's
         "start here" line links to its section; ``--serve`` also serves it at http://127.0.0.1:8000
         (``--port N``).
``screenshots`` takes afresh the screenshots of every page the dashboard's navigation lists, on the demo
         collection, into ``docs/screenshots/`` (tests/e2e/test_screenshots.py, which a test run points at a
         folder of its own): the images the documentation and the README show.

Each is idempotent: a second run reuses ``.venv`` and reinstalls only when pyproject.toml changed.
Only the standard library is used here, so this works with nothing but python3.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / "python"


def sh(*cmd: str | os.PathLike, check: bool = True) -> int:
    print("+", " ".join(str(c) for c in cmd), flush=True)
    return subprocess.run([str(c) for c in cmd], cwd=ROOT, check=check).returncode


def is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def apt_install(*packages: str) -> bool:
    if not (is_root() and shutil.which("apt-get")):
        return False
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(["apt-get", "update", "-qq"], check=False, env=env)
    return subprocess.run(["apt-get", "install", "-y", "-qq", *packages], env=env).returncode == 0


def ensure_venv() -> None:
    if PYTHON.exists():
        return
    if subprocess.run([sys.executable, "-m", "venv", str(VENV)]).returncode != 0:
        shutil.rmtree(VENV, ignore_errors=True)
        version = f"python3.{sys.version_info.minor}-venv"
        if not (apt_install(version) or apt_install("python3-venv")):
            sys.exit(f"cannot create {VENV}: install Debian's python3-venv ({version}) and run this again")
        sh(sys.executable, "-m", "venv", VENV)


def ensure_installed(extras: str) -> None:
    stamp = VENV / f".installed-{extras}"
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    if stamp.exists() and stamp.read_text() == digest:
        return
    sh(PYTHON, "-m", "pip", "install", "--quiet", "--upgrade", "pip")
    sh(PYTHON, "-m", "pip", "install", "--quiet", "-e", f".[{extras}]")
    stamp.write_text(digest)


def ensure_chromium() -> None:
    if shutil.which("chromium") or Path("/usr/bin/chromium").exists():
        return
    if not apt_install("chromium"):
        print("note: Debian's chromium is not installed; the browser tests will be skipped "
              "(or fail when CI=true)", flush=True)


def main(argv: list[str]) -> int:
    command = argv[0] if argv else "help"
    if command == "run":
        ensure_venv()
        ensure_installed("dashboard,workspace,docs")
        if not (SITE / "index.html").exists() and docs([]):  # the pages' "start here" links lead into it
            print("note: the documentation did not build; the dashboard runs without it", flush=True)
        return sh(BIN / "rankscope", "dashboard", *argv[1:], check=False)
    if command in ("setup", "test"):
        ensure_venv()
        ensure_installed("test")
        ensure_chromium()
        if command == "setup":
            return 0
        # both cores; the browser tests on one of them, one after another (tests/conftest.py)
        workers = [] if any(a.startswith("-n") for a in argv[1:]) else ["-n", "auto", "--dist", "loadgroup"]
        return sh(PYTHON, "-m", "pytest", *workers, *argv[1:], check=False)
    if command == "docs":
        ensure_venv()
        ensure_installed("docs")
        return docs(argv[1:])
    if command == "screenshots":
        ensure_venv()
        ensure_installed("test")
        return screenshots()
    print(__doc__)
    return 0 if command in ("help", "-h", "--help") else 2


SITE = ROOT / "dashboard" / "static" / "docs"  # served by the dashboard at /app/static/docs/ (git-ignored)
DOCTREES = ROOT / "docs" / "_build" / "doctrees"  # Sphinx's pickled pages: kept out of the folder the dashboard serves


def sphinx(python: str | os.PathLike = PYTHON, site: Path = SITE, doctrees: Path = DOCTREES, *options) -> list:
    """The command that builds the site from docs/ into ``site``: every warning an error, from scratch."""
    return [python, "-m", "sphinx", "-b", "html", "-E", "-W", "--keep-going", "-q", "-d", doctrees, *options,
            ROOT / "docs", site]


SCREENSHOTS = ROOT / "docs" / "screenshots"  # shown by docs/dashboard.md and the README; one per listed page


def screenshots() -> int:
    """Take the screenshots of every listed page of the dashboard into SCREENSHOTS, replacing those there."""
    taken = SCREENSHOTS.parent / f".{SCREENSHOTS.name}-new"  # the old ones stay until every new one is taken
    shutil.rmtree(taken, ignore_errors=True)
    env = {**os.environ, "RANKSCOPE_SCREENSHOTS": str(taken)}
    status = subprocess.run([str(PYTHON), "-m", "pytest", "-p", "no:xdist", "-q",
                             "tests/e2e/test_screenshots.py"], cwd=ROOT, env=env).returncode
    if status:
        shutil.rmtree(taken, ignore_errors=True)
        return status
    shutil.rmtree(SCREENSHOTS, ignore_errors=True)
    taken.rename(SCREENSHOTS)
    print(f"took {len(list(SCREENSHOTS.glob('*.png')))} screenshots into {SCREENSHOTS}", flush=True)
    return 0


def docs(args: list[str]) -> int:
    """Build the site (Sphinx, from docs/) into SITE, warnings as errors; with --serve, serve it on loopback."""
    site = SITE
    status = sh(*sphinx(), check=False)
    if status or "--serve" not in args:
        if not status:
            print(f"built {site / 'index.html'}", flush=True)
        return status
    port = args[args.index("--port") + 1] if "--port" in args else "8000"
    print(f"serving http://127.0.0.1:{port}/ (Ctrl-C stops)", flush=True)
    try:
        return sh(PYTHON, "-m", "http.server", port, "--bind", "127.0.0.1", "--directory", site, check=False)
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
