"""A team's shared workspace in the browser tests: its collection's files, the people's folders, saving a note."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from tests import processes
from tests.e2e.conftest import settled
from workspace import open_workspace

TOPICS = [str(t) for t in range(1, 21)]

QRELS = "".join(f"{t} 0 d{t}-{i} {i % 3}\n" for t in TOPICS for i in range(4)).encode()


def team_run(tag: str, shift: int) -> bytes:
    return "".join(f"{t} Q0 d{t}-{(i + shift) % 4} {i + 1} {10 - i} {tag}\n" for t in TOPICS for i in range(4)).encode()


class Team:
    """A workspace (SQLite folder or PostgreSQL database with a files folder) and the servers on it."""

    def __init__(self, location: str, files: Path) -> None:
        self.location, self.files, self.servers = location, files, []
        ws = self.open()
        self.cid = ws.add_collection(
            "team", qrels=("team.qrels", QRELS), runs=[("bm25.run", team_run("bm25", 0))], author="setup"
        ).id  # not empty: the servers seed nothing
        ws.close()

    def open(self):
        return open_workspace(self.location, files=str(self.files))

    def serve(self, port: int | None = None) -> str:
        port = port or processes.free_port()
        env = {**os.environ, "RANKSCOPE_WORKSPACE": self.location, "RANKSCOPE_WORKSPACE_FILES": str(self.files)}
        self.servers.append(processes.serve_dashboard(port, env=env))
        return f"http://127.0.0.1:{port}"

    def kill(self, server) -> None:
        """SIGKILL the server's whole process group, without a chance to finish anything."""
        os.killpg(server.pid, signal.SIGKILL)
        processes.stop(server)  # waits until the group is gone, reaps it and removes its log
        self.servers.remove(server)

    def stop(self) -> None:
        for proc in self.servers:
            processes.stop(proc)
        self.servers = []


def save_note(tab, topic: str, comment: str, wait: bool = True) -> None:
    form = tab.locator('[data-testid="stForm"]').first
    form.locator("textarea").fill(comment)
    tab.get_by_role("button", name=f"Save the note on topic {topic}").click()
    if wait:
        settled(tab)
