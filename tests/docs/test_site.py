"""The documentation site: it builds with every warning an error, the dashboard serves it, and Chromium reads
every page of it there.

The site is built once for the module by ``python3 dev.py docs``'s own command (Sphinx, ``-W``), where that
command builds it: ``dashboard/static/docs/`` (ignored by git), the folder the dashboard serves at
``/app/static/docs/``. A dashboard server then serves it, as ``streamlit run`` does from the repository (its
options are the table of :mod:`dashboard.server.config`). Its files come with the types their names say and
nothing but the site comes out of the served folder. Chromium follows a page's "start here" link to its
section, then opens each page of the site: no request leaves the dashboard's address, every file a page asks
for is there with a type the browser accepts, no link into the site is broken (the page and the anchor exist),
no page is wider than a 1366-pixel screen, and the measures page has a section for every measure of the
registry and no other. The module runs on the browser tests' worker (``tests/conftest.py``): one Chromium at a
time.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from dashboard.server import config
from tests.e2e.conftest import ARGS, CHROMIUM, MISSING, server  # noqa: F401 (the dashboard, a fixture)

ROOT = Path(__file__).resolve().parents[2]
WIDTH = 1366
# the type each kind of file of the site is served with: a page, a style sheet or a script of another type is
# refused by the browser (the dashboard sends "nosniff"); the rest must merely not be read as a page
TYPES = {".html": ("text/html",), ".css": ("text/css",), ".js": ("text/javascript", "application/javascript"),
         ".png": ("image/png",), ".svg": ("image/svg+xml",), ".woff2": ("font/woff2",)}


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    import dev

    assert dev.SITE == config.SITE, "dev.py docs builds the site where the dashboard does not look for it"
    out = tmp_path_factory.mktemp("sphinx")
    warnings = out / "warnings.txt"
    done = subprocess.run([str(a) for a in dev.sphinx(sys.executable, config.SITE, out / "doctrees", "-w", warnings)],
                          capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert done.returncode == 0, f"the site does not build:\n{warnings.read_text() if warnings.exists() else ''}" \
                                 f"\n{done.stderr[-3000:]}"
    return config.SITE


def pages(site: Path) -> list[Path]:
    """Every page of the built site (the theme's templates in ``_static`` are none)."""
    return sorted(p for p in site.rglob("*.html") if "_static" not in p.relative_to(site).parts)


def test_the_site_builds_with_warnings_as_errors_and_has_every_page(site):
    built = {str(p.relative_to(site)) for p in pages(site)}
    sources = {str(p.relative_to(ROOT / "docs").with_suffix(".html")) for p in (ROOT / "docs").rglob("*.md")
               if "_ext" not in p.parts and "_build" not in p.parts}
    assert sources <= built, sorted(sources - built)
    from rankscope.api import GROUPS

    assert {f"reference/python/{group}.html" for group in GROUPS} <= built


def test_no_page_says_where_the_site_was_built(site):
    """A value computed from the checkout's location (a data path) is the build machine's, not the reader's."""
    found = [str(p.relative_to(site)) for p in pages(site) if str(ROOT) in p.read_text(encoding="utf-8")]
    assert found == []


def test_every_page_of_the_dashboard_links_to_a_section_of_the_built_site(site, monkeypatch):
    """Each page's "start here" link (:func:`dashboard.widgets.section_url`, for every page of the page table)
    names a file of the built site and an anchor in it, and the section there is about that page."""
    from dashboard.pages import PAGES
    from dashboard.widgets import section_url

    ids = {}
    for page in PAGES:
        url = section_url(page)
        assert url is not None and url.startswith(config.SITE_URL), (page.script, url)
        path, _, anchor = url.removeprefix(config.SITE_URL).partition("#")
        target = site / path
        assert target.is_file(), f"{page.script}: {url} names no file of the site"
        assert anchor in _ids(target, ids), f"{page.script}: {url} names no section of {path}"
        section = target.read_text(encoding="utf-8").split(f'id="{anchor}"', 1)[1]
        heading = re.search(r"<h[12]>(.*?)<a", section, re.S).group(1)
        assert page.title in heading or page.default, f"{page.script}: its section is headed {heading!r}"
    monkeypatch.setattr(config, "SITE", site / "not-built")
    assert section_url(PAGES[0]) is None  # not built: no link (the page says how to build it)


def test_every_listed_page_has_its_screenshot_in_the_documentation():
    """docs/dashboard.md shows each listed page's screenshot under its section, and docs/screenshots holds
    those and no other (``python3 dev.py screenshots`` takes them)."""
    import dev
    from dashboard.pages import listed

    text = (ROOT / "docs" / "dashboard.md").read_text(encoding="utf-8")
    for page in listed(stored=True):
        section = text.split(f"(page-{page.script})=", 1)[1].split("\n(page-", 1)[0]
        assert f"](screenshots/{page.script}.png)" in section, page.script
    assert sorted(p.name for p in dev.SCREENSHOTS.iterdir()) == sorted(f"{p.script}.png" for p in listed(True))
    assert set(re.findall(r"\]\(screenshots/([^)]+)\)", text)) == {f"{p.script}.png" for p in listed(True)}


def test_the_measures_page_has_every_registered_measure(site):
    from docutils.nodes import make_id

    from metrics.measures import list_measures

    text = (site / "measures.html").read_text(encoding="utf-8")
    sections = set(re.findall(r'<section id="(measure-[^"]+)"', text))
    assert sections == {make_id(f"measure-{cls.name}") for cls in list_measures()}
    for cls in list_measures():  # each section has its formula, written as MathML
        section = text.split(f'<section id="{make_id(f"measure-{cls.name}")}"', 1)[1].split("</section>", 1)[0]
        assert f'<span class="pre">{cls.name}</span>' in section and "<math" in section, cls.name


def _get(url: str) -> tuple[int, str, str]:
    """The status, content type and ``X-Content-Type-Options`` of a GET of ``url``."""
    try:
        with urllib.request.urlopen(url, timeout=30) as reply:
            return reply.status, reply.headers.get("Content-Type", ""), reply.headers.get("X-Content-Type-Options", "")
    except urllib.error.HTTPError as err:
        return err.code, err.headers.get("Content-Type", ""), ""


def test_the_dashboard_serves_the_site_each_file_with_its_type_and_nothing_else(site, server):
    dashboard = server
    assert sorted(os.listdir(config.STATIC)) == ["docs"], "the dashboard serves its folder static/: the site only"
    assert not [p for p in site.rglob("*") if p.suffix == ".pickle" or p.name == ".doctrees"]
    served = f"{dashboard}/{config.SITE_URL}"
    suffixes = {}
    for path in sorted(site.rglob("*")):
        if path.is_file():
            suffixes.setdefault(path.suffix, path)
    assert set(TYPES) - {".svg"} <= set(suffixes), sorted(suffixes)  # every kind the table speaks of is checked
    for suffix, path in suffixes.items():
        status, kind, sniff = _get(served + path.relative_to(site).as_posix())
        assert status == 200 and sniff == "nosniff", (path, status, sniff)
        media = kind.split(";")[0].strip()
        assert media in TYPES.get(suffix, ()) if suffix in TYPES else media != "text/html", (path, kind)
    for outside in ("", "docs/", "../app.py", "docs/../../pages.py", "..%2fapp.py", "docs/%2e%2e/%2e%2e/app.py",
                    "docs/.doctrees/environment.pickle"):
        status, _, _ = _get(f"{dashboard}/app/static/{outside}")
        assert status in (400, 404), (outside, status)


def _ids(path: Path, cache: dict) -> set[str]:
    if path not in cache:
        cache[path] = set(re.findall(r'\bid="([^"]+)"', path.read_text(encoding="utf-8")))
    return cache[path]


@pytest.mark.browser
def test_chromium_reads_every_page_where_the_dashboard_serves_it(site, server):
    dashboard = server
    if MISSING:
        if os.environ.get("CI") == "true":
            pytest.fail(f"browser tests must run in CI; missing: {', '.join(MISSING)}")
        pytest.skip(f"missing: {', '.join(MISSING)}")
    from playwright.sync_api import expect, sync_playwright

    origin, served = urlsplit(dashboard).netloc, f"{dashboard}/{config.SITE_URL}"
    outside, failed, refused, broken, wide, ids = [], [], [], [], [], {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        context = browser.new_context(viewport={"width": WIDTH, "height": 900})
        context.set_default_timeout(120_000)  # a busy machine

        def route(r):
            if urlsplit(r.request.url).scheme in ("data", "blob", "about") or urlsplit(r.request.url).netloc == origin:
                r.continue_()
            else:
                outside.append(r.request.url)
                r.abort()

        context.route("**/*", route)
        # a file of the site that is not served (the dashboard's own page probes its address for a path prefix:
        # /gain/_stcore/health answers 404 before /_stcore/health does)
        context.on("response", lambda r: failed.append(f"{r.status} {r.url}")
                   if r.status >= 400 and r.url.startswith(served) else None)
        context.on("console", lambda m: refused.append(f"{m.page.url if m.page else '?'}: {m.text}")
                   if m.type == "error" else None)
        tab = context.new_page()
        try:
            tab.goto(f"{dashboard}/gain")  # a page of the dashboard leads to its section of the site
            link = tab.get_by_role("link", name="More in the documentation")
            expect(link).to_be_visible(timeout=120_000)
            refused.clear()  # the dashboard's own probes for a path prefix log 404s: the site's errors from here
            with context.expect_page() if link.get_attribute("target") == "_blank" else _same(tab) as opened:
                link.click()
            section = opened.value
            section.wait_for_load_state("load")
            assert section.url == f"{served}dashboard.html#page-gain"
            expect(section.locator("#page-gain h2")).to_have_text(re.compile("^Gain"))
            expect(section.locator("#page-gain img")).to_have_attribute("src", re.compile(r"gain\.png$"))
            for path in pages(site):
                tab.goto(served + path.relative_to(site).as_posix())
                tab.wait_for_load_state("load")
                width = tab.evaluate("document.documentElement.scrollWidth")
                if width > WIDTH:
                    wide.append(f"{path.relative_to(site)}: {width} px")
                for href in tab.eval_on_selector_all("a[href]", "els => els.map(e => e.href)"):
                    parts = urlsplit(href)
                    if parts.netloc != origin:
                        continue
                    assert parts.path.startswith(urlsplit(served).path), f"{path.relative_to(site)} -> {href}"
                    target = site / unquote(parts.path.removeprefix(urlsplit(served).path))
                    if not target.is_file():
                        broken.append(f"{path.relative_to(site)} -> {href}")
                    elif parts.fragment and target.suffix == ".html" and unquote(parts.fragment) not in _ids(target, ids):
                        broken.append(f"{path.relative_to(site)} -> {href}")
        finally:
            context.close()
            browser.close()
    assert outside == [], f"requests outside the machine: {sorted(set(outside))}"
    assert failed == [], sorted(set(failed))
    assert refused == [], refused  # a style sheet or a script of the wrong type is refused here
    assert broken == [], broken
    assert wide == [], wide


class _same:
    """``context.expect_page()``'s shape for a link that opens in the same tab."""

    def __init__(self, tab) -> None:
        self.value = tab

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.value.wait_for_load_state("load")


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
