"""What ``power``, ``compare --risk-alpha`` and ``compare --seeds`` say of what they computed: post hoc power
named as such in the JSON, the ANOVA row named with the variance it is given, the risk block's baseline set
and uncorrected flags, and a ``--seeds`` that never takes the qrels for its rule."""

from __future__ import annotations

import json

import numpy as np
import pytest

from rankscope.cli import main

statsmodels_power = pytest.importorskip("statsmodels.stats.power", reason="statsmodels (the oracle) is not installed")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """A qrels file whose name could be a rule (A.qrels) and six runs of two systems, three seeds each."""
    root = tmp_path_factory.mktemp("wording")
    rng = np.random.default_rng(47)
    qrels = root / "A.qrels"
    qrels.write_text("".join(f"{q} 0 d{d} {int(rng.random() < 0.3)}\n" for q in range(20) for d in range(15)))
    paths = []
    for system, skill in (("bm25", 0.0), ("dense", 0.5)):
        for seed in (1, 2, 3):
            path = root / f"{system}.seed{seed}.run"
            path.write_text("".join(f"{q} Q0 d{d} 0 {rng.random() + skill * (d % 3 == 0):.6f} {system}\n"
                                    for q in range(20) for d in range(15)))
            paths.append(str(path))
    return str(qrels), paths


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_power_json_names_each_pairs_power_post_hoc(runs, capsys):
    qrels, paths = runs
    code, out, err = run(capsys, "power", qrels, *paths[:3], "-m", "AP", "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["power"] == 0.8  # the power aimed at
    assert all("power" not in pair and "post_hoc_power" in pair for pair in doc["pairs"])
    pair = doc["pairs"][0]  # the paired t-test's power at the pair's own d_z, as statsmodels computes it
    expected = statsmodels_power.TTestPower().power(effect_size=pair["effect_size"], nobs=20, alpha=0.05)
    assert pair["post_hoc_power"] == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize(("variance", "design"), [("residual", "one-way ANOVA, two-way residual variance"),
                                                  ("within", "one-way ANOVA")])
def test_power_names_the_anova_row_with_the_variance_it_is_given(runs, capsys, variance, design):
    qrels, paths = runs
    code, out, err = run(capsys, "power", qrels, *paths, "-m", "AP", "--variance", variance, "--format", "json")
    assert code == 0, err
    assert [d["design"] for d in json.loads(out)["designs"]] == ["paired t", design]
    code, out, err = run(capsys, "power", qrels, *paths, "-m", "AP", "--variance", variance)
    rows = [line for line in out.splitlines() if line.startswith("one-way ANOVA")]
    assert len(rows) == 1 and rows[0].startswith(design + "  ")
    assert "post hoc power" in out.splitlines()[out.splitlines().index(next(
        line for line in out.splitlines() if line.startswith("post hoc power of each pair"))) + 1]


def test_the_risk_block_names_the_systems_of_zrisk_and_the_uncorrected_flag(runs, capsys):
    qrels, paths = runs
    code, out, err = run(capsys, "compare", qrels, *paths[:4], "-m", "AP", "--risk-alpha", "1", "--baseline",
                         "bm25.seed1")
    assert code == 0, err
    flat = " ".join(out.split())
    assert "uncorrected for the 3 systems compared with bm25.seed1, while the tests above are holm-corrected" in flat
    assert "ZRisk and GeoRisk: against all 4 systems listed, bm25.seed1 included" in flat
    code, out, err = run(capsys, "compare", qrels, *paths[:4], "-m", "AP", "--risk-alpha", "1", "--correction", "none")
    assert "while the tests above are not corrected either" in " ".join(out.split())


def test_seeds_takes_no_value_so_the_qrels_after_it_stay_the_qrels(runs, capsys):
    qrels, paths = runs
    code, first, err = run(capsys, "compare", "--seeds", qrels, *paths, "-m", "AP", "--format", "json")
    assert code == 0, err
    code, second, err = run(capsys, "compare", qrels, *paths, "-m", "AP", "--seeds", "--format", "json")
    assert code == 0, err
    assert first == second and json.loads(first)["systems"] == {"bm25": [p.rsplit("/", 1)[1][:-4] for p in paths[:3]],
                                                                "dense": [p.rsplit("/", 1)[1][:-4] for p in paths[3:]]}
    code, out, err = run(capsys, "compare", "--seeds-rule", r"(?P<system>\w+)\.seed\d", qrels, *paths, "-m", "AP",
                         "--format", "json")
    assert code == 0, err
    assert json.loads(out)["systems"] == json.loads(first)["systems"]
