"""One session's hostile upload against a shared server: its own one-line error, and everyone else served.

The server runs with a worker memory ceiling of 600 MB. Tab 1 has the demo collection loaded and uploads
a gzip qrels of about 1 MB that expands to 480 MB of lines (reading it in the server's process would take
several GB). Tab 1 must show a one-line error naming the file and the limit, with no exception and its
demo collection still loaded; tab 2, another session on the same server, must get the demo's numbers on the
overview while and after tab 1's upload is read.
"""

from __future__ import annotations

import os
import zlib

import pytest

from tests import processes
from tests.e2e.conftest import VIEWPORT, need_browser, settled

need_browser()
from playwright.sync_api import expect  # noqa: E402
from tests.e2e.shown import shows_the_demo_means

pytestmark = pytest.mark.browser
CEILING_MB = 600


def _bomb(lines: int = 40_000_000) -> bytes:
    """A gzip qrels of about 1 MB holding ``lines`` lines."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    chunk = b"401 0 doc 1\n" * 100_000
    return b"".join(packer.compress(chunk) for _ in range(lines // 100_000)) + packer.flush()


@pytest.fixture(scope="module")
def server():
    port = processes.free_port()
    # the decompression limits out of the way: this bomb (of ratio 1000) is for the memory ceiling
    proc = processes.serve_dashboard(port, env={**os.environ, "RANKSCOPE_WORKER_MEMORY_MB": str(CEILING_MB),
                                                "RANKSCOPE_UNZIP_MB": "4096", "RANKSCOPE_UNZIP_RATIO": "100000"})
    try:
        yield f"http://127.0.0.1:{port}", proc
    finally:
        processes.stop(proc)


def test_a_qrels_past_the_ceiling_fails_alone_and_the_server_serves_everyone(server, browser):  # noqa: F811
    url, proc = server
    first, second = (browser.new_context(viewport=VIEWPORT) for _ in range(2))
    try:
        tab = first.new_page()
        tab.goto(f"{url}/data")
        settled(tab)
        expect(tab.get_by_text("demo collection", exact=False).first).to_be_visible()
        figures = tab.locator('[data-testid="stMetricValue"]')
        expect(figures).to_have_count(3)
        systems, judgments = figures.first.inner_text(), figures.nth(2).inner_text()

        tab.locator('[data-testid="stFileUploaderDropzoneInput"]').nth(1).set_input_files(
            files=[{"name": "bomb.qrels.gz", "mimeType": "application/gzip", "buffer": _bomb()}])
        other = second.new_page()  # while tab 1's file is read
        other.goto(f"{url}/overview")
        shows_the_demo_means(other)

        error = tab.locator('[data-testid="stAlertContentError"]').first
        expect(error).to_contain_text(f"bomb.qrels.gz: needs more than {CEILING_MB} MB")
        expect(error).to_contain_text("RANKSCOPE_WORKER_MEMORY_MB")
        assert "\n" not in error.locator('[data-testid="stMarkdownContainer"]').inner_text().strip()
        settled(tab)
        expect(tab.locator('[data-testid="stException"]')).to_have_count(0)
        expect(tab.get_by_text("demo collection", exact=False).first).to_be_visible()
        expect(tab.locator('[data-testid="stMetricValue"]').first).to_have_text(systems)
        expect(tab.locator('[data-testid="stMetricValue"]').nth(2)).to_have_text(judgments)

        assert proc.poll() is None  # the server lives
        other.reload()  # and still serves after the upload
        shows_the_demo_means(other)
        tab.locator('[data-testid="stSidebarNavLink"]', has_text="Overview").click()
        shows_the_demo_means(tab)
    finally:
        first.close()
        second.close()
