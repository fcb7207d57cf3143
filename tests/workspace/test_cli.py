"""``rankscope workspace add|list|export|rm`` and ``rankscope report --collection``, run as the program."""

from __future__ import annotations

import hashlib
import subprocess
import sys

import pytest

from dashboard.exports.session import session_from_json
from tests.workspace.conftest import ROOT, child_env
from tests.workspace.helpers import qrels_bytes, run_bytes


def _rankscope(target, *args: str, cwd=None) -> subprocess.CompletedProcess:
    argv = [sys.executable, "-m", "rankscope", *args]
    if args[0] == "workspace":
        argv[5:5] = ["--workspace", target.location, "--files", target.files]
    return subprocess.run(argv, cwd=cwd or ROOT, env=child_env(), capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_add_list_export_report_and_rm(target, tmp_path):
    (tmp_path / "qrels.txt").write_bytes(qrels_bytes(3))
    runs = []
    for i in range(100):
        (tmp_path / f"run{i:03d}.run").write_bytes(run_bytes(i))
        runs.append(f"run{i:03d}.run")
    added = _rankscope(target, "workspace", "add", "qrels.txt", *runs, "--name", "hundred", "--author", "ana",
                       "-l", "2", "-c", cwd=tmp_path)
    assert added.returncode == 0, added.stderr
    cid = added.stdout.split("\t")[0]
    assert "100 runs" in added.stdout
    listed = _rankscope(target, "workspace", "list")
    assert listed.returncode == 0
    rows = [line.split("\t") for line in listed.stdout.splitlines()]
    assert rows[0][:4] == ["id", "version", "name", "runs"] and rows[1][:4] == [cid, "1", "hundred", "100"]
    assert rows[1][6] == "ana"

    with target.open() as ws:
        ws.save_note(cid, "5", None, "hard", "look again", author="bo")
        ws.save_note(cid, "5", "run007", "ties", "<b>not html</b>", author="cy")
    exported = _rankscope(target, "workspace", "export", cid, "-o", str(tmp_path / "session.json"))
    assert exported.returncode == 0, exported.stderr
    session = session_from_json((tmp_path / "session.json").read_bytes())
    assert session.systems == tuple(f"run{i:03d}" for i in range(100)) and session.qrels == "qrels.txt"
    assert session.digests["qrels"] == hashlib.sha256(qrels_bytes(3)).hexdigest()
    assert session.digests["run042"] == hashlib.sha256(run_bytes(42)).hexdigest()
    assert session.conventions.relevance_level == 2 and session.conventions.complete
    assert session.notes == {"5": {"tags": ["hard", "ties"], "comment": "look again\n[run007] <b>not html</b>"}}

    small = _rankscope(target, "workspace", "add", "qrels.txt", "run001.run", "run002.run", "--name", "two",
                       "-l", "2", cwd=tmp_path)
    two = small.stdout.split("\t")[0]
    report = _rankscope(target, "report", "--workspace", target.location, "--collection", two, "-o",
                        str(tmp_path / "r.html"))
    if target.kind == "postgresql":  # the files are not in the default place: the report must say so
        assert report.returncode == 2 and "RANKSCOPE_WORKSPACE_FILES" in report.stderr
        report = subprocess.run([sys.executable, "-m", "rankscope", "report", "--workspace", target.location,
                                 "--collection", two, "-o", str(tmp_path / "r.html")], cwd=ROOT,
                                env={**child_env(), "RANKSCOPE_WORKSPACE_FILES": target.files},
                                capture_output=True, text=True, timeout=600)
    assert report.returncode == 0, report.stderr
    direct = _rankscope(target, "report", str(tmp_path / "qrels.txt"), str(tmp_path / "run001.run"),
                        str(tmp_path / "run002.run"), "-o", str(tmp_path / "d.html"), "-l", "2")
    assert direct.returncode == 0, direct.stderr
    html, expected = (tmp_path / "r.html").read_text(), (tmp_path / "d.html").read_text()
    for digest in (hashlib.sha256(run_bytes(1)).hexdigest(), hashlib.sha256(qrels_bytes(3)).hexdigest()):
        assert digest in html and digest in expected
    assert "--compat trec_eval-9 -l 2 --test t" in html and f"--collection {two}" in html  # the stored -l

    removed = _rankscope(target, "workspace", "rm", cid)
    assert removed.returncode == 2 and "expected --yes" in removed.stderr
    removed = _rankscope(target, "workspace", "rm", cid, "--yes")
    assert removed.returncode == 0 and "deleted" in removed.stderr
    again = _rankscope(target, "workspace", "rm", cid, "--yes")
    assert again.returncode == 2 and "Traceback" not in again.stderr
    assert again.stderr.count("\n") == 1 and cid in again.stderr
    assert cid not in _rankscope(target, "workspace", "list").stdout


def test_bad_input_exits_2_with_one_line(target, tmp_path):
    (tmp_path / "q.txt").write_bytes(qrels_bytes(1))
    (tmp_path / "bad.run").write_bytes(b"1 Q0 d1 1 x t\n")
    out = _rankscope(target, "workspace", "add", "q.txt", "bad.run", "--name", "n", cwd=tmp_path)
    assert out.returncode == 2 and "bad.run:1" in out.stderr and out.stderr.count("\n") == 1
    out = _rankscope(target, "workspace", "add", "q.txt", "missing.run", "--name", "n", cwd=tmp_path)
    assert out.returncode == 2 and "cannot read missing.run" in out.stderr
    out = _rankscope(target, "report", "--collection", "AAAAAAAAAAAAAAAA", "--workspace", target.location,
                     "q.txt", "-o", "x.html")
    assert out.returncode == 2 and "found both" in out.stderr
