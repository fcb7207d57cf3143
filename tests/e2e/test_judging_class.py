"""A class that judges, in real browsers: a teacher at a projector (1024x768, presentation mode) starts a lesson of
ten documents of one topic to judge; three students on phones (390x844) grade them one at a time with the large
buttons; the reveal shows each document's grades as stored and Fleiss' kappa equal to statsmodels' on the stored
grades. The topic's and one document's texts are hostile (an HTML image with a script, a Markdown image of
another address): they show as text on the students' phones and on the assessor's page, and nothing is fetched.
The students' page at 390x844 and the assessor's page at 1366x768 and 390x844, each with a document shown, pass
the layout check (tests/e2e/layout.js) and axe-core's serious and critical checks.

One server (with a workspace of its own) serves the module. Skipped when Chromium or Playwright is missing,
except under CI=true, where that is a failure.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np
import pytest

from tests import processes
from tests.e2e.conftest import author_tab, need_browser, settled, severe_violations

need_browser()

pytestmark = pytest.mark.browser
pytest.importorskip("sqlalchemy", reason="the workspace extra (sqlalchemy) is not installed")
inter_rater = pytest.importorskip("statsmodels.stats.inter_rater",
                                  reason="statsmodels (the Fleiss' kappa oracle) is not installed")
from playwright.sync_api import expect  # noqa: E402

PHONE = {"width": 390, "height": 844}
PROJECTOR = {"width": 1024, "height": 768}
LAPTOP = {"width": 1366, "height": 768}
LAYOUT = (Path(__file__).with_name("layout.js")).read_text(encoding="utf-8")
ELSEWHERE = "http://127.0.0.1:9/planted.png"  # nothing listens there; a request for it is a fault all the same
HOSTILE = f'<img src=x onerror="window.__planted=1"> ![Qimg]({ELSEWHERE}) **Qbold**'
QRELS = b"1 0 d1 1\n1 0 d2 0\n1 0 d3 2\n1 0 d20 1\n"
DOCS = b"".join(f"d{i}\ttitle {i}\t{HOSTILE if i == 1 else ''} the text of document {i} about wings\n".encode()
                for i in range(1, 13))
# each student's grade of the documents in the order shown
GRADES = ([1, 0, 2, 1, 0, 1, 0, 2, 1, 0], [1, 0, 2, 1, 0, 1, 1, 2, 1, 0], [0, 0, 2, 1, 0, 1, 0, 2, 0, 0])


def _run(tag: str, order) -> bytes:
    return "".join(f"1 Q0 d{d} {r} {20 - r} {tag}\n" for r, d in enumerate(order, 1)).encode()


@pytest.fixture(scope="module")
def school(tmp_path_factory):
    """A server on a workspace holding a collection with hostile texts, a judging task of it for "ann", and the
    saved lesson "judging": ten documents of topic 1 from systems a and b, made as the learn page makes them."""
    from dashboard.data.live_class import judging_question
    from dashboard.store.sync import loaded_of
    from workspace import open_workspace
    from workspace.classroom import Classroom
    from workspace.judging import Judging

    folder = tmp_path_factory.mktemp("judging-class")
    with open_workspace(str(folder)) as ws:
        info = ws.add_collection("wings", qrels=("q.qrels", QRELS),
                                 runs=[("a.run", _run("a", range(1, 13))), ("b.run", _run("b", range(12, 0, -1)))],
                                 topics=("topics.tsv", f"1\t{HOSTILE} wings\n".encode()),
                                 documents=("docs.tsv", DOCS), author="owner")
        task = Judging(ws).start(info.id, method="depth", assessors=["ann"], depth=8, author="owner")
        question = judging_question(loaded_of(ws.load(info.id)), "1", ("a", "b"), 10, "nDCG@10")
        Classroom(ws).save_lesson("judging", [question], author="ana")
    port = processes.free_port()
    proc = processes.serve_dashboard(port, env={**os.environ, "RANKSCOPE_WORKSPACE": str(folder)})
    try:
        yield f"http://127.0.0.1:{port}", str(folder), task.id, question
    finally:
        processes.stop(proc)


def _faults(page, width: int) -> list[str]:
    """The layout check and axe-core's serious and critical violations, with the width they were found at."""
    settled(page)
    found = page.evaluate(LAYOUT, '[data-testid="stAppViewContainer"]') + severe_violations(page)
    return [f"{width} px: {fault}" for fault in found]


def _as_text(page) -> None:
    """The hostile text is on the page as text: no image made of it, no script run, nothing asked elsewhere."""
    expect(page.get_by_text("<img src=x onerror", exact=False).first).to_be_visible()
    assert page.evaluate("() => window.__planted") is None
    made = page.evaluate("""() => [...document.querySelectorAll('[data-testid="stMain"] img, [data-testid="stMain"] strong')]
        .filter(e => (e.getAttribute('src') || '').match(/(^x$|\\/x$|:9\\/)/) || e.textContent === 'Qbold')
        .map(e => e.outerHTML.slice(0, 120))""")
    assert made == []


def _watched(context, origin: str) -> list[str]:
    elsewhere: list[str] = []
    context.on("request", lambda r: elsewhere.append(r.url) if urlsplit(r.url).netloc not in (origin, "") else None)
    return elsewhere


