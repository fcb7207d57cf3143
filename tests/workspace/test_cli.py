"""``rankscope workspace add|list|rename|archive|notes|export|rm|restore|share|log|purge`` and ``rankscope report
--collection``, run as the program."""

from __future__ import annotations

import getpass
import hashlib
import re
import subprocess
import sys

import pytest

from dashboard.exports.session_file import session_from_json
from tests.workspace.conftest import ROOT, child_env
from tests.workspace.helpers import qrels_bytes, run_bytes


OPERATOR = f"{getpass.getuser()} (command line)"  # who the command acts as: the user running it, never a typed name


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
    added = _rankscope(target, "workspace", "add", "qrels.txt", *runs, "--name", "hundred", "-l", "2", "-c",
                       cwd=tmp_path)
    assert added.returncode == 0, added.stderr
    cid = added.stdout.removesuffix("\n")  # the id alone, so that ID=$(rankscope workspace add ...) works
    assert re.fullmatch(r"[A-Za-z0-9_-]{16}", cid) and "100 runs" in added.stderr
    listed = _rankscope(target, "workspace", "list")
    assert listed.returncode == 0
    rows = [line.split("\t") for line in listed.stdout.splitlines()]
    assert rows[0][:4] == ["id", "version", "name", "runs"] and rows[1][:4] == [cid, "1", "hundred", "100"]
    assert rows[1][6] == OPERATOR

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
    two = small.stdout.strip()
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


def test_add_prints_the_id_alone_for_a_shell_variable_and_names_by_default(target, tmp_path):
    (tmp_path / "robust.qrels").write_bytes(qrels_bytes(5))
    (tmp_path / "bm25.run").write_bytes(run_bytes(5))
    (tmp_path / "dense.run").write_bytes(run_bytes(6))
    env = {**child_env(), "RANKSCOPE_WORKSPACE_FILES": target.files}
    script = ('ID=$("$PY" -m rankscope workspace add robust.qrels bm25.run dense.run --workspace "$WS" '
             ') && "$PY" -m rankscope workspace notes "$ID" --workspace "$WS" && echo "id=$ID"')
    done = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=600,
                          env={**env, "PY": sys.executable, "WS": target.location})
    assert done.returncode == 0, done.stderr
    cid = done.stdout.splitlines()[-1].removeprefix("id=")
    assert done.stdout.splitlines()[0].startswith("revision\tbase")  # notes of that id: the id was the output
    assert "added 'robust: bm25, dense' version 1: 2 runs" in done.stderr
    with target.open() as ws:
        assert ws.collection(cid).name == "robust: bm25, dense"


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


def _table(stdout: str) -> list[dict[str, str]]:
    header, *rows = [line.split("\t") for line in stdout.splitlines()]
    assert all(len(row) == len(header) for row in rows), stdout
    return [dict(zip(header, row)) for row in rows]


def _unescaped(cell: str) -> str:
    """The text of a table cell, its escapes undone by a slow loop (the inverse of the printed form)."""
    out, i = [], 0
    while i < len(cell):
        if cell[i] != "\\":
            out.append(cell[i])
            i += 1
        elif cell[i + 1] in "tnr\\":
            out.append({"t": "\t", "n": "\n", "r": "\r", "\\": "\\"}[cell[i + 1]])
            i += 2
        else:
            width = {"x": 2, "u": 4}[cell[i + 1]]
            out.append(chr(int(cell[i + 2:i + 2 + width], 16)))
            i += 2 + width
    return "".join(out)


def _row(note) -> dict[str, str]:
    return {"revision": str(note.revision), "base": "" if note.base is None else str(note.base), "topic": note.topic,
            "system": note.system or "", "tag": note.tag, "author": note.author, "created_at": note.created_at,
            "saved_on": note.collection, "comment": note.comment}


