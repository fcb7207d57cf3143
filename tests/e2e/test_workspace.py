"""The shared workspace in real browsers on one server: a note opened after someone else saved it edits that
save (no conflict), and a real concurrent edit is reported with who saved what and when; the typed name is
kept by the browser; one upload sitting of qrels, runs, topics and documents is one collection, one version.

Skipped when Chromium or Playwright is missing, except under CI=true, where that is a failure.
"""

from __future__ import annotations

import re

import pytest

from tests.e2e.conftest import VIEWPORT, author_tab, drop_files, need_browser, settled

need_browser()
from tests.e2e.team import QRELS, TOPICS, Team, team_run, save_note

pytestmark = pytest.mark.browser
pytest.importorskip("sqlalchemy", reason="the workspace extra (sqlalchemy) is not installed")
from playwright.sync_api import expect  # noqa: E402


@pytest.fixture(scope="module")
def team(tmp_path_factory):
    folder = tmp_path_factory.mktemp("notes") / "ws"
    made = Team(str(folder), folder / "files")
    made.url = made.serve()
    yield made
    made.stop()


_tab = author_tab  # a new browser with its author named


def _form(tab):
    return tab.locator('[data-testid="stForm"] textarea').first


def _when(created_at: str) -> str:
    return created_at[:19].replace("T", " ") + " UTC"


def test_a_note_opened_after_another_browser_saved_it_is_no_conflict(team, browser):  # noqa: F811
    bob = _tab(browser, f"{team.url}/queries?collection={team.cid}", "bob")  # the queries page, all topics
    alice = _tab(browser, f"{team.url}/queries?collection={team.cid}&view=One+topic&topic=1", "alice")
    save_note(alice, "1", "alice: judged too leniently")
    bob.get_by_role("tab", name="One topic").click()  # bob opens topic 1 after alice's save
    settled(bob)
    expect(bob.locator('[data-testid="stMain"] h3').filter(has_text="Topic 1")).to_be_visible()
    expect(_form(bob)).to_have_value("alice: judged too leniently")  # he sees her note in the form
    save_note(bob, "1", "alice: judged too leniently\nbob: agreed, and ties matter")
    expect(bob.get_by_text("versions of this note", exact=False)).to_have_count(0)
    expect(bob.get_by_text("Since you opened this note", exact=False)).to_have_count(0)
    ws = team.open()
    (note,) = [n for n in ws.notes(team.cid) if n.topic == "1"]
    (first, second) = ws.note_history(team.cid, "1", None)
    ws.close()
    assert (note.author, note.revision, note.base) == ("bob", second.revision, first.revision)
    assert first.author == "alice"
    for tab in (alice, bob):
        tab.context.close()


def test_a_real_concurrent_edit_is_reported_with_who_saved_what_and_when(team, browser):  # noqa: F811
    link = f"{team.url}/queries?collection={team.cid}&view=One+topic&topic=2"
    alice, bob = _tab(browser, link, "alice"), _tab(browser, link, "bob")  # both open topic 2's empty note
    save_note(alice, "2", "alice on 2")
    save_note(bob, "2", "bob on 2, not having seen alice's")
    ws = team.open()
    heads = sorted((n for n in ws.notes(team.cid) if n.topic == "2"), key=lambda n: n.revision)
    ws.close()
    assert [n.author for n in heads] == ["alice", "bob"] and {n.base for n in heads} == {None}
    warning = bob.locator('[data-testid="stAlertContentWarning"]').filter(has_text="versions of this note")
    expect(warning).to_contain_text(f"2 versions of this note were saved without seeing each other: alice at "
                                    f"{_when(heads[0].created_at)} and bob at {_when(heads[1].created_at)}")
    expect(warning).not_to_contain_text(re.compile("same time"))
    expect(bob.get_by_role("button", name="Merge the 2 versions of the note on topic 2")).to_be_visible()
    for tab in (alice, bob):
        tab.context.close()


def test_the_typed_name_is_kept_across_reloads_and_new_tabs_of_one_browser(team, browser):  # noqa: F811
    name = "Ana Lucía <b>&</b>"
    link = f"{team.url}/queries?collection={team.cid}&view=One+topic&topic=5"
    ana = _tab(browser, link, name)
    ana.wait_for_function("document.cookie.includes('rankscope_author=')")  # kept by this browser
    ana.reload()
    settled(ana)
    box = "Your name (for notes and saved collections)"
    expect(ana.get_by_role("textbox", name=box)).to_have_value(name)
    again = ana.context.new_page()  # a new tab of the same browser
    again.goto(link)
    settled(again)
    expect(again.get_by_role("textbox", name=box)).to_have_value(name)
    save_note(again, "5", "saved under the remembered name")
    stranger = browser.new_context(viewport=VIEWPORT).new_page()  # another browser knows nothing of it
    stranger.goto(link)
    settled(stranger)
    expect(stranger.get_by_role("textbox", name=box)).to_have_value("")
    ws = team.open()
    (note,) = [n for n in ws.notes(team.cid) if n.topic == "5"]
    ws.close()
    assert note.author == name and note.comment == "saved under the remembered name"
    for tab in (ana, stranger):
        tab.context.close()


def test_one_upload_sitting_of_qrels_runs_topics_and_documents_is_one_collection_with_one_version(team, browser,  # noqa: F811
                                                                                                   tmp_path):
    files = {"sitting.qrels": QRELS, "one.run": team_run("one", 1), "two.run": team_run("two", 2),
             "topics.tsv": "".join(f"{t}\ttopic {t} words\n" for t in TOPICS).encode(),
             "documents.tsv": "".join(f"d{t}-{i}\ttitle {t} {i}\n" for t in TOPICS for i in range(4)).encode()}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    ws = team.open()
    before = {c.id for c in ws.collections(archived=True)}
    ws.close()
    cy = _tab(browser, f"{team.url}/data", "cy")

    def upload(label: str, *names: str) -> None:
        drop_files(cy, label, [str(tmp_path / n) for n in names])
        settled(cy)

    upload("Qrels", "sitting.qrels")
    upload("Runs", "one.run", "two.run")
    expect(cy.get_by_text("2 systems · qrels sitting.qrels")).to_be_visible()
    upload("Topics (optional)", "topics.tsv")
    upload("Documents (optional)", "documents.tsv")
    expect(cy.get_by_text("documents.tsv, 80 documents")).to_be_visible()
    expect(cy).to_have_url(re.compile(r"[?&]collection=[\w-]{16}"))
    ws = team.open()
    new = [c for c in ws.collections(archived=True) if c.id not in before]
    (made,) = new  # one new collection, with one version
    held = ws.load(made.id)
    ws.close()
    assert (made.version, made.parent, made.name) == (1, None, "sitting: one, two")
    assert held.topics.read() == files["topics.tsv"] and held.documents.read() == files["documents.tsv"]
    expect(cy).to_have_url(re.compile(rf"[?&]collection={made.id}(&|$)"))
    cy.context.close()
