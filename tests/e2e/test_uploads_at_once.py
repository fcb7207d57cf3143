"""Three people upload their qrels and runs to one server at the same moment, every file read by the guard.

The server reads every upload in a worker of :mod:`dashboard.server.guard` (``RANKSCOPE_WORKER_FROM_MB`` below any
file), as it reads large files. Three tabs (separate sessions) send their qrels before any is awaited, then
their runs: each must show its own qrels, then its own system, with no exception. When each worker imported
and ran the whole app before reading its file, uploads at once waited on one another, and the third
session's qrels did not arrive.
"""

from __future__ import annotations

import os
import random

import pytest

from tests import processes
from tests.e2e.conftest import VIEWPORT, need_browser, settled

need_browser()
from playwright.sync_api import expect  # noqa: E402

pytestmark = pytest.mark.browser
SESSIONS = 3


@pytest.fixture(scope="module")
def server():
    port = processes.free_port()
    proc = processes.serve_dashboard(port, env={**os.environ, "RANKSCOPE_WORKER_FROM_MB": "0.000001"})
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        processes.stop(proc)  # the server's process group: its guard's fork server and workers too


def _files(i: int) -> tuple[bytes, bytes]:
    rnd = random.Random(i)
    qrels = "".join(f"{t} 0 d{t}-{j} {rnd.choice((0, 1, 2))}\n" for t in range(1, 31) for j in range(20))
    run = "".join(f"{t} Q0 d{t}-{j} {j + 1} {100 - j} s{i}\n" for t in range(1, 31) for j in range(40))
    return qrels.encode(), run.encode()


def _upload(tab, which: int, name: str, body: bytes) -> None:
    tab.locator('[data-testid="stFileUploaderDropzoneInput"]').nth(which).set_input_files(
        files=[{"name": name, "mimeType": "text/plain", "buffer": body}])


def test_three_sessions_upload_at_once_and_each_gets_its_files(server, browser):  # noqa: F811
    contexts = [browser.new_context(viewport=VIEWPORT) for _ in range(SESSIONS)]
    try:
        tabs = [c.new_page() for c in contexts]
        for tab in tabs:
            tab.goto(f"{server}/data")
        for tab in tabs:
            settled(tab)  # a file handed to the uploader while the page's first run still draws is dropped
        for i, tab in enumerate(tabs):  # every session's qrels go up before any is awaited
            _upload(tab, 1, f"session{i}.qrels", _files(i)[0])
        for i, tab in enumerate(tabs):
            expect(tab.get_by_text("at least one run", exact=False).first).to_be_visible()
            expect(tab.get_by_text(f"session{i}.qrels", exact=False).first).to_be_visible()
        for i, tab in enumerate(tabs):
            _upload(tab, 0, f"session{i}.run", _files(i)[1])
        for i, tab in enumerate(tabs):
            expect(tab.get_by_text(f"1 system · qrels session{i}.qrels", exact=False).first).to_be_visible()
            settled(tab)
            expect(tab.locator('[data-testid="stException"]')).to_have_count(0)
            expect(tab.locator('[data-testid="stAlert"]', has_text="dashboard's worker")).to_have_count(0)
    finally:
        for context in contexts:
            context.close()
