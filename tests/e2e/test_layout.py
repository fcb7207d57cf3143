"""Every page looks right on a projector and on a laptop, and is accessible: the layout check and axe-core.

Each page of the dashboard is opened by its address (a deep link) in presentation mode at 1024×768 and
normally at 1366×768 and 1920×1080, and checked by tests/e2e/layout.js: the page does not scroll sideways,
nothing passes the right edge, no text is cut by its box, a table wider than its box says that it scrolls,
no chart's text leaves its drawing or overlaps another, and no pop-up of the framework is shown. Every
chart has its text alternative in the caption right below it. axe-core (shipped
by axe-playwright-python, so nothing is fetched) finds no serious or critical violation on any page, at
1366×768 and in presentation mode. The HTML report gets the same checks.

One server (with a workspace, so that the Collections page is there too) and one browser for the module;
each page is visited once per window size; every wait is on the page, never a sleep.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dashboard.pages import listed
from tests.e2e.conftest import drawn, every_page, need_browser, severe_violations

need_browser()

pytestmark = pytest.mark.browser
LAYOUT = (Path(__file__).with_name("layout.js")).read_text(encoding="utf-8")
PAGES = every_page(stored=True)  # each page's address and its title, from the page table
# window size, the address's query, and whether axe-core runs there too
VIEWS = {"projector-1024x768": ({"width": 1024, "height": 768}, "?present=1", True),
         "laptop-1366x768": ({"width": 1366, "height": 768}, "", True),
         "full-hd-1920x1080": ({"width": 1920, "height": 1080}, "", False)}
SLOW = 120_000  # milliseconds a page may take to load or draw on a busy machine (a wait, never a sleep)
# each chart's text alternative: the caption right below it, which starts with the chart's title
_ALTERNATIVES = """() => [...document.querySelectorAll('[data-testid="stPlotlyChart"]')]
  .filter(c => c.getBoundingClientRect().width > 0)
  .map(c => [[...(c.querySelector('.gtitle')?.childNodes || [])].map(n => n.textContent).join(' '),
             c.closest('[data-testid="stElementContainer"]')?.nextElementSibling
               ?.querySelector('[data-testid="stCaptionContainer"]')?.textContent || ''])"""


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def _alternatives(page) -> list[str]:
    """Charts without their text alternative (a caption right below, starting with the chart's title)."""
    faults = []
    for title, caption in page.evaluate(_ALTERNATIVES):
        words = _words(title)[:4]
        if not caption.strip() or _words(caption)[:len(words)] != words:
            faults.append(f'the chart "{title[:50]}" has no text alternative below it (found "{caption[:60]}")')
    return faults


@pytest.mark.parametrize("view", list(VIEWS))
def test_every_page_fits_and_is_accessible(stored_server, browser, view):
    server = stored_server
    from playwright.sync_api import expect

    viewport, query, accessible = VIEWS[view]
    context = browser.new_context(viewport=viewport)
    context.set_default_timeout(SLOW)
    page = context.new_page()
    faults = []
    try:
        for path, title in PAGES:
            page.goto(f"{server}/{path}{query}")
            expect(page.locator('[data-testid="stMain"] h1').first).to_have_text(title)
            drawn(page)
            found = [f"exception: {' '.join(text.split())[:300]}"
                     for text in page.locator('[data-testid="stException"]').all_inner_texts()]
            found += page.evaluate(LAYOUT, '[data-testid="stAppViewContainer"]') + _alternatives(page)
            if accessible:
                found += severe_violations(page)
            faults += [f"{path}: {fault}" for fault in found]
    finally:
        context.close()
    assert not faults, f"{len(faults)} faults at {view}:\n" + "\n".join(faults)


def test_each_page_address_is_its_label(stored_server, browser):
    server = stored_server
    from playwright.sync_api import expect

    context = browser.new_context(viewport=VIEWS["laptop-1366x768"][0])
    context.set_default_timeout(SLOW)
    try:
        page = context.new_page()
        page.goto(server)
        drawn(page)
        links = page.locator('[data-testid="stSidebarNavLink"]')
        navigation = listed(stored=True)  # the pages the navigation lists, from the page table
        expect(links).to_have_count(len(navigation))
        # a link's text is its icon's name, then its label
        shown = {links.nth(i).inner_text().split()[-1]: links.nth(i).get_attribute("href") for i in range(links.count())}
        assert {label: href.rstrip("/").rsplit("/", 1)[-1] for label, href in shown.items()} == {
            p.title: p.url_path for p in navigation}
        assert all(p.url_path == p.title.lower() for p in navigation)  # each address is its label
    finally:
        context.close()


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    """The HTML report of the demo collection, as ``rankscope report`` writes it."""
    from dashboard.report import write_report
    from sample_data import demo_paths

    qrels, runs = demo_paths()
    path = tmp_path_factory.mktemp("report") / "report.html"
    write_report(path, qrels, runs, ["AP", "nDCG@10", "P@10"])
    return path


@pytest.mark.parametrize("width", [1024, 1366])
def test_the_report_fits_and_is_accessible(report, browser, width):  # noqa: F811
    context = browser.new_context(viewport={"width": width, "height": 800})
    context.set_default_timeout(SLOW)
    try:
        page = context.new_page()
        page.goto(report.as_uri(), wait_until="domcontentloaded")
        page.wait_for_function("() => [...document.querySelectorAll('.plotly-graph-div')].every("
                               "d => d.querySelector('.main-svg'))")
        faults = page.evaluate(LAYOUT, "body") + _overlapping_figures(page) + severe_violations(page)
    finally:
        context.close()
    assert not faults, f"{len(faults)} faults in the report at {width} px:\n" + "\n".join(faults)


def _overlapping_figures(page) -> list[str]:
    """Figures of the report whose boxes overlap, or whose drawing is wider than its box."""
    return page.evaluate("""() => {
      const boxes = [...document.querySelectorAll('.plotly-graph-div')].map(d => [d.id, d.getBoundingClientRect(),
        d.querySelector('.main-svg').getBoundingClientRect()]);
      const faults = [];
      for (const [id, box, svg] of boxes)
        if (svg.width > box.width + 1 || svg.height > box.height + 1)
          faults.push(`figure ${id}: drawn ${Math.round(svg.width)}×${Math.round(svg.height)} px in a box of `
                      + `${Math.round(box.width)}×${Math.round(box.height)} px`);
      for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i][2], b = boxes[j][2];
        if (Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1
            && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1)
          faults.push(`figures ${boxes[i][0]} and ${boxes[j][0]} overlap`);
      }
      return faults;
    }""")


@pytest.mark.parametrize("answers", [2, 5, 10])
def test_the_reveal_chart_keeps_its_bars_tall_at_1024x768(answers, browser, tmp_path):  # noqa: F811
    """The class's answers as the teacher's projector draws them (presentation mode, 1024×768): the bars take at
    least half of the figure's height whatever the number of distinct answers, and the texts pass the layout
    check. Drawn by plotly.js itself, from the figure the teacher's page gets, with its texts fitted alike."""
    from dashboard import figures
    from dashboard.widgets.charts import NARROWEST, PLOTLY_CONFIG
    from metrics.teaching.reveal import Bar

    verdicts = ["right", "mistake", "other"]
    bars = [Bar(f"{0.4167 - i / 12:.2f}", 12 - i, verdicts[min(i, 2) if i < 3 else 1 + i % 2]) for i in range(answers)]
    fig = figures.fitted(figures.answers_chart(bars, "0.42", "The class's answers"), NARROWEST[True])
    fig.update_layout(width=NARROWEST[True])
    path = tmp_path / "answers.html"
    path.write_text(fig.to_html(include_plotlyjs=True, full_html=True, config=PLOTLY_CONFIG), encoding="utf-8")
    context = browser.new_context(viewport=VIEWS["projector-1024x768"][0])
    try:
        page = context.new_page()
        page.goto(path.as_uri(), wait_until="domcontentloaded")
        page.wait_for_function("() => document.querySelector('.main-svg .nsewdrag')")
        plot, figure = page.evaluate("""() => [document.querySelector('.nsewdrag').getBoundingClientRect().height,
                                               document.querySelector('.main-svg').getBoundingClientRect().height]""")
        faults = page.evaluate(LAYOUT, "body")
    finally:
        context.close()
    assert plot >= figure / 2, f"{answers} answers: a plot {plot:.0f} px high in a figure of {figure:.0f} px"
    assert not faults, "\n".join(faults)
