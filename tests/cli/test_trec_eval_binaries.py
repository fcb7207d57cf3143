"""``rankscope eval`` against trec_eval itself: the 9.0.8 and 10.0 binaries, built from source, diffed byte
for byte, exit status included.

The sources live beside the repository (``../shared/oracles/trec_eval``, with a ``build.sh`` that builds
both with ``cc`` and ``make`` in a few seconds). Every case runs ``trec_eval -q -m all_trec FLAGS QRELS RUN``
and ``rankscope eval --compat trec_eval-N -q -m all_trec FLAGS QRELS RUN`` (in this process) and compares
stdout and exit status; the flags are every combination of ``-l``, ``-M``, ``-J`` and ``-c``. The inputs:

* trec_eval's own test files (``../shared/data/trec_eval_test``);
* BM25 and term-overlap runs (scores rounded, so that ties occur) on Cranfield and Vaswani
  (``../shared/data``), whole and with every fifth topic removed from the run;
* seeded random collections full of edge cases (``tests/random_collections.py``), and small hand-made ones
  where trec_eval stops with an error.

The only differences allowed are those of :data:`DEVIATIONS`, each one the table of docs/conventions.md explains. With
``CI=true`` a missing compiler or source folder fails the tests instead of skipping them.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import itertools
import json
import math
import os
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from rankscope.cli import main
from tests.paths import ROOT, SHARED
from tests.random_collections import random_collection
from tests.real_runs import CRANFIELD, VASWANI, bm25_and_overlap, cranfield_collection, vaswani_collection

BUILD = SHARED / "oracles" / "trec_eval" / "build.sh"
TEST_DATA = SHARED / "data" / "trec_eval_test"
IN_CI = os.environ.get("CI", "").lower() == "true"
VERSIONS = (9, 10)

# Deliberate deviations: (measure, trec_eval version, condition) -> why. A line of trec_eval's output that
# differs from rankscope's passes only when its measure and version are listed here and the condition
# holds for the case. Each entry is a row of the table "Where rankscope differs from trec_eval" (docs/conventions.md).
DEVIATIONS: dict[tuple[str, int, str], str] = {}


def _missing_tools() -> list[str]:
    missing = [] if BUILD.is_file() else [f"trec_eval's sources and build script ({BUILD})"]
    missing += [f"`{tool}` on PATH" for tool in ("cc", "make") if shutil.which(tool) is None]
    return missing


@pytest.fixture(scope="session")
def binaries(tmp_path_factory) -> dict[int, str]:
    """The two trec_eval programs, built once per cache folder (a file lock keeps xdist workers from
    building at the same time)."""
    missing = _missing_tools()
    if missing:
        message = "trec_eval cannot be built: missing " + ", ".join(missing)
        if IN_CI:
            pytest.fail(message + " (CI=true: the oracle must run)")
        pytest.skip(message)
    venv = ROOT / ".venv"
    cache = venv / "trec_eval-oracle" if venv.is_dir() and os.access(venv, os.W_OK) \
        else tmp_path_factory.getbasetemp().parent / "trec_eval-oracle"
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            done = subprocess.run(["bash", str(BUILD), str(cache)], capture_output=True, text=True, timeout=600)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    assert done.returncode == 0, f"build.sh failed: {done.stderr}"
    paths = done.stdout.split()
    assert len(paths) == 2 and all(os.access(p, os.X_OK) for p in paths), done.stdout
    return {9: paths[0], 10: paths[1]}


def trec_eval(binary: str, flags: list[str], qrels: Path, run: Path) -> tuple[int, str]:
    done = subprocess.run([binary, "-q", "-m", "all_trec", *flags, str(qrels), str(run)], capture_output=True,
                          timeout=120)
    return done.returncode, done.stdout.decode("utf-8", "replace")


def rankscope(version: int, flags: list[str], qrels: Path, run: Path) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["eval", "--compat", f"trec_eval-{version}", "-q", "-m", "all_trec", *flags, str(qrels),
                     str(run)])
    return code, out.getvalue(), err.getvalue()


def flag_sets(depth: int) -> list[list[str]]:
    """Every combination of -l 2, -M depth, -J and -c (16 sets, the empty one first)."""
    options = (["-l", "2"], ["-M", str(depth)], ["-J"], ["-c"])
    return [[a for o in chosen for a in o] for n in range(len(options) + 1)
            for chosen in itertools.combinations(options, n)]


def assert_same(binaries, version: int, flags: list[str], qrels: Path, run: Path, seen: Counter) -> None:
    """trec_eval ``version`` and rankscope print the same bytes and exit with the same status."""
    want_code, want = trec_eval(binaries[version], flags, qrels, run)
    code, got, err = rankscope(version, flags, qrels, run)
    case = f"trec_eval {version} {' '.join(flags)} {qrels.name} {run.name}"
    assert code == want_code, f"{case}: exit status {code}, trec_eval {want_code}; stderr {err!r}"
    if code != 0:
        assert len(err.strip().splitlines()) == 1, f"{case}: expected a one-line error, got {err!r}"
    seen[(version, " ".join(flags))] += len(want.splitlines())
    if got == want:
        return
    wanted, found = want.splitlines(), got.splitlines()
    assert len(found) == len(wanted), f"{case}: {len(found)} lines, trec_eval {len(wanted)}"
    for mine, theirs in zip(found, wanted):
        if mine != theirs:
            measure = theirs.split("\t")[0].strip()
            allowed = [why for (m, v, condition), why in DEVIATIONS.items()
                       if v == version and re.fullmatch(m, measure) and condition in " ".join(flags)]
            assert allowed, f"{case}: rankscope {mine!r}, trec_eval {theirs!r}"


# ---- how much was compared ------------------------------------------------------------------------------
LINES: Counter = Counter()  # (version, flags) -> lines of trec_eval output compared


@pytest.fixture(scope="module", autouse=True)
def _count_lines():
    """With RANKSCOPE_ORACLE_LINES=FOLDER, write the lines compared per version and flag set there (one JSON
    file per xdist worker)."""
    yield
    folder = os.environ.get("RANKSCOPE_ORACLE_LINES")
    if folder and LINES:
        Path(folder).mkdir(parents=True, exist_ok=True)
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        (Path(folder) / f"{worker}.json").write_text(json.dumps({f"{v}|{f}": n for (v, f), n in LINES.items()}))


# ---- trec_eval's own test files --------------------------------------------------------------------------
TEST_FILE_CASES = [("qrels.test", "results.test"), ("qrels.test", "results.trunc"),
                   ("qrels.rel_level", "results.test")]


@pytest.mark.skipif(not TEST_DATA.is_dir() and not IN_CI, reason=f"trec_eval's test files not found at {TEST_DATA}")
@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("qrels, run", TEST_FILE_CASES)
def test_trec_eval_test_files(binaries, version, qrels, run):
    for flags in flag_sets(100):
        assert_same(binaries, version, flags, TEST_DATA / qrels, TEST_DATA / run, LINES)


@pytest.mark.skipif(not TEST_DATA.is_dir() and not IN_CI, reason=f"trec_eval's test files not found at {TEST_DATA}")
@pytest.mark.parametrize("version", VERSIONS)
def test_trec_eval_makefile_cases(binaries, version, tmp_path):
    """The commands of trec_eval's Makefile that rankscope implements (not -Z or -R), with -m all_trec."""
    assert_same(binaries, version, ["-c", "-M100"], TEST_DATA / "qrels.test", TEST_DATA / "results.trunc", LINES)
    assert_same(binaries, version, ["-l2", "-mrelstring.20"], TEST_DATA / "qrels.rel_level",
                TEST_DATA / "results.test", LINES)
    if version == 10:  # comment lines and '#' in document ids: 10.0 reads them, 9.0.8 does not
        assert_same(binaries, 10, [], TEST_DATA / "qrels.test.with-comments", TEST_DATA / "results.test", LINES)


