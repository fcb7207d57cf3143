"""The server's memory settings: a drawn uploader's files are not copied at each run."""

from __future__ import annotations

import copy
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("streamlit", reason="the dashboard's streamlit is not installed")
from streamlit.runtime.uploaded_file_manager import UploadedFile, UploadedFileRec  # noqa: E402

from dashboard.server import memory  # noqa: E402
from tests.paths import ROOT  # noqa: E402



def _file(data: bytes) -> UploadedFile:
    return UploadedFile(UploadedFileRec(file_id="f1", name="bm25.run", type="text/plain", data=data), None)



@pytest.fixture(autouse=True)
def only_these_entries(monkeypatch):
    """Each test sees the cache entries it makes alone, not those other tests of the process left."""
    monkeypatch.setattr(memory, "_entries", {})

def test_a_deep_copy_of_an_uploaded_file_shares_its_bytes_and_nothing_else():
    memory.share_uploaded_bytes()
    data = b"1 Q0 d1 1 2.5 bm25\n" * 1000
    original = _file(data)
    original.read(7)
    [twin] = copy.deepcopy([original])  # as Streamlit copies a widget's value each time it is drawn
    assert twin is not original
    assert twin.getvalue() is data  # the bytes shared, not copied
    assert (twin.file_id, twin.name, twin.type, twin.size, twin.tell()) == ("f1", "bm25.run", "text/plain",
                                                                           len(data), 7)
    assert twin.read(3) == data[7:10] and original.tell() == 7  # a position of its own
    twin.seek(0)
    twin.write(b"XX")  # a write copies the bytes first: the original and its bytes stay as they were
    assert original.getvalue() is data and data.startswith(b"1 Q0")
    assert twin.getvalue()[:4] == b"XXQ0"


def test_the_server_setting_installs_it():
    """In a process of its own: the setting also changes pyarrow's allocator and starts a thread."""
    code = ("from dashboard.server import memory; memory.install(); "
            "from streamlit.runtime.uploaded_file_manager import UploadedFile; "
            "print(UploadedFile.__deepcopy__.__qualname__)")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "share_uploaded_bytes.<locals>.__deepcopy__"


DIGEST_A, DIGEST_B = "a" * 64, "0123456789abcdef" * 4


def _counted():
    """A cached function of a file's digest, wrapped in :func:`memory.released`, and how often it ran."""
    import streamlit as st

    ran = []

    @st.cache_resource(show_spinner=False)
    def parse(digest: str, name: str, _data: bytes) -> str:
        ran.append(digest)
        return name

    return memory.released(parse), ran


def test_an_entry_is_dropped_once_no_session_holds_its_file_and_its_grace_is_over():
    parse, ran = _counted()
    parse(DIGEST_A, "a.run", b"1 Q0 d1 1 2 a\n")
    parse(DIGEST_B, "b.run", b"1 Q0 d1 1 2 b\n")
    used = time.monotonic()
    assert memory.release({DIGEST_A}, now=used + memory.GRACE_SECONDS - 1) == 0  # used too recently
    assert memory.release({DIGEST_A, DIGEST_B}, now=used + memory.GRACE_SECONDS + 1) == 0  # both held
    assert memory.release({DIGEST_A}, now=used + memory.GRACE_SECONDS + 1) == 1  # b's file is held no more
    parse(DIGEST_A, "a.run", None)
    parse(DIGEST_B, "b.run", None)
    assert ran == [DIGEST_A, DIGEST_B, DIGEST_B]  # a came from the cache, b was computed again
    assert memory.release(set(), now=time.monotonic() + memory.GRACE_SECONDS + 1) == 2


def test_a_collection_key_names_its_files_and_an_entry_without_a_file_is_never_dropped():
    import streamlit as st

    ran = []

    @memory.released
    @st.cache_data(show_spinner=False)
    def table(key: tuple, measures: tuple, _loaded: object) -> int:
        ran.append(key)
        return len(ran)

    key = (DIGEST_A, (("bm25", DIGEST_B),), (("preset", "trec_eval-9"),))
    table(key, ("map",), _loaded=object())
    table(("no file",), ("map",), _loaded=object())
    later = time.monotonic() + memory.GRACE_SECONDS + 1
    assert memory.release({DIGEST_A}, now=later) == 1  # the run's file is gone: the collection's table too
    table(key, ("map",), _loaded=object())
    table(("no file",), ("map",), _loaded=object())
    assert ran == [key, ("no file",), key]
    memory.release(set(), now=later + memory.GRACE_SECONDS)


def test_the_files_a_session_holds_are_the_digests_in_its_state_and_no_stored_file_is_read():
    from dashboard.session.state import Loaded, Upload

    def unread() -> bytes:
        raise AssertionError("a stored file was read to find its digest")

    qrels, run = Upload.of("q.qrels", b"1 0 d1 1\n"), Upload.stored("bm25.run", DIGEST_B, 10, unread)
    texts = Upload.of("docs.tsv", b"d1\tt\tx\n")
    loaded = Loaded(qrels=qrels, runs=(("bm25", run),), documents=texts, source="uploads")
    other = Upload.of("crowd.qrels", b"1 0 d1 0\n")
    held = memory.held_files([loaded, {"pending": [other]}, 3, b"raw", "not a digest"])
    assert held == {qrels.digest, DIGEST_B, texts.digest, other.digest}
