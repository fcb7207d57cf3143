"""The server's memory settings: a drawn uploader's files are not copied at each run."""

from __future__ import annotations

import copy
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("streamlit", reason="the dashboard's streamlit is not installed")
from streamlit.runtime.uploaded_file_manager import UploadedFile, UploadedFileRec  # noqa: E402

from dashboard.server import memory  # noqa: E402
from tests.paths import ROOT  # noqa: E402



def _file(data: bytes) -> UploadedFile:
    return UploadedFile(UploadedFileRec(file_id="f1", name="bm25.run", type="text/plain", data=data), None)


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
