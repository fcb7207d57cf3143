"""Two judgment sets uploaded through the data page of a real browser (Debian's Chromium driven by Playwright)
against `streamlit run`; the judges page then shows Cohen's kappa and Kendall's tau_b as scikit-learn, and scipy
on pytrec_eval's means, compute them. Skipped when Chromium or Playwright is missing, except under CI=true,
where that is a failure."""

from __future__ import annotations

import warnings

import pytest

sklearn_metrics = pytest.importorskip("sklearn.metrics", reason="scikit-learn (the kappa oracle) is not installed")
from scipy.stats import kendalltau  # noqa: E402

from tests.dashboard.app_pages.judge_sets import LLM, REF, RUNS, grades_of, measure_means  # noqa: E402
from tests.e2e.conftest import charts_drawn, need_browser, settled

need_browser()

pytestmark = pytest.mark.browser


def _uploader(tab, label: str):
    return (tab.locator('[data-testid="stFileUploader"]').filter(has_text=label)
            .locator('[data-testid="stFileUploaderDropzoneInput"]'))


def _metric(tab, label: str):
    return tab.locator('[data-testid="stMetric"]').filter(has_text=label).locator('[data-testid="stMetricValue"]')


def test_two_uploaded_judgment_sets_show_kappa_and_tau_as_the_oracles_compute_them(server, page):  # noqa: F811
    from playwright.sync_api import expect

    ref, llm = grades_of(REF), grades_of(LLM)
    both = sorted(set(ref) & set(llm))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kappa = sklearn_metrics.cohen_kappa_score([ref[k] for k in both], [llm[k] for k in both])
    a, b = measure_means(REF, {"1", "2", "3"}), measure_means(LLM, {"1", "2", "3"})  # AP on the topics both sets judged
    tau = kendalltau([a[s] for s in "abc"], [b[s] for s in "abc"]).statistic

    page.goto(f"{server}/data")
    settled(page)
    _uploader(page, "Qrels").set_input_files(files=[{"name": "nist.qrels", "mimeType": "text/plain", "buffer": REF}])
    expect(page.get_by_text("at least one run", exact=False).first).to_be_visible()
    settled(page)
    _uploader(page, "Runs").set_input_files(files=[{"name": name, "mimeType": "text/plain", "buffer": text.encode()}
                                                   for name, text in RUNS.items()])
    expect(page.get_by_text("3 systems · qrels nist.qrels")).to_be_visible()
    settled(page)
    _uploader(page, "More judgment sets").set_input_files(files=[{"name": "llm.qrels", "mimeType": "text/plain",
                                                                  "buffer": LLM}])
    expect(page.get_by_text("judged by nist (of 2 judgment sets)")).to_be_visible()
    settled(page)
    expect(page.locator('[data-testid="stException"]')).to_have_count(0)

    page.locator('[data-testid="stSidebarNavLink"]', has_text="Judges").click()
    expect(page.locator('[data-testid="stMain"] h1').first).to_have_text("Judges")
    settled(page)
    charts_drawn(page, 1)  # the first tab's: the confusion of the two sets' grades
    expect(_metric(page, "Cohen's κ")).to_have_text(f"{kappa:.4f}")
    page.get_by_role("tab", name="Systems").click()
    settled(page)
    expect(_metric(page, "Kendall's τ_b, nist and llm")).to_have_text(f"{tau:.4f}")
    expect(page.locator('[data-testid="stException"]')).to_have_count(0)
