"""``rankscope compare --seeds``: runs grouped by their names, the spread printed, the mixed model's p-value
equal to statsmodels' MixedLM on the same per-query values."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from metrics import evaluate
from rankscope.cli import main
from tests.metrics.stats.seed_oracle import P_TOLERANCE, statsmodels_fit

TOPICS = 15


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    root = tmp_path_factory.mktemp("seeds")
    rng = np.random.default_rng(30)
    qrels = root / "q.qrels"
    qrels.write_text("".join(f"{q} 0 d{d} {int(rng.random() < 0.3)}\n" for q in range(TOPICS) for d in range(12)))
    runs = []
    for system, skill in (("bm25", 0.0), ("dense", 0.6)):
        for seed in (1, 2, 3):
            path = root / f"{system}.seed{seed}.run"
            lines = []
            for q in range(TOPICS):
                scores = rng.random(12) + skill * rng.random() * (np.arange(12) % 3 == 0)
                lines += [f"{q} Q0 d{d} 0 {scores[d]:.6f} {system}{seed}\n" for d in range(12)]
            path.write_text("".join(lines))
            runs.append(path)
    return qrels, runs


def test_compare_seeds_json_matches_statsmodels(collection, capsys):
    qrels, runs = collection
    assert main(["compare", "--seeds", "-m", "AP", "--format", "json", str(qrels), *map(str, runs)]) == 0
    out, err = capsys.readouterr()
    document = json.loads(out)
    assert document["systems"] == {s: [f"{s}.seed{i}" for i in (1, 2, 3)] for s in ("bm25", "dense")}
    per_query = evaluate(str(qrels), [str(r) for r in runs], "AP")
    wide = per_query.pivot(index="system", columns="query", values="value")
    means = wide.mean(axis=1)
    for row in document["means"]:
        values = [means[f"{row['system']}.seed{i}"] for i in (1, 2, 3)]
        assert row["value"] == pytest.approx(np.mean(values)) and row["sd"] == pytest.approx(np.std(values, ddof=1))
    [test] = document["comparisons"]
    a = wide.loc[[f"bm25.seed{i}" for i in (1, 2, 3)]].to_numpy()
    b = wide.loc[[f"dense.seed{i}" for i in (1, 2, 3)]].to_numpy()
    theirs = statsmodels_fit(a, b)
    assert test["difference"] == pytest.approx(theirs.fe_params["system[T.b]"])
    assert abs(test["p_value"] - theirs.pvalues["system[T.b]"]) < P_TOLERANCE
    assert test["topics"] == TOPICS and (test["runs_a"], test["runs_b"]) == (3, 3)


def test_compare_seeds_table_and_explicit_groups(collection, capsys):
    qrels, runs = collection
    assert main(["compare", "--seeds", "-m", "AP", str(qrels), *map(str, runs)]) == 0
    out, _ = capsys.readouterr()
    assert "Mixed model (topics and seeds random" in out
    assert re.search(r"^AP\s+dense\s+3\s", out, re.M) and re.search(r"^AP\s+bm25\s+dense\s+3/3\s+15\s", out, re.M)
    argv = ["compare", "--group", "odd=bm25.seed1,dense.seed1", "--group", "even=bm25.seed2,dense.seed2", "-m", "AP",
            "--format", "csv", str(qrels), *map(str, runs[:2] + runs[3:5])]
    assert main(argv) == 0
    out, _ = capsys.readouterr()
    assert out.splitlines()[1].startswith("AP,odd,even,2,2,")


@pytest.mark.parametrize(("extra", "message"), [
    (["--group", "broken"], "--group: expected SYSTEM=RUN,RUN, found 'broken'"),
    (["--seeds-rule", "(x"], "not a regular expression"),
    (["--seeds", "--format", "latex"], "--seeds: expected --format table, csv or json"),
    (["--group", "x=nope"], "names run 'nope', which is not among the runs"),
])
def test_compare_seeds_bad_input_is_one_line(collection, capsys, extra, message):
    qrels, runs = collection
    code = main(["compare", *extra, "-m", "AP", str(qrels), *map(str, runs)])
    out, err = capsys.readouterr()
    assert code != 0 and message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
