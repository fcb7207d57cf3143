"""Compact letter display: hand-made cases and the property that letters reproduce the significance relation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from metrics.errors import ValidationError
from metrics.stats.significance import compare_systems
from metrics.stats.significance._letters import (
    grouped_leaderboard,
    letter_display,
    letter_groups,
)
from tests.paths import ROOT


def _differs(k: int, pairs: list[tuple[int, int]]) -> np.ndarray:
    M = np.zeros((k, k), dtype=bool)
    for i, j in pairs:
        M[i, j] = M[j, i] = True
    return M


def test_non_transitive_overlap():
    out = letter_display(["A", "B", "C"], [0.3, 0.2, 0.1], _differs(3, [(0, 2)]), measure="AP")
    assert out["system"].tolist() == ["A", "B", "C"]
    assert out["group"].tolist() == ["a", "ab", "b"]


def test_all_the_same_and_all_different():
    same = letter_display(["x", "y", "z"], [0.1, 0.3, 0.2], _differs(3, []), measure="AP")
    assert same["system"].tolist() == ["y", "z", "x"] and same["group"].tolist() == ["a", "a", "a"]
    apart = letter_display(["x", "y", "z"], [0.1, 0.3, 0.2], _differs(3, [(0, 1), (0, 2), (1, 2)]), measure="AP")
    assert apart["group"].tolist() == ["a", "b", "c"]


def test_lower_is_better_orders_upwards():
    out = letter_display(["x", "y"], [0.1, 0.3], _differs(2, [(0, 1)]), measure="MR")
    assert out["system"].tolist() == ["x", "y"] and out["group"].tolist() == ["a", "b"]


@pytest.mark.parametrize("seed", range(40))
def test_letters_reproduce_the_relation_exactly(seed):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(1, 9))
    M = np.triu(rng.random((k, k)) < rng.random(), 1)
    M = M | M.T
    out = letter_display([f"s{i}" for i in range(k)], rng.random(k), M, measure="AP")
    letters = dict(zip(out["system"], out["group"]))
    for i in range(k):
        assert letters[f"s{i}"], "every system has a letter"
        for j in range(i + 1, k):
            share = bool(set(letters[f"s{i}"]) & set(letters[f"s{j}"]))
            assert share == (not M[i, j]), (i, j, letters)


def test_groups_are_cliques_of_the_non_different():
    M = _differs(5, [(0, 3), (1, 4), (0, 4)])
    for g in letter_groups(M):
        assert not any(M[i, j] for i in g for j in g)


def test_asymmetric_table_is_refused():
    M = np.zeros((2, 2), dtype=bool)
    M[0, 1] = True
    with pytest.raises(ValidationError, match="symmetric"):
        letter_groups(M)


def test_grouped_leaderboard_from_a_tukey_comparison():
    rng = np.random.default_rng(5)
    base = rng.random(30)
    rows = [{"system": s, "query": str(q), "measure": "AP", "value": base[q] + shift + rng.normal(0, 0.02)}
            for s, shift in (("low", 0.0), ("mid", 0.01), ("high", 0.2)) for q in range(30)]
    comparison = compare_systems(pd.DataFrame(rows), test="tukey")
    board = grouped_leaderboard(comparison, "AP")
    assert board["system"].tolist() == ["high", "mid", "low"]
    sig = {frozenset((a, b)): s for a, b, s in comparison.frame[["system_a", "system_b", "significant"]].values}
    letters = dict(zip(board["system"], board["group"]))
    for pair, s in sig.items():
        a, b = tuple(pair)
        assert bool(set(letters[a]) & set(letters[b])) == (not s)
    with pytest.raises(ValidationError, match="baseline"):
        grouped_leaderboard(compare_systems(pd.DataFrame(rows), baseline="low"), "AP")


def test_leaderboard_latex_escapes_names():
    from metrics.review.compare.render import leaderboard_to_latex

    board = letter_display(["bm25_rm3%", "x"], [0.4, 0.2], _differs(2, [(0, 1)]), measure="AP")
    text = leaderboard_to_latex(board, "nDCG@10")
    assert r"bm25\_rm3\% & 0.4000 & a \\" in text and r"x & 0.2000 & b \\" in text
    assert text.count(r"\begin{table}") == 1 and text.endswith("\\end{table}\n")


def test_compare_latex_carries_the_grouped_leaderboard(capsys, tmp_path):
    from rankscope.cli import main

    rng = np.random.default_rng(4)
    (tmp_path / "qrels").write_text("".join(f"{q} 0 d{d} {int(d < 5)}\n" for q in range(1, 31) for d in range(20)))
    runs = []
    for name, skill in (("good", 2.0), ("fair", 0.5), ("poor", 0.0)):
        path = tmp_path / f"{name}.run"
        path.write_text("".join(f"{q} Q0 d{d} 0 {rng.random() + skill * (d < 5):.6f} {name}\n"
                                for q in range(1, 31) for d in range(20)))
        runs.append(str(path))
    assert main(["compare", str(tmp_path / "qrels"), *runs, "-m", "AP", "--format", "latex", "--test", "tukey"]) == 0
    text = capsys.readouterr().out
    assert "compact letter display" in text
    assert main(["compare", str(tmp_path / "qrels"), *runs, "-m", "AP", "--format", "latex", "--baseline", "poor"]) == 0
    assert "compact letter display" not in capsys.readouterr().out


def test_report_data_gives_the_grouped_leaderboard():
    from pathlib import Path

    from metrics.review.report import compute_report

    demo = ROOT / "sample_data" / "demo"
    runs = [demo / "runs" / f"{name}.run.gz" for name in ("bm25", "bm25_rm3", "weak_tfidf")]
    report = compute_report(demo / "qrels.txt", runs, ["AP"])
    board = report.grouped_leaderboard("AP")
    c = report.pairwise_comparison
    assert board["system"].tolist() == ["bm25_rm3", "bm25", "weak_tfidf"]
    letters = dict(zip(board["system"], board["group"]))
    for a, b, sig in c.frame[["system_a", "system_b", "significant"]].itertuples(index=False):
        assert bool(set(letters[a]) & set(letters[b])) == (not sig)
    assert report.grouped_leaderboard("nDCG@10") is None
