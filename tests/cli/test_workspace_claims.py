"""``rankscope workspace claims``, run as the program: claims imported from YAML, shown flipped after a run is
replaced (with the numbers before and after), exported as an expectations file that ``rankscope check`` passes
or fails; a bad file is one line and exit status 2."""

from __future__ import annotations

import subprocess
import sys

from tests.workspace.conftest import ROOT, child_env
from tests.workspace.test_claims import BM25, DENSE, QRELS, WEAK

CLAIMS = """\
tolerance: 0.0001
expect:
  - {better: dense, than: bm25, measure: AP}
  - {system: bm25, measure: map, value: 0.7778}
  - {system: dense, measure: AP, rank_at_most: 1}
"""


def _rankscope(*args: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rankscope", *args], cwd=cwd, env=child_env(), capture_output=True,
                          text=True, timeout=600)


def _claims(folder, *args: str) -> subprocess.CompletedProcess:
    return _rankscope("workspace", "claims", *args, "--workspace", str(folder / "ws"), cwd=folder)


def test_import_flip_export_and_check(tmp_path):
    from workspace import open_workspace

    with open_workspace(tmp_path / "ws") as ws:
        v1 = ws.add_collection("meeting", ("qrels.txt", QRELS), [("bm25.run", BM25), ("dense.run", DENSE)],
                               author="ana")
    (tmp_path / "claims.yaml").write_text(CLAIMS)
    imported = _claims(tmp_path, v1.id, "--import", "claims.yaml")
    assert imported.returncode == 0, imported.stderr
    assert "added 3 claims" in imported.stderr
    rows = [line.split("\t") for line in imported.stdout.splitlines()]
    assert rows[0] == ["status", "claim", "numbers", "saved_on", "flipped_by", "before", "after"]
    assert [r[:2] for r in rows[1:]] == [["holds", "dense is better than bm25 on AP"],
                                         ["holds", "bm25 scores map = 0.7778 +/- 0.0001"],
                                         ["holds", "dense ranks first on AP"]]
    assert {r[3] for r in rows[1:]} == {f"version 1 ({v1.id})"}

    exported = _claims(tmp_path, v1.id, "--yaml", "-o", "ci/expectations.yaml", "--with-files")
    assert exported.returncode == 0, exported.stderr
    assert (tmp_path / "ci" / "runs" / "dense.run").read_bytes() == DENSE
    checked = _rankscope("check", "ci/expectations.yaml", cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.splitlines()[-1] == "3 claims: 3 held, 0 failed, 0 could not be checked"

    with open_workspace(tmp_path / "ws") as ws:  # the meeting's dense run is replaced by a weaker one
        v2 = ws.new_version(v1.id, remove_systems=["dense"], add_runs=[("dense.run", WEAK)], author="bo")
    flipped = _claims(tmp_path, v2.id)
    assert flipped.returncode == 0, flipped.stderr
    rows = [line.split("\t") for line in flipped.stdout.splitlines()[1:]]
    assert [r[0] for r in rows] == ["flipped", "holds", "flipped"]
    # before: 5/6 - 7/9 = 1/18; after: 5/12 - 7/9 = -13/36 (hand-worked in tests/metrics/review/test_trail.py)
    assert rows[0][4:] == [f"version 2 ({v2.id})", "difference +0.0555556", "difference -0.361111"]
    assert rows[2][5:] == ["rank 1; systems 2; value 0.833333", "rank 2; systems 2; value 0.416667"]
    page = (ROOT / "docs" / "guides" / "meetings.md").read_text(encoding="utf-8")  # docs/guides/meetings.md shows
    shown = page.split("% checked by: tests/workspace/test_cli_claims.py\n```console\n$ rankscope workspace claims "
                       "$ID\n", 1)[1].split("```", 1)[0]
    assert flipped.stdout.replace(v1.id, "BArcHB0ixCVqQA6y").replace(v2.id, "M24zP5-xVlgu0Wck") == shown

    again = _claims(tmp_path, v2.id, "--yaml", "-o", "ci2/expectations.yaml", "--with-files")
    assert again.returncode == 0, again.stderr
    failing = _rankscope("check", "ci2/expectations.yaml", cwd=tmp_path)
    assert failing.returncode == 1 and failing.stdout.splitlines()[-1].startswith("3 claims: 1 held, 2 failed")

    (tmp_path / "bad.yaml").write_text("expect:\n  - {system: bm25, measure: AP}\n  - {better: dense, measure: AP}\n")
    bad = _claims(tmp_path, v1.id, "--import", "bad.yaml")
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.count("\n") == 1 and "bad.yaml:2: expect[0]: expected value, at_least or at_most (a threshold)" in bad.stderr
    with open_workspace(tmp_path / "ws") as ws:  # nothing of the bad file was added
        assert len([c for n in ws.notes(v1.id) for c in n.claims]) == 3


def test_claims_written_by_hand(tmp_path):
    from workspace import open_workspace

    with open_workspace(tmp_path / "ws") as ws:
        v1 = ws.add_collection("meeting", ("qrels.txt", QRELS), [("bm25.run", BM25), ("dense.run", DENSE)],
                               author="ana")
    added = _claims(tmp_path, v1.id, "--add", "{better: dense, than: bm25, measure: AP}",
                    "--add", "{system: bm25, measure: AP, at_least: 0.8}")
    assert added.returncode == 0, added.stderr
    assert "added 2 claims" in added.stderr
    rows = [line.split("\t")[:2] for line in added.stdout.splitlines()[1:]]
    # AP: bm25 7/9 = 0.778 (below 0.8), dense 5/6 (hand-worked in tests/workspace/test_claims.py)
    assert rows == [["holds", "dense is better than bm25 on AP"], ["fails", "bm25 scores AP >= 0.8"]]

    for args, message in (
            (("--add", "{better: dense, measure: AP}"), "--add 1: expect[0].than: expected a system's name, found no such field"),
            (("--add", "{system: bm25, measure: AP, at_least: 0.5}", "--add", "{system: bm25"), "--add 2:"),
            (("--add", "{system: bm25, system: dense, measure: AP, at_least: 0.5}"), "--add 1:"),
            (("--add", "x" * 5000), "--add 1: expected a claim of at most 4096 characters, found 5000"),
            (("--add", "{system: bm25, measure: AP, at_least: 0.5}", "--yaml"), "expected --add or --yaml")):
        bad = _claims(tmp_path, v1.id, *args)
        assert bad.returncode == 2 and bad.stdout == "", (args, bad.stderr)
        assert bad.stderr.count("\n") == 1 and message in bad.stderr, (args, bad.stderr)
    with open_workspace(tmp_path / "ws") as ws:  # nothing of the refused claims was added
        assert len([c for n in ws.notes(v1.id) for c in n.claims]) == 2
