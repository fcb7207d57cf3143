"""Soak: many people on one dashboard server at once, each uploading different files.

Eight browser tabs (separate contexts: separate Streamlit sessions) open the same server. Every tab's
uploads are sent before any result is awaited, so the server parses, ranks and evaluates eight collections
concurrently in its own threads, with one shared cache. Each tab must then show its own systems and, on
the overview chart, its own means, equal to what :mod:`metrics` computes for that tab's files. Twenty
sessions at once are driven through AppTest in :mod:`tests.dashboard.exports.test_session_file`, and twenty browsers
by ``benchmarks/dashboard_load.py``.
"""

from __future__ import annotations

import pytest

from metrics import aggregate, evaluate
from tests.dashboard.exports.session_files import session_collection
from tests.e2e.conftest import VIEWPORT, need_browser, settled

need_browser()
from playwright.sync_api import expect  # noqa: E402
from tests.e2e.shown import overview_means

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TABS = 8  # sessions 0-7 of test_sessions: 1 to 8 topics, 1 to 3 systems each


def _expected_means(i: int, measure: str) -> dict[str, float]:
    qrels, runs = session_collection(i)
    means = aggregate(evaluate(qrels, {name.removesuffix(".run"): body for name, body, _ in runs}, [measure]))
    return dict(zip(means["system"], means["value"]))


def test_eight_tabs_upload_at_once_and_each_sees_its_own_numbers(server, browser, tmp_path):  # noqa: F811
    contexts = [browser.new_context(viewport=VIEWPORT) for _ in range(TABS)]
    try:
        tabs = [c.new_page() for c in contexts]
        for tab in tabs:
            tab.goto(f"{server}/data")  # the uploaders are on the data page; the root opens the overview
        for tab in tabs:
            settled(tab)
        files = []
        for i, tab in enumerate(tabs):  # every tab's qrels go up before any is awaited
            qrels, runs = session_collection(i)
            files.append([{"name": name, "mimeType": "text/plain", "buffer": body} for name, body, _ in runs])
            tab.locator('[data-testid="stFileUploaderDropzoneInput"]').nth(1).set_input_files(
                files=[{"name": f"session{i}.qrels", "mimeType": "text/plain", "buffer": qrels}])
        for i, tab in enumerate(tabs):
            expect(tab.get_by_text("at least one run", exact=False).first).to_be_visible()
            tab.locator('[data-testid="stFileUploaderDropzoneInput"]').nth(0).set_input_files(files=files[i])
        for i, tab in enumerate(tabs):  # then every tab's runs, and every tab moves on while others compute
            n = len(files[i])
            expect(tab.get_by_text(f"{n} system{'s' * (n != 1)} · qrels session{i}.qrels")).to_be_visible()
            tab.locator('[data-testid="stSidebarNavLink"]', has_text="Overview").click()
        for i, tab in enumerate(tabs):
            measure, shown = overview_means(tab)
            expected = _expected_means(i, measure)
            assert shown.keys() == expected.keys(), i
            for system, value in expected.items():
                assert shown[system] == pytest.approx(value, rel=0, abs=1e-12), (i, system)
    finally:
        for c in contexts:
            c.close()
