"""A live class in real browsers: a teacher at a projector (1024x768, presentation mode) runs a three-question
lesson; three students on phones (390x844, each a browser context of its own) join by the link, answer,
and follow the teacher without reloading; the count on the teacher's screen rises; each reveal shows the
distribution, the right answer and each mistake's share. A flood of new sessions from one address is bounded:
the teacher's count stays right, the refused get one line, a student from another address is not disturbed. The students' page passes the layout checks
(no sideways scroll, nothing past the right edge) and axe-core's accessibility checks at 390x844.

One server (with a workspace of its own) serves the whole module. Skipped when Chromium or Playwright is
missing, except under CI=true, where that is a failure.
"""

from __future__ import annotations

import os
import re

import pytest

from tests import processes
from tests.e2e.conftest import need_browser

need_browser()

pytestmark = pytest.mark.browser
pytest.importorskip("sqlalchemy", reason="the workspace extra (sqlalchemy) is not installed")
from playwright.sync_api import expect  # noqa: E402

from metrics.teaching.questions import Change, Question, Ranking  # noqa: E402
from workspace import open_workspace  # noqa: E402
from workspace.classroom import Classroom  # noqa: E402

PHONE = {"width": 390, "height": 844}
JOINS = 12  # new student sessions per address per minute (the module's tests open 9 from loopback in all)
PROJECTOR = {"width": 1024, "height": 768}
LESSON = (
    Question("value", "AP", (Ranking((1, 0, 1, 0, 0), (1, 1)),)),  # right 0.4167; AP over found 0.8333
    Question("compare", "P@3", (Ranking((1, 0, 0, 0)), Ranking((0, 1, 1, 0)))),  # right B
    Question("change", "RR", (Ranking((0, 1, 0)),), Change("move", 2, 3)),  # 1/2 -> 1/3: -0.17
)


@pytest.fixture(scope="module")
def school(tmp_path_factory):
    """A server on a workspace holding the saved lesson "week 3"."""
    folder = tmp_path_factory.mktemp("school")
    with open_workspace(str(folder)) as ws:
        Classroom(ws).save_lesson("week 3", LESSON, author="ana")
    port = processes.free_port()
    proc = processes.serve_dashboard(port, env={**os.environ, "RANKSCOPE_WORKSPACE": str(folder),
                                                "RANKSCOPE_CLASS_JOINS": str(JOINS)})
    try:
        yield f"http://127.0.0.1:{port}", str(folder)
    finally:
        processes.stop(proc)


# the script is not running and nothing on the page is stale (faded while Streamlit draws it again)
_SETTLED = """() => document.querySelector('[data-testid="stApp"]')
    ?.getAttribute('data-test-script-state') === 'notRunning'
  && !document.querySelector('[data-stale="true"], [data-testid="stStatusWidget"], [data-testid="stSkeleton"]')"""


def settled(page) -> None:
    page.wait_for_function(_SETTLED, timeout=60_000)


def _fits(page, width: int) -> None:
    """Nothing on the page reaches past the right edge, and the page does not scroll sideways."""
    settled(page)
    page.wait_for_function(f"() => document.documentElement.scrollWidth <= {width}", timeout=30_000)
    past = page.evaluate(f"""() => [...document.querySelectorAll('[data-testid="stMain"] *')]
        .filter(e => e.getClientRects().length && e.getBoundingClientRect().right > {width} + 1
                && getComputedStyle(e).visibility !== 'hidden')
        .map(e => e.tagName + '.' + e.className).slice(0, 5)""")
    assert past == []


def _accessible(page) -> None:
    from axe_playwright_python.sync_playwright import Axe

    settled(page)
    results = Axe().run(page)
    assert results.violations_count == 0, results.generate_report()


