"""The browserless load driver of ``benchmarks/dashboard_load.py`` (``--driver websocket``) on a real server.

Its client (``benchmarks/streamlit_client.py``) speaks Streamlit's websocket protocol as the browser's
frontend does. These tests check that it sees what a browser would show: a page's title, the uploaded files'
names, an error the page shows for a bad file; that two sessions of the driver at once upload their files
and change pages without a failure; and that the driver names an upload that failed. No timing is asserted.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest


BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))
import dashboard_load  # noqa: E402
from streamlit_client import Session  # noqa: E402

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return dashboard_load.write_files(tmp_path_factory.mktemp("load"), 2, 3000, False)


def test_one_session_sees_the_pages_a_browser_shows(server, files, tmp_path):
    async def person():
        client = Session(server, 120)
        await client.connect()
        try:
            data = await client.run(page_name="data")
            assert (data.title, data.problems) == ("Data", [])
            assert {"Qrels", "Runs"} <= data.uploaders.keys()
            assert {"overview", "curves", "gain", "queries", "data"} <= client.pages.keys()

            bad = tmp_path / "bad.qrels"
            bad.write_text("301 0 doc1\n")
            shown = await client.upload("Qrels", [bad], data)
            assert len(shown.problems) == 1 and "bad" in shown.problems[0], shown.problems  # the page's error

            qrels, run = files[0]
            data = await client.run()
            data = await client.upload("Qrels", [qrels], data)
            assert data.problems == [] and any("at least one run" in t for t in data.texts)
            data = await client.upload("Runs", [run], data)
            assert data.problems == []
            assert any(f"1 system · qrels {qrels.name}" in t for t in data.texts), data.texts
            assert run.stem in data.texts  # the run's system, named after its file (the field to rename it)
            for name in dashboard_load.PAGES:
                page = await client.run(name.lower())
                assert (page.title, page.problems, page.status) == (name, [], "FINISHED_SUCCESSFULLY")
                assert page.charts >= dashboard_load.CHARTS[name], name
        finally:
            await client.close()

    asyncio.run(person())


def test_two_sessions_at_once_upload_and_change_pages(server, files):
    log = asyncio.run(dashboard_load.ws_drive(server, files, seconds=2, action_seconds=120))
    assert [err for _, _, err in log if err] == []
    kinds = [kind for kind, _, _ in log]
    for kind in ("open the data page", "upload qrels", "upload run"):
        assert kinds.count(f"{kind}: answered") == 2, kind
    assert kinds.count("page change: answered") >= 2


def test_a_failed_upload_is_named_and_ends_the_session(server, files, tmp_path):
    bad = tmp_path / "bad.qrels"
    bad.write_text("301 0 doc1\n")  # three fields: the page shows an error
    log = asyncio.run(dashboard_load.ws_drive(server, [(bad, files[0][1])], seconds=2, action_seconds=120))
    assert [kind for kind, _, _ in log] == ["open the data page: answered", "upload qrels: answered"]
    assert log[0][2] is None
    assert log[1][2].startswith("session 0: upload qrels: error shown: bad"), log[1][2]


def test_an_answer_too_late_is_a_failure(server, files):
    log = asyncio.run(dashboard_load.ws_drive(server, files[:1], seconds=2, action_seconds=0.01))
    assert len(log) == 1, log  # the session stops at its first failure
    kind, _, err = log[0]
    assert kind == "open the data page: answered"
    assert err is not None and err.startswith("session 0: open the data page: "), err
