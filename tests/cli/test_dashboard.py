"""`rankscope dashboard`: serves the app on loopback only, without asking anything on first run, and stops
with the command: no server outlives it."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("streamlit", reason="the dashboard extra (streamlit) is not installed")

from rankscope.commands.dashboard import command  # noqa: E402
from tests import processes  # noqa: E402
from tests.paths import ROOT  # noqa: E402

STARTUP = 60.0  # seconds the server gets to answer its health check
STOPPING = 15.0  # seconds the server gets to stop after SIGTERM


def _other_address() -> str | None:
    """An address of this machine that is not loopback, if it has one."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))  # TEST-NET-1: no packet is sent for a UDP connect
            address = s.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith("127.") else address


def _serve(argv: list[str], tmp_path: Path):
    """Start ``argv`` in a session of its own, its output in a file; the first run of streamlit for this HOME."""
    env = {**os.environ, "HOME": str(tmp_path)}  # a first run: no streamlit credentials file
    log = tmp_path / "server.log"
    with log.open("wb") as out:
        proc = processes.start(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=env)
    return proc, log


def _health(port: int, proc, log: Path) -> int:
    """The status of the server's health check, once it answers (fails if the command ends first)."""
    deadline = time.monotonic() + STARTUP
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"the command ended with status {proc.returncode}:\n{log.read_text()}"
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as response:
                return response.status
        except OSError:
            time.sleep(0.3)
    pytest.fail(f"no answer on port {port} within {STARTUP:.0f} s:\n{log.read_text()}")


def _answers(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
    except OSError:
        return False
    return True


def test_command_binds_to_loopback_and_never_prompts():
    argv = command(port=8501)
    assert argv[argv.index("--server.address") + 1] == "127.0.0.1"
    assert argv[argv.index("--server.showEmailPrompt") + 1] == "false"
    assert argv[argv.index("--browser.gatherUsageStats") + 1] == "false"
    assert argv[argv.index("--client.showErrorLinks") + 1] == "false"
    assert argv[argv.index("--server.port") + 1] == "8501"
    assert argv.count("--server.address") == 1
    chosen = command(port=9, address="0.0.0.0", headless=True)
    assert [chosen[chosen.index(f) + 1] for f in ("--server.address", "--server.port", "--server.headless")] == [
        "0.0.0.0", "9", "true"]
    assert chosen.count("--server.address") == 1


def test_the_repositorys_streamlit_config_is_the_options_table():
    """``streamlit run`` from the repository reads .streamlit/config.toml; ``rankscope dashboard`` passes the
    table as flags: the two must say the same."""
    import tomllib

    from dashboard.server.config import OPTIONS

    with open(ROOT / ".streamlit" / "config.toml", "rb") as handle:
        config = tomllib.load(handle)
    flat = {f"{section}.{name}": value for section, options in config.items() for name, value in options.items()}
    assert flat == OPTIONS


# Streamlit decides in streamlit.web.skills whether to show its pop-up offering "skills" to coding agents
# (shown when such an agent's folder is in the home directory and the server is not headless, as
# `rankscope dashboard` runs it). Asked in a process of its own, under a home directory holding one.
_NUDGE = """
import sys
from streamlit import config
from streamlit.web import skills
from dashboard.server.config import OPTIONS
options = {**OPTIONS, "server.headless": False, **({} if sys.argv[1] == "ours" else {sys.argv[1]: False})}
for name, value in options.items():
    config.set_option(name, value)
print(repr(skills.nudge_suppression_reason(sys.argv[2])))
"""


def test_streamlits_pop_up_for_coding_agents_is_off(tmp_path):
    home, app = tmp_path / "home", tmp_path / "app"
    (home / ".claude").mkdir(parents=True)
    app.mkdir()
    env = {**os.environ, "HOME": str(home)}

    def reason(options: str) -> str:
        return subprocess.run([sys.executable, "-c", _NUDGE, options, str(app)], env=env, capture_output=True,
                              text=True, check=True, cwd=ROOT).stdout.strip()

    assert reason("logger.hideWelcomeMessage") == "''"  # without the option, Streamlit would show it here
    assert reason("ours") == "'welcome_hidden'"


def test_dashboard_serves_on_loopback_only(tmp_path):
    port = processes.free_port()
    proc, log = _serve([sys.executable, "-m", "rankscope.cli", "dashboard", "--headless", "--port", str(port)],
                       tmp_path)
    try:
        assert _health(port, proc, log) == 200
        assert f"http://127.0.0.1:{port}" in log.read_text()  # the address, printed by the command itself
        other = _other_address()
        if other is not None:
            with pytest.raises(OSError):
                socket.create_connection((other, port), timeout=2).close()
    finally:
        processes.stop(proc)


# The command as users start it, and the same command made to keep streamlit as a child (the way it runs
# where exec cannot keep the process): either way, SIGTERM to the command's own pid stops everything.
AS_CHILD = ("import sys, rankscope.commands.dashboard as d; from rankscope.cli import main; "
            "d._EXEC_KEEPS_PROCESS = False; sys.exit(main(sys.argv[1:]))")
LAUNCHERS = {"exec": [sys.executable, "-m", "rankscope"], "child": [sys.executable, "-c", AS_CHILD]}


@pytest.mark.skipif(not hasattr(os, "killpg"), reason="process groups and SIGTERM are POSIX")
@pytest.mark.parametrize("launcher", list(LAUNCHERS))
def test_sigterm_to_the_command_stops_the_server(launcher, tmp_path):
    port = processes.free_port()
    proc, log = _serve([*LAUNCHERS[launcher], "dashboard", "--headless", "--port", str(port)], tmp_path)
    try:
        assert _health(port, proc, log) == 200
        assert processes.group_members(proc.pid), "the command's process group is empty while it serves"
        os.kill(proc.pid, signal.SIGTERM)  # the command only, as a service manager or `kill <pid>` would
        left = processes.wait_until_gone(proc, STOPPING)
        assert left == [], f"still running {STOPPING:.0f} s after SIGTERM to the command: {left}\n{log.read_text()}"
        with pytest.raises(ProcessLookupError):
            os.killpg(proc.pid, 0)  # the command reaped, nothing else of its group exists
        assert not _answers(port), f"port {port} still answers"
    finally:
        processes.stop(proc)


@pytest.mark.parametrize("flags, found", [
    (["--access", "closed"], "invalid choice: 'closed'"),
    (["--undo-hours", "-1"], "RANKSCOPE_UNDO_HOURS: expected a number of hours from 0 to 878400, found '-1'"),
    (["--undo-hours", "nan"], "RANKSCOPE_UNDO_HOURS: expected a number of hours from 0 to 878400, found 'nan'"),
])
def test_a_bad_setting_stops_the_command_before_any_server(flags, found, tmp_path):
    done = subprocess.run([sys.executable, "-m", "rankscope", "dashboard", "--headless", "--port",
                           str(processes.free_port()), *flags], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "HOME": str(tmp_path)}, stdin=subprocess.DEVNULL)
    assert done.returncode == 2 and found in done.stderr and "Traceback" not in done.stderr
    assert done.stdout == "" and "You can now view" not in done.stderr
    if "RANKSCOPE_" in found:  # checked by the command itself: one line
        assert done.stderr.count("\n") == 1