def _student(browser, url: str, nickname: str | None = None):  # noqa: F811
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True, device_scale_factor=2)
    context.set_default_timeout(120_000)  # a busy machine: actions wait for a slow page
    page = context.new_page()
    page.goto(url, wait_until="commit", timeout=180_000)  # a busy machine: the waits below are on the page
    expect(page.get_by_text("Waiting for the teacher to open the first question")).to_be_visible(timeout=180_000)
    if nickname:
        box = page.get_by_role("textbox", name="Nickname (optional)")
        box.fill(nickname)
        box.press("Enter")
    return page


def _send(page) -> None:
    page.get_by_role("button", name="Send my answer").click()
    expect(page.get_by_text("Sent:", exact=False)).to_be_visible()


# each question's reveal: the bars (answer, then count) and every known mistake's line, worked by hand.
# 1. AP of 1 0 1 0 0 with two relevant documents unretrieved (R = 4): (1/1 + 2/3) / 4 = 5/12 = 0.42;
#    over the 2 relevant retrieved: 5/6 = 0.83; precision averaged over all 5 ranks: (1+1/2+2/3+1/2+2/5)/5 = 0.61.
# 2. P@3: A 1/3, B 2/3, so B; as recall (over R): A 1/1, B 2/2, "equal".
# 3. RR of 0 1 0 is 1/2; the relevant one moved to rank 3: 1/3, a change of -1/6 = -0.17; the rank instead of
#    its reciprocal: 2 -> 3, +1.00.
REVEALS = {
    1: (["0.42 (right)", "0.83 (a known mistake)"], ["2", "1"],
        ["33% (1) divided AP by the relevant documents retrieved, not by all relevant (R): 0.83",
         "0% (0) averaged precision over every rank, not over the relevant documents: 0.61"]),
    2: (["B (right)", "equal (a known mistake)"], ["2", "1"],
        ["33% (1) took P@k as recall: divided by R instead of k: equal"]),
    3: (["-0.17 (right)", "+0.17"], ["2", "1"],
        ["0% (0) gave the rank of the first relevant document, not its reciprocal: +1.00"]),
}


