"""What the documentation says, checked against what the code does.

Each test holds one statement of a docstring, a help text or the README to the behaviour it describes, so
that the text and the code cannot drift apart again.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from metrics.stats.significance import wilcoxon_test
from rankscope.cli import build_parser, main
from tests.paths import ROOT



def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def test_wilcoxon_normal_approximation_is_uncorrected_as_its_docstring_says():
    rng = np.random.default_rng(3)
    a = rng.random(80)
    b = a + rng.normal(0.05, 0.1, 80)
    p = wilcoxon_test(a, b, method="asymptotic").p_value
    assert p == pytest.approx(stats.wilcoxon(b - a, correction=False, method="asymptotic").pvalue, rel=1e-12)
    assert p != pytest.approx(stats.wilcoxon(b - a, correction=True, method="asymptotic").pvalue, rel=1e-6)
    doc = " ".join(wilcoxon_test.__doc__.split())
    assert "without a continuity correction" in doc and "(continuity correction)" not in doc


def test_anatomy_last_row_is_eval_except_where_its_help_says(tmp_path):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 a 1\n1 0 b 0\n1 0 c 1\n2 0 x 3\n2 0 y 1\n")  # topic 1 tops at 1, the qrels at 3
    run.write_text("1 Q0 b 1 3 t\n1 Q0 a 2 2 t\n1 Q0 c 3 1 t\n2 Q0 y 1 2 t\n2 Q0 x 2 1 t\n")
    code, out, _ = _run(["anatomy", str(qrels), str(run), "--query", "1", "--format", "json"])
    assert code == 0
    last = json.loads(out)[-1]
    code, out, _ = _run(["eval", "-q", "-m", "AP", "-m", "nDCG", "-m", "RR", "-m", "ERR", "--format", "json",
                         str(qrels), str(run)])
    assert code == 0
    values = {r["measure"]: r["value"] for r in json.loads(out) if r["query"] == "1"}
    for column, measure in (("ap", "AP"), ("ndcg", "nDCG"), ("rr", "RR")):
        assert last[column] == pytest.approx(values[measure], abs=1e-12), column
    help_text = " ".join(build_parser("anatomy")._subparsers._group_actions[0].choices["anatomy"].description.split())
    differs = last["err"] != pytest.approx(values["ERR"], abs=1e-12)
    assert differs == ("except ERR on graded qrels" in help_text)


def test_documented_exit_statuses(tmp_path):
    """The documentation (docs/guides/exploring.md): bad input and a run with no topic in common are one line
    and status 2; under --compat, trec_eval's status. Nowhere in it or the README is the output called
    identical to trec_eval's but where the binaries' test says so."""
    readme = " ".join(" ".join(p.read_text() for p in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
                               if "_ext" not in p.parts).split())
    qrels, run, bad = tmp_path / "qrels", tmp_path / "run", tmp_path / "bad"
    qrels.write_text("1 0 a 1\n2 0 b 1\n")
    run.write_text("9 Q0 a 1 1 t\n")
    bad.write_text("1 Q0 a 1 1\n")
    assert "one line on stderr and exit status 2" in readme
    for argv in (["eval", str(qrels), str(bad)], ["eval", str(qrels), str(run)]):
        code, out, err = _run(argv)
        assert (code, out, len(err.splitlines())) == (2, "", 1), argv
        assert "Traceback" not in err
    assert "(7: no topic in common; 4:" in readme
    assert _run(["eval", "--compat", "trec_eval-9", str(qrels), str(run)])[0] == 7
    assert _run(["eval", "--compat", "trec_eval-10", str(qrels), str(run)])[0] == 4
    assert "byte-identical to trec_eval 9" not in readme  # only the binaries' test may say what is identical
