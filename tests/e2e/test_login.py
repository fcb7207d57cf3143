"""The login mode in real Chromium, against a real OpenID Connect provider (``oidc-provider-mock``) that the tests
start on loopback: people sign in through the provider's own page, and each role is tried both ways.

One provider and one dashboard server (``--access login``, Streamlit's ``[auth]`` settings in a secrets file of
the test's own) serve the whole module; each test signs in as the people it needs, in browser contexts of their
own. Nothing fakes ``st.user``: the identity is the one the provider signs. Skipped when Chromium, Playwright
or the provider is missing, except under CI=true, where that is a failure.
"""

from __future__ import annotations

import re

import pytest

from tests.e2e.conftest import VIEWPORT, need_browser, settled

need_browser()

pytestmark = pytest.mark.browser
pytest.importorskip("sqlalchemy", reason="the workspace extra (sqlalchemy) is not installed")
from playwright.sync_api import expect  # noqa: E402

from tests.e2e.login_helpers import ANA, BEA, ROOT, provider, serve_team  # noqa: E402,F401 (fixture)
from tests.e2e.login_helpers import go as _go, page_url as _page, run_bytes as _run  # noqa: E402
from tests.e2e.login_helpers import sign_in as _sign_in  # noqa: E402
from tests import processes  # noqa: E402
from workspace import Actor  # noqa: E402


@pytest.fixture(scope="module")
def team(provider, tmp_path_factory):  # noqa: F811
    server, found = serve_team(provider, tmp_path_factory.mktemp("login"))
    try:
        yield found
    finally:
        processes.stop(server)


def _choose(tab, cid: str) -> None:
    """Choose collection ``cid`` on the collections page (nothing is chosen for a change until one is)."""
    box = tab.get_by_role("combobox", name="Collection", exact=True)
    box.click()
    box.press_sequentially(cid)
    tab.get_by_role("option").filter(has_text=cid).click()
    settled(tab)


def _runs_uploader(tab):
    """The data page's file input for runs (found by its label: the page holds several uploaders)."""
    return (tab.locator('[data-testid="stFileUploader"]').filter(has_text="Runs")
            .locator('[data-testid="stFileUploaderDropzoneInput"]').first)


def _press(tab, name: str, toast: str) -> None:
    """Press the button ``name``, wait for the page's word that the change went through, then for the page to
    settle. Streamlit can drop a click that lands while the page is still being redrawn (on a busy machine):
    the button is then still there and no word comes, so it is pressed again, at most three times in all."""
    button = tab.get_by_role("button", name=name)
    for attempt in range(3):
        button.click()
        try:
            expect(tab.get_by_text(toast, exact=True)).to_be_visible(timeout=20_000)
            break
        except AssertionError:
            if attempt == 2 or not button.is_visible():
                raise
    settled(tab)


def test_a_visitor_sees_only_the_sign_in_and_the_identity_is_the_providers(team, browser):  # noqa: F811
    cid = team.collection("private of ana")
    tab = browser.new_context(viewport=VIEWPORT).new_page()
    _go(tab, _page(team, "overview", cid))
    expect(tab.get_by_role("button", name="Sign in")).to_be_visible()
    expect(tab.locator('[data-testid="stMain"]')).not_to_contain_text("private of ana")
    expect(tab.locator('[data-testid="stSidebarNavLink"]')).to_have_count(0)
    tab.context.close()
    ana = _sign_in(browser, team, ANA)
    sidebar = ana.locator('[data-testid="stSidebar"]')
    expect(sidebar).to_contain_text("Signed in as")
    expect(sidebar.get_by_role("button", name="Sign out")).to_be_visible()
    expect(ana.get_by_role("textbox", name="Your name (for notes and saved collections)")).to_have_count(0)
    ana.context.close()


def test_a_link_opens_only_for_those_allowed_and_the_list_shows_only_theirs(team, browser):  # noqa: F811
    cid = team.collection("only ana's")
    bea = _sign_in(browser, team, BEA)
    missing = "AAAAAAAAAAAAAAAA" if cid != "AAAAAAAAAAAAAAAA" else "BBBBBBBBBBBBBBBB"
    lines = []
    for wanted in (cid, missing):
        bea.goto(_page(team, "overview", wanted))  # a page with no heading: the one line and a link
        alert = bea.locator('[data-testid="stAlert"]')
        expect(alert).to_have_count(1)
        expect(bea.locator('[data-testid="stStatusWidget"]')).to_have_count(0)
        lines.append(alert.inner_text().replace(wanted, "ID"))
        expect(bea.locator('[data-testid="stMetricValue"]')).to_have_count(0)
    assert lines[0] == lines[1] and "no access to collection" in lines[0]  # nothing tells the two apart
    _go(bea, f"{team.url}/collections")
    expect(bea.locator('[data-testid="stMain"]')).to_contain_text("Login server")
    expect(bea.get_by_text("only ana's", exact=False)).to_have_count(0)
    ws = team.open()
    assert cid not in {c.id for c in ws.acting_as(Actor(BEA)).collections()}
    ws.close()
    root = _sign_in(browser, team, ROOT)  # an administrator sees it, and may act on it
    _go(root, _page(team, "collections", cid))
    _choose(root, cid)
    expect(root.locator('[data-testid="stSidebar"]')).to_contain_text("administrator")
    expect(root.get_by_role("button", name="Rename")).to_be_enabled()
    for tab in (bea, root):
        tab.context.close()


