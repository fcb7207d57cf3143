"""The Trust page in a real browser on the demo collection: its first tab's chart drawn by plotly, the other
tabs' charts drawn when opened, its provenance card shown, and no exception anywhere."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import charts_drawn, need_browser, settled

need_browser()

pytestmark = pytest.mark.browser


def test_the_trust_page_draws_its_charts(server, page):  # noqa: F811
    from playwright.sync_api import expect

    page.goto(f"{server}/trust")
    settled(page)
    expect(page.locator('[data-testid="stMain"] h1').first).to_have_text("Trust")
    charts_drawn(page, 1)  # the tie ranges
    expect(page.locator('[data-testid="stCaptionContainer"]').filter(has_text="Provenance:").first).to_be_visible()
    page.get_by_role("tab", name="Unjudged documents").click()
    settled(page)
    charts_drawn(page, 1)  # Judged@k and the residual gap per topic
    page.get_by_role("tab", name="Risk").click()
    settled(page)
    charts_drawn(page, 2)  # URisk, TRisk, GeoRisk; then the topics won and lost
    expect(page.locator('[data-testid="stException"]')).to_have_count(0)
