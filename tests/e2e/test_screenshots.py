"""A screenshot of every page the navigation lists (:func:`dashboard.pages.listed`), on the demo collection.

A test run writes them to its own temporary folder and checks them there: one PNG per listed page, of the
window's size, showing the page (not a blank or one-coloured frame); it never touches the checkout.
``python3 dev.py screenshots`` runs this module with ``RANKSCOPE_SCREENSHOTS`` naming ``docs/screenshots/``,
the folder the documentation's dashboard page (``docs/dashboard.md``) and the README show: that is the one
deliberate way to refresh the images. The server has a workspace seeded with the demo collection, so that
every listed page is there, the collections page among them.
"""

from __future__ import annotations

import base64
import os
from pathlib import Path

import pytest

from dashboard.pages import listed
from tests.e2e.conftest import drawn, need_browser, png_size

need_browser()
from playwright.sync_api import expect  # noqa: E402

pytestmark = pytest.mark.browser
WINDOW = {"width": 1440, "height": 900}
FOLDER = "RANKSCOPE_SCREENSHOTS"  # where to write them instead of the test's own folder (dev.py screenshots)


def colours(tab, path: Path) -> int:
    """How many different colours the PNG at ``path`` holds, counted by Chromium's own decoder (a blank or
    one-coloured frame has 1; a page with text and charts hundreds)."""
    return tab.evaluate("""async (url) => {
        const image = new Image(); image.src = url; await image.decode();
        const canvas = new OffscreenCanvas(image.width, image.height), g = canvas.getContext('2d');
        g.drawImage(image, 0, 0);
        const data = new Uint32Array(g.getImageData(0, 0, image.width, image.height).data.buffer);
        return new Set(data).size;
    }""", "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode())


def test_every_listed_page_has_its_screenshot(stored_server, browser, tmp_path):
    folder = Path(os.environ.get(FOLDER) or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(viewport=WINDOW)
    tab = context.new_page()
    taken = {}
    try:
        for page in listed(stored=True):
            tab.goto(f"{stored_server}/{page.url_path}")
            expect(tab.locator('[data-testid="stMain"] h1').first).to_have_text(page.title)
            drawn(tab)
            expect(tab.locator('[data-testid="stException"]')).to_have_count(0)
            taken[page.script] = folder / f"{page.script}.png"
            tab.screenshot(path=str(taken[page.script]))
        counts = {script: colours(tab, path) for script, path in taken.items()}
    finally:
        context.close()
    for script, path in taken.items():
        assert png_size(path) == (WINDOW["width"], WINDOW["height"]), script
        assert counts[script] > 50, f"{script}: a blank frame ({counts[script]} colours)"
