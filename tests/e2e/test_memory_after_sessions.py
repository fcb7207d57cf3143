"""What a session's files cost the server is given back once the session has ended, for every upload kind.

A session uploads a file of every kind the data page takes (runs, qrels, topics, documents, a second judgment
set), large enough that what the server derives from each (the parse, the rankings, the tables of the pages)
weighs tens of megabytes, and closes. The server keeps a closed session for ``server.disconnectedSessionTTL``
(5 s here); then the memory sweeper drops it, and with it every cached entry derived from a file no other
session holds (after :data:`dashboard.server.memory.GRACE_SECONDS` without use). The server's memory
(resident, summed over its process group) must come back within :data:`MARGIN_MB` of what it was before the
upload, with the app's libraries imported and every kind read once by a first, small session. Before, the
parsed documents and topics stayed for good, and the parsed runs and qrels for an hour: this session left
the server 172 MiB above its start (19 of the 191 its files cost given back), now 99.
"""

from __future__ import annotations

import os
import random
import time
from pathlib import Path

import pytest

from dashboard.server import memory
from tests import processes
from tests.e2e.conftest import VIEWPORT, drop_files, need_browser, settled

need_browser()
from playwright.sync_api import expect  # noqa: E402

pytestmark = [pytest.mark.browser, pytest.mark.slow]
# what the server may keep above its start once the session is gone: about 100 MiB stay after the first large
# reads of a server, whatever their size (three sessions of 730,000 documents: 103 MiB of 1,566), not yet
# traced to their owner; before, this test's session left 172 MiB, 19 of 191 given back
MARGIN_MB = 130
TTL = 5  # server.disconnectedSessionTTL of the server under test, in seconds
# the longest the sweeper may take to give the memory back: the TTL, the grace, two sweeps, a busy machine
GIVEN_BACK_WITHIN = TTL + memory.GRACE_SECONDS + 2 * memory.SWEEP_SECONDS + 60
WORDS = ("wing", "flow", "boundary", "layer", "pressure", "shock", "heat", "transfer", "plate", "cylinder")


def _files(folder: Path, seed: int, scale: int) -> dict[str, Path]:
    """A file of every kind in ``folder``, ``scale`` records of each (runs: ``5 * scale`` lines), different for
    each seed."""
    rnd = random.Random(seed)

    def text() -> str:
        return " ".join(rnd.choices(WORDS, k=12))

    bodies = {
        "Runs": "".join(f"{i // 1000 + 1} Q0 d{i % 3000} {i % 1000 + 1} {rnd.random():.6f} s{seed}\n"
                        for i in range(5 * scale)),
        "Qrels": "".join(f"{i // 100 + 1} 0 d{i % 3000} {rnd.choice((0, 1, 2))}\n" for i in range(scale)),
        "Topics (optional)": "".join(f"{i + 1}\t{text()}\n" for i in range(scale)),
        "Documents (optional)": "".join(f"d{i}\t{rnd.choice(WORDS)}\t{text()}\n" for i in range(scale)),
        "More judgment sets (optional)": "".join(f"{i // 100 + 1} 0 d{i % 3000} {rnd.choice((0, 1))}\n"
                                                 for i in range(scale)),
    }
    files = {}
    for i, (label, body) in enumerate(bodies.items()):
        files[label] = folder / f"s{seed}-{i}.txt"
        files[label].write_text(body)
    return files


def _rss_mb(leader: int) -> float:
    """VmRSS summed over the live processes of the process session ``leader`` heads, in MiB."""
    total = 0
    for pid in processes.group_members(leader):
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        total += next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")), 0)
    return total / 1024


def _session(browser, url: str, files: dict[str, Path], leader: int) -> float:
    """A new browser uploads every file, each to its uploader, waits until the page has read it, visits the
    pages that read them, and closes; returns the server's memory (MiB) just before it closed."""
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(180_000)  # a busy machine reads tens of megabytes
    try:
        tab = context.new_page()
        tab.goto(f"{url}/data")
        settled(tab)
        for label, file in files.items():
            drop_files(tab, label, file)
            settled(tab)
            expect(tab.locator('[data-testid="stException"]')).to_have_count(0)
            expect(tab.locator('[data-testid="stAlert"]', has_text="expected")).to_have_count(0)
        for page in ("Overview", "Queries", "Judges"):  # the tables and figures of each kind's pages
            tab.locator('[data-testid="stSidebarNavLink"]', has_text=page).click()
            settled(tab)
            expect(tab.locator('[data-testid="stException"]')).to_have_count(0)
        return _rss_mb(leader)
    finally:
        context.close()


@pytest.fixture(scope="module")
def server():
    env = {k: v for k, v in os.environ.items() if not k.startswith("RANKSCOPE_")}
    env.update(STREAMLIT_SERVER_DISCONNECTED_SESSION_TTL=str(TTL), RANKSCOPE_WORKER_FROM_MB="100000")
    port = processes.free_port()
    proc = processes.serve_dashboard(port, env=env)
    try:
        yield f"http://127.0.0.1:{port}", proc
    finally:
        processes.stop(proc)


def test_the_memory_of_a_session_that_ended_is_given_back(server, browser, tmp_path):  # noqa: F811
    url, proc = server
    _session(browser, url, _files(tmp_path, 0, 500), proc.pid)  # the libraries every kind needs, imported once and for good
    time.sleep(TTL + 2 * memory.SWEEP_SECONDS)
    start = _rss_mb(proc.pid)
    loaded = _session(browser, url, _files(tmp_path, 1, 100_000), proc.pid)
    assert loaded > start + MARGIN_MB + 40, f"the files cost too little to tell: {start:.0f} -> {loaded:.0f} MiB"
    deadline, now = time.monotonic() + GIVEN_BACK_WITHIN, start
    while time.monotonic() < deadline:
        time.sleep(memory.SWEEP_SECONDS / 2)
        now = _rss_mb(proc.pid)
        if now <= start + MARGIN_MB:
            break
    assert now <= start + MARGIN_MB, (f"{GIVEN_BACK_WITHIN:.0f} s after the session ended the server holds "
                                      f"{now:.0f} MiB, {now - start:.0f} above its {start:.0f} (with the files: "
                                      f"{loaded:.0f}); at most {MARGIN_MB} above is given back")
