"""Tie ranges against brute force: every ordering of every tie group, per topic, on seeded tie-heavy collections."""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np
import pytest

from metrics import ValidationError, evaluate, parse_measure, rank_runs
from metrics.evaluate import per_query_values, resolve_measures
from metrics.stats.ties import (
    _mixed_ties,
    is_exact,
    reorder_ties,
    tie_flips,
    tie_ranges,
    tie_straddles,
    tie_summary,
)

SEEDS = range(12)
# every measure claimed exact, with the parameters that change what it reads
EXACT = ["P@3", "P", "P(rel=2)@5", "AP", "AP@4", 'AP(denominator="capped")@3', "GMAP", "nDCG", "nDCG@3",
         'nDCG(gain="exp",discount="jk")@5', 'nDCG(ideal="retrieved")@4', "CG@3", "DCG@4", "IDCG@3", "RR", "RR@3",
         "MedianRR@4", "ERR", "ERR@3", "RBP", "RBP(p=0.5)", "RBP_resid", "R@3", "R", "Success@2", "Bpref",
         "Bpref(rel=2)", "GMBpref", "Rprec", "SetAP", "F1@3", "F(beta=2.0)",
         "IPrec(recall=0.5)", "IPrecAvg", "RelP@3", "Judged@3", "Unjudged@4", "Utility",
         "NumRelRet@3", "NumRet", "NumRel", "NumQ", "NumNonrelJudgedRet",
         "Precision_condensed(k=3)", "AP_condensed", "nDCG_condensed(k=4)"]
NOT_EXACT = ['AP(denominator="retrieved")@3', "AUC@5", "Fallout@3", "MR", "infAP", "Precision_resid@3", "AP_resid", "nDCG_resid@3", "RR_resid"]


