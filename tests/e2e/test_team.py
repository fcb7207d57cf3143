"""A team on one shared workspace, in real browsers: links carry a stored collection from one browser to another;
two dashboard processes take notes written at once from 20 pages (SQLite and PostgreSQL); a killed server and
a restarted one keep what was written, whole.

Skipped when Chromium or Playwright is missing (and the PostgreSQL case when no server can be had), except
under CI=true, where that is a failure.
"""

from __future__ import annotations

import os
import re
import time

import pytest

from tests import processes
from tests.e2e.conftest import VIEWPORT, author_tab, need_browser, settled

need_browser()
from tests.workspace.conftest import fresh_database, postgres_server  # noqa: F401  (fixture)

pytestmark = pytest.mark.browser
pytest.importorskip("sqlalchemy", reason="the workspace extra (sqlalchemy) is not installed")
from playwright.sync_api import expect  # noqa: E402

from workspace import open_workspace  # noqa: E402
from tests.e2e.team import TOPICS, Team, team_run, save_note


@pytest.fixture
def team(tmp_path):
    made = Team(str(tmp_path / "ws"), tmp_path / "ws" / "files")
    yield made
    made.stop()


_tab = author_tab  # a new browser with its author named


def _collection_of(url: str) -> str:
    return url.split("collection=", 1)[1].split("&", 1)[0]


def _stored_note(team: Team, topic: str, comment: str, timeout: float = 60.0) -> None:
    """Wait until the workspace holds ``comment`` as the note on ``topic`` (the save has committed): a page that
    looks settled right after the click may not have sent the save yet, and a server stopped then loses it."""
    deadline = time.monotonic() + timeout
    while True:
        ws = team.open()
        try:
            if any(n.topic == topic and n.comment == comment for n in ws.notes(team.cid)):
                return
        finally:
            ws.close()
        if time.monotonic() > deadline:
            raise AssertionError(f"the note on topic {topic} was not saved within {timeout:g} s")
        time.sleep(0.2)


def test_a_link_shows_another_browser_the_same_collection_and_view(team, browser, tmp_path):  # noqa: F811
    server = team.serve()
    ana = _tab(browser, f"{server}/data?collection={team.cid}", "ana")
    expect(ana.locator('[data-testid="stMetricValue"]').first).to_have_text("1")
    run = tmp_path / "dense.run"
    run.write_bytes(team_run("dense", 1))
    ana.locator('[data-testid="stFileUploaderDropzoneInput"]').nth(0).set_input_files(str(run))
    settled(ana)
    expect(ana.locator('[data-testid="stMetricValue"]').first).to_have_text("2")
    expect(ana).to_have_url(re.compile(r"[?&]collection=\w"))  # a new version: the address bar follows the rerun
    expect(ana).not_to_have_url(re.compile(rf"[?&]collection={team.cid}(&|$)"))
    new = _collection_of(ana.url)
    ana.locator('[data-testid="stSidebarNavLink"]', has_text="Queries").click()
    settled(ana)
    ana.get_by_role("tab", name="One topic").click()
    settled(ana)
    expect(ana).to_have_url(re.compile(rf"(?=.*[?&]collection={new}(&|$))(?=.*[?&]view=One\+topic(&|$))"))
    link = ana.url

    bea = _tab(browser, link, "bea")  # another browser: no cookies, no session of ana's
    expect(bea.get_by_role("tab", name="One topic")).to_have_attribute("aria-selected", "true")
    expect(bea.locator('[data-testid="stSidebar"]')).to_contain_text("2 systems · qrels team.qrels")
    assert _collection_of(bea.url) == new
    ws = team.open()
    assert ws.collection(new).systems == ("bm25", "dense") and ws.collection(new).parent == team.cid
    ws.close()


WRITERS = TOPICS[:8]  # eight reviewers, one topic each, split over the two servers


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_two_servers_and_eight_pages_writing_notes_at_once_keep_every_note_once(
        backend, browser, tmp_path, request):  # noqa: F811
    if backend == "sqlite":
        made = Team(str(tmp_path / "ws"), tmp_path / "ws" / "files")
    else:
        made = Team(fresh_database(request.getfixturevalue("postgres_server")), tmp_path / "files")
    try:
        servers = [made.serve(), made.serve()]
        tabs = [_tab(browser, f"{servers[i % 2]}/queries?collection={made.cid}&view=One+topic&topic={topic}",
                     f"reviewer {i}") for i, topic in enumerate(WRITERS)]
        for i, (tab, topic) in enumerate(zip(tabs, WRITERS)):
            save_note(tab, topic, f"note {i} on topic {topic}", wait=False)  # all in flight together
        for tab in tabs:
            settled(tab)
        ws = made.open()
        notes = ws.notes(made.cid)
        assert sorted(n.comment for n in notes) == sorted(f"note {i} on topic {t}" for i, t in enumerate(WRITERS))
        assert (sorted((n.topic, n.author) for n in notes)
                == sorted((t, f"reviewer {i}") for i, t in enumerate(WRITERS)))
        assert all(len(ws.note_history(made.cid, t, None)) == 1 for t in WRITERS)
        ws.close()
        for tab in tabs:
            tab.context.close()
    finally:
        made.stop()


