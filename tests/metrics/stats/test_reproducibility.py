"""Reproducibility measures against repro_eval, on BM25 and term-overlap runs of Cranfield and Vaswani."""

from __future__ import annotations

import os
from collections import OrderedDict

import ir_measures
import numpy as np
import pytest
import repro_eval.util
from repro_eval.measure.document_order import KTU, RBO
from repro_eval.measure.effectiveness import RMSE
from repro_eval.measure.overall_effects import DRI, ER
from repro_eval.measure.statistics import ttest
from repro_eval.util import evaluate_run

from metrics.errors import ValidationError
from metrics.stats.reproducibility import (
    kendall_tau_union,
    rank_biased_overlap,
    reproduce,
)
from tests.real_runs import (
    CRANFIELD,
    VASWANI,
    bm25_and_overlap,
    cranfield_collection,
    vaswani_collection,
)

MEASURES = {"AP": "AP", "nDCG@10": "nDCG@10", "P@10": "P@10"}


def _need(folder):
    if not folder.is_dir():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{folder} is missing (CI=true: the collection must be there)")
        pytest.skip(f"the collection at {folder} is missing")


def _perturbed(text: str, seed: int, scale: float) -> str:
    """The run with seeded noise on its scores (rounded, so that ties remain): a 'reproduced' run."""
    rng = np.random.default_rng(seed)
    lines = []
    for line in text.splitlines():
        q, z, d, r, s, tag = line.split()
        lines.append(f"{q} {z} {d} {r} {round(float(s) + rng.normal(0, scale), 3):g} {tag}r")
    return "\n".join(lines) + "\n"


def _nested(path) -> dict:
    """A run as repro_eval holds it: per topic, documents in order of score (ties then broken by repro_eval)."""
    run: dict[str, dict[str, float]] = {}
    for line in path.read_text().splitlines():
        q, _, d, _, s, _ = line.split()
        run.setdefault(q, {})[d] = float(s)
    return {q: OrderedDict(sorted(docs.items(), key=lambda item: -item[1])) for q, docs in sorted(run.items())}


@pytest.fixture(scope="module")
def cranfield_runs(tmp_path_factory):
    _need(CRANFIELD)
    docs, queries, qrels = cranfield_collection()
    folder = tmp_path_factory.mktemp("repro")
    bm25, overlap = bm25_and_overlap(docs, queries, depth=100)
    files = {"orig_a": bm25, "orig_b": overlap, "rep_a": _perturbed(bm25, 1, 0.3), "rep_b": _perturbed(overlap, 2, 0.2)}
    paths = {}
    for name, text in files.items():
        paths[name] = folder / f"{name}.run"
        paths[name].write_text(text)
    return qrels["raw"], paths


def _scores(qrels_path, run_path) -> dict:
    qrels = repro_eval.util.load_qrels(str(qrels_path))
    run = repro_eval.util.load_run(str(run_path))
    measures = [ir_measures.parse_measure(m) for m in MEASURES.values()]
    return evaluate_run(measures, qrels, run)