def tie_collection(seed: int) -> tuple[str, str]:
    """Qrels and run texts: 2-5 topics, scores drawn from 2-3 values, tie groups of at most 6 documents (the
    product of the groups' factorials stays small enough to enumerate), graded, non-relevant, negative and
    missing judgments."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(int(rng.integers(2, 6))):
        values = rng.choice([1.0, 2.0, 3.0, 4.5], size=int(rng.integers(2, 4)), replace=False)
        sizes = []
        while sum(sizes) < 3 or (sum(sizes) < 10 and rng.random() < 0.7):
            sizes.append(int(rng.integers(1, 5)))
        if math.prod(math.factorial(s) for s in sizes) > 720:
            sizes = sizes[:2]
        doc = 0
        for g, size in enumerate(sizes):
            score = float(values[g % len(values)] - 10 * (g // len(values)))  # distinct groups, equal scores inside
            for _ in range(size):
                name = f"d{rng.integers(0, 1000)}x{doc}"
                doc += 1
                run.append(f"{q} Q0 {name} 0 {score!r} s{seed}")
                kind = rng.random()
                if kind < 0.7:
                    qrels.append(f"{q} 0 {name} {int(rng.choice([0, 0, 1, 2, 3]))}")
                elif kind < 0.8:
                    qrels.append(f"{q} 0 {name} -1")
        for extra in range(int(rng.integers(0, 3))):
            qrels.append(f"{q} 0 unretrieved{extra} {int(rng.integers(0, 3))}")
        qrels.append(f"{q} 0 anchor 1")
    rng.shuffle(run)
    return "\n".join(qrels) + "\n", "\n".join(run) + "\n"


def brute_force(rankings, measures):
    """Per topic and measure, the minimum and maximum over every ordering of every tie group."""
    out = {}
    for q in rankings.queries:
        one = rankings.select_queries([q])
        score = one.scores()
        starts = np.flatnonzero(np.r_[True, score[1:] != score[:-1]])
        groups = [list(range(a, b)) for a, b in zip(starts, np.r_[starts[1:], len(score)])]
        values = {m: [] for m in measures}
        for choice in itertools.product(*(itertools.permutations(g) for g in groups)):
            order = np.array([i for perm in choice for i in perm], dtype=np.int64)
            permuted = dataclasses.replace(one, rel=one.rel[order], rows=one.rows[order])
            for label, m in measures.items():
                values[label].append(float(m.compute(permuted)[0]))
        for label in measures:
            out[(str(q), label)] = (min(values[label]), max(values[label]))
    return out


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("options", [{}, {"relevance_level": 2}], ids=["l1", "l2"])
def test_low_and_high_are_the_true_minimum_and_maximum(seed, options):
    qrels, run = tie_collection(seed)
    ranked = rank_runs(qrels, [run], **options)
    measures = dict(resolve_measures(EXACT))
    ranges = tie_ranges(None, ranked, EXACT)
    truth = brute_force(ranked[0], measures)
    plain = evaluate(qrels, [run], EXACT, **options)
    assert ranges["reported"].to_numpy() == pytest.approx(plain["value"].to_numpy(), abs=0, nan_ok=True)
    assert (ranges["query"].to_numpy() == plain["query"].to_numpy()).all()
    moved = 0
    for q, label, low, high in zip(ranges["query"], ranges["measure"], ranges["low"], ranges["high"]):
        want_low, want_high = truth[(q, label)]
        assert low == pytest.approx(want_low, rel=1e-12, abs=1e-12), f"seed {seed} topic {q} {label} low"
        assert high == pytest.approx(want_high, rel=1e-12, abs=1e-12), f"seed {seed} topic {q} {label} high"
        moved += high > low
    assert moved > 0


def mixed_collection(seed: int) -> tuple[str, str]:
    """Qrels and run texts of 6-12 topics, topic ``q`` of kind ``q % 4``: scores all distinct; groups of three
    equal scores among unjudged documents only; among documents of one grade; among documents of different
    grades, judged or not."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(int(rng.integers(6, 13))):
        kind = q % 4
        for d in range(int(rng.integers(3, 12))):
            name = f"t{q}d{d}"
            run.append(f"{q} Q0 {name} 0 {float(d if kind == 0 else d // 3)!r} m")
            grade = {0: int(rng.integers(-1, 3)), 1: None, 2: 1, 3: int(rng.integers(-1, 4))}[kind]
            if grade is not None and (kind != 3 or rng.random() < 0.7):
                qrels.append(f"{q} 0 {name} {grade}")
        qrels.append(f"{q} 0 absent{q} 1")
    rng.shuffle(run)
    return "\n".join(qrels) + "\n", "\n".join(run) + "\n"


@pytest.mark.parametrize("seed", SEEDS)
def test_topics_whose_ties_share_a_grade_are_not_evaluated_again_and_lose_nothing(seed):
    """The values equal those of every topic evaluated in its worst and best orders (the textbook way)."""
    qrels, run = mixed_collection(seed)
    ranked = rank_runs(qrels, [run])
    labels = EXACT + NOT_EXACT[:2]
    pairs = resolve_measures(labels)
    frame = tie_ranges(None, ranked, labels, inexact="nan")
    worst = per_query_values(reorder_ties(ranked[0], "worst"), pairs)
    best = per_query_values(reorder_ties(ranked[0], "best"), pairs)
    exact = np.array([is_exact(m) for _, m in pairs])[:, None]
    moved = _mixed_ties(ranked[0])
    assert 0 < len(moved) < ranked[0].n_queries  # both kinds of topic are there
    low = np.where(exact, np.fmin(worst, best), np.nan).T.ravel()
    high = np.where(exact, np.fmax(worst, best), np.nan).T.ravel()
    assert frame["low"].to_numpy() == pytest.approx(low, rel=1e-12, abs=1e-15, nan_ok=True)
    assert frame["high"].to_numpy() == pytest.approx(high, rel=1e-12, abs=1e-15, nan_ok=True)
    bounded = frame.dropna(subset=["low"])
    assert (bounded["low"] <= bounded["reported"]).all() and (bounded["reported"] <= bounded["high"]).all()


