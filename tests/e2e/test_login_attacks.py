"""The login mode attacked, in real Chromium against a real OpenID Connect provider on loopback, with two and
three people: an account that claims someone's address without the provider's word, a member whose role is
taken while their pages are open, a sign-in cookie copied before its sign-out and replayed (also after the
server restarts), PostgreSQL going down under signed-in people, widget keys given in the link, someone without
a role at a judging task's link, and a saved lesson of a collection the person holds no role on (seen, started,
revealed with a copied teacher's cookie, answered as a student before the reveal). What a page must not hold is
searched for in every websocket frame it receives, not only in what it shows.

Every page of the page table is visited by the replayed cookie and by the unverified account.
"""

from __future__ import annotations

import re

import pytest

from tests.e2e.conftest import every_page, need_browser, settled

need_browser()

pytestmark = pytest.mark.browser
pytest.importorskip("sqlalchemy", reason="the workspace extra (sqlalchemy) is not installed")
from playwright.sync_api import expect  # noqa: E402

from tests import processes  # noqa: E402
from tests.e2e.login_helpers import (ANA, BEA, CY, QRELS, TOPICS, CutProxy, Frames, browser_context, go,  # noqa: E402
                                     page_url, provider, serve_team, set_user,  # noqa: F401 (fixture)
                                     sign_in)
from tests.workspace.conftest import fresh_database, postgres_server  # noqa: E402,F401 (fixture)

PAGES = every_page(stored=True)  # every page a server with a workspace serves, from the page table
NO_ACCESS = "no access to collection"


@pytest.fixture(scope="module")
def team(provider, tmp_path_factory):  # noqa: F811
    server, found = serve_team(provider, tmp_path_factory.mktemp("attacks"))
    try:
        yield found
    finally:
        processes.stop(server)


def _one_line(tab, words: str) -> None:
    """The page shows an error holding ``words``, no traceback and no exception box, and has finished."""
    expect(tab.locator('[data-testid="stAlertContentError"]').filter(has_text=words).first).to_be_visible()
    expect(tab.locator('[data-testid="stStatusWidget"]')).to_have_count(0)
    expect(tab.locator('[data-testid="stException"]')).to_have_count(0)
    text = tab.evaluate("() => document.body.innerText")
    assert "Traceback" not in text and "StoreUnavailable" not in text, text


def _visit(tab, url: str) -> None:
    """Open ``url`` and wait until its run has ended (a page may hold no heading: the one line and a link)."""
    tab.goto(url)
    expect(tab.locator('[data-testid="stApp"]')).to_be_attached()
    tab.wait_for_function("() => !window.__e2e || window.__e2e.answered > window.__e2e.asked", timeout=120_000)
    expect(tab.locator('[data-testid="stStatusWidget"]')).to_have_count(0)
    tab.wait_for_function("""() => document.querySelector('[data-testid="stApp"]')
        ?.getAttribute('data-test-script-state') === 'notRunning'""", timeout=120_000)


def test_an_address_the_provider_has_not_verified_names_nobody(team, provider, browser):  # noqa: F811
    cid = team.collection("ana private ledger", systems=("anasecretsys",))
    set_user(provider, "mallory-7", {"email": "ANA@Example.org", "email_verified": False})
    set_user(provider, "ana-verified", {"email": "ANA@Example.org", "email_verified": True})
    context = browser_context(browser)
    frames = Frames(context)
    mallory = sign_in(browser, team, "mallory-7", context=context)  # signed in under the subject, not the address
    expect(mallory.locator('[data-testid="stSidebar"]')).not_to_contain_text(ANA)
    for path, _ in PAGES:
        _visit(mallory, page_url(team, path, cid))
        expect(mallory.locator('[data-testid="stException"]')).to_have_count(0)
    _visit(mallory, page_url(team, "overview", cid))
    _one_line(mallory, NO_ACCESS)
    assert frames.holding("ana private ledger", "anasecretsys") == []
    context.close()
    context = browser_context(browser)
    frames = Frames(context)
    ana = sign_in(browser, team, "ana-verified", shown=ANA, context=context)  # a verified address is the person's
    go(ana, page_url(team, "overview", cid))
    assert frames.holding("anasecretsys") == ["anasecretsys"]
    context.close()


