"""Following the presenter in real browsers: one presents a stored collection in presentation mode; two follow
(one of them in presentation mode too) across three pages and a topic change, their pages switching without
a reload; a third browser, which never chose to follow, is never moved. After one follower stops following,
the presenter's next change moves the other follower only.

One server (with a workspace of its own) serves the module; each person is a browser context of its own.
Every wait is a condition with a timeout: "did not move" is read when the browser that still follows has
moved, one poll later than the one that stopped would have. Skipped when Chromium or Playwright is missing,
except under CI=true, where that is a failure.
"""

from __future__ import annotations

import os
import re

import pytest

from tests import processes
from tests.e2e.conftest import ROOT, VIEWPORT, launch, need_browser, settled

need_browser()
pytest.importorskip("sqlalchemy", reason="the workspace extra (sqlalchemy) is not installed")
from playwright.sync_api import expect, sync_playwright  # noqa: E402

from workspace import open_workspace  # noqa: E402

pytestmark = pytest.mark.browser
DEMO = ROOT / "sample_data" / "demo"


@pytest.fixture(scope="module")
def meeting(tmp_path_factory):
    """A server on a workspace holding one collection (the demo's qrels and three runs); its address and id."""
    folder = tmp_path_factory.mktemp("meeting")
    runs = sorted((DEMO / "runs").glob("*.run*"))[:3]
    with open_workspace(str(folder)) as ws:
        cid = ws.add_collection("weekly review", qrels=("qrels.txt", (DEMO / "qrels.txt").read_bytes()),
                                runs=[(p.name, p.read_bytes()) for p in runs], author="ana").id
    port = processes.free_port()
    proc = processes.serve_dashboard(port, env={**os.environ, "RANKSCOPE_WORKSPACE": str(folder)})
    try:
        yield f"http://127.0.0.1:{port}", cid
    finally:
        processes.stop(proc)


@pytest.fixture(scope="module")
def people(meeting):
    """Four browsers on the overview of the collection: the presenter and one follower in presentation mode."""
    server, cid = meeting
    expect.set_options(timeout=60_000)
    with sync_playwright() as p:
        browser = launch(p)
        tabs = {}
        for who, present in (("presenter", True), ("follower", False), ("projector", True), ("bystander", False)):
            context = browser.new_context(viewport=VIEWPORT)
            context.set_default_timeout(60_000)  # actions wait as long as the expectations (a shared, busy machine)
            tab = context.new_page()
            tab.goto(f"{server}/overview?collection={cid}" + ("&present=true" if present else ""), wait_until="commit")
            tabs[who] = tab
        for tab in tabs.values():
            settled(tab)
        yield tabs
        browser.close()


def _toggle(tab, label: str) -> None:
    switch = tab.get_by_role("switch", name=label, exact=True)
    switch.check(force=True)  # Streamlit's toggle hides its input behind the drawn switch
    expect(switch).to_be_checked()
    settled(tab)


def _on(tab, path: str, **params: str) -> None:
    """The tab shows the page ``/path`` with these query parameters (waits for it)."""
    wanted = re.compile(rf"/{path}\?" + "".join(rf"(?=.*[?&]{k}={re.escape(v)}(&|$))" for k, v in params.items()))
    expect(tab).to_have_url(wanted)
    expect(tab.locator('[data-testid="stMain"] h1').first).to_have_text(path.capitalize())


def _go(presenter, name: str) -> None:
    presenter.get_by_role("link", name=name, exact=True).first.click()
    _on(presenter, name.lower())
    settled(presenter)


def test_followers_follow_across_three_pages_and_a_topic_then_stop(people):
    presenter, follower, projector, bystander = (people[k] for k in ("presenter", "follower", "projector",
                                                                     "bystander"))
    _toggle(presenter, "Present")
    _toggle(follower, "Follow the presenter")
    _toggle(projector, "Follow the presenter")
    expect(follower.get_by_text("presents", exact=False).first).to_be_visible()

    _go(presenter, "Curves")
    for tab in (follower, projector):
        _on(tab, "curves")
    _go(presenter, "Queries")
    for tab in (follower, projector):
        _on(tab, "queries")
    presenter.get_by_role("tab", name="One topic").click()
    settled(presenter)
    box = presenter.get_by_role("combobox", name="Topic")
    box.click()
    options = presenter.get_by_role("option")
    expect(options.nth(2)).to_be_visible()
    topic = options.nth(2).inner_text().strip()
    options.nth(2).click()
    settled(presenter)
    for tab in (follower, projector):
        _on(tab, "queries", topic=topic)
        expect(tab.get_by_role("combobox", name="Topic")).to_have_value(topic)  # the widget, not only the link
    expect(projector.get_by_role("switch", name="Presentation mode")).to_be_checked()  # its own mode kept

    settled(follower)
    follower.get_by_role("switch", name="Follow the presenter").uncheck(force=True)
    expect(follower.get_by_role("switch", name="Follow the presenter")).not_to_be_checked()
    settled(follower)
    _go(presenter, "Significance")
    _on(projector, "significance")  # the one still following moved: the one that stopped had a poll's time too
    settled(projector)
    _on(follower, "queries", topic=topic)
    expect(bystander).to_have_url(re.compile(r"/overview\?"))  # never followed: never moved
    expect(bystander.locator('[data-testid="stMain"] h1').first).to_have_text("Overview")