# ---- runs on real collections ----------------------------------------------------------------------------
def _tokens(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


COLLECTIONS = {"cranfield": (cranfield_collection, CRANFIELD), "vaswani": (vaswani_collection, VASWANI)}


@pytest.fixture(scope="module")
def real_runs(tmp_path_factory):
    """Per collection: its qrels files and its runs (whole, and with every fifth topic removed)."""
    folder = tmp_path_factory.mktemp("real_runs")
    made = {}
    for name, (load, where) in COLLECTIONS.items():
        if not where.is_dir():
            continue
        docs, queries, qrels = load()
        runs = {}
        for kind, text in zip(("bm25", "overlap"), bm25_and_overlap(docs, queries, depth=200)):
            whole = folder / f"{name}.{kind}.run"
            whole.write_text(text)
            drop = set(sorted(queries, key=int)[::5])
            cut = folder / f"{name}.{kind}.cut.run"
            cut.write_text("".join(line + "\n" for line in text.splitlines() if line.split(" ", 1)[0] not in drop))
            runs[kind], runs[f"{kind}.cut"] = whole, cut
        made[name] = (qrels, runs)
    return made


REAL_CASES = [("cranfield", "graded", "bm25"), ("cranfield", "graded", "overlap.cut"),
              ("cranfield", "raw", "bm25.cut"), ("vaswani", "binary", "bm25"), ("vaswani", "binary", "overlap.cut")]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("collection, qrels, run", REAL_CASES)
def test_real_collections(binaries, real_runs, version, collection, qrels, run):
    if collection not in real_runs:
        if IN_CI:
            pytest.fail(f"{collection} not found under {SHARED / 'data'}")
        pytest.skip(f"{collection} not found under {SHARED / 'data'}")
    qrels_files, runs = real_runs[collection]
    for flags in flag_sets(50):
        assert_same(binaries, version, flags, qrels_files[qrels], runs[run], LINES)


# ---- random hostile collections --------------------------------------------------------------------------
SEEDS = range(4000, 4048)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("block", range(4))
def test_random_collections(binaries, version, block, tmp_path):
    for seed in SEEDS[block::4]:
        collection = random_collection(seed, max_queries=8, max_docs=40)
        qrels, run = tmp_path / f"qrels.{seed}", tmp_path / f"run.{seed}"
        qrels.write_text(collection.qrels_text)
        run.write_text(collection.run_text)
        for flags in flag_sets(3):
            assert_same(binaries, version, flags, qrels, run, LINES)


# ---- where trec_eval stops -------------------------------------------------------------------------------
STOPS = {
    "topic-missing": ("1 0 a 1\n2 0 b 1\n3 0 c 1\n", "1 Q0 a 1 1 t\n3 Q0 c 1 1 t\n"),
    "no-common-topic": ("1 0 a 1\n2 0 b 1\n", "9 Q0 a 1 1 t\n"),
    "negative-grades-only-first": ("1 0 a -1\n2 0 b 1\n", "1 Q0 a 1 1 t\n2 Q0 b 1 1 t\n"),
    "negative-grades-only-later": ("1 0 a 1\n2 0 b -1\n", "1 Q0 a 1 1 t\n2 Q0 b 1 1 t\n"),
    "judged-only-empties-a-topic": ("10 0 a 1\n10 0 b 0\n2 0 c 1\n", "10 Q0 x 1 2 t\n2 Q0 c 1 1 t\n"),
    "complete-missing-topic": ("1 0 a 1\n1 0 b 0\n2 0 c 1\n", "1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n"),
    "num_rel-complete-level": ("1 0 a 1\n1 0 b 2\n", "1 Q0 a 1 1 t\n"),
    "nan-under-depth": ("5 0 a 1\n5 0 b 1\n5 0 c 0\n", "5 Q0 c 1 3 t\n5 Q0 a 2 3 t\n5 Q0 b 3 3 t\n"),
}


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("name", sorted(STOPS))
def test_edge_cases(binaries, version, name, tmp_path):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text(STOPS[name][0])
    run.write_text(STOPS[name][1])
    for flags in flag_sets(2):
        assert_same(binaries, version, flags, qrels, run, LINES)


def test_deviations_are_documented():
    page = (ROOT / "docs" / "conventions.md").read_text()
    assert "Where rankscope differs from trec_eval" in page
    for (measure, version, condition), why in DEVIATIONS.items():
        assert measure in page and why, (measure, version, condition)


def test_the_comparison_is_not_empty(binaries, tmp_path):
    """The harness sees a difference when there is one (a wrong value is not hidden by the allow-list)."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 a 1\n")
    run.write_text("1 Q0 a 1 1 t\n")
    code, out = trec_eval(binaries[9], [], qrels, run)
    assert code == 0 and "map                   \tall\t1.0000" in out
    assert math.isclose(float(out.split("map                   \tall\t")[1][:6]), 1.0)
