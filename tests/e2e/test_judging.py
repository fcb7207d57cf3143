"""Two assessors judge one task in Chromium, each in a browser of their own, with the keyboard alone: grades by
their digits, a skip by S. A share of the documents goes to both, and they grade some of those differently. The
server is killed with SIGKILL while they judge and started again: every judgment made before the kill is there,
none twice, and each page carries on with a document it had not judged. Then the owner's judges page lists the
documents they disagree on, saves the task's sets, and shows Cohen's kappa of the two assessors equal to
scikit-learn's on the judgments read from the store with plain SQL."""

from __future__ import annotations

import os
import signal
import sqlite3
import warnings

import pytest

from tests import processes
from tests.e2e.conftest import author_tab, need_browser, settled

need_browser()

pytestmark = pytest.mark.browser
sklearn_metrics = pytest.importorskip("sklearn.metrics", reason="scikit-learn (the kappa oracle) is not installed")
from playwright.sync_api import expect  # noqa: E402

QRELS = b"1 0 d1 2\n"  # grades 0 to 2: the task's scale
DOCS = b"".join(f"d{i}\ttitle {i}\tthe text of document {i} about wings\n".encode() for i in range(1, 11))
SEED = "000000000000002e"  # the task's draw, at an overlap of 0.3: d3, d4, d5, d6 and d8 go to both assessors
ASSESSORS = ("ann", "bob")
BEFORE_THE_KILL = 5  # judgments (skips included) made before the server is killed


def _run(tag: str, order: list[int]) -> bytes:
    return "".join(f"1 Q0 d{d} {r} {11 - r} {tag}\n" for r, d in enumerate(order, 1)).encode()


def _grade(who: str, docid: str) -> int:
    """What each assessor says: the same, except that bob grades d4 and d8 one higher (0 after 2)."""
    number = int(docid[1:])
    return (number + (who == "bob" and number % 4 == 0)) % 3


@pytest.fixture
def task(tmp_path, monkeypatch):
    from workspace import open_workspace
    from workspace.judging import Judging

    monkeypatch.setattr("workspace.judging.secrets.token_hex", lambda _: SEED)  # the same draw in every run
    folder = tmp_path / "workspace"
    with open_workspace(str(folder)) as ws:
        info = ws.add_collection("judged", qrels=("q.qrels", QRELS),
                                 runs=[("a.run", _run("a", list(range(1, 11)))),
                                       ("b.run", _run("b", list(range(10, 0, -1))))],
                                 topics=("topics.tsv", b"1\twings\n"), documents=("docs.tsv", DOCS), author="owner")
        made = Judging(ws).start(info.id, method="depth", assessors=list(ASSESSORS), overlap=0.3, depth=10,
                                 author="owner")
    return folder, info.id, made.id


def _stored(folder, tid) -> list[tuple[str, str, float | None, int]]:
    """The task's judgment rows as the store holds them (docid, assessor, grade, skipped), read with plain SQL."""
    with sqlite3.connect(folder / "workspace.db") as conn:
        return conn.execute("SELECT docid, assessor, grade, skipped FROM judging_judgments WHERE task = ? "
                            "ORDER BY docid, assessor", (tid,)).fetchall()


def _serve(folder, port):
    return processes.serve_dashboard(port, env={**os.environ, "RANKSCOPE_WORKSPACE": str(folder)})


def _shown_docid(tab) -> str | None:
    """The document the page shows, or None when it has nothing more to judge."""
    caption = tab.get_by_text("Words of the topic are marked.")
    if not caption.count():
        expect(tab.get_by_text("Nothing more to judge", exact=False)).to_be_visible()
        return None
    return caption.inner_text().split()[1].rstrip(".")


def _press(tab, key: str) -> None:
    """A key pressed with nothing focused (a shortcut is not taken from a text field), and the run it asks; the
    tab is brought to the front first, as the assessor's window is (a key goes to the window in front)."""
    tab.bring_to_front()
    tab.locator('[data-testid="stMain"] h1').first.click()
    tab.keyboard.press(key)
    settled(tab)


def _again(tab, who: str) -> None:
    """The page loaded again (after the server came back, or to see documents dealt since)."""
    tab.reload()
    settled(tab)
    box = tab.get_by_role("textbox", name="Your name (for notes and saved collections)")
    if box.input_value() != who:
        box.fill(who)
        box.press("Enter")
        settled(tab)


