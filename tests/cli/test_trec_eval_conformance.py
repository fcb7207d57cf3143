"""``rankscope eval`` against trec_eval's own test suite: its inputs, flags and expected outputs.

The files live outside this repository (trec_eval's ``test/`` directory, kept in ``../shared/data``);
the tests skip when it is absent. Each case runs the command trec_eval's Makefile runs and compares the
output byte for byte: the 10.0 expected files under ``--compat trec_eval-10``, the 9.0.8 ones (same
inputs) under ``--compat trec_eval-9``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rankscope.cli import main
from tests.paths import ROOT, SHARED

DATA = SHARED / "data" / "trec_eval_test"
pytestmark = pytest.mark.skipif(not DATA.is_dir(), reason=f"trec_eval's test data not found at {DATA}")

MEAS_PARAMS = ["-q", "-miprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m", "recall.20,2000",
               "-m", "Rprec_mult.5.0,0.2,0.35", "-mutility.2,-1,0,0", "-m", "11pt_avg..25,.5,.75",
               "-mndcg.1=3,2=9,4=4.5", "-mndcg_cut.10,20,23.4", "-msuccess.2,5,20"]

# (expected output, flags, qrels, run, versions that have the case)
CASES = [
    ("out.test", [], "qrels.test", "results.test", (9, 10)),
    ("out.test", [], "qrels.test.with-comments", "results.test", (10,)),
    ("out.comment.test", [], "qrels.comment.test", "results.comment.test", (10,)),
    ("out.test.a", ["-m", "all_trec"], "qrels.test", "results.test", (9, 10)),
    ("out.test.aq", ["-m", "all_trec", "-q"], "qrels.test", "results.test", (9, 10)),
    ("out.test.aqc", ["-m", "all_trec", "-q", "-c"], "qrels.test", "results.trunc", (9, 10)),
    ("out.test.aqcM", ["-m", "all_trec", "-q", "-c", "-M100"], "qrels.test", "results.trunc", (9, 10)),
    ("out.test.aql", ["-m", "all_trec", "-mrelstring.20", "-q", "-l2"], "qrels.rel_level", "results.test", (9, 10)),
    ("out.test.meas_params", MEAS_PARAMS, "qrels.test", "results.test", (9, 10)),
]


# expected outputs of trec_eval features rankscope does not implement: listed so that every file of the
# folder is accounted for, and skipped with what is missing
NOT_IMPLEMENTED = {
    "out.test.aqZ": "-Z (z-score normalisation of every measure against a per-topic mean/stddev file)",
    "out.test.prefs": "-R prefs (preference judgments) and the prefs_* measures",
    "out.test.qrels_prefs": "-R qrels_prefs (qrels read as preferences) and the prefs_* measures",
    "out.test.qrels_jg": "-R qrels_jg (judgment groups) and the *_avgjg measures",
}


def test_every_expected_output_is_accounted_for():
    files = {p.name for p in DATA.glob("out.*")} | {p.name for p in (DATA / "v9.0.8").glob("out.*")}
    assert files == {case[0] for case in CASES} | set(NOT_IMPLEMENTED)


@pytest.mark.parametrize("expected", sorted(NOT_IMPLEMENTED))
def test_unimplemented_trec_eval_features(expected):
    pytest.skip(f"{expected}: rankscope does not implement trec_eval's {NOT_IMPLEMENTED[expected]}")


def _params():
    for expected, flags, qrels, run, versions in CASES:
        for version in versions:
            yield pytest.param(expected, flags, qrels, run, version,
                               id=f"{expected}-{qrels}-trec_eval{version}")


@pytest.mark.parametrize("expected, flags, qrels, run, version", list(_params()))
def test_output_equals_trec_eval(expected, flags, qrels, run, version, capsys):
    folder = DATA if version == 10 else DATA / "v9.0.8"
    if not (folder / expected).exists():
        folder = DATA  # the file did not change between the versions
    code = main(["eval", "--compat", f"trec_eval-{version}", *flags, str(DATA / qrels), str(DATA / run)])
    out = capsys.readouterr().out
    assert code == 0
    want = (folder / expected).read_text()
    assert out.splitlines() == want.splitlines()
    assert out == want