def test_reproduction_matches_repro_eval(cranfield_runs):
    qrels, paths = cranfield_runs
    got = reproduce(qrels, paths["orig_b"], paths["orig_a"], paths["rep_b"], paths["rep_a"], list(MEASURES))
    assert got.kind == "reproducibility"
    s = {name: _scores(qrels, path) for name, path in paths.items()}
    er = ER(s["orig_a"], s["orig_b"], s["rep_a"], s["rep_b"])
    dri = DRI(s["orig_a"], s["orig_b"], s["rep_a"], s["rep_b"])
    effects = got.effects.set_index("measure")
    assert len(got.order) == 2 * 225 and got.order["ktu"].between(-0.99, 0.99).any()
    assert not np.allclose(effects["er"], 1.0)
    for ours, theirs in MEASURES.items():
        assert effects.loc[ours, "er"] == pytest.approx(er[theirs], rel=1e-9)
        assert effects.loc[ours, "delta_ri"] == pytest.approx(dri[theirs], rel=1e-9, abs=1e-12)
    scores = got.scores.set_index(["run", "measure"])
    for run, orig, rep in (("baseline", "orig_b", "rep_b"), ("advanced", "orig_a", "rep_a")):
        rmse, p = RMSE(s[orig], s[rep]), ttest(s[orig], s[rep], rpd=True)
        for ours, theirs in MEASURES.items():
            assert scores.loc[(run, ours), "rmse"] == pytest.approx(rmse[theirs], rel=1e-9)
            assert scores.loc[(run, ours), "p_value"] == pytest.approx(p[theirs], rel=1e-9)
        order = got.order[got.order["run"] == run].set_index("query")
        ktu = KTU(_nested(paths[orig]), _nested(paths[rep]), per_topic=True)
        rbo = RBO(_nested(paths[orig]), _nested(paths[rep]), p=0.95, depth=1000, pbar=False, per_topic=True)
        assert sorted(order.index) == sorted(ktu)
        for query in ktu:
            assert order.loc[query, "ktu"] == pytest.approx(ktu[query], abs=1e-12)
            assert order.loc[query, "rbo"] == pytest.approx(rbo[query], rel=1e-9)


def test_replication_uses_the_unpaired_test(cranfield_runs, tmp_path):
    _need(VASWANI)
    qrels, paths = cranfield_runs
    docs, queries, vqrels = vaswani_collection()
    bm25, overlap = bm25_and_overlap(docs, queries, depth=100)
    (tmp_path / "a.run").write_text(bm25)
    (tmp_path / "b.run").write_text(overlap)
    got = reproduce(qrels, paths["orig_b"], paths["orig_a"], tmp_path / "b.run", tmp_path / "a.run",
                    list(MEASURES), replication_qrels=vqrels["binary"])
    assert got.kind == "replicability" and got.order.empty
    s_orig = {name: _scores(qrels, paths[name]) for name in ("orig_a", "orig_b")}
    s_rep = {name: _scores(vqrels["binary"], tmp_path / f"{name}.run") for name in ("a", "b")}
    er = ER(s_orig["orig_a"], s_orig["orig_b"], s_rep["a"], s_rep["b"])
    p = ttest(s_orig["orig_a"], s_rep["a"], rpd=False)
    effects, scores = got.effects.set_index("measure"), got.scores.set_index(["run", "measure"])
    for ours, theirs in MEASURES.items():
        assert effects.loc[ours, "er"] == pytest.approx(er[theirs], rel=1e-9)
        assert scores.loc[("advanced", ours), "p_value"] == pytest.approx(p[theirs], rel=1e-9)
        assert np.isnan(scores.loc[("advanced", ours), "rmse"])


def test_hand_cases():
    assert rank_biased_overlap(list("abc"), list("abc"), p=0.9, depth=3) == pytest.approx(1.0)
    # the textbook sum for two swapped documents at depth 2: (1 * 0/1 + p * 2/2) / (1 + p)
    assert rank_biased_overlap(list("ab"), list("ba"), p=0.9, depth=2) == pytest.approx(0.9 / 1.9)
    assert kendall_tau_union(list("abcd"), list("abcd")) == 1.0
    with pytest.raises(ValidationError, match="persistence"):
        rank_biased_overlap(["a"], ["a"], p=1.0)


def test_repro_command_table_and_json(cranfield_runs, capsys):
    import json

    from rankscope.cli import main

    qrels, paths = cranfield_runs
    argv = ["repro", str(qrels), "--orig-b", str(paths["orig_b"]), "--orig-a", str(paths["orig_a"]),
            "--rep-b", str(paths["rep_b"]), "--rep-a", str(paths["rep_a"]), "-m", "AP"]
    assert main(argv + ["--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    s = {name: _scores(qrels, path) for name, path in paths.items()}
    assert document["effects"][0]["er"] == pytest.approx(ER(s["orig_a"], s["orig_b"], s["rep_a"], s["rep_b"])["AP"],
                                                         rel=1e-9)
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "reproducibility" in text and "mean KTU" in text
    assert main(argv + ["--rbo-p", "1.5"]) == 2
    assert "persistence" in capsys.readouterr().err