def test_a_role_taken_away_holds_at_the_next_rerun_of_every_open_page(team, browser):  # noqa: F811
    cid = team.collection("shared then taken", systems=("keptsys", "takensys"), **{BEA: "viewer", CY: "viewer"})
    bea_context, cy_context = browser_context(browser), browser_context(browser)
    bea_frames, cy_frames = Frames(bea_context), Frames(cy_context)
    bea = sign_in(browser, team, BEA, context=bea_context)
    tabs = {"overview": bea, "queries": bea_context.new_page(), "curves": bea_context.new_page()}
    for path, tab in tabs.items():
        go(tab, page_url(team, path, cid))
    assert bea_frames.holding("takensys") == ["takensys"]  # drawn while she is a member
    ws = team.open()
    ws.share(cid, BEA, None, author="operator")  # the operator takes her role; her three pages stay open
    ws.close()
    since = bea_frames.mark()
    for path in ("overview", "queries"):  # a rerun of the whole page (Streamlit's R key)
        tabs[path].bring_to_front()
        tabs[path].locator("body").press("r")
        _visit_done(tabs[path])
        _one_line(tabs[path], NO_ACCESS)
    curves = tabs["curves"]  # a rerun of a part of the page: a fragment's own widget
    curves.bring_to_front()
    curves.get_by_text("Show the other rules too").click()
    _visit_done(curves)
    _one_line(curves, NO_ACCESS)
    assert bea_frames.holding("takensys", "keptsys", "shared then taken", since=since) == []
    cy = sign_in(browser, team, CY, context=cy_context)  # the member who keeps her role still sees it
    go(cy, page_url(team, "curves", cid))
    assert cy_frames.holding("takensys") == ["takensys"]
    for context in (bea_context, cy_context):
        context.close()


def _visit_done(tab) -> None:
    """Wait until the run a key or a click asked for has ended."""
    tab.wait_for_function("() => !window.__e2e || window.__e2e.answered > window.__e2e.asked", timeout=120_000)
    tab.wait_for_function("""() => document.querySelector('[data-testid="stApp"]')
        ?.getAttribute('data-test-script-state') === 'notRunning'""", timeout=120_000)


def _replayed(browser, cookies, url: str):
    """A new browser holding nothing but ``cookies``, on ``url``; and what its pages receive."""
    context = browser_context(browser)
    context.add_cookies(cookies)
    frames = Frames(context)
    tab = context.new_page()
    _visit(tab, url)
    return tab, frames


def test_signing_out_ends_the_sign_in_for_every_copy_of_its_cookie(provider, browser, tmp_path):  # noqa: F811
    port = processes.free_port()
    server, team = serve_team(provider, tmp_path, port=port)
    try:
        cid = team.collection("ana only notes", systems=("anaonlysys",))
        ana = sign_in(browser, team, ANA)
        saved = ana.context.cookies()
        assert any(c["name"].startswith("_streamlit_user") for c in saved)
        tab, frames = _replayed(browser, saved, page_url(team, "overview", cid))  # before: the copy is ana
        expect(tab.locator('[data-testid="stSidebar"]')).to_contain_text(ANA)
        assert frames.holding("anaonlysys") == ["anaonlysys"]
        tab.context.close()
        ana.get_by_role("button", name="Sign out").click()
        ana.wait_for_url(re.compile(r"end_session"))  # the provider's own sign-out page: the cookie is gone
        tab, frames = _replayed(browser, saved, page_url(team, "overview", cid))
        for path, _ in PAGES:  # the copy reaches no page
            _visit(tab, page_url(team, path, cid))
            expect(tab.get_by_role("button", name="Sign in")).to_be_visible()
        assert frames.holding("anaonlysys", "ana only notes", ANA) == []
        tab.context.close()
        processes.stop(server)
        server, team = serve_team(provider, tmp_path, location=team.location, port=port)  # another process
        tab, frames = _replayed(browser, saved, page_url(team, "overview", cid))
        expect(tab.get_by_role("button", name="Sign in")).to_be_visible()
        assert frames.holding("anaonlysys", ANA) == []
        tab.context.close()
        again = sign_in(browser, team, ANA)  # a new sign-in of the same person is a sign-in of its own
        go(again, page_url(team, "overview", cid))
        again.context.close()
        ana.context.close()
    finally:
        processes.stop(server)


def test_with_postgresql_down_every_page_shows_one_line(provider, browser, postgres_server, tmp_path):  # noqa: F811
    url = fresh_database(postgres_server)  # postgresql://postgres@HOST:PORT/DB
    where = re.match(r"postgresql://([^@/]*@)?([^:/]+):(\d+)/(.+)", url)
    proxy = CutProxy(where.group(2), int(where.group(3)))
    location = f"postgresql://{where.group(1) or ''}127.0.0.1:{proxy.port}/{where.group(4)}"
    server, team = serve_team(provider, tmp_path, location=location, files=str(tmp_path / "files"))
    try:
        cid = team.collection("team on postgres", systems=("pgsys",), **{BEA: "viewer"})
        ana = sign_in(browser, team, ANA)
        bea = sign_in(browser, team, BEA)
        for tab in (ana, bea):
            go(tab, f"{team.url}/collections")
        go(ana, f"{team.url}/teach")
        proxy.cut()
        for tab, path in ((ana, "teach"), (bea, "collections"), (ana, f"overview?collection={cid}")):
            _visit(tab, f"{team.url}/{path}")  # a reload
            _one_line(tab, "cannot")
        fresh = browser_context(browser)
        tab = fresh.new_page()
        _visit(tab, team.url)  # a fresh tab: the sign-in, which needs no store
        expect(tab.get_by_role("button", name="Sign in")).to_be_visible()
        tab.get_by_role("button", name="Sign in").click()
        tab.locator('input[name="sub"]').fill(CY)
        tab.get_by_role("button", name="Authorize").click()
        _visit_done(tab)
        _one_line(tab, "cannot")  # a new sign-in
        for context in (ana.context, bea.context, fresh):
            context.close()
    finally:
        processes.stop(server)
        proxy.cut()


