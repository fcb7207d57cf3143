"""The dashboard in a real browser (Debian's Chromium driven by Playwright) against `streamlit run`.

Skipped when Chromium or Playwright is missing, except under CI=true, where that is a failure. The
screenshots of the documentation are taken by tests/e2e/test_screenshots.py (``python3 dev.py screenshots``);
a page visited here is screenshotted into the test's own folder, which a failure's report names. The server, the browser and the waits are those
of tests/e2e/conftest.py: every wait is an ``expect`` on the page (never a sleep).
"""

from __future__ import annotations

import re

import pytest

from tests.e2e.conftest import ROOT, VIEWPORT, charts_drawn, drop_files, need_browser, png_size, settled

need_browser()
from playwright.sync_api import expect  # noqa: E402

PAGES = ["Overview", "Curves", "Gain", "Queries", "Significance", "Learn", "Report"]
# the charts visible on each page (a page with tabs shows those of its first tab)
CHARTS = {"Data": 1, "Overview": 1, "Curves": 3, "Gain": 1, "Queries": 3, "Significance": 1, "Learn": 2, "Report": 0}
pytestmark = pytest.mark.browser


def _visit(page, name: str) -> None:
    page.locator('[data-testid="stSidebarNavLink"]', has_text=name).click()
    expect(page.locator('[data-testid="stMain"] h1').first).to_have_text(name)
    settled(page)
    charts_drawn(page, CHARTS[name])


def test_every_page_of_the_demo_collection(server, page, tmp_path):
    page.goto(server)  # a first visit opens on the overview of the demo collection
    settled(page)
    expect(page.locator('[data-testid="stMain"] h1').first).to_have_text("Overview")
    expect(page.get_by_text("demo collection", exact=False).first).to_be_visible()
    for name in ["Data", *PAGES]:
        _visit(page, name)
        shot = tmp_path / f"{name.lower()}.png"
        page.screenshot(path=str(shot))
        assert png_size(shot) == (VIEWPORT["width"], VIEWPORT["height"]), name


def test_upload_two_runs_and_qrels_then_every_page(server, page):
    demo = ROOT / "sample_data" / "demo"
    page.goto(f"{server}/data")
    settled(page)
    drop_files(page, "Qrels", str(demo / "qrels.txt"))  # by its label: the place of an uploader may vary
    # own qrels replace the demo: the page now asks for runs
    expect(page.get_by_text("at least one run", exact=False).first).to_be_visible()
    settled(page)
    drop_files(page, "Runs", [str(demo / "runs" / "bm25.run.gz"), str(demo / "runs" / "dense_precise.run.gz")])
    expect(page.get_by_text("2 systems · qrels qrels.txt")).to_be_visible()
    settled(page)
    expect(page.locator('[data-testid="stMetricValue"]').first).to_have_text("2")
    expect(page.get_by_text("dense_precise").first).to_be_visible()
    expect(page.locator('[data-testid="stException"]')).to_have_count(0)
    for name in PAGES:
        _visit(page, name)
    # a broken run: its message, and both runs still there
    page.locator('[data-testid="stSidebarNavLink"]', has_text="Data").click()
    settled(page)
    _uploader(page, "Runs").set_input_files(
        files=[{"name": "broken.run", "mimeType": "text/plain", "buffer": b"401 Q0 d 1 2.0 x\n401 Q0 e 2\n"}])
    settled(page)
    expect(page.locator('[data-testid="stAlertContentError"]').first).to_contain_text("broken.run:2")
    expect(page.locator('[data-testid="stMetricValue"]').first).to_have_text("2")


def test_a_link_opens_the_view_and_a_click_opens_a_topic(server, page):
    page.goto(f"{server}/queries?measure=AP&a=bm25&b=weak_tfidf&view=One+topic&topic=430")
    settled(page)
    expect(page.locator(".gtitle:visible").filter(has_text="Topic 430")).to_be_visible()
    page.goto(f"{server}/queries?measure=AP&a=bm25&b=dense_precise")
    settled(page)
    bars = page.locator('[data-testid="stPlotlyChart"]').first.locator(".barlayer .point path")
    expect(bars.first).to_be_visible()
    box = bars.first.bounding_box()  # plotly takes clicks on its drag layer, above the bars: click where one is
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    settled(page)
    expect(page.get_by_role("tab", name="One topic")).to_have_attribute("aria-selected", "true")
    expect(page.locator(".gtitle:visible").filter(has_text="the top 20 of each ranking")).to_be_visible()
    expect(page).to_have_url(re.compile(r"(?=.*[?&]view=One)(?=.*[?&]topic=)"))  # the address bar follows the rerun


def _uploader(page, label: str):
    """The file input of the uploader with this label: by position, a drop made while an expander's content
    was still being drawn once went to the uploader after it (a session file on the topics uploader)."""
    box = page.locator('[data-testid="stFileUploader"]').filter(has_text=label)
    return box.locator('[data-testid="stFileUploaderDropzoneInput"]')


def _upload_until(page, uploader, path, title: str) -> None:
    """Hand ``path`` to ``uploader`` and wait until the page titled ``title`` is shown. On a busy machine a file
    handed over while the page is still being redrawn can be dropped (the page stays where it was, with no
    error): it is then handed over again, at most three times in all."""
    heading = page.locator('[data-testid="stMain"] h1').first
    for attempt in range(3):
        uploader.set_input_files(str(path))
        settled(page)
        try:
            expect(heading).to_have_text(title, timeout=30_000)
            return
        except AssertionError as err:
            shown = page.locator('[data-testid="stException"], [data-testid="stAlertContentError"]')
            if shown.count():  # the page said why: that is the failure to report
                raise AssertionError(f"the page shows: {' | '.join(shown.all_inner_texts())}") from err
            if attempt == 2:
                raise


def test_notes_travel_in_the_session_file(server, browser, page, tmp_path):
    page.goto(f"{server}/queries?view=One+topic&topic=414")
    settled(page)
    page.get_by_label("Comment").fill("bm25_rm3 finds the grade-2 document at rank 2")
    page.get_by_role("button", name="Save the note on topic 414").click()
    settled(page)
    expect(page.get_by_text("1 topic noted")).to_be_visible()
    page.locator('[data-testid="stSidebarNavLink"]', has_text="Report").click()
    settled(page)
    with page.expect_download() as download:
        page.get_by_role("button", name="Session file").click()
    saved = tmp_path / "session.json"
    download.value.save_as(saved)
    assert b"grade-2 document" in saved.read_bytes()

    other = browser.new_context(viewport=VIEWPORT).new_page()  # a colleague, on the same demo collection
    other.goto(f"{server}/data")
    settled(other)
    other.get_by_text("Other collections and session files").click()
    _upload_until(other, _uploader(other, "Session file"), saved, "Overview")
    expect(other.get_by_text("1 topic noted")).to_be_visible()
    other.context.close()
