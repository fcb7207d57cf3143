"""A class at a projector: presentation mode at 1024×768, a ranking typed on the learn page, a grade changed.

The numbers the page shows are checked against values computed here, by hand, from the grades typed.
"""

from __future__ import annotations

import math
import re

import pytest

from tests.e2e.conftest import need_browser, settled

need_browser()

pytestmark = pytest.mark.browser
PROJECTOR = {"width": 1024, "height": 768}


def _by_hand(grades: list[int]) -> dict[str, float]:
    """P, R, AP, RR and nDCG (linear gain, log2(i + 1) discount) of a ranking holding every relevant document."""
    relevant = [g >= 1 for g in grades]
    found = sum(relevant)
    ap = sum(sum(relevant[:i + 1]) / (i + 1) for i, rel in enumerate(relevant) if rel) / found
    rr = next(1 / (i + 1) for i, rel in enumerate(relevant) if rel)
    dcg = sum(g / math.log2(i + 2) for i, g in enumerate(grades))
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(sorted(grades, reverse=True)))
    n = len(grades)
    return {f"P@{n}": found / n, f"R@{n}": 1.0, "AP": ap, "RR": rr, f"nDCG@{n}": dcg / idcg}


def _shown(page, measures) -> dict[str, str]:
    """The values in the headers of the learn page's expanders "<measure> = <value>"."""
    out = {}
    for measure in measures:
        header = page.locator('[data-testid="stExpander"] summary', has_text=f"{measure} = ").first
        out[measure] = header.inner_text().split(" = ", 1)[1].strip()
    return out


def _fits(page) -> None:
    """No table, chart or block is wider than the viewport, and the page does not scroll sideways."""
    width = PROJECTOR["width"]
    for selector in ('[data-testid="stDataFrame"]', '[data-testid="stTable"]', '[data-testid="stPlotlyChart"]',
                     '[data-testid="stExpander"]'):
        boxes = page.locator(selector)
        for i in range(boxes.count()):
            box = boxes.nth(i).bounding_box()
            if box is not None:
                assert box["x"] >= -1 and box["x"] + box["width"] <= width + 1, (selector, i, box)
    # the layout settles after a rerun (the sidebar folding away): wait for it, then it must fit
    page.wait_for_function(f"() => document.documentElement.scrollWidth <= {width}", timeout=30_000)


def test_a_class_types_a_ranking_and_changes_a_grade(server, browser):  # noqa: F811
    from playwright.sync_api import expect

    context = browser.new_context(viewport=PROJECTOR)
    page = context.new_page()
    try:
        page.goto(f"{server}/learn?present=1&source=my+own")
        settled(page)
        expect(page.locator('[data-testid="stMain"] h1').first).to_have_text("Learn")
        # presentation mode: no sidebar, the pages in the top bar, larger type
        expect(page.locator('[data-testid="stSidebar"]:visible')).to_have_count(0)
        expect(page.locator('[data-testid="stSidebarNavLink"]:visible')).to_have_count(0)
        # the stylesheet arrives with the page's elements: wait for it rather than read it once
        page.wait_for_function("() => parseFloat(getComputedStyle(document.documentElement).fontSize) >= 19",
                               timeout=30_000)
        expect(page.locator('[data-testid="stPlotlyChart"]').first.locator(".main-svg").first).to_be_attached()
        _fits(page)

        grades = page.locator('input[aria-label="Grades at ranks 1, 2, 3, …"]')
        measures = ["P@6", "R@6", "AP", "RR", "nDCG@6"]
        for typed in ([0, 2, 1, 0, 1, 0], [2, 2, 1, 0, 1, 0]):  # the second changes the grade at rank 1
            grades.fill(" ".join(map(str, typed)))
            grades.press("Enter")
            expected = {m: f"{v:.4f}" for m, v in _by_hand(typed).items()}
            expect(page.locator('[data-testid="stExpander"] summary', has_text=f"AP = {expected['AP']}")
                   ).to_be_visible()
            settled(page)
            assert _shown(page, measures) == expected, typed
            _fits(page)

        # the mode stays on from page to page, through the top bar
        page.locator('[data-testid="stTopNavLink"]:visible', has_text="Curves").first.click()
        expect(page.locator('[data-testid="stMain"] h1').first).to_have_text("Curves")
        settled(page)
        expect(page).to_have_url(re.compile(r"[?&]present=true(&|$)"))
        expect(page.locator('[data-testid="stSidebar"]:visible')).to_have_count(0)
        _fits(page)
    finally:
        context.close()


def test_presentation_mode_at_full_hd_keeps_the_page_inside_the_screen(server, browser):  # noqa: F811
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    page = context.new_page()
    try:
        page.goto(f"{server}/overview?present=true")
        settled(page)
        expect(page.locator('[data-testid="stSidebar"]:visible')).to_have_count(0)
        expect(page.locator('[data-testid="stDataFrame"]').first).to_be_visible()
        box = page.locator('[data-testid="stDataFrame"]').first.bounding_box()
        assert box["x"] + box["width"] <= 1920
        page.wait_for_function("() => document.documentElement.scrollWidth <= 1920", timeout=30_000)
        page.locator('[data-testid="stCheckbox"]', has_text="Presentation mode").locator("label").first.click()  # back to the sidebar
        expect(page.locator('[data-testid="stSidebarNavLink"]:visible').first).to_be_visible()
    finally:
        context.close()
