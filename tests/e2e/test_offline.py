"""The dashboard asks nothing of the internet: every page, in Chromium, requests only the dashboard's own address.

A classroom or a conference room may have no network, or one that should not learn who opens what. Every
request the page makes (documents, scripts, styles, fonts, icons, images, websockets) is recorded through
``page.route("**/*")``; one to any other host fails the test (and is aborted, so that nothing leaves).
"""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from tests.e2e.test_browser import _settled, browser, server  # noqa: F401  (fixtures)

pytestmark = pytest.mark.browser
PAGES = ["Overview", "Data", "Curves", "Gain", "Queries", "Significance", "Learn", "Report"]


def test_every_page_requests_only_the_dashboard(server, browser):  # noqa: F811
    from playwright.sync_api import expect

    own = urlsplit(server).netloc
    requests: list[str] = []
    outside: list[str] = []

    def record(route):
        url = route.request.url
        requests.append(url)
        if urlsplit(url).scheme in ("http", "https", "ws", "wss") and urlsplit(url).netloc != own:
            outside.append(url)
            route.abort()
        else:
            route.continue_()

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.route("**/*", record)
    page = context.new_page()
    page.on("websocket", lambda ws: requests.append(ws.url) or (urlsplit(ws.url).netloc != own
                                                               and outside.append(ws.url)))
    try:
        page.goto(server)
        _settled(page)
        for name in PAGES:
            page.locator('[data-testid="stSidebarNavLink"]', has_text=name).click()
            expect(page.locator('[data-testid="stMain"] h1').first).to_have_text(name)
            _settled(page)
            expect(page.locator('[data-testid="stException"]')).to_have_count(0)
        page.goto(f"{server}/curves?present=true")
        _settled(page)
        expect(page.locator('[data-testid="stPlotlyChart"]').first.locator(".main-svg").first).to_be_attached()
    finally:
        context.close()
    assert any(urlsplit(u).netloc == own for u in requests)
    assert outside == [], f"requests to other addresses: {sorted(set(outside))}"
