"""`rankscope dashboard`: serves the app on loopback only, without asking anything on first run."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

pytest.importorskip("streamlit", reason="the dashboard extra (streamlit) is not installed")

from rankscope.commands.dashboard import command  # noqa: E402


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _other_address() -> str | None:
    """An address of this machine that is not loopback, if it has one."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))  # TEST-NET-1: no packet is sent for a UDP connect
            address = s.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith("127.") else address


def test_command_binds_to_loopback_and_never_prompts():
    argv = command(port=8501)
    assert argv[argv.index("--server.address") + 1] == "127.0.0.1"
    assert argv[argv.index("--server.showEmailPrompt") + 1] == "false"
    assert argv[argv.index("--browser.gatherUsageStats") + 1] == "false"


def test_dashboard_serves_on_loopback_only(tmp_path):
    port = _free_port()
    env = {**os.environ, "HOME": str(tmp_path)}  # a first run: no streamlit credentials file
    proc = subprocess.Popen([sys.executable, "-m", "rankscope.cli", "dashboard", "--headless", "--port", str(port)],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    try:
        deadline = time.monotonic() + 60
        status = None
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as response:
                    status = response.status
                break
            except OSError:
                time.sleep(0.3)
        assert proc.poll() is None, proc.stdout.read().decode(errors="replace")
        assert status == 200
        other = _other_address()
        if other is not None:
            with pytest.raises(OSError):
                socket.create_connection((other, port), timeout=2).close()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