def test_a_teacher_runs_a_three_question_lesson_with_students_on_phones(school, browser):  # noqa: F811
    school, folder = school
    teacher_context = browser.new_context(viewport=PROJECTOR)
    teacher_context.set_default_timeout(120_000)
    teacher = teacher_context.new_page()
    students = []
    try:
        teacher.goto(f"{school}/teach?present=1", timeout=180_000)
        expect(teacher.locator('[data-testid="stMain"] h1').first).to_have_text("Live class")
        teacher.locator('[data-testid="stSelectbox"]').filter(has_text="Lesson").click()
        teacher.get_by_role("option", name=re.compile("^week 3")).click()
        expect(teacher.get_by_text("3. The document at rank 2 (grade 1) moves to rank 3", exact=False)).to_be_visible()
        teacher.get_by_role("button", name="Start the class").click()
        code_heading = teacher.locator("h2", has_text="Code: ")
        expect(code_heading).to_have_text(re.compile(r"Code: [2-9A-HJKMNP-Z]{6}"))
        code = re.search(r"Code: (\w{6})", code_heading.inner_text()).group(1)
        expect(teacher.locator('[data-testid="stImage"] img')).to_be_visible()  # the QR code, drawn by the server
        link = teacher.get_by_text(re.compile(rf"/class\?code={code}$")).inner_text()
        assert link == f"{school}/class?code={code}"

        students = [_student(browser, link, nickname) for nickname in ("Ana", None, None)]
        phone = students[0]
        _fits(phone, PHONE["width"])
        _accessible(phone)

        answers = [["0.42", "5/12", "0.83"], ["B is higher", "B is higher", "they are equal"],
                   [("drops", "1/6"), ("drops", "0.17"), ("rises", "0.17")]]
        for number, given in enumerate(answers, start=1):
            teacher.get_by_role("button", name=f"Open question {number}").click()
            expect(teacher.locator('[data-testid="stMetricValue"]')).to_have_text("0")
            for i, (page, answer) in enumerate(zip(students, given)):
                # the page follows the teacher: no reload
                expect(page.get_by_text(f"Question {number} of 3")).to_be_visible()
                if number == 1:
                    page.get_by_role("textbox", name="Your answer").fill(answer)
                elif number == 2:
                    page.locator('[data-testid="stRadio"] label').filter(has_text=answer).click()
                else:
                    page.locator('[data-testid="stRadio"] label').filter(has_text=f"it {answer[0]}").click()
                    page.get_by_role("textbox", name="By how much").fill(answer[1])
                _send(page)
                # the count on the teacher's screen follows, without a click
                expect(teacher.locator('[data-testid="stMetricValue"]')).to_have_text(str(i + 1))
            if number == 1:
                _fits(phone, PHONE["width"])
                _accessible(phone)
            teacher.get_by_role("button", name="Reveal the answer").click()
            chart = teacher.locator('[data-testid="stPlotlyChart"]')
            expect(chart.locator(".main-svg").first).to_be_attached()
            right = {1: "0.42", 2: "B", 3: "-0.17"}[number]
            expect(teacher.get_by_role("heading", name=f"Right answer: {right}")).to_be_visible()
            expect(teacher.locator('[data-testid="stMarkdownContainer"] .katex').first).to_be_visible()
            for page in students:
                expect(page.get_by_text("The right answer:", exact=False)).to_be_visible()
            # the distribution, drawn as bars with their counts, and each mistake's share
            answers_shown, counts, mistakes = REVEALS[number]
            ticks = chart.locator("g.ytick text")
            expect(ticks).to_have_count(len(answers_shown))
            assert [t for _, t in sorted((tick.bounding_box()["y"], tick.text_content()) for tick in ticks.all())
                    ] == answers_shown  # from the top
            expect(chart.locator("g.point text")).to_have_text(counts)
            for line in mistakes:
                expect(teacher.get_by_text(line, exact=True)).to_be_visible()
            if number == 1:
                expect(students[2].get_by_text("that is what you get when you divided AP", exact=False)
                       ).to_be_visible()
                _fits(phone, PHONE["width"])
                _accessible(phone)
        teacher.get_by_role("button", name="End the class").click()
        for page in students:
            expect(page.get_by_text(f"The class {code} is over.")).to_be_visible()
        # the nickname typed in the class's part of the page went with every answer of that student
        with open_workspace(folder) as ws:
            stored = Classroom(ws).answers(code)
        assert sorted((a.position, a.nickname or "") for a in stored) == [
            (p, name) for p in range(3) for name in ("", "", "Ana")]
    finally:
        for page in students:
            page.context.close()
        teacher_context.close()


def test_an_unknown_code_says_so_in_one_line(school, browser):  # noqa: F811
    school, _ = school
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    try:
        page.goto(f"{school}/class?code=ZZZZZZ")
        alert = page.locator('[data-testid="stAlertContentError"]')
        expect(alert.locator("p")).to_have_text("no class has the code ZZZZZZ")  # one line (after its icon)
        expect(alert).to_have_count(1)
        expect(page.locator('[data-testid="stSidebar"]:visible')).to_have_count(0)
        _fits(page, PHONE["width"])
    finally:
        context.close()


