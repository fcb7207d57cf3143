"""The documentation site: it builds with every warning an error, and Chromium reads every page of it.

The site is built once for the module, as ``python3 dev.py docs`` builds it (Sphinx, ``-W``). Chromium then
opens each page of the built site from the disk: no request leaves it, no link into the site is broken (the
page and the anchor exist), no page is wider than a 1366-pixel screen, and the measures page has a section
for every measure of the registry and no other. The module runs on the browser tests' worker
(``tests/conftest.py``): one Chromium at a time.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from tests.e2e.conftest import ARGS, CHROMIUM, MISSING

ROOT = Path(__file__).resolve().parents[2]
WIDTH = 1366


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    warnings = out.parent / "warnings.txt"
    done = subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-E", "-W", "--keep-going", "-q",
                           "-w", str(warnings), str(ROOT / "docs"), str(out)], capture_output=True, text=True,
                          timeout=600, cwd=ROOT)
    assert done.returncode == 0, f"the site does not build:\n{warnings.read_text() if warnings.exists() else ''}" \
                                 f"\n{done.stderr[-3000:]}"
    return out


def pages(site: Path) -> list[Path]:
    """Every page of the built site (the theme's templates in ``_static`` are none)."""
    return sorted(p for p in site.rglob("*.html") if "_static" not in p.relative_to(site).parts)


def test_the_site_builds_with_warnings_as_errors_and_has_every_page(site):
    built = {str(p.relative_to(site)) for p in pages(site)}
    sources = {str(p.relative_to(ROOT / "docs").with_suffix(".html")) for p in (ROOT / "docs").rglob("*.md")
               if "_ext" not in p.parts}
    assert sources <= built, sorted(sources - built)
    from rankscope.api import GROUPS

    assert {f"reference/python/{group}.html" for group in GROUPS} <= built


def test_the_measures_page_has_every_registered_measure(site):
    from docutils.nodes import make_id

    from metrics.measures import list_measures

    text = (site / "measures.html").read_text(encoding="utf-8")
    sections = set(re.findall(r'<section id="(measure-[^"]+)"', text))
    assert sections == {make_id(f"measure-{cls.name}") for cls in list_measures()}
    for cls in list_measures():  # each section has its formula, written as MathML
        section = text.split(f'<section id="{make_id(f"measure-{cls.name}")}"', 1)[1].split("</section>", 1)[0]
        assert f'<span class="pre">{cls.name}</span>' in section and "<math" in section, cls.name


def _ids(path: Path, cache: dict) -> set[str]:
    if path not in cache:
        cache[path] = set(re.findall(r'\bid="([^"]+)"', path.read_text(encoding="utf-8")))
    return cache[path]


@pytest.mark.browser
def test_chromium_reads_every_page_offline_with_no_broken_link_and_no_page_too_wide(site):
    if MISSING:
        if os.environ.get("CI") == "true":
            pytest.fail(f"browser tests must run in CI; missing: {', '.join(MISSING)}")
        pytest.skip(f"missing: {', '.join(MISSING)}")
    from playwright.sync_api import sync_playwright

    outside, broken, wide, ids = [], [], [], {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        context = browser.new_context(viewport={"width": WIDTH, "height": 900})

        def route(r):
            if urlsplit(r.request.url).scheme in ("file", "data", "blob", "about"):
                r.continue_()
            else:
                outside.append(r.request.url)
                r.abort()

        context.route("**/*", route)
        tab = context.new_page()
        try:
            for path in pages(site):
                tab.goto(path.as_uri())
                tab.wait_for_load_state("load")
                width = tab.evaluate("document.documentElement.scrollWidth")
                if width > WIDTH:
                    wide.append(f"{path.relative_to(site)}: {width} px")
                for href in tab.eval_on_selector_all("a[href]", "els => els.map(e => e.href)"):
                    parts = urlsplit(href)
                    if parts.scheme != "file":
                        continue
                    target = Path(unquote(parts.path))
                    if not target.is_file():
                        broken.append(f"{path.relative_to(site)} -> {href}")
                    elif parts.fragment and target.suffix == ".html" and unquote(parts.fragment) not in _ids(target, ids):
                        broken.append(f"{path.relative_to(site)} -> {href}")
        finally:
            context.close()
            browser.close()
    assert outside == [], f"requests outside the machine: {sorted(set(outside))}"
    assert broken == [], broken
    assert wide == [], wide


def test_a_public_function_without_a_docstring_is_an_error():
    """The check the build runs on every public object warns (so -W fails) on an empty docstring only."""
    sys.path.insert(0, str(ROOT / "docs" / "_ext"))
    try:
        import rankscope_site
    finally:
        sys.path.remove(str(ROOT / "docs" / "_ext"))
    logged = []
    rankscope_site.logger.warning = lambda *args, **kwargs: logged.append(args)  # the build's own logger
    for what, lines in (("function", []), ("function", ["Evaluate."]), ("data", []), ("class", ["", " "])):
        rankscope_site.undocumented(None, what, "metrics.x", None, {}, lines)
    assert [(args[1], args[2]) for args in logged] == [("function", "metrics.x"), ("class", "metrics.x")]