def test_rename_archive_and_notes(target, tmp_path):
    (tmp_path / "qrels.txt").write_bytes(qrels_bytes(4))
    (tmp_path / "a.run").write_bytes(run_bytes(4))
    added = _rankscope(target, "workspace", "add", "qrels.txt", "a.run", "--name", "first", cwd=tmp_path)
    assert added.returncode == 0, added.stderr
    v1 = added.stdout.strip()
    tricky = "line one\n\tindented \\ back\x1b[31m red\u2028end"
    with target.open() as ws:
        v2 = ws.new_version(v1, add_runs=[("b.run", run_bytes(5))], author="bo").id
        first = ws.save_note(v1, "3", None, "hard", "on v1", author="ana")
        edit = ws.save_note(v2, "3", None, "hard", tricky, author="bo", base=first.revision)
        rival = ws.save_note(v1, "3", None, "easy", "rival edit", author="cy", base=first.revision)
        other = ws.save_note(v2, "10", "b", "ties", "a\tb", author="dan")

    renamed = _rankscope(target, "workspace", "rename", v1, "second name")
    assert renamed.returncode == 0, renamed.stderr
    assert renamed.stdout == f"{v1}\trenamed 'first' to 'second name' (version 1)\n"
    archived = _rankscope(target, "workspace", "archive", v2)
    assert archived.returncode == 0 and archived.stdout.startswith(f"{v2}\tarchived 'first' version 2")
    assert [r["id"] for r in _table(_rankscope(target, "workspace", "list").stdout)] == [v1]
    listed = {r["id"]: (r["name"], r["archived"])
              for r in _table(_rankscope(target, "workspace", "list", "--archived").stdout)}
    assert listed == {v1: ("second name", "no"), v2: ("first", "yes")}
    restored = _rankscope(target, "workspace", "archive", v2, "--undo")
    assert restored.returncode == 0 and restored.stdout.startswith(f"{v2}\trestored")
    assert {r["id"] for r in _table(_rankscope(target, "workspace", "list").stdout)} == {v1, v2}
    with target.open() as ws:
        assert ws.collection(v1).name == "second name" and not ws.collection(v2).archived

    current = [_row(n) for n in (other, edit, rival)]  # by topic as text ("10" < "3"), then revision
    for cid in (v1, v2):  # the same notes on every version
        shown = _rankscope(target, "workspace", "notes", cid)
        assert shown.returncode == 0, shown.stderr
        rows = _table(shown.stdout)
        assert "\x1b" not in shown.stdout and len(shown.stdout.splitlines()) == 4
        assert [{k: _unescaped(v) for k, v in r.items()} for r in rows] == current
    history = _table(_rankscope(target, "workspace", "notes", v2, "--history").stdout)
    assert [(r["topic"], int(r["revision"]), r["saved_on"]) for r in history] == [
        ("10", other.revision, v2), ("3", first.revision, v1), ("3", edit.revision, v2), ("3", rival.revision, v1)]
    assert _unescaped(history[2]["comment"]) == tricky and history[2]["base"] == str(first.revision)

    for argv, found in [(["rename", "AAAAAAAAAAAAAAAA", "x"], "unknown collection id"),
                        (["rename", v1, " "], "collection name: expected one non-empty line"),
                        (["archive", "../etc/passwd"], "unknown collection id"),
                        (["notes", "nope"], "unknown collection id")]:
        out = _rankscope(target, "workspace", *argv)
        assert out.returncode == 2 and found in out.stderr, out.stderr
        assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr and out.stdout == ""


def test_table_cells_are_one_line_and_read_back():
    import numpy as np

    from rankscope.commands.workspace import cell

    rng = np.random.default_rng(3)
    alphabet = ["a", "é", " ", "\\", "\t", "\n", "\r", "\x1b", "\x00", "\x7f", "\x85", "\u2028", "\u2029", "x"]
    for _ in range(500):
        text = "".join(alphabet[int(i)] for i in rng.integers(0, len(alphabet), size=int(rng.integers(0, 12))))
        shown = cell(text)
        assert len(shown.splitlines()) <= 1 and "\t" not in shown
        assert all(c.isprintable() or c == " " for c in shown)
        assert _unescaped(shown) == text
    assert cell(None) == ""


