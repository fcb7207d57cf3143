"""The dashboard asks nothing of the internet: every page, in Chromium, requests only the dashboard's own address.

A classroom or a conference room may have no network, or one that should not learn who opens what. Every
request the page makes (documents, scripts, styles, fonts, icons, images, websockets) is recorded through
``page.route("**/*")``; one to any other host fails the test (and is aborted, so that nothing leaves).
"""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from tests.e2e.conftest import every_page, need_browser, settled

need_browser()
pytestmark = pytest.mark.browser
PAGES = every_page(stored=True)  # every page a server with a workspace serves, hidden ones too, from the page table


def test_every_page_requests_only_the_dashboard(stored_server, browser):
    server = stored_server  # noqa: F811
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
        settled(page)
        for path, title in PAGES:
            page.goto(f"{server}/{path}")
            expect(page.locator('[data-testid="stMain"] h1').first).to_have_text(title)
            settled(page)
            expect(page.locator('[data-testid="stException"]')).to_have_count(0)
        page.goto(f"{server}/curves?present=true")
        settled(page)
        expect(page.locator('[data-testid="stPlotlyChart"]').first.locator(".main-svg").first).to_be_attached()
    finally:
        context.close()
    assert any(urlsplit(u).netloc == own for u in requests)
    assert outside == [], f"requests to other addresses: {sorted(set(outside))}"
