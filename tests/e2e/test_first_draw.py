"""The data page's convention widgets on a server's first page: what they show as soon as the page has settled
is the collection's conventions, and a rerun sent at once (another widget clicked) keeps them.

Streamlit draws a widget with its declared default until the session's value reaches it; the relevance level's
default used to be its lowest value, -1000, which a fresh server showed right after its first run, and which
a click at that moment would have sent back as the user's choice. Each test starts a server of its own: the
first page a server draws is the slow one.
"""

from __future__ import annotations

import pytest

from tests import processes
from tests.e2e.conftest import need_browser, settled

need_browser()

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("attempt", range(3))
def test_a_fresh_servers_data_page_shows_the_conventions_at_once(browser, attempt):  # noqa: F811
    from playwright.sync_api import expect

    port = processes.free_port()
    proc = processes.serve_dashboard(port)
    server = f"http://127.0.0.1:{port}"
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(f"{server}/data")
        settled(page)
        level = page.get_by_role("spinbutton", name="Relevant from grade")
        depth = page.get_by_role("spinbutton", name="Depth (0 = all)")
        assert (level.input_value(), depth.input_value()) == ("1", "0")  # the demo's conventions, read at once
        page.locator('[data-testid="stCheckbox"]', has_text="Judged only").locator("label").first.click()
        settled(page)
        expect(page.locator('[data-testid="stCheckbox"]', has_text="Judged only").locator("input")).to_be_checked()
        assert (level.input_value(), depth.input_value()) == ("1", "0")
    finally:
        context.close()
        processes.stop(proc)
