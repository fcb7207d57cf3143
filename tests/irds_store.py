"""A real ir_datasets store, built at run time in a temporary ``IR_DATASETS_HOME`` from the Cranfield and NPL
(Vaswani) files kept outside this repository (``../shared/data``; ``RANKSCOPE_SHARED`` names another folder).

ir_datasets' ``cranfield`` dataset reads ``cranfield/cran.tar.gz`` (members ``cran.all.1400``, ``cran.qry``,
``cranqrel``), which holds the shared files byte for byte. Its ``vaswani`` dataset reads ``vaswani/npl.tar.gz``
in the original NPL layout (``doc-text``, ``query-text``, ``rlv-ass``: an id line, its lines, then a ``/``
line); the shared copy is in TREC format, so the archive is written from it here. Nothing is downloaded and
nothing of the data is kept in the repository. Without the files the tests skip, naming them; under
``CI=true`` they fail.
"""

from __future__ import annotations

import atexit
import io
import os
import re
import shutil
import socket
import tarfile
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("RANKSCOPE_SHARED") or ROOT.parent / "shared")
CRANFIELD = SHARED / "data" / "cranfield"
VASWANI = SHARED / "data" / "vaswani_npl"
IN_CI = os.environ.get("CI", "").lower() == "true"


def require(folder: Path, *names: str) -> None:
    """Skip (fail under CI=true) unless ``folder`` holds ``names``."""
    absent = [str(folder / n) for n in names if not (folder / n).is_file()]
    if absent:
        message = f"the shared test data is missing: {', '.join(absent)}"
        if IN_CI:
            pytest.fail(message + " (CI=true: it must be there)", pytrace=False)
        pytest.skip(message)


def _tar(path: Path, members: dict[str, bytes]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(path, "w:gz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def build_cranfield(home: Path) -> None:
    """``home/cranfield/cran.tar.gz`` from the shared Cranfield files, byte for byte."""
    require(CRANFIELD, "cran.all.1400", "cran.qry", "cranqrel")
    _tar(home / "cranfield" / "cran.tar.gz",
         {name: (CRANFIELD / name).read_bytes() for name in ("cran.all.1400", "cran.qry", "cranqrel")})


def build_vaswani(home: Path) -> None:
    """``home/vaswani/npl.tar.gz`` in the NPL layout, written from the shared TREC-format copy."""
    require(VASWANI, "doc-text.trec", "query-text.trec", "qrels")
    docs = re.findall(r"<DOCNO>(\d+)</DOCNO>\n(.*?)</DOC>", (VASWANI / "doc-text.trec").read_text(), re.S)
    queries = re.findall(r"<num>(\d+)</num><title>\n(.*?)</title>", (VASWANI / "query-text.trec").read_text(), re.S)
    judged: dict[str, list[str]] = {}
    for line in (VASWANI / "qrels").read_text().split("\n"):
        if line.strip():
            qid, _, doc, _ = line.split()
            judged.setdefault(qid, []).append(doc)
    _tar(home / "vaswani" / "npl.tar.gz", {
        "doc-text": "".join(f"{d}\n{text}   /\n" for d, text in docs).encode(),
        "query-text": "".join(f"{q}\n{text}/\n" for q, text in queries).encode(),
        "rlv-ass": "".join(f"{q}\n {' '.join(ds)}\n   /\n" for q, ds in judged.items()).encode(),
    })


class NetworkAttempted(AssertionError):
    """A socket was opened to somewhere other than this machine."""


@pytest.fixture
def no_network(monkeypatch):
    """Fail on any connection or name lookup leaving the machine (loopback is allowed); the attempts are
    recorded in the list the fixture gives."""
    attempts: list = []

    def refuse(*args, **kwargs):
        attempts.append(args)
        raise NetworkAttempted(f"network attempted: {args!r}")

    real_connect = socket.socket.connect

    def connect(self, address, *args):
        host = address[0] if isinstance(address, tuple) else address
        if isinstance(host, str) and host not in ("127.0.0.1", "::1", "localhost") and self.family != socket.AF_UNIX:
            refuse(address)
        return real_connect(self, address, *args)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    return attempts


# ir_datasets fixes each dataset's paths when it is first imported: the store of this test process is chosen
# when this module is (at collection, before any test imports ir_datasets), and filled by ``irds_home``.
HOME = Path(tempfile.mkdtemp(prefix="rankscope-ir_datasets-"))
os.environ["IR_DATASETS_HOME"] = str(HOME)
atexit.register(shutil.rmtree, HOME, ignore_errors=True)


def needs_irds() -> None:
    """Skip (fail under CI=true) when the ir_datasets package is not installed, without importing it."""
    import importlib.util

    if importlib.util.find_spec("ir_datasets") is None:
        if IN_CI:
            pytest.fail("the irds extra (ir-datasets) is not installed (CI=true: it must be)", pytrace=False)
        pytest.skip("the irds extra (ir-datasets) is not installed")


@pytest.fixture(scope="session")
def irds_home() -> Path:
    """The store of this test process (``IR_DATASETS_HOME``), holding ``cranfield`` and ``vaswani``."""
    needs_irds()
    if not (HOME / "cranfield" / "cran.tar.gz").exists():
        build_cranfield(HOME)
    if not (HOME / "vaswani" / "npl.tar.gz").exists():
        build_vaswani(HOME)
    return HOME
