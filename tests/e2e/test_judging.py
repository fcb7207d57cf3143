"""An assessor judges in Chromium with the keyboard alone: grades by their digits, a skip by S; the server is
killed with SIGKILL while they judge and started again: every judgment made before the kill is there, none
twice, and the page carries on with the next document."""

from __future__ import annotations

import os
import signal

import pytest

from tests import processes
from tests.e2e.conftest import author_tab, need_browser, settled

need_browser()

pytestmark = pytest.mark.browser

QRELS = b"1 0 d1 1\n"
DOCS = b"".join(f"d{i}\ttitle {i}\tthe text of document {i} about wings\n".encode() for i in range(1, 9))


def _run(tag: str, order: list[int]) -> bytes:
    return "".join(f"1 Q0 d{d} {r} {9 - r} {tag}\n" for r, d in enumerate(order, 1)).encode()


@pytest.fixture
def task(tmp_path):
    from workspace import open_workspace
    from workspace.judging import Judging

    folder = tmp_path / "workspace"
    with open_workspace(str(folder)) as ws:
        info = ws.add_collection("judged", qrels=("q.qrels", QRELS),
                                 runs=[("a.run", _run("a", [1, 2, 3, 4, 5, 6, 7, 8])),
                                       ("b.run", _run("b", [8, 7, 6, 5, 4, 3, 2, 1]))],
                                 topics=("topics.tsv", b"1\twings\n"), documents=("docs.tsv", DOCS), author="owner")
        made = Judging(ws).start(info.id, method="depth", assessors=["ann"], depth=8, author="owner")
    return folder, made.id


def _stored(folder, tid):
    from workspace import open_workspace
    from workspace.judging import Judging

    with open_workspace(str(folder)) as ws:
        rows = Judging(ws).judgments(tid)
    return rows


def _serve(folder, port):
    return processes.serve_dashboard(port, env={**os.environ, "RANKSCOPE_WORKSPACE": str(folder)})


def _shown_docid(tab) -> str:
    caption = tab.get_by_text("Words of the topic are marked.")
    return caption.inner_text().split()[1].rstrip(".")


def _press(tab, key: str) -> None:
    """A key pressed with nothing focused (a shortcut is not taken from a text field), and the run it asks."""
    tab.locator('[data-testid="stMain"] h1').first.click()
    tab.keyboard.press(key)
    settled(tab)


def test_an_assessor_judges_with_the_keyboard_and_a_killed_server_loses_nothing(browser, task):
    folder, tid = task
    port = processes.free_port()
    proc = _serve(folder, port)
    try:
        tab = author_tab(browser, f"http://127.0.0.1:{port}/judge?task={tid}", "ann")
        expected = {}
        for key in ("1", "0", "1"):
            docid = _shown_docid(tab)
            _press(tab, key)
            expected[docid] = int(key)
            assert _shown_docid(tab) != docid  # the next document
        skipped = _shown_docid(tab)
        _press(tab, "s")
        os.killpg(proc.pid, signal.SIGKILL)  # the server dies while the assessor judges
        proc.wait(timeout=30)
        rows = _stored(folder, tid)
        graded = rows[rows["grade"].notna()]
        assert dict(zip(graded["docid"], graded["grade"].astype(int))) == expected
        assert rows.loc[rows["docid"] == skipped, "skipped"].tolist() == [True]
        assert not rows.duplicated(["topic", "docid", "assessor"]).any()
        proc = _serve(folder, port)
        tab.reload()
        settled(tab)
        box = tab.get_by_role("textbox", name="Your name (for notes and saved collections)")
        if box.input_value() != "ann":
            box.fill("ann")
            box.press("Enter")
            settled(tab)
        nxt = _shown_docid(tab)
        assert nxt not in expected and nxt != skipped  # the next document, none judged again
        _press(tab, "0")
        rows = _stored(folder, tid)
        assert len(rows) == len(expected) + 2 and rows.loc[rows["docid"] == nxt, "grade"].tolist() == [0.0]
    finally:
        processes.stop(proc)