def _polls(tab) -> list:
    """The poll requests this tab sent lately (a fragment's timed rerun), newest last, as bytes."""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    sent = [bytes(b) for b in tab.evaluate("() => window.__e2e.reruns")]
    return [b for b in sent if BackMsg.FromString(b).rerun_script.fragment_id]


def test_a_poll_sent_before_a_switch_reached_the_browser_leaves_the_new_page_drawn(people):
    """The race behind a follower's page left without its content: the poll timer fires on the old page just
    before the switch reaches the browser, and the request arrives after the switch. Sending one of the old
    page's polls again after the switch makes that arrival certain."""
    presenter, projector = people["presenter"], people["projector"]
    _toggle(presenter, "Present")
    _toggle(projector, "Follow the presenter")
    _go(presenter, "Gain")
    _on(projector, "gain")
    settled(projector)
    asked = projector.evaluate("() => window.__e2e.asked")
    projector.wait_for_function(f"() => window.__e2e.asked > {asked}")  # nobody touches it: a poll
    stale = _polls(projector)[-1]
    _go(presenter, "Curves")
    _on(projector, "curves")
    settled(projector)
    projector.evaluate("bytes => window.__e2e.socket.send(new Uint8Array(bytes))", list(stale))
    settled(projector)
    _on(projector, "curves")
    expect(projector.get_by_text("Start here.", exact=False).first).to_be_visible()


def test_a_publish_sent_before_the_presenter_left_a_page_leaves_the_new_page_drawn(people):
    """The same race on the presenter's side: its page can be switched by the server (a session file loaded on
    the data page opens the overview), and a publish timer that fired on the old page can arrive after the
    switch. The publish fragment is drawn after the page, so its id differs from page to page: Streamlit skips a
    timed run of a fragment the page now shown did not register, and the page stays drawn. Sending one of the
    old page's publish requests again after a page change makes that arrival certain."""
    presenter = people["presenter"]
    _toggle(presenter, "Present")
    _go(presenter, "Gain")
    asked = presenter.evaluate("() => window.__e2e.asked")
    presenter.wait_for_function(f"() => window.__e2e.asked > {asked}")  # nobody touches it: a publish
    stale = _polls(presenter)[-1]
    _go(presenter, "Curves")
    presenter.evaluate("bytes => window.__e2e.socket.send(new Uint8Array(bytes))", list(stale))
    settled(presenter)
    _on(presenter, "curves")
    expect(presenter.get_by_text("Start here.", exact=False).first).to_be_visible()


def test_a_follower_who_joins_late_follows_every_move(people):
    """Follow switched on while the presenter shows another page: the follower is taken there, then follows
    every later move (two pages and a topic), and keeps saying so."""
    presenter, late = people["presenter"], people["bystander"]
    _toggle(presenter, "Present")
    _go(presenter, "Significance")
    expect(late.locator('[data-testid="stMain"] h1').first).not_to_have_text("Significance")
    _toggle(late, "Follow the presenter")
    _on(late, "significance")
    for name in ("Curves", "Overview"):
        _go(presenter, name)
        _on(late, name.lower())
        settled(late)
        expect(late.get_by_role("switch", name="Follow the presenter")).to_be_checked()
        expect(late.get_by_text("you follow", exact=False).first).to_be_visible()
    _go(presenter, "Queries")
    presenter.get_by_role("tab", name="One topic").click()
    settled(presenter)
    box = presenter.get_by_role("combobox", name="Topic")
    box.click()
    options = presenter.get_by_role("option")
    expect(options.nth(3)).to_be_visible()
    topic = options.nth(3).inner_text().strip()
    options.nth(3).click()
    settled(presenter)
    _on(late, "queries", topic=topic)
    expect(late.get_by_role("combobox", name="Topic")).to_have_value(topic)
    expect(late.get_by_text("you follow", exact=False).first).to_be_visible()


def _person(browser, url: str):
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(60_000)
    tab = context.new_page()
    tab.goto(url, wait_until="commit")
    settled(tab)
    return tab


def test_the_presenters_tab_closed_followers_are_told_within_a_minute_and_taken_nowhere(people, meeting):
    """The presenter closes the tab without stopping: the presentation stops beating, a follower is told within
    a minute (and stays where it is), and someone who switches following on afterwards is taken nowhere."""
    import time

    from workspace.presenting import GONE_SECONDS

    server, cid = meeting
    browser = people["presenter"].context.browser
    presenter = _person(browser, f"{server}/gain?collection={cid}&present=true")
    follower = _person(browser, f"{server}/overview?collection={cid}")
    newcomer = _person(browser, f"{server}/overview?collection={cid}")
    try:
        _toggle(presenter, "Present")  # takes over from whoever presented before
        _toggle(follower, "Follow the presenter")
        _on(follower, "gain")
        settled(follower)
        presenter.context.close()
        closed = time.monotonic()
        expect(follower.get_by_text("left: their page closed", exact=False).first).to_be_visible(
            timeout=(GONE_SECONDS + 60) * 1000)
        assert time.monotonic() - closed < 60, "followers were told more than a minute after the tab closed"
        _on(follower, "gain")  # stayed
        _toggle(newcomer, "Follow the presenter")
        expect(newcomer.get_by_text("left: their page closed", exact=False).first).to_be_visible()
        _on(newcomer, "overview")  # not taken to the absent presenter's last page
        expect(newcomer.locator('[data-testid="stMain"] h1').first).to_have_text("Overview")
    finally:
        for tab in (follower, newcomer):
            tab.context.close()
