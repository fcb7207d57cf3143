"""``rankscope dashboard``: start the Streamlit dashboard (needs the ``dashboard`` extra)."""

from __future__ import annotations

import argparse
import importlib.util
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import NoReturn

from dashboard.server import config
from dashboard.server.config import ACCESS_MODES, SETTINGS

__all__ = ["register", "run"]


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "dashboard", help="open the dashboard in a browser",
        description="Start the dashboard on the bundled demo collection. It listens on 127.0.0.1 only; "
                    "see docs/team-server.md before exposing it on a network.")
    p.add_argument("--port", type=int, default=8501, help="port (default 8501)")
    p.add_argument("--address", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--headless", action="store_true", help="do not open a browser window")
    p.add_argument("--workspace", metavar="LOC", default=None,
                   help="the shared workspace: a folder, sqlite:///file.db or postgresql://user@host:port/db "
                        "(default $RANKSCOPE_WORKSPACE, else ./rankscope-workspace)")
    for setting in SETTINGS.values():
        p.add_argument(setting.flag, default=None, metavar=setting.flag.strip("-").upper().replace("-", "_"),
                       choices=ACCESS_MODES if setting.env == "RANKSCOPE_ACCESS" else None,
                       help=f"{setting.help} (default ${setting.env}, else {setting.default or 'none'})")
    p.set_defaults(func=run)


def command(port: int = 8501, address: str = "127.0.0.1", headless: bool = False) -> list[str]:
    """The ``streamlit run`` command line that serves the dashboard."""
    from dashboard.server.config import flags

    app = Path(importlib.util.find_spec("dashboard").origin).with_name("app.py")
    return [sys.executable, "-m", "streamlit", "run", str(app),
            *flags(server_address=address, server_port=port, server_headless=headless)]


def run(args: argparse.Namespace) -> int:
    """Serve the dashboard until the server stops.

    Parameters
    ----------
    args : argparse.Namespace
        ``port``, ``address``, ``headless``, ``workspace`` (exported to the server as
        ``$RANKSCOPE_WORKSPACE``) and the settings of :data:`dashboard.server.config.SETTINGS` (exported as
        their environment variables), as :func:`register` declares them.

    Returns
    -------
    int
        The server's exit status (only where the server runs as a child: see Notes).

    Raises
    ------
    RankscopeError
        Streamlit or plotly is not installed, or the server cannot be started.

    Notes
    -----
    Where ``exec`` keeps the process (POSIX), this process becomes the server: a signal to the command
    (Ctrl+C, ``kill``, a service manager's stop) reaches Streamlit itself, and no server outlives the
    command. Elsewhere the server runs as a child that receives the signals that would stop the command.
    """
    from metrics.errors import RankscopeError

    if importlib.util.find_spec("streamlit") is None or importlib.util.find_spec("plotly") is None:
        raise RankscopeError("the dashboard needs streamlit and plotly: pip install 'rankscope[dashboard]'")
    argv = command(args.port, args.address, args.headless)
    env = {**os.environ, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
    for setting in SETTINGS.values():  # the flags, passed to the server in its environment
        given = getattr(args, setting.flag.strip("-").replace("-", "_"), None)
        if given is not None:
            env[setting.env] = str(given)
    try:  # checked here, so that a bad value stops the command with one line
        config.access_mode(env), config.undo_hours(env)
    except config.SettingError as err:
        raise RankscopeError(str(err)) from None
    location = getattr(args, "workspace", None) or env.get("RANKSCOPE_WORKSPACE") or "rankscope-workspace"
    env["RANKSCOPE_WORKSPACE"] = str(Path(location).resolve()) if "://" not in str(location) else str(location)
    # Streamlit's own greeting is off (dashboard.server.config): the address is printed here
    print(f"rankscope dashboard: http://{args.address}:{args.port} (Ctrl+C stops it)", flush=True)
    if _EXEC_KEEPS_PROCESS:
        _become(argv, env)
    return _serve_as_child(argv, env)


# On Windows os.exec* starts a new process and ends this one: whoever waits on the command would lose
# the server. There the server runs as a child instead.
_EXEC_KEEPS_PROCESS = os.name == "posix"


def _become(argv: list[str], env: dict[str, str]) -> NoReturn:
    """Replace this process by ``argv`` (same process id, same process group and session)."""
    from metrics.errors import RankscopeError

    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execve(argv[0], argv, env)
    except OSError as err:
        raise RankscopeError(f"cannot start the dashboard with {argv[0]}: {err}") from None


def _serve_as_child(argv: list[str], env: dict[str, str]) -> int:
    """Run ``argv`` as a child, pass it the signals that would stop this process, and wait for it."""
    server = subprocess.Popen(argv, env=env)

    def forward(signum, frame) -> None:
        if os.name != "nt":
            server.send_signal(signum)
        elif signum == signal.SIGTERM:  # Ctrl+C and Ctrl+Break reach the server from the console itself
            server.terminate()

    names = ("SIGINT", "SIGTERM", "SIGHUP", "SIGBREAK")
    previous = {s: signal.signal(s, forward) for s in (getattr(signal, n) for n in names if hasattr(signal, n))}
    try:
        return server.wait()
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        if server.poll() is None:  # this process is stopping for another reason: the server stops with it
            server.kill()
            server.wait()