def test_the_operator_restores_shares_reads_the_log_and_purges_as_who_they_are(target, tmp_path):
    (tmp_path / "qrels.txt").write_bytes(qrels_bytes(6))
    (tmp_path / "a.run").write_bytes(run_bytes(6))
    added = _rankscope(target, "workspace", "add", "qrels.txt", "a.run", "--name", "team", "--owner",
                       "Ana@Example.org", cwd=tmp_path)
    cid = added.stdout.strip()  # the id alone
    posing = _rankscope(target, "workspace", "archive", cid, "--author", "mallory")
    assert posing.returncode == 2 and "--author" in posing.stderr  # no such option: nobody types a name
    for argv, out in [(["share", cid, "bea@example.org", "editor"], f"{cid}\tbea@example.org: none -> editor\n"),
                      (["archive", cid], None), (["archive", cid, "--undo"], None), (["rm", cid, "--yes"], None),
                      (["restore", cid], f"{cid}\trestored 'team' version 1\n"),
                      (["share", cid, "ana@example.org", "none"], None)]:
        done = _rankscope(target, "workspace", *argv)
        if argv[-1] == "none":  # she is the only owner
            assert done.returncode == 2 and "only owner" in done.stderr and done.stderr.count("\n") == 1
        else:
            assert done.returncode == 0, done.stderr
            assert out is None or done.stdout == out
    with target.open() as ws:
        assert ws.members(cid) == {"ana@example.org": "owner", "bea@example.org": "editor"}
    log = _table(_rankscope(target, "workspace", "log", cid).stdout)
    assert [(r["action"], r["author"], r["collection"]) for r in log] == [
        (action, OPERATOR, cid) for action in ("restore", "delete", "unarchive", "archive", "share")]
    assert log[-1]["detail"] == "bea@example.org: none -> editor"

    assert _rankscope(target, "workspace", "rm", cid, "--yes").returncode == 0
    kept = _rankscope(target, "workspace", "purge")  # within the default undo window: nothing purged
    assert kept.returncode == 0 and kept.stdout.startswith("purged 0 deleted collections (deleted more than 72 hours")
    purged = _rankscope(target, "workspace", "purge", "--older-than", "0")
    assert purged.returncode == 0 and purged.stdout.splitlines()[1:] == [cid], purged.stdout
    files = target.folder / ("ws/files" if target.kind == "sqlite" else "files")
    assert [p for p in files.rglob("*") if p.is_file()] == []
    late = _rankscope(target, "workspace", "restore", cid)
    assert late.returncode == 2 and "purged" in late.stderr and "Traceback" not in late.stderr
    assert _table(_rankscope(target, "workspace", "log").stdout)[0]["action"] == "purge"


def test_judge_tasks_and_judgments(target, tmp_path):
    from workspace.dealing import next_for
    from workspace.judging import Judging

    with target.open() as ws:
        cid = ws.add_collection("c", qrels=("q", b"1 0 d0 1\n"),
                                runs=[("a.run", b"1 Q0 d0 1 3 a\n1 Q0 d1 2 2 a\n1 Q0 d2 3 1 a\n"),
                                      ("b.run", b"1 Q0 d2 1 3 b\n1 Q0 d1 2 2 b\n1 Q0 d3 3 1 b\n")], author="o").id
    started = _rankscope(target, "workspace", "judge", cid, "--method", "depth", "--budget", "2", "--assessors",
                         "ann,bob", "--overlap", "0.5")
    assert started.returncode == 0, started.stderr
    tid = started.stdout.splitlines()[0]
    with target.open() as ws:
        deal = next_for(ws, tid, "ann")
        Judging(ws).judge(tid, deal.topic, deal.docid, 1, assessor="ann")
    listed = _rankscope(target, "workspace", "tasks", cid)
    assert listed.returncode == 0 and listed.stdout.splitlines()[1].split("\t")[:4] == [tid, "judging 1", "depth",
                                                                                         "ann,bob"]
    table = _rankscope(target, "workspace", "judgments", tid)
    assert table.returncode == 0, table.stderr
    assert [line.split("\t")[:4] for line in table.stdout.splitlines()[1:]] == [["1", deal.docid, "ann", "1"]]
    qrels = _rankscope(target, "workspace", "judgments", tid, "--qrels", "merged")
    assert qrels.returncode == 0 and f"1 0 {deal.docid} 1\n" in qrels.stdout and "1 0 d0 1\n" in qrels.stdout
    refused = _rankscope(target, "workspace", "judge", cid, "--method", "depth", "--assessors", "ann",
                         "--overlap", "0.5")
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1
    assert "overlap: expected two assessors or more to judge a document twice, found one" in refused.stderr
