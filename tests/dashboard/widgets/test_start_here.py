"""Each page's "start here" line links to the page's own section of the documentation the dashboard serves,
and says how to get it where the site is not built or not served (headless: Streamlit's AppTest).

The site is stood in for by a folder holding ``dashboard.html`` (the link names a file and an anchor; that
the built site has each anchor is tests/docs/test_site.py's part)."""

from __future__ import annotations

import pytest
from streamlit import config as st_config

from dashboard.pages import listed, script_path
from dashboard.server import config
from dashboard.widgets import notices
from tests.dashboard.conftest import open_page, unescaped

LINK = "[More in the documentation]({})"


def _said(at) -> str:
    return unescaped(" ".join(str(e.value) for e in [*at.markdown, *at.caption]))


@pytest.fixture
def static(monkeypatch, tmp_path):
    """A built site where the dashboard serves it, and ``server.enableStaticServing`` as the app's options
    set it; the test may turn either off."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "dashboard.html").write_text("<html></html>", encoding="utf-8")
    monkeypatch.setattr(config, "SITE", tmp_path / "docs")
    before = st_config.get_option("server.enableStaticServing")
    st_config.set_option("server.enableStaticServing", True)
    yield tmp_path / "docs"
    st_config.set_option("server.enableStaticServing", before)


def test_every_page_links_to_its_own_section(static):
    at, linked = open_page("data"), set()
    for page in listed(stored=False):
        open_page(page.script, at=at)
        said = _said(at)
        if "Start here." not in said:
            continue
        linked.add(page.script)
        assert LINK.format(f"app/static/docs/dashboard.html#page-{page.script}") in said, page.script
        assert notices.NOT_BUILT not in said and notices.NOT_SERVED not in said, page.script
    # every page whose script says where to start was seen saying it
    assert linked == {p.script for p in listed(stored=False) if "start_here(" in script_path(p).read_text()}


def test_a_site_not_built_or_not_served_is_said_and_not_linked(static, monkeypatch):
    monkeypatch.setattr(config, "SITE", static.parent / "absent")
    at = open_page("gain")
    assert notices.NOT_BUILT in _said(at) and "More in the documentation" not in _said(at)
    monkeypatch.setattr(config, "SITE", static)
    st_config.set_option("server.enableStaticServing", False)
    open_page("gain", at=at)
    assert notices.NOT_SERVED in _said(at) and "More in the documentation" not in _said(at)