def _judge(tabs: dict, made: dict, skipped: set, until: int | None = None) -> None:
    """The assessors take turns, each judging the document shown (ann skips her second), until ``until``
    judgments are made or neither page has a document left, even loaded again."""
    reloaded = False
    while until is None or len(made) + len(skipped) < until:
        moved = False
        for who, tab in tabs.items():
            docid = _shown_docid(tab)
            if docid is None or (until is not None and len(made) + len(skipped) >= until):
                continue
            assert (who, docid) not in made and (who, docid) not in skipped  # never shown again once judged
            if who == "ann" and len([k for k in made if k[0] == "ann"]) == 1 and not skipped:
                _press(tab, "s")
                skipped.add((who, docid))
            else:
                _press(tab, str(_grade(who, docid)))
                made[who, docid] = _grade(who, docid)
            # the next document (waited for: a key's run may start only after the wait for runs asked has ended)
            expect(tab.get_by_text(f"Document {docid}. Words of the topic are marked.")).to_have_count(0)
            settled(tab)
            moved = True
        if not moved:
            if reloaded:
                return
            for who, tab in tabs.items():  # a document drawn for a second assessor after their page ran
                _again(tab, who)
        reloaded = not moved


def _open(tab, label: str) -> None:
    """Open the list of the selectbox ``label`` just after a run of the judging tasks' part (it reruns every 3 s
    and a run redraws an open list closed), trying again after the next run if it closed all the same."""
    for _ in range(5):
        seen = tab.evaluate("() => window.__e2e.answered")
        tab.wait_for_function(f"() => window.__e2e.answered > {seen}", timeout=30_000)
        tab.get_by_role("combobox", name=label).click()
        try:
            expect(tab.get_by_role("option").first).to_be_visible(timeout=2_000)
            return
        except AssertionError:
            tab.keyboard.press("Escape")
    raise AssertionError(f"the list of the selectbox {label!r} did not stay open")


def _option_texts(tab, label: str) -> list[str]:
    """The options of the selectbox ``label``, as its list shows them."""
    _open(tab, label)
    texts = tab.get_by_role("option").all_inner_texts()
    tab.keyboard.press("Escape")
    return texts


def _choose(tab, label: str, option: str) -> None:
    _open(tab, label)
    tab.get_by_role("option", name=option, exact=True).click()
    settled(tab)


def _metric(tab, label: str):
    return tab.locator('[data-testid="stMetric"]').filter(has_text=label).locator('[data-testid="stMetricValue"]')


def test_two_assessors_judge_with_the_keyboard_a_killed_server_loses_nothing_and_kappa_is_sklearns(browser, task):
    folder, cid, tid = task
    port = processes.free_port()
    proc = _serve(folder, port)
    try:
        tabs = {who: author_tab(browser, f"http://127.0.0.1:{port}/judge?task={tid}", who) for who in ASSESSORS}
        made, skipped = {}, set()
        _judge(tabs, made, skipped, until=BEFORE_THE_KILL)
        os.killpg(proc.pid, signal.SIGKILL)  # the server dies while the assessors judge
        proc.wait(timeout=30)
        rows = _stored(folder, tid)
        assert {(who, d): int(g) for d, who, g, _ in rows if g is not None} == made
        assert {(who, d) for d, who, g, s in rows if s} == skipped
        assert len(rows) == len({(d, who) for d, who, _, _ in rows}) == BEFORE_THE_KILL  # none twice
        proc = _serve(folder, port)
        for who, tab in tabs.items():
            _again(tab, who)
        _judge(tabs, made, skipped)  # to the end: each page goes on with a document it had not judged
        rows = _stored(folder, tid)
        assert {(who, d): int(g) for d, who, g, _ in rows if g is not None} == made
        assert len(rows) == len(made) + len(skipped)
        assert {d for d, _, _, _ in rows} == {f"d{i}" for i in range(2, 11)}  # every document the pool holds

        grades = {who: {d: int(g) for d, w, g, _ in rows if w == who and g is not None} for who in ASSESSORS}
        both = sorted(set(grades["ann"]) & set(grades["bob"]))
        apart = [d for d in both if grades["ann"][d] != grades["bob"][d]]
        assert len(both) >= 3 and apart  # the overlap, and disagreements in it
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            kappa = sklearn_metrics.cohen_kappa_score([grades["ann"][d] for d in both],
                                                      [grades["bob"][d] for d in both])

        owner = author_tab(browser, f"http://127.0.0.1:{port}/judges?collection={cid}", "owner")
        owner.get_by_text("Judging tasks").click()
        settled(owner)
        expect(owner.get_by_text("Where the assessors disagree")).to_be_visible()
        assert _option_texts(owner, "Document") == [f"1 · {d}" for d in apart]  # listed to adjudicate
        owner.get_by_role("button", name="Save the task's judgment sets as a new version").click()
        settled(owner)
        expect(owner.get_by_text("Saved as version 2", exact=False)).to_be_visible()
        _choose(owner, "First set", "judging 1:ann")
        _choose(owner, "Second set", "judging 1:bob")
        expect(_metric(owner, "Only by judging 1:ann")).to_be_visible()  # the two assessors' sets compared
        expect(_metric(owner, "Only by judging 1:bob")).to_be_visible()
        expect(_metric(owner, "Judged by both")).to_have_text(f"{len(both):,}")
        expect(_metric(owner, "Cohen's κ")).to_have_text(f"{kappa:.4f}")
        expect(owner.locator('[data-testid="stException"]')).to_have_count(0)
    finally:
        processes.stop(proc)
