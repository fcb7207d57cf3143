"""The checks that speak for every page visit every page of the page table (:data:`dashboard.pages.PAGES`).

The security checks (planted text shown as text, no secret shown, no page for an unverified address or a
replayed cookie after its sign-out), the offline check and the layout and
accessibility checks each visit the pages their module lists; here each list is compared with the pages a
server with a workspace serves, so a page added to the table, or left out of a list, fails here.
"""

from __future__ import annotations

import importlib

import pytest

from dashboard.pages import served

CHECKS = ("test_planted_text", "test_secrets", "test_offline", "test_layout", "test_login_attacks")


@pytest.mark.parametrize("name", CHECKS)
def test_the_check_visits_every_page_of_the_page_table(name):
    module = importlib.import_module(f"tests.e2e.{name}")  # skips (fails under CI=true) without Chromium
    visited = {path for path, _ in module.PAGES}
    pages = served(stored=True)
    root = {p.url_path for p in pages if p.default}  # the root address opens the overview, visited by its own
    assert visited == {p.url_path for p in pages} - root
    assert {title for _, title in module.PAGES} == {p.title for p in pages if not p.default}
