"""The dashboard a notebook opens (rankscope.notebook.open_dashboard), in a real browser: its link opens the
stored collection, a run held as a PyTerrier frame among its systems. Skipped when Chromium or Playwright is
missing, except under CI=true, where that is a failure."""

from __future__ import annotations

import pandas as pd
import pytest

import metrics
from tests.e2e.conftest import ROOT, need_browser, settled
from tests.processes import group_members

need_browser()
pytest.importorskip("sqlalchemy", reason="the workspace extra (sqlalchemy) is not installed")
from playwright.sync_api import expect  # noqa: E402

from rankscope.notebook import Collection  # noqa: E402

pytestmark = pytest.mark.browser
DEMO = ROOT / "sample_data" / "demo"


def test_the_link_opens_the_collection_held_in_the_notebook(page, tmp_path):  # noqa: F811
    frame = metrics.read_run(DEMO / "runs" / "dense_precise.run.gz").frame
    pyterrier = pd.DataFrame({"qid": frame["query"], "docno": frame["docid"], "score": frame["score"],
                              "rank": frame.groupby("query").cumcount(), "query": "query text"})
    nb = Collection(DEMO / "qrels.txt", {"bm25": DEMO / "runs" / "bm25.run.gz", "from_pyterrier": pyterrier})
    board = nb.open("held in a notebook", workspace=tmp_path / "ws", show=False, timeout=240)
    try:
        page.goto(board.url)
        settled(page)
        expect(page.locator('[data-testid="stMain"] h1').first).to_have_text("Overview")
        main = page.locator('[data-testid="stMain"]')
        expect(main).to_contain_text("from_pyterrier")  # the chart's text alternative names each system
        expect(main).not_to_contain_text("weak_tfidf")  # not the demo collection
        assert f"collection={board.collection}" in page.url
    finally:
        board.close()
    assert group_members(board.pid) == []
