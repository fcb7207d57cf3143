"""Planted text reaches no one's browser as anything but text: no element made from it, no request from it.

A hostile colleague stores a collection whose every user string is Markdown and HTML: its name, its author,
the file names of its qrels and runs (so the system names), a topic id, the topic and document texts, review
notes (tag, comment, author, two concurrent revisions and a later one by another author), and links carry it in
``?collection=``, ``?measure=`` and ``?topic=``. Each payload holds an image, raw HTML, a link, a bare URL,
emphasis, code, a heading, a colour directive, an icon and a formula, each around its own word, and every URL
points at a loopback listener on another port. Every page is then opened in Chromium: the listener must get no
request, the page must ask nothing of any other address, and no element may be made from a payload (an image,
a link, emphasis, code, a heading, a formula around one of its words, or any attribute naming the listener).
"""

from __future__ import annotations

import http.server
import os
import threading
from urllib.parse import quote, urlsplit

import pytest

from tests import processes
from tests.e2e.conftest import VIEWPORT, every_page, need_browser, settled

need_browser()
from playwright.sync_api import expect  # noqa: E402

pytestmark = pytest.mark.browser
WORDS = ("Qimg", "Qraw", "Qlink", "Qbold", "Qem", "Qcode", "Qhead", "Qred", "Qmath", "Qx")
PAGES = every_page(stored=True)  # every page a server with a workspace serves, from the page table
# what a payload word must never be the whole text of: an element Markdown or HTML would make around it
FOUND = """([port, words]) => {
  const shaped = new Set(["a", "img", "strong", "em", "b", "i", "code", "del", "s", "h1", "h2", "h3", "h4", "h5", "h6",
                          "blockquote", "li", "span"]);
  const linking = new Set(["src", "href", "srcset", "xlink:href", "action", "formaction", "poster", "data", "style",
                           "background"]);
  const bad = [];
  const walk = (root) => {
    for (const el of root.querySelectorAll("*")) {
      for (const name of el.getAttributeNames()) {
        if (linking.has(name) && (el.getAttribute(name) || "").includes(":" + port))
          bad.push(`${el.localName}[${name}] ${el.outerHTML.slice(0, 300)} in ${(el.parentElement || el).outerHTML.slice(0, 200)}`);
      }
      const text = (el.textContent || "").trim();
      if (words.includes(text) && shaped.has(el.localName)) bad.push(`<${el.localName}>${text}`);
      if (el.classList && el.classList.contains("katex") && text.includes("Qmath")) bad.push("formula");
      if (el.shadowRoot) walk(el.shadowRoot);
    }
  };
  walk(document);
  return bad;
}"""


def _payload(port: int, tag: str, spaces: bool = True) -> str:
    """Markdown and HTML around the words of WORDS, each construct with its own word; one line of at most 256
    characters (a name, an author, a file name), its URLs naming ``tag``."""
    url = f"http://127.0.0.1:{port}/{tag[:3]}"
    if not spaces:  # for a topic id or a document id, one field of a TREC line
        return f"![Qimg]({url}i.png)[Qlink]({url}l)**Qbold**`Qcode`<img/src={url}h.png>"
    text = (f"# Qhead ![Qimg]({url}i.png) <img src={url}h.png> [Qlink]({url}l) {url}b **Qbold** _Qem_ `Qcode` "
            f":red[Qred] $Qmath$ :material/home: <b>Qraw</b> - Qx")
    assert len(text) + len(".qrels") <= 256, len(text)
    return text


def _short(port: int, tag: str) -> str:
    """A payload of at most 64 characters (a review tag): an image and emphasis."""
    return f"![Qimg](http://127.0.0.1:{port}/{tag[:2]}.png)**Qbold**<b>Qraw</b>"


class _Listener(http.server.BaseHTTPRequestHandler):
    hits: list[str] = []

    def do_GET(self):  # noqa: N802 - the name http.server calls
        type(self).hits.append(self.path)
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def listener():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", processes.free_port()), _Listener)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server.server_address[1], _Listener.hits
    finally:
        server.shutdown()


