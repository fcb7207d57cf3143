"""One rule names a system after its run file: the readers, the command line, the dashboard's uploads and
the manifest all give the same name for the same file."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from metrics import read_run, system_name
from metrics.review.manifest import build_manifest
from rankscope.cli import main

QRELS = b"1 0 a 1\n1 0 b 0\n"
RUN = b"1 Q0 a 1 2.0 tag\n1 Q0 b 2 1.0 tag\n"

NAMES = {
    "bm25.res.trec": "bm25",
    "bm25.trec.res.gz": "bm25",
    "bm25.run.gz": "bm25",
    "run.txt.gz": "run",
    "a.b.c": "a.b.c",
    ".run": ".run",
    ".run.gz": ".run",
    "BM25.Run.TXT": "BM25",
    "x.tsv": "x",
    "dense.v2.trec": "dense.v2",
}


def _write(directory: Path, name: str) -> Path:
    path = directory / name
    path.write_bytes(gzip.compress(RUN) if name.lower().endswith(".gz") else RUN)
    return path


@pytest.mark.parametrize("name, expected", list(NAMES.items()))
def test_the_rule(name, expected):
    assert system_name(name) == expected


@pytest.mark.parametrize("name", list(NAMES))
def test_the_same_file_gets_the_same_name_everywhere(tmp_path, capsys, name):
    qrels = tmp_path / "qrels.txt"
    qrels.write_bytes(QRELS)
    path = _write(tmp_path, name)
    expected = system_name(name)

    assert read_run(path).name == expected

    capsys.readouterr()
    assert main(["eval", "--format", "json", "-m", "AP", str(qrels), str(path)]) == 0
    assert {record["system"] for record in json.loads(capsys.readouterr().out)} == {expected}

    manifest = build_manifest(qrels, {expected: path}, ["AP"])
    assert manifest.caveats == ()  # the command names the system as the manifest does


@pytest.mark.parametrize("name", list(NAMES))
def test_the_dashboard_names_an_upload_by_the_same_rule(name):
    pytest.importorskip("streamlit", reason="the dashboard extra (streamlit) is not installed")
    from dashboard.session.state import Loaded, Upload, with_runs

    loaded = with_runs(Loaded(source="uploads"), [Upload.of(name, RUN)])
    assert loaded.systems == (system_name(name),)
