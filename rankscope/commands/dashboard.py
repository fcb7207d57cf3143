"""``rankscope dashboard``: start the Streamlit dashboard (needs the ``dashboard`` extra)."""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

__all__ = ["register", "run"]


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "dashboard", help="open the dashboard in a browser",
        description="Start the dashboard on the bundled demo collection. It listens on 127.0.0.1 only; "
                    "see the README before exposing it on a network.")
    p.add_argument("--port", type=int, default=8501, help="port (default 8501)")
    p.add_argument("--address", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--headless", action="store_true", help="do not open a browser window")
    p.set_defaults(func=run)


def command(port: int = 8501, address: str = "127.0.0.1", headless: bool = False) -> list[str]:
    """The ``streamlit run`` command line that serves the dashboard."""
    app = Path(importlib.util.find_spec("dashboard").origin).with_name("app.py")
    return [sys.executable, "-m", "streamlit", "run", str(app),
            "--server.address", address, "--server.port", str(port),
            "--server.headless", "true" if headless else "false",
            "--server.maxUploadSize", "2048", "--server.maxMessageSize", "1024",
            "--browser.gatherUsageStats", "false", "--server.showEmailPrompt", "false",
            "--client.toolbarMode", "minimal",
            "--theme.base", "light"]


def run(args: argparse.Namespace) -> int:
    from metrics.errors import RankscopeError

    if importlib.util.find_spec("streamlit") is None or importlib.util.find_spec("plotly") is None:
        raise RankscopeError("the dashboard needs streamlit and plotly: pip install 'rankscope[dashboard]'")
    env = {**os.environ, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
    try:
        return subprocess.call(command(args.port, args.address, args.headless), env=env)
    except KeyboardInterrupt:
        return 0
