"""What the browser tests share: Debian's Chromium driven by Playwright against `streamlit run`, one server per
module (in a process group of its own, stopped as a group), one browser per module, and the waits every test
uses (never a sleep: every run a tab asked for, and elements Streamlit marks stale, are waited out). A
failing test's report also holds what its tabs saw and the last lines each running server printed.

A module that needs the browser calls :func:`need_browser` at import: skipped when Chromium or Playwright is
missing, except under CI=true, where that is a failure.
"""

from __future__ import annotations

import collections
import os
import shutil
import struct
import time
from pathlib import Path

import pytest

from tests import processes

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
VIEWPORT = {"width": 1440, "height": 1100}

MISSING = []
try:
    from playwright.sync_api import expect, sync_playwright
except ImportError:  # pragma: no cover - depends on the machine
    MISSING.append("playwright (pip install playwright)")
if not Path(CHROMIUM).exists():
    MISSING.append("Debian's chromium (apt-get install chromium)")


def need_browser() -> None:
    """Skip the calling module when the browser is missing (fail it under CI=true)."""
    if not MISSING:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"browser tests must run in CI; missing: {', '.join(MISSING)}", pytrace=False)
    pytest.skip(f"missing: {', '.join(MISSING)}", allow_module_level=True)


def every_page(stored: bool = True) -> list[tuple[str, str]]:
    """``(address, title)`` of every page of the page table (:data:`dashboard.pages.PAGES`) that a server serves
    (``stored``: one with a workspace), hidden ones included; the root address is left out, since it opens the
    overview, which is visited at its own address."""
    from dashboard.pages import served

    return [(p.url_path, p.title) for p in served(stored) if not p.default]


@pytest.fixture(scope="module")
def server():
    proc, port = None, processes.free_port()
    try:
        proc = processes.serve_dashboard(port)
        yield f"http://127.0.0.1:{port}"
    finally:
        if proc is not None:
            processes.stop(proc)


@pytest.fixture(scope="module")
def stored_server(tmp_path_factory):
    """The dashboard on a fresh workspace (seeded with the demo collection), so that every page of the page
    table is there, the collections page among them."""
    env = {**os.environ, "RANKSCOPE_WORKSPACE": str(tmp_path_factory.mktemp("workspace"))}
    proc, port = None, processes.free_port()
    try:
        proc = processes.serve_dashboard(port, env=env)
        yield f"http://127.0.0.1:{port}"
    finally:
        if proc is not None:
            processes.stop(proc)


# What the browser saw during the running test, reported beside its error when it fails (see watch).
EVENTS: collections.deque[str] = collections.deque(maxlen=80)
_STARTED = [time.monotonic()]
# Each tab logs the app's connection and script-run state as they change (the attributes Streamlit sets), and
# keeps in window.__e2e a count of what it asked of the server and what was answered, read off the wire, where
# nothing is batched or late: a rerun request (a BackMsg whose first field is rerun_script, 11) or an upload
# (file_urls_request, 16, then a PUT) is asked; the server's script_finished (ForwardMsg field 6) for anything
# but a run cut short for a rerun, or a failed PUT, after which no run comes, answers everything asked before.
_WATCH = """(() => {
  const seen = {};
  new MutationObserver(() => {
    const app = document.querySelector('[data-testid="stApp"]');
    for (const name of ['data-test-connection-state', 'data-test-script-state']) {
      const value = app ? app.getAttribute(name) : null;
      if (value !== seen[name]) { seen[name] = value; console.debug(`e2e ${name.slice(10)}: ${value}`); }
    }
  }).observe(document, {subtree: true, childList: true, attributes: true,
                        attributeFilter: ['data-test-connection-state', 'data-test-script-state']});

  // asked/answered: the last request for a run and the last run's end; reruns: the last rerun requests sent
  // (bytes), and socket: the websocket they went on, for a test to send one again
  const runs = window.__e2e = {seq: 0, asked: 0, answered: 0, reruns: [], socket: null};
  const ask = () => { runs.asked = ++runs.seq; };
  const answer = () => { runs.answered = ++runs.seq; };
  const bytesOf = (data) => data instanceof ArrayBuffer ? new Uint8Array(data)
    : ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : null;
  const finished = (bytes) => {  // the value of a top-level varint field 6 (script_finished), or undefined
    let i = 0;
    const varint = () => {
      let v = 0, s = 1, b;
      do { b = bytes[i++]; v += (b & 0x7f) * s; s *= 128; } while (b & 0x80);
      return v;
    };
    while (i < bytes.length) {
      const tag = varint(), type = tag % 8;
      if (type === 0) { const v = varint(); if (tag === 48) return v; }
      else if (type === 2) { const length = varint(); i += length; }
      else if (type === 1) i += 8;
      else if (type === 5) i += 4;
      else return undefined;
    }
  };
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    if (!this.__e2e) {
      this.__e2e = true;
      this.addEventListener('message', (event) => {
        const bytes = bytesOf(event.data), status = bytes && finished(bytes);
        if (status !== undefined && status !== 2) answer();
      });
    }
    const bytes = bytesOf(data);
    if (bytes && (bytes[0] === 0x5a || (bytes[0] === 0x82 && bytes[1] === 0x01))) ask();
    if (bytes && bytes[0] === 0x5a) {
      runs.socket = this;
      runs.reruns = [...runs.reruns.slice(-19), Array.from(bytes)];
    }
    return send.call(this, data);
  };
  const open = XMLHttpRequest.prototype.open, put = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.open = function (method, url, ...rest) {
    this.__e2eUpload = method === 'PUT' && String(url).includes('/_stcore/upload_file/');
    return open.call(this, method, url, ...rest);
  };
  XMLHttpRequest.prototype.send = function (...body) {
    if (this.__e2eUpload) {  // a stored file: its run comes next; a refused one: no run comes
      this.addEventListener('loadend', () => (this.status >= 200 && this.status < 300 ? ask : answer)());
    }
    return put.apply(this, body);
  };
})()"""


