"""The server process imports the libraries later pages need once, on a thread of its own."""

from __future__ import annotations

from dashboard import guard, preload


def test_the_preloaded_modules_are_imported_once_on_one_thread(monkeypatch):
    imported = []
    monkeypatch.setattr(preload, "_thread", None)
    monkeypatch.setattr(preload.importlib, "import_module", lambda name: imported.append(name))
    preload.start()
    first = preload._thread
    preload.start()  # a later session's run: nothing more
    assert preload._thread is first and first.daemon and first.name == "rankscope-preload"
    first.join(30)
    assert imported == list(guard.PRELOADED)


def test_a_module_that_cannot_be_imported_does_not_stop_the_others(monkeypatch):
    imported = []

    def importing(name):
        if name == guard.PRELOADED[0]:
            raise ImportError(name)
        imported.append(name)

    monkeypatch.setattr(preload, "_thread", None)
    monkeypatch.setattr(preload.importlib, "import_module", importing)
    preload.start()
    preload._thread.join(30)
    assert imported == list(guard.PRELOADED[1:])