def test_a_viewer_reads_and_changes_nothing(team, browser, tmp_path):  # noqa: F811
    cid = team.collection("shared with a viewer")
    ana = _sign_in(browser, team, ANA)  # the owner shares it on the page
    _go(ana, _page(team, "collections", cid))
    _choose(ana, cid)
    ana.get_by_text("Members and roles").click()
    ana.get_by_label("Identity (e-mail address, or * for everyone signed in)").fill(BEA)
    _press(ana, "Give this role", "Roles changed.")
    ws = team.open()
    assert ws.members(cid) == {ANA: "owner", BEA: "viewer"}
    ws.close()
    ana.context.close()

    bea = _sign_in(browser, team, BEA)
    _go(bea, _page(team, "collections", cid))
    _choose(bea, cid)
    for name in ("Rename", "Archive", "Delete…"):
        expect(bea.get_by_role("button", name=name)).to_be_disabled()
    bea.get_by_text("Members and roles").click()
    expect(bea.get_by_text("Only the collection's owners")).to_be_visible()
    expect(bea.get_by_role("button", name="Give this role")).to_have_count(0)
    _go(bea, _page(team, "queries", cid, "&view=One+topic&topic=3"))
    expect(bea.get_by_role("button", name="Save the note on topic 3")).to_be_disabled()
    expect(bea.get_by_text("lets you read its notes, not write them")).to_be_visible()
    _go(bea, _page(team, "data", cid))
    run = tmp_path / "dense.run"
    run.write_bytes(_run("dense", 1))
    _runs_uploader(bea).set_input_files(str(run))
    expect(bea.locator('[data-testid="stMetricValue"]').first).to_have_text("2")  # two systems now
    settled(bea)
    expect(bea).not_to_have_url(re.compile(rf"[?&]collection={cid}(&|$)"))  # saved elsewhere: her own
    assert [c.id for c in team.lineage(cid)] == [cid]  # no version added to ana's collection
    ws = team.open()
    mine = [c for c in ws.collections() if c.created_by == BEA and c.systems == ("bm25", "dense")]
    assert len(mine) == 1 and ws.members(mine[0].id) == {BEA: "owner"} and ws.notes(cid) == []
    ws.close()
    bea.context.close()


def test_an_editor_adds_versions_and_writes_notes_as_themself(team, browser, tmp_path):  # noqa: F811
    cid = team.collection("shared with an editor", **{BEA: "editor"})
    bea = _sign_in(browser, team, BEA)
    _go(bea, _page(team, "queries", cid, "&view=One+topic&topic=3"))
    bea.locator('[data-testid="stForm"] textarea').first.fill("checked by bea")
    bea.get_by_role("button", name="Save the note on topic 3").click()
    expect(bea.get_by_text("History of this note")).to_be_visible()  # shown once the note is saved
    ws = team.open()
    assert [(n.topic, n.comment, n.author) for n in ws.notes(cid)] == [("3", "checked by bea", BEA)]
    ws.close()
    _go(bea, _page(team, "data", cid))
    run = tmp_path / "dense.run"
    run.write_bytes(_run("dense", 1))
    _runs_uploader(bea).set_input_files(str(run))
    expect(bea.locator('[data-testid="stMetricValue"]').first).to_have_text("2")
    settled(bea)
    expect(bea).not_to_have_url(re.compile(rf"[?&]collection={cid}(&|$)"))
    versions = team.lineage(cid)
    assert sorted((c.version, c.created_by) for c in versions) == [(1, ANA), (2, BEA)]
    new = next(c.id for c in versions if c.version == 2)
    _go(bea, _page(team, "collections", new))
    _choose(bea, new)
    for name in ("Rename", "Archive", "Delete…"):
        expect(bea.get_by_role("button", name=name)).to_be_disabled()
    bea.get_by_text("Members and roles").click()
    expect(bea.get_by_role("button", name="Give this role")).to_have_count(0)
    bea.context.close()


def test_an_owner_renames_archives_deletes_restores_and_shares(team, browser):  # noqa: F811
    cid = team.collection("shared with an owner", **{BEA: "owner"})
    bea = _sign_in(browser, team, BEA)
    _go(bea, _page(team, "collections", cid))
    _choose(bea, cid)
    bea.get_by_label("New name").fill("renamed by bea")
    _press(bea, "Rename", "Renamed.")
    _press(bea, "Archive", "Archived.")
    ws = team.open()
    assert ws.collection(cid).name == "renamed by bea" and ws.collection(cid).archived
    ws.close()
    bea.get_by_text("Show archived").click()
    settled(bea)
    _choose(bea, cid)  # listed again: choose it
    _press(bea, "Unarchive", "Unarchived.")
    bea.get_by_role("button", name="Delete…").click()
    _press(bea, "Yes, delete it", "Deleted.")
    ws = team.open()
    assert cid not in {c.id for c in ws.collections(archived=True)}
    ws.close()
    bea.get_by_text("Deleted collections (1)").click()
    _press(bea, "Restore", "Restored.")
    _go(bea, _page(team, "collections", cid))
    _choose(bea, cid)
    bea.get_by_text("Members and roles").click()
    bea.get_by_label("Identity (e-mail address, or * for everyone signed in)").fill("cy@example.org")
    _press(bea, "Give this role", "Roles changed.")
    ws = team.open()
    assert not ws.collection(cid).archived and ws.members(cid)["cy@example.org"] == "viewer"
    assert [(e.action, e.author) for e in ws.log(cid)] == [
        ("share", BEA), ("restore", BEA), ("delete", BEA), ("unarchive", BEA), ("archive", BEA), ("rename", BEA)]
    ws.close()
    bea.context.close()
