"""A gzip bomb in "Topics (optional)" against a shared server with the default limits.

1 MB of gzip holding 1 GiB of one letter: parsed in the server's own process, it grew the server by
gigabytes and slowed every other session. Every upload now goes through the guard's worker, which stops
expanding gzip at the decompression limit. The uploader must get one line naming the file and the limit,
its collection must stay as it was, another session must be served meanwhile, and the server process must
not grow by more than a fraction of what the bomb holds.
"""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import pytest

from tests import processes
from tests.e2e.conftest import VIEWPORT, need_browser, settled

need_browser()
from playwright.sync_api import expect  # noqa: E402
from tests.e2e.shown import shows_the_demo_means

pytestmark = pytest.mark.browser
GROWTH_MB = 400  # the most the server may grow by while the bomb (1024 MiB expanded) is refused


def _bomb(gib: int = 1) -> bytes:
    """Gzip of ``gib`` GiB of the letter "a": 16 members per GiB of 64 MiB each, about 1 MB per GiB."""
    return gzip.compress(b"a" * (64 << 20), compresslevel=9, mtime=0) * (16 * gib)


def _reset_peak(pid: int) -> None:
    """Start counting the peak (``VmHWM``) of process ``pid`` afresh (Linux: ``clear_refs`` 5)."""
    Path(f"/proc/{pid}/clear_refs").write_text("5")


def _memory_mb(pid: int, field: str) -> float:
    """``VmHWM`` (peak) or ``VmRSS`` of process ``pid``, in MiB, from /proc."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no {field} for process {pid}")


@pytest.fixture(scope="module")
def server():
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RANKSCOPE_WORKER_", "RANKSCOPE_UNZIP_"))}
    env.pop("RANKSCOPE_WORKSPACE", None)
    port = processes.free_port()
    proc = processes.serve_dashboard(port, env=env)
    try:
        yield f"http://127.0.0.1:{port}", proc
    finally:
        processes.stop(proc)


def test_a_topics_bomb_is_refused_in_one_line_and_the_server_stays_small(server, browser):  # noqa: F811
    url, proc = server
    first, second = (browser.new_context(viewport=VIEWPORT) for _ in range(2))
    try:
        tab = first.new_page()
        tab.goto(f"{url}/data")
        settled(tab)
        figures = tab.locator('[data-testid="stMetricValue"]')
        expect(figures).to_have_count(3)
        shown = [figures.nth(i).inner_text() for i in range(3)]
        before = _memory_mb(proc.pid, "VmRSS")
        _reset_peak(proc.pid)

        uploader = tab.locator('[data-testid="stFileUploader"]', has_text="Topics (optional)")
        uploader.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(
            files=[{"name": "bomb.topics.gz", "mimeType": "application/gzip", "buffer": _bomb()}])
        other = second.new_page()  # another session, while the bomb is read
        other.goto(f"{url}/overview")
        shows_the_demo_means(other)

        error = tab.locator('[data-testid="stAlertContentError"]').first
        expect(error).to_contain_text("bomb.topics.gz: expands")
        expect(error).to_contain_text("the decompression limit of the dashboard (RANKSCOPE_UNZIP_")
        assert "\n" not in error.locator('[data-testid="stMarkdownContainer"]').inner_text().strip()  # one line
        settled(tab)
        expect(tab.locator('[data-testid="stException"]')).to_have_count(0)
        expect(tab.get_by_text("query texts", exact=False)).to_have_count(0)  # no topics were loaded
        for i, text in enumerate(shown):  # the collection as it was
            expect(tab.locator('[data-testid="stMetricValue"]').nth(i)).to_have_text(text)

        assert proc.poll() is None
        grown = _memory_mb(proc.pid, "VmHWM") - before
        assert grown < GROWTH_MB, f"the server grew by {grown:.0f} MiB while the bomb was read"
        other.reload()
        shows_the_demo_means(other)
    finally:
        first.close()
        second.close()