def test_widget_keys_in_the_link_raise_nothing(team, browser):  # noqa: F811
    cid = team.collection("keys in the link")
    context = browser_context(browser)
    tab = context.new_page()
    _visit(tab, f"{team.url}/?rankscope_sign_in=1&rankscope_sign_out=x")
    expect(tab.get_by_role("button", name="Sign in")).to_be_visible()
    expect(tab.locator('[data-testid="stException"]')).to_have_count(0)
    ana = sign_in(browser, team, ANA, context=context)
    for extra in ("&rankscope_sign_out=x", "&rankscope_sign_out=true&rankscope_sign_in=1"):
        go(ana, page_url(team, "overview", cid, extra))
        expect(ana.locator('[data-testid="stException"]')).to_have_count(0)
        expect(ana.get_by_role("button", name="Sign out")).to_be_visible()
    context.close()


def test_a_followed_view_with_a_widget_key_in_its_link_raises_nothing(team, browser):  # noqa: F811
    """A presenter's link holding a button's name (``rankscope_sign_out``) reaches the followers' pages: a
    follower's widget with that key would have been given the link's value, which Streamlit refuses for a
    button (``StreamlitValueAssignmentNotAllowedError`` on the page). No button of the sign-in has a key a link or a
    view could name."""
    cid = team.collection("keys in a followed view", **{BEA: "viewer"})
    ana = sign_in(browser, team, ANA)
    bea = sign_in(browser, team, BEA)
    go(ana, page_url(team, "overview", cid, "&present=true&rankscope_sign_out=x&rankscope_sign_in=1"))
    go(bea, page_url(team, "overview", cid))
    for tab, label in ((bea, "Follow the presenter"), (ana, "Present")):
        switch = tab.get_by_role("switch", name=label, exact=True)
        switch.check(force=True)
        expect(switch).to_be_checked()
        settled(tab)
    expect(bea.get_by_text("presents", exact=False).first).to_be_visible()
    settled(bea)
    for tab in (ana, bea):
        expect(tab.locator('[data-testid="stException"]')).to_have_count(0)
    expect(bea.get_by_role("button", name="Sign out")).to_be_visible()  # the presenter's sidebar is hidden
    expect(bea).to_have_url(re.compile(r"[?&]rankscope_sign_out=x(&|$)"))  # the view taken, the name in the link
    for tab in (ana, bea):
        tab.context.close()


def test_someone_without_a_role_cannot_judge_see_a_task_or_its_documents(team, browser):  # noqa: F811
    from workspace import Actor
    from workspace.judging import Judging

    docs = b"".join(f"d{t}-{i}\ttitle\tquokkasecret text of d{t}-{i}\n".encode() for t in TOPICS for i in range(6))
    run = "".join(f"{t} Q0 d{t}-{i} {i + 1} {10 - i} a\n" for t in TOPICS for i in range(6)).encode()  # 2 unjudged
    ws = team.open()
    cid = ws.add_collection("judged behind sign-ins", qrels=("team.qrels", QRELS), runs=[("a.run", run)],
                            topics=("topics.tsv", b"".join(f"{t}\twallabytopic {t}\n".encode() for t in TOPICS)),
                            documents=("docs.tsv", docs), author=ANA, members={ANA: "owner"}).id
    task = Judging(ws.acting_as(Actor(ANA, checked=True))).start(cid, method="depth", assessors=[BEA], depth=6,
                                                                   name="numbattask")
    ws.close()
    secrets_of_the_task = ("quokkasecret", "wallabytopic", "numbattask")
    cy_context = browser_context(browser)
    cy_frames = Frames(cy_context)
    cy = sign_in(browser, team, CY, context=cy_context)  # no role on the collection
    for url in (f"{team.url}/judge?task={task.id}", page_url(team, "judge", cid, f"&task={task.id}"),
                page_url(team, "judge", cid), page_url(team, "judges", cid)):
        _visit(cy, url)
        expect(cy.locator('[data-testid="stException"]')).to_have_count(0)
        expect(cy.get_by_role("button", name="Skip")).to_have_count(0)  # no document to judge, no grade to give
    _visit(cy, f"{team.url}/judge?task={task.id}")
    _one_line(cy, "does not exist or is not shared with you")
    assert cy_frames.holding(*secrets_of_the_task) == []
    bea_context = browser_context(browser)
    bea_frames = Frames(bea_context)
    bea = sign_in(browser, team, BEA, context=bea_context)  # the assessor the owner named sees what cy did not
    go(bea, f"{team.url}/judge?task={task.id}")
    expect(bea.get_by_role("button", name="Skip")).to_be_visible()
    assert bea_frames.holding(*secrets_of_the_task[:2]) == list(secrets_of_the_task[:2])
    ws = team.open()
    try:
        assert Judging(ws).judgments(task.id).empty  # nobody judged: cy could not, bea has not yet
    finally:
        ws.close()
    for context in (cy_context, bea_context):
        context.close()


