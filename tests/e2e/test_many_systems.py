"""A track's worth of runs in a real browser: 100 run files (and two broken ones) uploaded at once through the
data page, each broken file named on one line, the 100 good ones kept, and a leaderboard of 100 systems on the
overview. Skipped when Chromium or Playwright is missing, except under CI=true, where that is a failure."""

from __future__ import annotations

import pytest

from tests.dashboard.app_pages.many_systems import collection
from tests.e2e.conftest import need_browser, settled

need_browser()

pytestmark = pytest.mark.browser
RUNS = 100
BROKEN = {"broken-fields.run": b"1 Q0 doc1 1 2.0 x\n1 Q0 doc2 2\n",  # line 2: five fields
          "broken-score.run": b"1 Q0 doc1 1 high x\n"}  # line 1: a score that is not a number


def _uploader(tab, label: str):
    return (tab.locator('[data-testid="stFileUploader"]').filter(has_text=label)
            .locator('[data-testid="stFileUploaderDropzoneInput"]'))


def test_a_hundred_runs_uploaded_at_once_make_a_leaderboard_of_a_hundred_systems(server, page):  # noqa: F811
    from playwright.sync_api import expect

    qrels, runs = collection(systems=RUNS)
    page.goto(f"{server}/data")
    settled(page)
    _uploader(page, "Qrels").set_input_files(files=[{"name": "many.qrels", "mimeType": "text/plain",
                                                      "buffer": qrels}])
    expect(page.get_by_text("at least one run", exact=False).first).to_be_visible()
    settled(page)
    files = [{"name": f"{name}.run", "mimeType": "text/plain", "buffer": body} for name, body in runs.items()]
    files += [{"name": name, "mimeType": "text/plain", "buffer": body} for name, body in BROKEN.items()]
    _uploader(page, "Runs").set_input_files(files=files)
    expect(page.get_by_text(f"{RUNS} systems · qrels many.qrels")).to_be_visible()
    settled(page)
    errors = page.locator('[data-testid="stAlertContentError"]')
    expect(errors).to_have_count(len(BROKEN))  # one line each, naming the file and the line
    expect(errors.filter(has_text="broken-fields.run:2")).to_have_count(1)
    expect(errors.filter(has_text="broken-score.run:1")).to_have_count(1)
    expect(page.locator('[data-testid="stMetricValue"]').first).to_have_text(str(RUNS))
    expect(page.locator('[data-testid="stException"]')).to_have_count(0)

    page.locator('[data-testid="stSidebarNavLink"]', has_text="Overview").click()
    expect(page.locator('[data-testid="stMain"] h1').first).to_have_text("Overview")
    settled(page)
    expect(page.get_by_text(f"20 of {RUNS - 1} systems besides the baseline", exact=False)).to_be_visible()
    top = page.get_by_label("Top N", exact=True)
    top.fill(str(RUNS))
    top.press("Enter")
    settled(page)
    expect(page.get_by_text(f"{RUNS - 1} of {RUNS - 1} systems besides the baseline", exact=False)).to_be_visible()
    grid = page.locator('[data-testid="stDataFrame"]').first
    expect(grid).to_be_visible()
    expect(page.locator('[data-testid="stPlotlyChart"] .main-svg').first).to_be_attached()
    expect(page.locator('[data-testid="stException"]')).to_have_count(0)
    page.get_by_label("Find systems", exact=True).fill("splade")
    page.get_by_label("Find systems", exact=True).press("Enter")
    settled(page)
    expect(page.get_by_text(f"{RUNS // 5} of {RUNS - 1} systems besides the baseline", exact=False)).to_be_visible()
    expect(page.locator('[data-testid="stException"]')).to_have_count(0)
