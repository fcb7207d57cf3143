"""The README fits on a screen or two, and every page it sends a reader to exists.

Its commands run with the site's examples (tests/docs/test_examples.py); what it used to hold in full is on
the documentation site, which it links to in one click per task.
"""

from __future__ import annotations

import re

from tests.docs import examples

README = examples.ROOT / "README.md"
MAX_LINES = 150


def test_the_readme_is_at_most_150_lines():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_LINES, f"README.md has {len(lines)} lines; the rest belongs on the site (docs/)"


def test_every_link_of_the_readme_leads_to_a_page_and_its_section():
    text = README.read_text(encoding="utf-8")
    links = re.findall(r"\]\(((?:docs|sample_data|benchmarks)/[^)#\s]*)(?:#([^)\s]+))?\)", text)
    assert len(links) >= 10, "the README links into the documentation, a page per task"
    for path, anchor in links:
        page = examples.text_of(path)
        assert page is not None, f"README.md links to {path}, which does not exist"
        if anchor:
            headings = re.findall(r"^#+ (.+)$", page, re.M)
            slugs = {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}
            assert anchor in slugs, f"README.md links to {path}#{anchor}: no such section"
