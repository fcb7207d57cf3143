"""What the login-mode browser tests share: a real OpenID Connect provider (``oidc-provider-mock``) on loopback,
a login-mode dashboard server with a secrets file of its own, and people signing in through the provider's page.

Nothing fakes ``st.user``: the identity is the one the provider signs. The provider keeps users set through
its API (``PUT /users/SUB``: the claims of that subject), so a test can give an account an e-mail address
the provider has or has not verified.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
import time
import urllib.request

import pytest

from tests import processes
from tests.e2e.conftest import VIEWPORT, settled

try:
    import oidc_provider_mock  # noqa: F401  (started as a program below)
except ImportError:  # pragma: no cover - depends on the machine
    if os.environ.get("CI") == "true":
        pytest.fail("login tests must run in CI; missing: oidc-provider-mock (the test extra)", pytrace=False)
    pytest.skip("missing: oidc-provider-mock (pip install -e '.[test]')", allow_module_level=True)
from playwright.sync_api import expect  # noqa: E402

from workspace import open_workspace  # noqa: E402

ANA, BEA, CY, ROOT = "ana@example.org", "bea@example.org", "cy@example.org", "root@example.org"
TOPICS = [str(t) for t in range(1, 11)]
QRELS = "".join(f"{t} 0 d{t}-{i} {i % 3}\n" for t in TOPICS for i in range(4)).encode()


def run_bytes(tag: str, shift: int) -> bytes:
    return "".join(f"{t} Q0 d{t}-{(i + shift) % 4} {i + 1} {10 - i} {tag}\n" for t in TOPICS for i in range(4)).encode()


def answering(url: str, proc, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                processes.stop(proc)
                raise RuntimeError(f"{url} did not answer") from None
            time.sleep(0.2)


@pytest.fixture(scope="module")
def provider():
    """A real OpenID Connect provider on loopback, in a process group of its own."""
    port = processes.free_port()
    proc = processes.start([sys.executable, "-m", "oidc_provider_mock", "--host", "127.0.0.1", "--port", str(port)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        answering(f"http://127.0.0.1:{port}/.well-known/openid-configuration", proc)
        yield f"http://127.0.0.1:{port}"
    finally:
        processes.stop(proc)


def set_user(provider: str, sub: str, claims: dict) -> None:
    """Give the provider's account ``sub`` these claims (its own API; the next sign-in as ``sub`` carries them)."""
    request = urllib.request.Request(f"{provider}/users/{sub}", data=json.dumps(claims).encode(), method="PUT",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10):
        pass


class Team:
    """The login-mode server, its workspace, and the people's sessions."""

    def __init__(self, url: str, location: str, files: str | None = None) -> None:
        self.url, self.location, self.files = url, location, files

    def open(self):
        return open_workspace(self.location, files=self.files)

    def collection(self, name: str, systems=("bm25",), **members: str) -> str:
        """A collection of ana's (its owner) with a run per system, ``members`` ({identity: role}) given by
        the operator."""
        ws = self.open()
        cid = ws.add_collection(name, qrels=("team.qrels", QRELS),
                                runs=[(f"{s}.run", run_bytes(s, i)) for i, s in enumerate(systems)],
                                author=ANA, members={ANA: "owner", **members}).id
        ws.close()
        return cid

    def lineage(self, cid: str) -> list:
        ws = self.open()
        try:
            return [c for c in ws.collections(archived=True) if c.lineage == cid]
        finally:
            ws.close()