@pytest.fixture(scope="module")
def planted(listener, tmp_path_factory):
    """A workspace holding the planted collection: (folder, collection id, topic id of the payload)."""
    pytest.importorskip("sqlalchemy", reason="the workspace extra (sqlalchemy) is not installed")
    from workspace import open_workspace

    port, _ = listener
    folder = tmp_path_factory.mktemp("planted") / "ws"
    topic = _payload(port, "topicid", spaces=False)
    doc = _payload(port, "docid", spaces=False)
    qrels = f"1 0 d1 1\n1 0 d2 0\n2 0 d2 1\n{topic} 0 {doc} 1\n{topic} 0 d1 0\n".encode()

    def run(tag: str, order: tuple[str, ...]) -> bytes:
        return "".join(f"{q} Q0 {d} {r} {9 - r} {tag}\n" for q in ("1", "2", topic)
                       for r, d in enumerate(order, 1)).encode()

    texts = f"1\t{_payload(port, 'topictext')}\n2\tplain\n{topic}\t{_payload(port, 'othertext')}\n"
    docs = f"d1\t{_payload(port, 'title')}\t{_payload(port, 'body')}\nd2\tt\tx\n{doc}\tt\tx\n"
    with open_workspace(folder) as ws:
        info = ws.add_collection(_payload(port, "name"), qrels=(_payload(port, "qrels") + ".qrels", qrels),
                                 runs=[(_payload(port, "sysA") + ".run", run("a", ("d1", "d2", doc))),
                                       (_payload(port, "sysB") + ".run", run("b", (doc, "d2", "d1")))],
                                 author=_payload(port, "author"), topics=("topics.tsv", texts.encode()),
                                 documents=("docs.tsv", docs.encode()))
        first = ws.save_note(info.id, "1", None, _short(port, "tg"), _payload(port, "comment") + "\n- Qx\n# Qhead",
                             author=_payload(port, "noter"))
        for who in ("one", "two"):  # two saves from the same revision: both kept, the page offers to merge
            ws.save_note(info.id, "2", None, _short(port, who), _payload(port, who),
                         author=_payload(port, who))
    return folder, info.id, topic, first


@pytest.fixture(scope="module")
def server(planted, tmp_path_factory):
    folder = planted[0]
    port = processes.free_port()
    proc = processes.serve_dashboard(port, env={**os.environ, "RANKSCOPE_WORKSPACE": str(folder)})
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        processes.stop(proc)


def _check(tab, listener, visits: list[str], seen: set[str]) -> None:
    port, hits = listener
    bad = tab.evaluate(FOUND, [port, list(WORDS)])
    assert bad == [], (visits[-1], bad)
    assert hits == [], (visits[-1], hits)
    seen.update(w for w in WORDS if w in tab.evaluate("() => document.body.innerText"))


def test_planted_text_is_shown_as_text_and_fetches_nothing(server, planted, listener, browser, tmp_path):  # noqa: F811
    folder, cid, topic, first = planted
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_navigation_timeout(120_000)
    elsewhere: list[str] = []
    origin = urlsplit(server).netloc
    context.on("request", lambda r: elsewhere.append(r.url) if urlsplit(r.url).netloc not in (origin, "") else None)
    visits: list[str] = []
    seen: set[str] = set()
    try:
        tab = context.new_page()
        for path, title in PAGES:
            visits.append(title)
            tab.goto(f"{server}/{path}?collection={cid}")
            expect(tab.locator('[data-testid="stMain"] h1').first).to_have_text(title)
            settled(tab)
            _check(tab, listener, visits, seen)
        for topic_id in ("1", "2", topic):  # one topic: its text, its documents, its notes and their history
            visits.append(f"queries, topic {topic_id}")
            tab.goto(f"{server}/queries?collection={cid}&view=One+topic&topic={quote(topic_id, safe='')}")
            settled(tab)
            _check(tab, listener, visits, seen)
        from workspace import open_workspace

        with open_workspace(folder) as ws:  # another author saves over the revision this tab opened
            ws.save_note(cid, "1", None, "later", "later", author=_payload(listener[0], "changer"), base=first.revision)
        visits.append("queries, changed by another")
        tab.goto(f"{server}/queries?collection={cid}&view=One+topic&topic=1")
        settled(tab)
        _check(tab, listener, visits, seen)
        for query, page in ((f"collection={quote(_payload(listener[0], 'link'), safe='')}", None),
                            (f"collection={cid}&measure={quote(_payload(listener[0], 'measure'), safe='')}", "Overview"),
                            (f"collection={cid}&a={quote(_payload(listener[0], 'a'), safe='')}", "Queries")):
            visits.append(query[:40])
            tab.goto(f"{server}/{(page or 'overview').lower()}?{query}")
            if page is None:  # the link's collection is unknown: one line instead of the page
                expect(tab.locator('[data-testid="stAlertContentError"]').first).to_be_visible()
                expect(tab.locator('[data-testid="stStatusWidget"]')).to_have_count(0)
            else:
                expect(tab.locator('[data-testid="stMain"] h1').first).to_have_text(page)
                settled(tab)
            _check(tab, listener, visits, seen)
    finally:
        context.close()
    assert elsewhere == []
    assert {"Qimg", "Qlink", "Qbold", "Qcode", "Qraw", "Qmath"} <= seen  # the payloads were shown, as text
