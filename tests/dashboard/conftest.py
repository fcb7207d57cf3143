"""What the dashboard's headless tests share: the app, a page opened in it (Streamlit's AppTest), the errors a
page shows, its text as a reader sees it, an upload through a file uploader, a new workspace.

The dashboard runs heavy work (large uploads, reports, resampling tests) in worker processes started from a
fork server that imports ``metrics`` and scipy once (``dashboard.server.guard``). The first app of a test process
starts that server here, before its first run, so that a run's time limit measures the page and not the
import of the statistics libraries on a loaded machine.
"""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "dashboard" / "app.py")
TIMEOUT = 120
"""Seconds one run of a page may take (AppTest's ``default_timeout``)."""


@functools.cache
def _workers_ready() -> None:
    from dashboard.server import guard

    guard.call("the test's first worker", os.getpid)


def new_app(query: dict | None = None, session: dict[str, Any] | None = None, timeout: float = TIMEOUT) -> AppTest:
    """The dashboard, not yet run: with ``query`` in its URL and ``session`` in its session state."""
    from streamlit.testing.v1 import AppTest

    _workers_ready()
    at = AppTest.from_file(APP, default_timeout=timeout)
    if query:
        at.query_params.update(query)
    for key, value in (session or {}).items():
        at.session_state[key] = value
    return at


def open_page(page: str, query: dict | None = None, at: AppTest | None = None, *,
              session: dict[str, Any] | None = None, timeout: float = TIMEOUT) -> AppTest:
    """``app_pages/<page>.py`` after one run of the app (or in ``at``, already running)."""
    if at is None:
        at = new_app(query, session, timeout)
        at.run()
    at.switch_page(f"app_pages/{page}.py")
    at.run()
    return at


def unescaped(text: str) -> str:
    """Text as a reader sees it once Markdown has read it: the backslash escapes and invisible word joiners
    that :func:`dashboard.session.user_text.md` puts into user text taken out again."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", text).replace("\u2060", "")


def errors(at: AppTest) -> list[str]:
    """Every exception and error message the page shows, as a reader sees it (:func:`unescaped`)."""
    return [e.value for e in at.exception] + [unescaped(e.value) for e in at.error]


def upload(at: AppTest, label: str, files) -> None:
    """Give the file uploader labelled ``label`` its files, and run the page again."""
    uploader = next(u for u in at.get("file_uploader") if u.proto.label == label)
    uploader.set_value(files)
    at.run()


@pytest.fixture
def ws(tmp_path, monkeypatch):
    """A new workspace in a temporary folder, the one the dashboard opens (``$RANKSCOPE_WORKSPACE``)."""
    pytest.importorskip("sqlalchemy", reason="the workspace extra (sqlalchemy) is not installed")
    from workspace import open_workspace

    folder = tmp_path / "workspace"
    monkeypatch.setenv("RANKSCOPE_WORKSPACE", str(folder))
    store = open_workspace(str(folder))
    yield store
    store.close()
