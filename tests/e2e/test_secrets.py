"""No secret of a location leaves: planted in every way a location can hold one, searched in every output.

A real PostgreSQL (trust authentication, so a password in the URL is accepted whatever it is) holds the
workspace. Each secret is a distinct random word, planted once: the password of the user info, a password
holding ``@``, ``?password=``, ``?sslpassword=``, ``?token=``, ``?key=``, ``?secret=``, a misspelt scheme, another
driver, a port that is not a number, an open IPv6 bracket, an ``ftp://`` file store, a run's URL, a usage error,
``$RANKSCOPE_WORKSPACE`` of a dashboard server and the link's ``?collection=``; and the forms a library repeats
in part: a missing ``memory://`` run (fsspec's message drops the scheme), a Dask scheduler's address that does
not parse (Dask quotes what follows a ``:`` as a port), and a run file named ``good.run?token=...``. Every output is then searched for
every secret: the commands' stdout and stderr, the HTML report (its "made by" row), every export and the
manifest, the session file, both servers' logs and the text of every page of the dashboard in Chromium.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

from tests import processes
from tests.e2e.conftest import VIEWPORT, every_page, need_browser, settled

need_browser()
from playwright.sync_api import expect  # noqa: E402
from tests.workspace.conftest import ROOT, child_env, fresh_database, postgres_server  # noqa: F401 (fixture)
from tests.workspace.helpers import qrels_bytes, run_bytes

pytestmark = pytest.mark.browser
PAGES = every_page(stored=True)  # every page a server with a workspace serves, from the page table
SECRET = {way: f"Sx{way[:3]}{secrets.token_hex(5)}" for way in (
    "userinfo", "at_left", "at_right", "password", "sslpassword", "token", "key", "secret", "typo", "driver",
    "port", "ipv6", "ftp", "run_url", "usage", "server", "server_query", "broken_server", "link", "memory_password",
    "memory_token", "scheduler_password", "scheduler_token", "run_name")}


def _found(text: str) -> list[str]:
    return [way for way, word in SECRET.items() if word in text]


@pytest.fixture(scope="module")
def database(postgres_server):  # noqa: F811
    """``(host:port, database)`` of a fresh database."""
    url = fresh_database(postgres_server)
    rest = url.split("@", 1)[1]  # postgresql://postgres@HOST:PORT/DB
    return rest.rsplit("/", 1)


@pytest.fixture(scope="module")
def outputs(database, tmp_path_factory):
    """Every command run with a location holding a secret: ``{what: text}`` of all they printed and wrote."""
    where, name = database
    folder = tmp_path_factory.mktemp("secrets")
    (folder / "q.txt").write_bytes(qrels_bytes(3))
    (folder / "a.run").write_bytes(run_bytes(3))
    (folder / "b.run").write_bytes(run_bytes(4))
    env = {**child_env(), "RANKSCOPE_WORKSPACE_FILES": str(folder / "stored")}
    good = (f"postgresql://postgres:{SECRET['userinfo']}@{where}/{name}?password={SECRET['password']}"
            f"&sslpassword={SECRET['sslpassword']}&application_name=rankscope")
    at_sign = f"postgresql://postgres:{SECRET['at_left']}@{SECRET['at_right']}@{where}/{name}"
    texts: dict[str, str] = {}

    def rankscope(label: str, *args: str, status: int = 0) -> str:
        done = subprocess.run([sys.executable, "-m", "rankscope", *args], cwd=folder, capture_output=True, text=True,
                              env=env, timeout=600)
        texts[f"{label} stdout"], texts[f"{label} stderr"] = done.stdout, done.stderr
        assert done.returncode == status, (label, done.returncode, done.stderr)
        assert "Traceback" not in done.stderr, done.stderr
        return done.stdout

    cid = rankscope("add", "workspace", "add", "q.txt", "a.run", "b.run", "--name", "team", "--workspace", good)
    cid = cid.strip()  # the id alone
    rankscope("list", "workspace", "list", "--workspace", at_sign)
    rankscope("report", "report", "--collection", cid, "--workspace", good, "-o", "report.html", "--exports",
              "exports", "--no-images")
    rankscope("export", "workspace", "export", cid, "-o", "session.json", "--workspace", at_sign)
    closed = processes.free_port()
    for way, location in (
            ("token", f"postgresql://postgres@{where}/{name}?token={SECRET['token']}"),
            ("key", f"postgresql://postgres@{where}/{name}?key={SECRET['key']}"),
            ("secret", f"postgresql://postgres@{where}/{name}?secret={SECRET['secret']}"),
            ("typo", f"postgresq://postgres:{SECRET['typo']}@{where}/{name}"),
            ("driver", f"postgresql+asyncpg://postgres:{SECRET['driver']}@{where}/{name}"),
            ("port", f"postgresql://postgres:{SECRET['port']}@127.0.0.1:notaport/{name}"),
            ("ipv6", f"postgresql://postgres:{SECRET['ipv6']}@[::1/{name}")):
        rankscope(way, "workspace", "list", "--workspace", location, status=2)
    rankscope("ftp", "workspace", "add", "q.txt", "a.run", "--name", "x", "--workspace", str(folder / "ws"),
              "--files", f"ftp://rankscope:{SECRET['ftp']}@127.0.0.1:{closed}/stored", status=2)
    rankscope("run url", "eval", "q.txt", f"http://rankscope:{SECRET['run_url']}@127.0.0.1:{closed}/r.run", status=2)
    rankscope("usage", f"postgresql://postgres:{SECRET['usage']}@{where}/{name}", status=2)
    rankscope("memory run", "eval", "q.txt",
              f"memory://user:{SECRET['memory_password']}@x/run?token={SECRET['memory_token']}", status=2)
    rankscope("scheduler", "compare", "q.txt", "a.run", "b.run", "--scheduler",
              f"tcp://u:{SECRET['scheduler_password']}@127.0.0.1?token={SECRET['scheduler_token']}", status=2)
    (folder / f"good.run?token={SECRET['run_name']}").write_bytes(run_bytes(5))
    rankscope("named run", "report", "q.txt", "a.run", f"good.run?token={SECRET['run_name']}", "-o", "named.html",
              "--exports", "named", "--no-images")
    for path in [folder / "report.html", folder / "named.html", folder / "session.json",
                 *(folder / "exports").rglob("*"), *(folder / "named").rglob("*")]:
        if path.is_file() and path.suffix != ".parquet":
            texts[str(path.relative_to(folder))] = path.read_text(encoding="utf-8")
    for path in [*(folder / "exports").glob("*.parquet"), *(folder / "named").glob("*.parquet")]:  # their manifest
        texts[path.name] = path.read_bytes().decode("latin-1")
    return {"texts": texts, "good": good, "id": cid, "folder": folder, "where": where, "name": name}


def test_no_command_prints_or_writes_a_secret(outputs):
    texts = outputs["texts"]
    assert {"report.html", "named.html", "session.json", "exports/manifest.json", "named/manifest.json",
            "exports/summary.csv"} <= set(texts)
    assert "made by" in texts["report.html"]  # the row that once held the password
    leaks = {what: _found(text) for what, text in texts.items() if _found(text)}
    assert leaks == {}
    assert "postgresql+psycopg://***@" in texts["token stderr"] and "token=***" in texts["token stderr"]  # masked


def _serve(location: str, files: Path, log: Path):
    port = processes.free_port()
    env = {**os.environ, "RANKSCOPE_WORKSPACE": location, "RANKSCOPE_WORKSPACE_FILES": str(files)}
    with open(log, "wb") as output:
        proc = processes.serve_dashboard(port, env=env, log=output)
    return proc, f"http://127.0.0.1:{port}"


def _page_text(tab, url: str, title: str | None = None) -> str:
    """The text of the page at ``url`` once drawn: its title ``title``, or (None) an error instead of a page."""
    tab.goto(url)
    if title is None:
        expect(tab.locator('[data-testid="stAlertContentError"]').first).to_be_visible()
        expect(tab.locator('[data-testid="stStatusWidget"]')).to_have_count(0)
    else:
        expect(tab.locator('[data-testid="stMain"] h1').first).to_have_text(title)
        settled(tab)
    return tab.evaluate("() => document.body.innerText")


def test_no_page_and_no_server_log_shows_a_secret(outputs, browser, tmp_path):  # noqa: F811
    where, name, cid, folder = outputs["where"], outputs["name"], outputs["id"], outputs["folder"]
    location = f"postgresql://postgres:{SECRET['server']}@{where}/{name}?password={SECRET['server_query']}"
    broken = f"postgresq://postgres:{SECRET['broken_server']}@{where}/{name}"
    servers = [_serve(location, folder / "stored", tmp_path / "good.log"),
               _serve(broken, folder / "stored", tmp_path / "broken.log")]
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_navigation_timeout(120_000)
    try:
        tab = context.new_page()
        (_, good), (_, bad) = servers
        shown = {title: _page_text(tab, f"{good}/{path}?collection={cid}", title) for path, title in PAGES}
        assert "1 of 1 collection" in shown["Collections"] and "judged topic(s) are missing" in shown["Data"]
        link = f"postgresql://postgres:{SECRET['link']}@{where}/{name}"
        shown["unknown link"] = _page_text(tab, f"{good}/overview?collection={link}")
        shown["broken workspace"] = _page_text(tab, f"{bad}/collections", "Collections")
        assert "The workspace cannot be opened: workspace postgresq://***@" in shown["broken workspace"]
        leaks = {page: _found(text) for page, text in shown.items() if _found(text)}
        assert leaks == {}
    finally:
        context.close()
        for proc, _ in servers:
            processes.stop(proc)
    logs = {log.name: log.read_text(errors="replace") for log in (tmp_path / "good.log", tmp_path / "broken.log")}
    assert all("server started on 127.0.0.1" in text or "Local URL" in text for text in logs.values()), logs
    assert not any("Traceback" in text for text in logs.values()), logs
    assert {log: _found(text) for log, text in logs.items() if _found(text)} == {}