def test_a_killed_server_keeps_completed_writes_and_the_interrupted_one_whole_or_absent(team, browser,  # noqa: F811
                                                                                         tmp_path):
    server = team.serve()
    tab = _tab(browser, f"{server}/queries?collection={team.cid}&view=One+topic&topic=3", "ana")
    save_note(tab, "3", "done before the kill")
    _stored_note(team, "3", "done before the kill")
    big = tmp_path / "big.run"
    big.write_bytes("".join(f"{t} Q0 doc{j} {j + 1} {1e6 - j} big\n" for t in TOPICS for j in range(50_000))
                    .encode())  # 1M lines: long enough to be cut short
    tab.locator('[data-testid="stSidebarNavLink"]', has_text="Data").click()
    settled(tab)
    tab.locator('[data-testid="stFileUploaderDropzoneInput"]').nth(0).set_input_files(str(big))
    time.sleep(1.5)
    team.kill(team.servers[0])  # during the upload
    server = team.serve()
    tab.goto(f"{server}/queries?collection={team.cid}&view=One+topic&topic=4")
    settled(tab)
    save_note(tab, "4", "interrupted " + "x" * 5000, wait=False)
    team.kill(team.servers[0])  # during the note's save
    team.serve()
    ws = team.open()
    comments = {n.topic: n.comment for n in ws.notes(team.cid)}
    assert comments["3"] == "done before the kill"
    assert comments.get("4") in (None, "interrupted " + "x" * 5000)
    for info in ws.collections(archived=True):  # every collection listed opens, and its files are whole
        stored = ws.load(info.id)
        for f in [stored.qrels, *stored.runs]:
            assert len(f.read()) == f.size
    ws.close()


def test_after_a_restart_both_browsers_still_see_the_collection_and_the_note(team, browser):  # noqa: F811
    port = processes.free_port()
    server = team.serve(port)
    link = f"{server}/queries?collection={team.cid}&view=One+topic&topic=7"
    ana, bea = _tab(browser, link, "ana"), _tab(browser, link, "bea")
    save_note(ana, "7", "seen by everyone")
    _stored_note(team, "7", "seen by everyone")  # saved before the restart: the test is what a restart keeps
    team.stop()
    team.serve(port)
    for tab in (ana, bea):
        tab.goto(link)
        settled(tab)
        expect(tab.locator('[data-testid="stSidebar"]')).to_contain_text("1 system · qrels team.qrels")
        expect(tab.locator('[data-testid="stForm"] textarea').first).to_have_value("seen by everyone")


def test_two_servers_opened_at_once_on_an_empty_workspace_seed_it_once(browser, tmp_path):  # noqa: F811
    from dashboard.store import opened
    from sample_data import teaching_examples

    location, files = str(tmp_path / "empty"), tmp_path / "empty" / "files"
    env = {**os.environ, "RANKSCOPE_WORKSPACE": location, "RANKSCOPE_WORKSPACE_FILES": str(files)}
    servers = [processes.serve_dashboard(processes.free_port(), env=env) for _ in range(2)]
    try:
        urls = [f"http://127.0.0.1:{s.args[s.args.index('--server.port') + 1]}/overview" for s in servers]
        tabs = [browser.new_context(viewport=VIEWPORT).new_page() for _ in urls]
        for tab, url in zip(tabs, urls):  # both first sessions start before either has seeded
            tab.goto(url, wait_until="commit")
        for tab in tabs:
            settled(tab)
            expect(tab.get_by_role("heading", name="Overview")).to_be_visible()
        ws = open_workspace(location, files=str(files))
        names = sorted(c.name for c in ws.collections(archived=True))
        ws.close()
        assert names == sorted([opened.DEMO] + [opened.EXAMPLE.format(n) for n in teaching_examples()])
        for tab in tabs:
            tab.context.close()
    finally:
        for proc in servers:
            processes.stop(proc)