def serve_team(provider: str, folder, location: str | None = None, files: str | None = None, port: int | None = None):
    """A login-mode dashboard server on ``location`` (default a folder under ``folder``) and its :class:`Team`;
    ``port``: that port (a server started again on the same address keeps the browser's cookies valid)."""
    port = port or processes.free_port()
    secrets_file = folder / "secrets.toml"  # the server's own: never the repository's .streamlit/
    if not secrets_file.exists():
        secrets_file.write_text(f'''[auth]
redirect_uri = "http://127.0.0.1:{port}/oauth2callback"
cookie_secret = "{secrets.token_hex(32)}"
client_id = "rankscope"
client_secret = "{secrets.token_hex(16)}"
server_metadata_url = "{provider}/.well-known/openid-configuration"
''')
    location = location or str(folder / "ws")
    env = {**os.environ, "RANKSCOPE_WORKSPACE": location, "RANKSCOPE_ACCESS": "login", "RANKSCOPE_ADMINS": ROOT,
           "STREAMLIT_SECRETS_FILES": str(secrets_file)}
    if files:
        env["RANKSCOPE_WORKSPACE_FILES"] = files
    server = processes.serve_dashboard(port, env=env)
    return server, Team(f"http://127.0.0.1:{port}", location, files)


def offline(route) -> None:
    """Requests to loopback go through; the provider's page also asks a CDN for a stylesheet: refused."""
    if re.match(r"https?://127\.0\.0\.1[:/]", route.request.url):
        route.continue_()
    else:
        route.abort()


class Frames:
    """Every websocket frame the pages of a browser context receive, as bytes, from the moment it is made."""

    def __init__(self, context) -> None:
        self.received: list[bytes] = []
        context.on("page", lambda tab: tab.on("websocket", self._socket))

    def _socket(self, ws) -> None:
        ws.on("framereceived", lambda payload: self.received.append(
            payload if isinstance(payload, bytes) else payload.encode("utf-8", "replace")))

    def mark(self) -> int:
        """A point in the frames: :meth:`holding` looks only at those received after it."""
        return len(self.received)

    def holding(self, *words: str, since: int = 0) -> list[str]:
        """The ``words`` that any frame received since ``since`` holds."""
        return [w for w in words if any(w.encode() in frame for frame in self.received[since:])]


def browser_context(browser):
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(90_000)  # clicks and fills wait for the page as long as expectations do
    context.route("**/*", offline)
    return context


def sign_in(browser, team: Team, who: str, shown: str | None = None, context=None):
    """A new browser (no cookies; or ``context``) signed in as the provider's account ``who`` through the
    provider's page; ``shown``: the identity the sidebar must then show (default ``who``)."""
    context = context or browser_context(browser)
    tab = context.new_page()
    tab.goto(team.url)
    settled(tab)
    tab.get_by_role("button", name="Sign in").click()
    tab.locator('input[name="sub"]').fill(who)  # the provider's form: the identity is typed there, not here
    tab.get_by_role("button", name="Authorize").click()
    expect(tab.locator('[data-testid="stSidebar"]')).to_contain_text(shown or who)
    settled(tab)
    return tab


def go(tab, url: str) -> None:
    tab.goto(url)
    settled(tab)


def page_url(team: Team, page: str, cid: str, extra: str = "") -> str:
    return f"{team.url}/{page}?collection={cid}{extra}"


class CutProxy:
    """A TCP forwarder on loopback to ``(host, port)`` that can be cut: what a database server going down looks
    like to the dashboard (connections refused, open ones closed), without stopping the shared one."""

    def __init__(self, host: str, port: int) -> None:
        import socket
        import threading

        self._socket, self._threading = socket, threading
        self.target = (host, port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.connections: list = []
        threading.Thread(target=self._accept, name="cut-proxy", daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:  # cut
                return
            try:
                upstream = self._socket.create_connection(self.target, timeout=10)
            except OSError:
                client.close()
                continue
            self.connections += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                self._threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(source, sink) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for end in (source, sink):
                try:
                    end.close()
                except OSError:
                    pass

    def cut(self) -> None:
        """Refuse new connections and close the open ones."""
        self.listener.close()
        for connection in self.connections:
            try:
                connection.shutdown(self._socket.SHUT_RDWR)
                connection.close()
            except OSError:
                pass