def test_every_claimed_measure_is_exact_and_the_others_are_refused():
    assert all(is_exact(parse_measure(m)) for m in EXACT)
    assert not any(is_exact(parse_measure(m)) for m in NOT_EXACT)
    qrels, run = tie_collection(0)
    with pytest.raises(ValidationError, match="no exact tie range for Precision_resid@3"):
        tie_ranges(qrels, [run], ["P@3", "Precision_resid@3"])
    frame = tie_ranges(qrels, [run], ["P@3", "Precision_resid@3"], inexact="nan")
    assert frame.loc[frame["measure"] == "Precision_resid@3", ["low", "high"]].isna().all().all()
    assert frame.loc[frame["measure"] == "P@3", ["low", "high"]].notna().all().all()


def test_not_exact_measures_really_escape_the_grade_orders():
    """For each measure refused, some tie collection has an ordering outside the grade-sorted values."""
    escaped = set()
    for seed, level in itertools.product(SEEDS, (1, 2)):
        qrels, run = tie_collection(seed)
        ranked = rank_runs(qrels, [run], relevance_level=level)[0]
        measures = dict(resolve_measures(NOT_EXACT))
        truth = brute_force(ranked, measures)
        pairs = list(measures.items())
        worst = per_query_values(reorder_ties(ranked, "worst"), pairs)
        best = per_query_values(reorder_ties(ranked, "best"), pairs)
        for i, (label, _) in enumerate(pairs):
            for j, q in enumerate(ranked.queries):
                lo, hi = truth[(str(q), label)]
                if min(worst[i, j], best[i, j]) > lo + 1e-12 or max(worst[i, j], best[i, j]) < hi - 1e-12:
                    escaped.add(label)
    assert escaped == set(NOT_EXACT)


def test_a_constant_scorer_reports_a_perfect_rr_that_ties_alone_decide():
    qrels = "1 0 zz 1\n1 0 a 0\n1 0 b 0\n2 0 zz 1\n2 0 c 0\n"
    run = "1 Q0 zz 1 0 c\n1 Q0 a 2 0 c\n1 Q0 b 3 0 c\n2 Q0 zz 1 0 c\n2 Q0 c 2 0 c\n"
    frame = tie_ranges(qrels, {"const": run}, ["RR@10", "P@1"])
    summary = tie_summary(frame)
    rr = summary.set_index("measure").loc["RR@10"]
    assert (rr["low"], rr["reported"], rr["high"]) == pytest.approx(((1 / 3 + 1 / 2) / 2, 1.0, 1.0))
    p1 = summary.set_index("measure").loc["P@1"]
    assert (p1["low"], p1["reported"], p1["high"]) == (0.0, 1.0, 1.0)