def _phone(browser, url: str, origin: str):
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True, device_scale_factor=2)
    context.set_default_timeout(120_000)
    elsewhere = _watched(context, origin)
    page = context.new_page()
    page.goto(url, wait_until="commit", timeout=180_000)
    expect(page.get_by_text("Waiting for the teacher to open the first question")).to_be_visible(timeout=180_000)
    return page, elsewhere


def _grade_all(page, grades, labels) -> None:
    for i, grade in enumerate(grades):
        expect(page.get_by_text(f"Document {i + 1} of 10 · {i} graded")).to_be_visible()
        page.get_by_role("button", name=re.compile(rf"^{grade} · {labels[grade]}")).click()
    expect(page.get_by_text("All 10 documents graded", exact=False)).to_be_visible()


def test_a_class_judges_ten_documents_on_phones_and_sees_its_agreement(school, browser):
    url, folder, _, question = school
    origin = urlsplit(url).netloc
    teacher_context = browser.new_context(viewport=PROJECTOR)
    teacher_context.set_default_timeout(120_000)
    teacher = teacher_context.new_page()
    phones = []
    try:
        teacher.goto(f"{url}/teach?present=1", timeout=180_000)
        teacher.locator('[data-testid="stSelectbox"]').filter(has_text="Lesson").click()
        teacher.get_by_role("option", name=re.compile("^judging")).click()
        expect(teacher.get_by_text("1. Judge 10 documents for topic 1", exact=False)).to_be_visible()
        teacher.get_by_role("button", name="Start the class").click()
        code_heading = teacher.locator("h2", has_text="Code: ")
        expect(code_heading).to_have_text(re.compile(r"Code: [2-9A-HJKMNP-Z]{6}"))
        code = re.search(r"Code: (\w{6})", code_heading.inner_text()).group(1)
        phones = [_phone(browser, f"{url}/class?code={code}", origin) for _ in GRADES]
        teacher.get_by_role("button", name="Open question 1").click()

        first = phones[0][0]
        expect(first.get_by_text("Document 1 of 10 · 0 graded")).to_be_visible()
        expect(first.get_by_text("Words of the topic are marked.", exact=False)).to_be_visible()
        _as_text(first)  # the topic's text, above every document
        faults = _faults(first, PHONE["width"])
        for (page, _), grades in zip(phones, GRADES):
            _grade_all(page, grades, question.labels)
        expect(teacher.locator('[data-testid="stMetricValue"]')).to_have_text("3")
        teacher.get_by_role("button", name="Reveal the answer").click()

        chart = teacher.locator('[data-testid="stPlotlyChart"]')
        expect(chart.locator(".main-svg").first).to_be_attached()
        shown = teacher.evaluate("""() => document.querySelector('[data-testid="stPlotlyChart"] .js-plotly-plot')
            .data.map(t => [t.name, t.y, t.text])""")
        from workspace import open_workspace
        from workspace.classroom import Classroom

        with open_workspace(folder) as ws:
            stored = Classroom(ws).answers(code)
        assert sorted(a.answer for a in stored) == sorted("".join(map(str, g)) for g in GRADES)
        docs = [d.docid for d in question.documents]
        counts = np.zeros((len(docs), len(question.labels)), dtype=int)  # the oracle's table, from what was stored
        for a in stored:
            for d, grade in enumerate(a.answer):
                counts[d, int(grade)] += 1
        drawn = np.zeros_like(counts)
        for name, labels, written in shown:  # each grade's part of each document's bar, with its count written
            grade = int(name.split()[0])
            for label, value in zip(labels, written):
                drawn[docs.index(label.split(". ", 1)[1].split(" (ref.")[0]), grade] = int(value or 0)
        assert (drawn == counts).all()  # each document's grades, as stored
        kappa = float(inter_rater.fleiss_kappa(counts, method="fleiss"))
        expect(teacher.get_by_text(f"Fleiss' kappa among the 3 students who graded every document: {kappa:.3f}."
                                   )).to_be_visible()
        expect(teacher.get_by_text(re.compile(r"^(The order holds|Under the reference)"))).to_be_visible()
        for page, _ in phones:
            expect(page.get_by_text("Grading is over", exact=False)).to_be_visible()
        assert all(elsewhere == [] for _, elsewhere in phones)
        assert not faults, "\n".join(faults)
    finally:
        for page, _ in phones:
            page.context.close()
        teacher_context.close()


def test_the_assessors_page_fits_a_laptop_and_a_phone_and_shows_hostile_text_as_text(school, browser):
    url, _, task, _ = school
    tab = author_tab(browser, f"{url}/judge?task={task}", "ann")
    elsewhere = _watched(tab.context, urlsplit(url).netloc)
    faults = []
    try:
        for viewport in (LAPTOP, PHONE):
            tab.set_viewport_size(viewport)
            tab.reload()
            expect(tab.get_by_text("Words of the topic are marked.", exact=False)).to_be_visible()
            _as_text(tab)
            faults += _faults(tab, viewport["width"])
        assert elsewhere == []
    finally:
        tab.context.close()
    assert not faults, "\n".join(faults)