def _event(text: str) -> None:
    EVENTS.append(f"{time.monotonic() - _STARTED[0]:7.2f} s  {text}")


def watch(context) -> None:
    """Record in :data:`EVENTS`, from every tab of a browser context: its connection and script-run changes,
    the size of each websocket message it sends, websocket closes, the status of each upload request (any
    request but a GET), failed requests, and console errors and warnings."""
    context.add_init_script(_WATCH)

    def console(message) -> None:
        if message.type in ("error", "warning") or message.text.startswith("e2e "):
            _event(f"{message.page.url if message.page else '?'} console {message.type}: {message.text[:300]}")

    def socket(page, ws) -> None:
        _event(f"{page.url} websocket open")
        ws.on("close", lambda _: _event(f"{page.url} websocket closed"))
        # what the tab asks of the server (a rerun, a file's upload address); what comes back is too much
        ws.on("framesent", lambda payload: _event(f"{page.url} sent {len(payload)} bytes"))

    def tab(page) -> None:
        page.on("websocket", lambda ws: socket(page, ws))
        page.on("crash", lambda _: _event(f"{page.url} tab crashed"))
        page.on("response", lambda r: _event(f"{r.request.method} {r.url.split('/_stcore/')[-1]}: {r.status}")
                if r.request.method != "GET" else None)  # uploads and their removal

    context.on("console", console)
    context.on("requestfailed", lambda r: _event(f"request failed: {r.method} {r.url} ({r.failure})"))
    context.on("page", tab)


@pytest.fixture(autouse=True)
def _browser_events():
    EVENTS.clear()
    _STARTED[0] = time.monotonic()
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call" and report.failed:
        if EVENTS:
            report.sections.append(("what the browser saw", "\n".join(EVENTS)))
        tails = processes.log_tails()
        if tails:
            report.sections.append(("what the servers printed", tails))


def launch(playwright):
    """Debian's Chromium, every tab of which is watched (:func:`watch`)."""
    launched = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
    new_context = launched.new_context

    def watched_context(*args, **kwargs):
        context = new_context(*args, **kwargs)
        watch(context)
        return context

    launched.new_context = watched_context
    return launched


@pytest.fixture(scope="module")
def browser():
    expect.set_options(timeout=60_000)
    with sync_playwright() as p:
        b = launch(p)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport=VIEWPORT, accept_downloads=True)
    tab = context.new_page()
    yield tab
    context.close()


_ENDED = """() => document.querySelector('[data-testid="stApp"]')?.getAttribute('data-test-script-state') === 'notRunning'"""
# everything the tab asked of the server has been answered (see _WATCH)
_ANSWERED = """() => !window.__e2e || window.__e2e.answered > window.__e2e.asked"""


def author_tab(browser, url: str, name: str):
    """A new browser (its own cookies) on ``url`` with ``name`` typed as the author; actions wait as long as
    the expectations do (a shared, busy machine)."""
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(60_000)
    tab = context.new_page()
    tab.goto(url)
    settled(tab)
    box = tab.get_by_role("textbox", name="Your name (for notes and saved collections)")
    box.fill(name)
    box.press("Enter")
    settled(tab)
    return tab


