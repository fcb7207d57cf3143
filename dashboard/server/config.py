"""The options the dashboard's server runs with, in two tables: Streamlit's (:data:`OPTIONS`), for ``rankscope
dashboard`` (which passes them as flags, since it may run from any folder) and ``.streamlit/config.toml``
(which ``streamlit run`` reads from the repository's root; a test keeps the two equal); and rankscope's own
(:data:`SETTINGS`: who may do what, the administrators, the undo window, a live class's bounds), read from the
environment, which ``rankscope dashboard`` sets from its flags. No Streamlit import: the command line reads
this before the server starts.

With ``server.enableStaticServing``, Streamlit serves the folder ``static`` beside ``dashboard/app.py``
(:data:`STATIC`) at ``/app/static/``, each file with the type its name says (``text/html``, ``text/css``,
``image/png``...) and ``nosniff``, nothing outside the folder (a path or a link leading out is refused), no
folder listed. The folder holds the documentation site alone (:data:`SITE`, built by ``python3 dev.py docs``
and ignored by git), which each page's "start here" line links to: the dashboard serves its own manual,
offline, and behind a proxy's path prefix as well (the link is relative to the page, :data:`SITE_URL`)."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

__all__ = ["ACCESS_MODES", "OPTIONS", "PURGE_EVERY", "SETTINGS", "SITE", "SITE_URL", "STATIC", "Setting",
           "SettingError", "access_mode", "admins", "class_bound", "flags", "undo_hours"]

STATIC = Path(__file__).resolve().parents[1] / "static"
"""The folder Streamlit serves at ``/app/static/`` (``server.enableStaticServing``): the documentation only."""
SITE = STATIC / "docs"
"""The documentation site as ``python3 dev.py docs`` builds it (absent until then)."""
SITE_URL = "app/static/docs/"
"""The site's address relative to a page's (``/overview`` -> ``/app/static/docs/``; under a proxy's prefix,
``/rankscope/overview`` -> ``/rankscope/app/static/docs/``)."""

OPTIONS: dict[str, str | int | bool] = {
    # loopback only: bind another address on purpose (--server.address) to share the dashboard on a network
    "server.address": "127.0.0.1",
    # megabytes: an MS MARCO-size run (7 million lines) is about 250 MB, gzip-compressed about 60 MB
    "server.maxUploadSize": 2048,
    "server.maxMessageSize": 1024,
    # seconds a closed or disconnected tab keeps its session (uploads included) for a reconnect; then freed
    "server.disconnectedSessionTTL": 30,
    "server.showEmailPrompt": False,
    # the folder beside app.py at /app/static/: the documentation site (STATIC above), nothing else
    "server.enableStaticServing": True,
    # no usage statistics: the page requests nothing but the dashboard's own address (tests/e2e/test_offline.py)
    "browser.gatherUsageStats": False,
    # no greeting and no links printed by Streamlit (`rankscope dashboard` prints the address itself); this is
    # also what keeps Streamlit's pop-up offering "skills" to coding agents off every page (streamlit.web.skills:
    # shown only when this is false and the server is not headless)
    "logger.hideWelcomeMessage": True,
    "client.toolbarMode": "minimal",
    # no "ask a search engine" links under an error: the dashboard works offline and sends nothing out
    "client.showErrorLinks": False,
    # the data page's convention widgets carry the current conventions as their default as well as in the
    # session state, so that a widget drawn before its state arrives shows them (never the lowest level)
    "global.disableWidgetStateDuplicationWarning": True,
    # no full garbage collection after every run of a script, a fragment's included (about 0.1 s of CPU each on
    # this server's heap: sixty phones of a live class polling every 3 s would need two cores for it alone);
    # the memory sweep (dashboard.server.memory) collects every 10 s instead
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


class Setting:
    """One of rankscope's server settings: its environment variable, its flag of ``rankscope dashboard``,
    its default and what it does."""

    def __init__(self, env: str, flag: str, default: str, help: str) -> None:
        self.env, self.flag, self.default, self.help = env, flag, default, help

    def value(self, env: Mapping[str, str] | None = None) -> str:
        """The setting in force: the environment's (``env``, default :data:`os.environ`), else the default."""
        found = (os.environ if env is None else env).get(self.env, "").strip()
        return found or self.default