def test_a_saved_lesson_is_seen_and_taught_only_through_its_collections_roles(team, browser):  # noqa: F811
    """ana's lesson of her collection: bea (no role) is not offered it, and her browser holding ana's teacher's
    cookie reveals nothing; as a student of ana's class she receives the question, never its right answer before
    the reveal nor the ranking's name."""
    from metrics.teaching.questions import Question, Ranking
    from workspace import Actor
    from workspace.classroom import Classroom

    cid = team.collection("lesson ledger", systems=("secretsys",))
    ws = team.open()
    question = Question("value", "AP", (Ranking((1, 0, 1, 0, 0), (1, 1), name="secretsys, topic 1"),),
                        source="loaded data: secretsys, topic 1")  # AP = (1 + 2/3) / 4 = 0.4167
    Classroom(ws.acting_as(Actor(ANA))).save_lesson("ana lesson plan", (question,), author=ANA, collection=cid)
    ws.close()
    bea_context, ana_context = browser_context(browser), browser_context(browser)
    bea_frames, ana_frames = Frames(bea_context), Frames(ana_context)
    bea = sign_in(browser, team, BEA, context=bea_context)
    go(bea, f"{team.url}/teach")
    bea.locator('[data-testid="stSelectbox"]').filter(has_text="Lesson").click()
    expect(bea.get_by_role("option", name="the lesson made on the learn page")).to_be_visible()
    expect(bea.get_by_role("option", name=re.compile("ana lesson plan"))).to_have_count(0)
    bea.keyboard.press("Escape")
    assert bea_frames.holding("ana lesson plan", "secretsys") == []

    ana = sign_in(browser, team, ANA, context=ana_context)  # the owner is offered it, and starts it
    go(ana, f"{team.url}/teach")
    ana.locator('[data-testid="stSelectbox"]').filter(has_text="Lesson").click()
    ana.get_by_role("option", name=re.compile("^ana lesson plan")).click()
    expect(ana.get_by_text("[loaded data: secretsys, topic 1]", exact=False)).to_be_visible()
    ana.get_by_role("button", name="Start the class").click()
    heading = ana.locator("h2", has_text="Code: ")
    expect(heading).to_have_text(re.compile(r"Code: \w{6}"))
    code = re.search(r"Code: (\w{6})", heading.inner_text()).group(1)
    settled(ana)
    kept = next(c for c in ana_context.cookies() if c["name"] == "rankscope_class")
    assert ana_frames.holding("secretsys") == ["secretsys"]

    student = bea_context.new_page()  # bea joins as a student: no role needed
    since = bea_frames.mark()
    go(student, f"{team.url}/class?code={code}")
    ana.get_by_role("button", name="Open question 1").click()
    expect(student.get_by_text("Question 1 of 1")).to_be_visible()
    expect(student.get_by_role("button", name="Send my answer")).to_be_visible()
    bea_context.add_cookies([{"name": kept["name"], "value": kept["value"], "url": team.url}])
    thief = bea_context.new_page()  # ana's teacher's cookie copied into bea's browser
    go(thief, f"{team.url}/teach")
    expect(thief.locator('[data-testid="stSelectbox"]').filter(has_text="Lesson")).to_be_visible()  # a new class
    expect(thief.get_by_role("button", name="Reveal the answer")).to_have_count(0)
    answer = ("The right answer", "Right answer", "0.42", "0\\.42", "0.4167")  # as text, as escaped Markdown
    assert bea_frames.holding(*answer, "secretsys", "ana lesson plan", since=since) == []
    ana.get_by_role("button", name="Reveal the answer").click()
    expect(student.get_by_text("The right answer: 0.42", exact=False)).to_be_visible()  # the search can find it
    assert "The right answer" in bea_frames.holding(*answer, since=since)
    for context in (bea_context, ana_context):
        context.close()
