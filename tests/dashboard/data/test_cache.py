"""dashboard.data.cache.on_collection: one cache per function, keyed on the collection and the arguments."""

from __future__ import annotations

import pytest

pytest.importorskip("streamlit", reason="the dashboard extra (streamlit) is not installed")

from dashboard.data.cache import on_collection  # noqa: E402
from dashboard.session.state import Loaded, Upload  # noqa: E402

QRELS = Upload.of("q.qrels", b"1 0 a 1\n")
A = Loaded(qrels=QRELS, runs=(("a", Upload.of("a.run", b"1 Q0 a 1 1.0 a\n")),))
B = Loaded(qrels=QRELS, runs=(("b", Upload.of("b.run", b"1 Q0 b 1 1.0 b\n")),))


def test_a_computation_runs_once_per_collection_and_arguments():
    calls = []

    @on_collection(max_entries=8)
    def systems_and(loaded: Loaded, word: str, times: int = 1) -> tuple:
        calls.append((loaded.systems, word, times))
        return loaded.systems + (word * times,)

    systems_and.clear()
    assert systems_and(A, "x") == ("a", "x") and systems_and(A, "x") == ("a", "x")
    assert systems_and(A, "x", 1) == systems_and(A, "x", times=1) == ("a", "x")  # a default spelled out: one entry
    assert systems_and(B, "x") == ("b", "x") and systems_and(A, "y", 2) == ("a", "yy")
    assert calls == [(("a",), "x", 1), (("b",), "x", 1), (("a",), "y", 2)]


def test_two_functions_never_share_a_cache_and_a_key_can_be_narrower():
    @on_collection(max_entries=8)
    def first(loaded: Loaded) -> str:
        return "first"

    @on_collection(max_entries=8)
    def second(loaded: Loaded) -> str:
        return "second"

    @on_collection(max_entries=8, key=lambda loaded: loaded.qrels.digest)
    def judged_only(loaded: Loaded) -> tuple:
        return loaded.systems

    for fn in (first, second, judged_only):
        fn.clear()
    assert (first(A), second(A)) == ("first", "second")
    assert judged_only(A) == ("a",) and judged_only(B) == ("a",)  # the same qrels: the same entry


def test_uploads_hashed_side_by_side_keep_their_order_and_digests(monkeypatch):
    import hashlib
    import threading
    import types

    import dashboard.session.state as state

    threads = set()

    def sha256(data):
        threads.add(threading.current_thread().name)
        return hashlib.sha256(data)

    monkeypatch.setattr(state, "hashlib", types.SimpleNamespace(sha256=sha256))
    big = [(f"{i}.run", bytes([i]) * (9 << 20) + b"\n") for i in range(3)]
    files = [big[0], ("tiny.run", b"1 Q0 a 1 1.0 a\n"), big[1], big[2]]
    uploads = Upload.all_of(files)
    assert [(u.name, u.digest, u.size, u.data) for u in uploads] == [
        (name, hashlib.sha256(data).hexdigest(), len(data), data) for name, data in files]
    assert {t.split("_")[0] for t in threads} == {"rankscope-hash"}  # none hashed by the caller's thread
    threads.clear()
    assert Upload.all_of(files[1:2] * 2) == [Upload.of(*files[1])] * 2 and threads == {threading.current_thread().name}
