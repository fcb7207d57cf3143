"""The Agreement and Reproducibility pages in a real browser (Debian's Chromium driven by Playwright) against
`streamlit run`, on the demo collection: each page's charts drawn by plotly, and no exception on the page.

Skipped when Chromium or Playwright is missing, except under CI=true, where that is a failure (see
tests/e2e/test_browser.py, whose fixtures start the server in its own process group and stop the group).
"""

from __future__ import annotations

import pytest

from tests.e2e.conftest import charts_drawn, need_browser, settled

need_browser()

pytestmark = pytest.mark.browser

# the page's address, its title, and the charts it draws on the demo collection
PAGES = [("agreement", "Agreement", 3), ("reproducibility", "Reproducibility", 2)]


@pytest.mark.parametrize(("path", "title", "charts"), PAGES)
def test_statistics_page_draws_its_charts(server, page, path, title, charts):  # noqa: F811
    from playwright.sync_api import expect

    page.goto(f"{server}/{path}")
    expect(page.locator('[data-testid="stMain"] h1').first).to_have_text(title)
    settled(page)
    charts_drawn(page, charts)
    expect(page.locator('[data-testid="stMain"] .js-plotly-plot').first).to_be_visible()
    expect(page.locator('[data-testid="stException"]')).to_have_count(0)