def png_size(path: Path) -> tuple[int, int]:
    """The width and height a PNG file's header states (ValueError when it is not a PNG)."""
    head = path.read_bytes()[:24]
    if head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        raise ValueError(f"{path}: expected a PNG file, found {head[:8]!r}")
    return struct.unpack(">II", head[16:24])


def drop_files(page, uploader: int | str, files) -> None:
    """Give ``files`` (paths, or Playwright's ``{"name", "mimeType", "buffer"}``) to the page's
    ``uploader``-th file uploader, counted from 0, or the one whose label holds ``uploader``, and wait until
    the uploader lists each of them.

    In CI, drops have gone unnoticed now and then: the uploader listed no file and the page never ran with
    it. Each came right after a click or a typed name whose run had not started when :func:`settled`
    returned (which it now waits for), so the run that came next redrew the page without the drop. A user
    who sees the uploader still empty drops the file again; so does this, once, and only when no upload
    request left the tab. A drop that was sent and then not shown still fails."""
    files = files if isinstance(files, list) else [files]
    names = [f["name"] if isinstance(f, dict) else Path(f).name for f in files]
    sent = []

    def request(r) -> None:
        if r.method == "PUT" and "/_stcore/upload_file/" in r.url:
            sent.append(r.url)

    boxes = page.locator('[data-testid="stFileUploader"]')
    box = boxes.nth(uploader) if isinstance(uploader, int) else boxes.filter(has_text=uploader)
    page.on("request", request)
    try:
        for attempt in (1, 2):
            box.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(files)
            try:
                for name in names:
                    expect(box.locator('[data-testid="stFileChipName"]', has_text=name).first).to_be_attached(
                        timeout=30_000)
                return
            except AssertionError:
                if sent or attempt == 2:
                    raise
                _event(f"the uploader took no notice of {', '.join(names)} (no upload request): dropped again")
    finally:
        page.remove_listener("request", request)


def settled(page) -> None:
    """Wait until every run the page asked for (a click, a typed value, an upload) has been answered, the app
    has finished running and nothing on the page is stale."""
    expect(page.locator('[data-testid="stApp"]')).to_be_attached()
    page.wait_for_function(_ANSWERED, timeout=120_000)
    expect(page.locator('[data-testid="stMain"] h1').first).to_be_visible()
    expect(page.locator('[data-testid="stStatusWidget"]')).to_have_count(0)
    expect(page.locator('[data-stale="true"]')).to_have_count(0)
    page.wait_for_function(_ENDED, timeout=120_000)  # the run has ended: nothing more is coming


# the script has ended, nothing is stale, loading or waiting, and every chart on the page has been drawn
_DRAWN = """() => document.querySelector('[data-testid="stApp"]')?.getAttribute('data-test-script-state') === 'notRunning'
  && !document.querySelector('[data-stale="true"], [data-testid="stStatusWidget"], [data-testid="stSkeleton"], '
                             + '[data-testid="stSpinner"]')
  && [...document.querySelectorAll('[data-testid="stPlotlyChart"]')].every(c => c.querySelector('.main-svg'))"""


def drawn(page, timeout: float = 120_000) -> None:
    """:func:`settled`, and the page's script ended with every chart drawn (what a layout check reads)."""
    settled(page)
    page.wait_for_function(_DRAWN, timeout=timeout)


def charts_drawn(page, count: int) -> None:
    """Exactly ``count`` charts are visible (those of hidden tabs are not), each drawn by plotly."""
    charts = page.locator('[data-testid="stPlotlyChart"]:visible')
    expect(charts).to_have_count(count)
    for i in range(count):
        expect(charts.nth(i).locator(".main-svg").first).to_be_attached()
        expect(charts.nth(i).locator(".plot-container")).to_be_visible()
    expect(page.locator('[data-testid="stException"]')).to_have_count(0)


SEVERE = ("serious", "critical")


def severe_violations(page) -> list[str]:
    """axe-core's serious and critical violations on the page, one line each (axe-playwright-python ships
    axe-core, so nothing is fetched)."""
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page, options={"resultTypes": ["violations"]})
    return [f"axe {v['id']} ({v['impact']}): {v['help']}: "
            + "; ".join(" ".join(n["target"]) if isinstance(n["target"], list) else str(n["target"])
                        for n in v["nodes"][:4])
            for v in results.response["violations"] if v["impact"] in SEVERE]