ACCESS_MODES = ("open", "login")
SETTINGS: dict[str, Setting] = {s.env: s for s in (
    Setting("RANKSCOPE_ACCESS", "--access", "open",
            "who may do what: 'open', everyone may do everything (one's own machine, a classroom); 'login', "
            "people sign in through the OpenID Connect provider of .streamlit/secrets.toml ([auth]) and act by "
            "their role on each collection"),
    Setting("RANKSCOPE_ADMINS", "--admins", "",
            "the administrators in the login mode, comma-separated identities (the provider's e-mail "
            "addresses): they see and may do everything"),
    Setting("RANKSCOPE_UNDO_HOURS", "--undo-hours", "72",
            "hours a deleted collection can be restored; then its files are purged (the server purges every "
            "10 minutes; 'rankscope workspace purge' does it at once)"),
    Setting("RANKSCOPE_CLASS_JOINS", "--class-joins", "120",
            "new student sessions a live class admits from one address per minute, per server process (a class "
            "behind one NAT or proxy is one address)"),
    Setting("RANKSCOPE_CLASS_ANSWERS", "--class-answers", "360",
            "answers a live class takes from one address per minute, per server process"),
    Setting("RANKSCOPE_CLASS_CHANGES", "--class-changes", "20",
            "times one student may send an answer to one question (the last one counts; of documents to judge, "
            "times for each document)"),
)}
MAX_CLASS_BOUND = 1_000_000
PURGE_EVERY = 600.0
"""Seconds between two purges by a dashboard server (the first when it opens the workspace)."""
MAX_UNDO_HOURS = 24 * 366 * 100


class SettingError(ValueError):
    """A setting that does not hold one of the values it takes; the message is one line."""


def access_mode(env: Mapping[str, str] | None = None) -> str:
    """``open`` or ``login`` (``$RANKSCOPE_ACCESS``)."""
    found = SETTINGS["RANKSCOPE_ACCESS"].value(env).lower()
    if found not in ACCESS_MODES:
        raise SettingError(f"RANKSCOPE_ACCESS: expected one of {', '.join(ACCESS_MODES)}, found {found[:40]!r}")
    return found


def admins() -> tuple[str, ...]:
    """The administrators' identities as given (``$RANKSCOPE_ADMINS``: separated by commas or spaces)."""
    return tuple(item for item in re.split(r"[,\s]+", SETTINGS["RANKSCOPE_ADMINS"].value()) if item)


def undo_hours(env: Mapping[str, str] | None = None) -> float:
    """Hours a deletion can be undone (``$RANKSCOPE_UNDO_HOURS``), from 0 to a century."""
    text = SETTINGS["RANKSCOPE_UNDO_HOURS"].value(env)
    try:
        hours = float(text)
    except ValueError:
        hours = float("nan")
    if not 0 <= hours <= MAX_UNDO_HOURS:
        raise SettingError(f"RANKSCOPE_UNDO_HOURS: expected a number of hours from 0 to {MAX_UNDO_HOURS}, "
                           f"found {text[:40]!r}")
    return hours


def class_bound(env_name: str, env: Mapping[str, str] | None = None) -> int:
    """A live class's bound (``RANKSCOPE_CLASS_JOINS``, ``_ANSWERS``, ``_CHANGES``): a whole number from 1."""
    text = SETTINGS[env_name].value(env)
    if not text.isdigit() or not 1 <= int(text) <= MAX_CLASS_BOUND:
        raise SettingError(f"{env_name}: expected a whole number from 1 to {MAX_CLASS_BOUND}, found {text[:40]!r}")
    return int(text)
