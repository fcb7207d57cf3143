"""The options the dashboard's Streamlit server runs with: one table, for ``rankscope dashboard`` (which passes
them as flags, since it may run from any folder) and ``.streamlit/config.toml`` (which ``streamlit run`` reads
from the repository's root; a test keeps the two equal). No Streamlit import: the command line reads this
before the server starts."""

from __future__ import annotations

__all__ = ["OPTIONS", "flags"]

OPTIONS: dict[str, str | int | bool] = {
    # loopback only: bind another address on purpose (--server.address) to share the dashboard on a network
    "server.address": "127.0.0.1",
    # megabytes: an MS MARCO-size run (7 million lines) is about 250 MB, gzip-compressed about 60 MB
    "server.maxUploadSize": 2048,
    "server.maxMessageSize": 1024,
    # seconds a closed or disconnected tab keeps its session (uploads included) for a reconnect; then freed
    "server.disconnectedSessionTTL": 30,
    "server.showEmailPrompt": False,
    # no usage statistics: the page requests nothing but the dashboard's own address (tests/e2e/test_offline.py)
    "browser.gatherUsageStats": False,
    "client.toolbarMode": "minimal",
    # no "ask a search engine" links under an error: the dashboard works offline and sends nothing out
    "client.showErrorLinks": False,
    # the data page's convention widgets carry the current conventions as their default as well as in the
    # session state, so that a widget drawn before its state arrives shows them (never the lowest level)
    "global.disableWidgetStateDuplicationWarning": True,
    # no full garbage collection after every run of a script, a fragment's included (about 0.1 s of CPU each on
    # this server's heap: sixty phones of a live class polling every 3 s would need two cores for it alone);
    # the memory sweep (dashboard.memory) collects every 10 s instead
    "runner.postScriptGC": False,
    "theme.base": "light",
    # Okabe-Ito blue: the colour of the first system, and never the red that means an error
    "theme.primaryColor": "#0072B2",
}


def flags(**overrides: str | int | bool) -> list[str]:
    """``--section.option value`` for every option, ``overrides`` (``server_address="0.0.0.0"``) replacing them.

    Examples
    --------
    >>> flags(server_address="0.0.0.0")[:2]
    ['--server.address', '0.0.0.0']
    """
    chosen = dict(OPTIONS)
    for name, value in overrides.items():
        chosen[name.replace("_", ".", 1)] = value
    return [item for name, value in chosen.items()
            for item in (f"--{name}", str(value).lower() if isinstance(value, bool) else str(value))]
