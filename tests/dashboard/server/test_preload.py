"""The server process imports the libraries later pages need once, on a thread of its own."""

from __future__ import annotations

import os

from dashboard.server import guard, preload


def test_the_preloaded_modules_are_imported_once_on_one_thread_then_the_fork_server_started(monkeypatch):
    imported = []
    monkeypatch.setattr(preload, "_thread", None)
    monkeypatch.setattr(preload.importlib, "import_module", lambda name: imported.append(name))
    monkeypatch.setattr(preload, "start_workers", lambda: imported.append("fork server"))
    preload.start()
    first = preload._thread
    preload.start()  # a later session's run: nothing more
    assert preload._thread is first and first.daemon and first.name == "rankscope-preload"
    first.join(30)
    assert imported == [*guard.PRELOADED, "fork server"]


def test_a_module_that_cannot_be_imported_does_not_stop_the_others(monkeypatch):
    imported = []

    def importing(name):
        if name == guard.PRELOADED[0]:
            raise ImportError(name)
        imported.append(name)

    monkeypatch.setattr(preload, "_thread", None)
    monkeypatch.setattr(preload.importlib, "import_module", importing)
    monkeypatch.setattr(preload, "start_workers", lambda: imported.append("fork server"))
    preload.start()
    preload._thread.join(30)
    assert imported == [*guard.PRELOADED[1:], "fork server"]


def test_the_fork_server_started_early_is_the_one_workers_come_from():
    from multiprocessing import forkserver

    guard.start_workers()
    pid = forkserver._forkserver._forkserver_pid  # the standard library's record of its fork server
    assert pid is not None
    os.kill(pid, 0)  # alive (raises otherwise)
    assert guard.call("a number", abs, -3) == 3  # a worker forked from it
    assert forkserver._forkserver._forkserver_pid == pid  # not a second server

