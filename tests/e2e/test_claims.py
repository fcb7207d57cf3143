"""A claim saved in a meeting, in a real browser: one click on the overview keeps "S's M is v" as a claim of the
stored collection; after S's run is replaced in a new version, the overview of that version shows the claim
flipped, with the version that flipped it and the numbers before and after.

Skipped when Chromium or Playwright is missing, except under CI=true, where that is a failure.
"""

from __future__ import annotations

import os
import re

import pytest

from tests import processes
from tests.e2e.conftest import author_tab, need_browser, settled

need_browser()
pytestmark = pytest.mark.browser
pytest.importorskip("sqlalchemy", reason="the workspace extra (sqlalchemy) is not installed")
from playwright.sync_api import expect  # noqa: E402

from tests.workspace.claim_runs import BM25, DENSE, QRELS, WEAK  # noqa: E402
from workspace import open_workspace  # noqa: E402
from workspace.recheck import collection_claims, rechecked  # noqa: E402


@pytest.fixture(scope="module")
def meeting(tmp_path_factory):
    """A workspace holding one collection (bm25 and dense), and one dashboard server on it."""
    folder = tmp_path_factory.mktemp("claims") / "ws"
    with open_workspace(str(folder)) as ws:
        cid = ws.add_collection("meeting", ("qrels.txt", QRELS), [("bm25.run", BM25), ("dense.run", DENSE)],
                                author="setup").id  # not empty: the server seeds nothing
    port = processes.free_port()
    server = processes.serve_dashboard(port, env={**os.environ, "RANKSCOPE_WORKSPACE": str(folder)})
    try:
        yield str(folder), cid, f"http://127.0.0.1:{port}"
    finally:
        processes.stop(server)


def test_a_claim_saved_in_the_meeting_is_shown_flipped_after_its_run_is_replaced(meeting, browser):  # noqa: F811
    folder, v1, url = meeting
    tab = author_tab(browser, f"{url}/overview?collection={v1}", "ana")
    tab.get_by_role("button", name=re.compile(r"^Save as a claim: ")).click()
    settled(tab)
    expect(tab.get_by_text("The overview checks it again on every new version", exact=False)).to_be_visible()

    with open_workspace(folder) as ws:  # next week: the claimed system's run is replaced
        (stored,) = collection_claims(ws.notes(v1))
        system = stored.claim.system
        assert stored.since == v1 and stored.author == "ana"
        v2 = ws.new_version(v1, remove_systems=[system], add_runs=[(f"{system}.run", WEAK)], author="bo").id
        ((_, trail),) = rechecked(ws, v2)
    assert trail.flipped and trail.before.details() != trail.after.details()

    tab.goto(f"{url}/overview?collection={v2}")
    settled(tab)
    expect(tab.get_by_text("1 of 1 claims flipped since they were saved", exact=False)).to_be_visible()
    # at the top, before the charts: one row, the claim, the version that flipped it, the numbers before and after
    flipped = tab.locator('[data-testid="stDataFrame"]:visible').first
    for cell in (stored.claim.describe(), "v2 by bo", trail.before.details(), trail.after.details()):
        expect(flipped).to_contain_text(cell)
    expect(tab.locator('[data-testid="stException"]')).to_have_count(0)
    tab.context.close()


def test_a_claim_saved_in_presentation_mode_with_a_typed_name(meeting, browser):  # noqa: F811
    """At the projector: no sidebar, so the claim asks for the name beside its button; the name typed there is
    the session's, kept when the sidebar comes back."""
    from tests.e2e.conftest import VIEWPORT

    folder, _, url = meeting
    with open_workspace(folder) as ws:  # a collection of its own: a claim said twice is one
        v1 = ws.add_collection("projector", ("qrels.txt", QRELS), [("bm25.run", BM25), ("dense.run", DENSE)],
                               author="setup").id
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(60_000)
    tab = context.new_page()
    try:
        tab.goto(f"{url}/overview?collection={v1}&present=true")
        settled(tab)
        box = tab.get_by_role("textbox", name="Your name (saved with the claim)")
        box.fill("cy")
        box.press("Enter")
        settled(tab)
        tab.get_by_role("button", name=re.compile(r"^Save as a claim: ")).click()
        settled(tab)
        expect(tab.get_by_text("The overview checks it again on every new version", exact=False)).to_be_visible()
        with open_workspace(folder) as ws:
            assert "cy" in [c.author for c in collection_claims(ws.notes(v1))]
        tab.get_by_role("switch", name="Presentation mode").uncheck(force=True)
        settled(tab)
        expect(tab.get_by_role("textbox", name="Your name (for notes and saved collections)")).to_have_value("cy")
    finally:
        context.close()