def test_summary_means_and_flips_on_a_crafted_pair():
    qrels = "1 0 b 1\n1 0 a 0\n2 0 c 1\n2 0 d 0\n"
    # docid order puts b before a (RR 1) and d before c (RR 0.5)
    tied = "1 Q0 a 1 1 t\n1 Q0 b 2 1 t\n2 Q0 c 1 1 t\n2 Q0 d 2 1 t\n"
    clean = "1 Q0 a 1 2 s\n1 Q0 b 2 1 s\n2 Q0 c 1 2 s\n2 Q0 d 2 1 s\n"  # RR 0.5 and 1, no ties
    frame = tie_ranges(qrels, {"tied": tied, "clean": clean}, ["RR"])
    summary = tie_summary(frame).set_index("system")
    assert summary.loc["tied", ["low", "reported", "high"]].tolist() == [0.5, 0.75, 1.0]
    assert summary.loc["clean", ["low", "reported", "high"]].tolist() == [0.75, 0.75, 0.75]
    flips = tie_flips(tie_summary(frame))
    assert len(flips) == 1 and {flips.loc[0, "first"], flips.loc[0, "second"]} == {"tied", "clean"}
    best = "1 Q0 b 1 2 s\n1 Q0 a 2 1 s\n2 Q0 c 1 2 s\n2 Q0 d 2 1 s\n"  # RR 1: tied's high only reaches it
    worst = "1 Q0 a 1 2 s\n1 Q0 b 2 1 s\n2 Q0 d 1 2 s\n2 Q0 c 2 1 s\n"  # RR 0.5: tied's low only reaches it
    frame = tie_ranges(qrels, {"best": best, "tied": tied, "worst": worst}, ["RR"])
    assert tie_flips(tie_summary(frame)).empty
    better_tied = tied.replace(" 1 t\n2 Q0 c", " 0.5 t\n2 Q0 c")  # topic 1: b below a, RR 0.5, no tie
    frame = tie_ranges(qrels, {"tied": tied, "other": better_tied}, ["RR"])
    flips = tie_flips(tie_summary(frame))
    assert flips[["first", "second"]].values.tolist() == [["tied", "other"]]


def test_straddles_name_the_topics_tied_across_a_cutoff():
    qrels = "1 0 a 1\n1 0 b 1\n2 0 c 1\n"
    run = "1 Q0 a 1 3 x\n1 Q0 b 2 2 x\n1 Q0 z 3 2 x\n2 Q0 c 1 3 x\n2 Q0 y 2 2 x\n2 Q0 w 3 1 x\n"
    ranked = rank_runs(qrels, {"x": run})
    frame = tie_straddles(tie_ranges(None, ranked, ["P@2", "AP"]), ranked)
    assert frame[["query", "measure", "cutoff", "low", "reported", "high"]].values.tolist() == [
        ["1", "P@2", 2, 0.5, 0.5, 1.0]]  # docid order: z before b


def test_reorder_ties_keeps_groups_and_rejects_unknown_orders():
    qrels, run = tie_collection(3)
    ranked = rank_runs(qrels, [run])[0]
    for order in ("worst", "best"):
        moved = reorder_ties(ranked, order)
        assert (moved.scores() == ranked.scores()).all()
        assert sorted(moved.rows) == sorted(ranked.rows)
    with pytest.raises(ValidationError, match="tie order"):
        reorder_ties(ranked, "random")


def test_eval_prints_low_reported_and_high(tmp_path, capsys):
    from rankscope.cli import main

    qrels, run = tmp_path / "q.qrels", tmp_path / "const.run"
    qrels.write_text("1 0 zz 1\n1 0 a 0\n1 0 b 0\n2 0 zz 1\n2 0 c 0\n")
    run.write_text("1 Q0 zz 1 0 c\n1 Q0 a 2 0 c\n1 Q0 b 3 0 c\n2 Q0 zz 1 0 c\n2 Q0 c 2 0 c\n")
    assert main(["eval", "--ties", "range", "-q", "-m", "recip_rank", "-m", "AP_resid", str(qrels), str(run)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == ["recip_rank            \t1\t0.3333\t1.0000\t1.0000",
                     "AP_resid              \t1\tn/a\t1.0000\tn/a",
                     "recip_rank            \t2\t0.5000\t1.0000\t1.0000",
                     "AP_resid              \t2\tn/a\t1.0000\tn/a",
                     "recip_rank            \tall\t0.4167\t1.0000\t1.0000",
                     "AP_resid              \tall\tn/a\t1.0000\tn/a"]
    assert main(["eval", "--ties", "range", "--format", "json", "-m", "P@1", str(qrels), str(run)]) == 0
    import json

    assert json.loads(capsys.readouterr().out) == [
        {"system": "const", "query": "all", "measure": "P@1", "low": 0.0, "reported": 1.0, "high": 1.0}]