def test_a_teacher_who_reloads_keeps_the_class(school, browser):  # noqa: F811
    """The class is the teacher's browser's, not one session's: after a reload the teacher opens and reveals,
    and from a new tab ends it, while five phones follow without a reload."""
    school, _ = school
    context = browser.new_context(viewport=PROJECTOR)
    context.set_default_timeout(120_000)
    teacher = context.new_page()
    students = []
    try:
        teacher.goto(f"{school}/teach?present=1", timeout=180_000)
        teacher.locator('[data-testid="stSelectbox"]').filter(has_text="Lesson").click()
        teacher.get_by_role("option", name=re.compile("^week 3")).click()
        teacher.get_by_role("button", name="Start the class").click()
        code_heading = teacher.locator("h2", has_text="Code: ")
        expect(code_heading).to_have_text(re.compile(r"Code: [2-9A-HJKMNP-Z]{6}"))
        code = re.search(r"Code: (\w{6})", code_heading.inner_text()).group(1)
        settled(teacher)  # the run after the start keeps the key in the browser
        students = [_student(browser, f"{school}/class?code={code}") for _ in range(5)]

        teacher.reload()
        expect(teacher.locator("h2", has_text="Code: ")).to_have_text(f"Code: {code}")
        teacher.get_by_role("button", name="Open question 1").click()
        for page in students:
            expect(page.get_by_text("Question 1 of 3")).to_be_visible()
        teacher.reload()
        teacher.get_by_role("button", name="Reveal the answer").click()
        expect(teacher.get_by_role("heading", name="Right answer: 0.42")).to_be_visible()
        for page in students:
            expect(page.get_by_text("The right answer:", exact=False)).to_be_visible()

        second = context.new_page()  # a new tab of the same browser
        second.goto(f"{school}/teach?present=1", timeout=180_000)
        expect(second.locator("h2", has_text="Code: ")).to_have_text(f"Code: {code}")
        second.get_by_role("button", name="End the class").click()
        for page in students:
            expect(page.get_by_text(f"The class {code} is over.")).to_be_visible()
        settled(second)  # the run after the end removes the key from the browser
        third = context.new_page()
        third.goto(f"{school}/teach?present=1", timeout=180_000)
        # the lesson to start the next class from, no class running
        expect(third.locator('[data-testid="stSelectbox"]').filter(has_text="Lesson")).to_be_visible()
        expect(third.locator("h2", has_text="Code: ")).to_have_count(0)
    finally:
        for page in students:
            page.context.close()
        context.close()


def test_a_flood_from_one_address_is_bounded_and_the_teacher_sees_it(school, browser):  # noqa: F811
    """Twenty new sessions from one address (127.0.0.3, a loopback address of its own), each answering: twelve
    (the bound) are counted, eight get one line and no traceback; a student from another address answers after
    them; the teacher's count is the answers stored and says what was refused. Counts, not timings: the CPU a
    refused session costs is benchmarks/class_flood.py's."""
    import sys
    from concurrent.futures import ThreadPoolExecutor
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from class_flood import send

    school, folder = school

    def flood(sessions: int, source: str) -> list:  # in a thread of its own: Playwright's loop runs in this one
        with ThreadPoolExecutor(1) as pool:
            return pool.submit(send, school, code, sessions, 240, source).result()

    with open_workspace(folder) as ws:
        room = Classroom(ws)
        code, key = room.start(LESSON, author="ana")
        room.show(code, key, 0)
    context = browser.new_context(viewport=PROJECTOR)
    context.set_default_timeout(120_000)
    context.add_cookies([{"name": "rankscope_class", "value": f"{code}.{key}", "url": school}])
    teacher = context.new_page()  # the teacher's screen, its count drawn again every second
    try:
        teacher.goto(f"{school}/teach", timeout=180_000)
        expect(teacher.locator('[data-testid="stMetricValue"]')).to_have_text("0")
        crowd = flood(20, "127.0.0.3")
        assert [sum(s.acknowledged is not None for s in crowd), sum(s.refused for s in crowd)] == [JOINS, 20 - JOINS]
        assert not any(s.exception for s in crowd)
        other = flood(1, "127.0.0.4")
        assert other[0].acknowledged is not None and not other[0].refused
        with open_workspace(folder) as ws:
            assert Classroom(ws).count(code, 0) == JOINS + 1
        expect(teacher.locator('[data-testid="stMetricValue"]')).to_have_text(str(JOINS + 1))
        expect(teacher.locator('[data-testid="stAlertContentWarning"]')).to_contain_text(
            f"{20 - JOINS} new sessions from one address refused in the last minute")
    finally:
        context.close()
