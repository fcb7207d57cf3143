"""Gain-family, cascade, rank and set measures against slow textbook versions and worked examples.

Each textbook version below loops over one query's list of grades in plain Python; the vectorised kernels
must agree with it per query on seeded random collections, under the conventions that change the ranked
lists (-M, -l, -J, -c). The worked numbers come from standard lecture examples (graded ranking 3, 2, 3, 0,
0, 1, 2, 2, 3, 0; binary rankings with their precision and recall rows; the MRR versus mean-rank example).
"""

from __future__ import annotations

import math
import statistics

import numpy as np
import pytest

from metrics import ValidationError, aggregate, evaluate, parse_measure, rank_runs, resolve_measures
from metrics.judgments.joint import joint_ideal_qrels
from metrics.measures.ndcg import discount, nDCG
from tests.random_collections import random_collection, trec_order
from tests.metrics.measures.test_unjudged_measures import UNJUDGED_CASES

SEEDS = range(25)
OPTIONS = [
    pytest.param({}, id="default"),
    pytest.param({"depth": 7}, id="M7"),
    pytest.param({"relevance_level": 2}, id="l2"),
    pytest.param({"judged_only": True}, id="J"),
    pytest.param({"complete": True}, id="c"),
]


# ---- textbook rankings ---------------------------------------------------------------------------------
class Query:
    """One query as plain lists: ranked (docid, code) pairs and the judged grades by document."""

    def __init__(self, ranked: list[tuple[str, int]], judged: dict[str, int]):
        self.docs = [d for d, _ in ranked]
        self.codes = [c for _, c in ranked]  # grade, -1 not in the qrels, -2 negative grade
        self.judged = judged  # grade >= 0 only

    def top(self, k):
        return self.codes if k is None else self.codes[:k]


def textbook_queries(col, depth=None, judged_only=False, complete=False, **_) -> dict[str, Query]:
    out = {}
    for q in sorted(col.qrels, key=lambda s: s.encode()):
        if q not in col.run and not complete:
            continue
        docs = col.run.get(q, {})
        order = trec_order(docs) if docs else []
        if depth is not None:
            order = order[:depth]
        ranked = []
        for d in order:
            g = col.qrels[q].get(d)
            code = -1 if g is None else (-2 if g < 0 else g)
            if judged_only and code < 0:
                continue
            ranked.append((d, code))
        out[q] = Query(ranked, {d: g for d, g in col.qrels[q].items() if g >= 0})
    return out


def gain(g, kind):
    if g <= 0:
        return 0.0
    return float(g) if kind == "linear" else 2.0 ** g - 1.0


def disc(i, kind, base):
    if kind == "log2":
        return math.log2(i + 1)
    return 1.0 if i < base else math.log(i) / math.log(base)


def tb_cg(grades, k, kind="linear"):
    total = 0.0
    for g in (grades if k is None else grades[:k]):
        total += gain(g, kind)
    return total


def tb_dcg(grades, k, kind="linear", dkind="log2", base=2.0):
    total = 0.0
    for i, g in enumerate(grades if k is None else grades[:k], start=1):
        total += gain(g, kind) / disc(i, dkind, base)
    return total


def tb_idcg(query, k, kind="linear", dkind="log2", base=2.0, ideal="judged"):
    pool = list(query.judged.values()) if ideal == "judged" else [g for g in query.codes if g > 0]
    return tb_dcg(sorted(pool, reverse=True), k, kind, dkind, base)


def tb_mapped(query, k, mapping, which):
    """trec_eval's dcg / ideal_dcg / ndcg with a gain map (intended definition: gains sorted exactly)."""
    codes = query.codes if k is None else query.codes[:k]
    actual = sum(mapping.get(g, g) / math.log2(i + 1) for i, g in enumerate(codes, start=1) if g >= 0)
    best_gains = sorted((mapping.get(g, g) for g in query.judged.values()), reverse=True)
    best_gains = [x for x in best_gains if x > 0][:k]
    best = sum(x / math.log2(i + 1) for i, x in enumerate(best_gains, start=1))
    return {"dcg": actual, "ideal": best, "ndcg": actual / best if best > 0 else 0.0}[which]


def tb_ndcg(query, k, kind="linear", dkind="log2", base=2.0, ideal="judged"):
    pool = list(query.judged.values()) if ideal == "judged" else [g for g in query.codes if g > 0]
    best = tb_dcg(sorted(pool, reverse=True), k, kind, dkind, base)
    return tb_dcg(query.codes, k, kind, dkind, base) / best if best > 0 else 0.0


def tb_err(grades, k, top):
    total, go_on = 0.0, 1.0
    for i, g in enumerate(grades if k is None else grades[:k], start=1):
        stop = (2.0 ** min(max(g, 0), top) - 1.0) / 2.0 ** top
        total += go_on * stop / i
        go_on *= 1.0 - stop
    return total


def tb_first(grades, k, level):
    for i, g in enumerate(grades if k is None else grades[:k], start=1):
        if g >= level:
            return i
    return None


def tb_mr(grades, k, level, missing, depth, longest):
    first = tb_first(grades, k, level)
    if first is not None:
        return float(first)
    if missing == "exclude":
        return math.nan
    if missing == "num_ret+1":
        return float(len(grades if k is None else grades[:k]) + 1)
    limits = [x for x in (k, depth) if x is not None]
    return float((min(limits) if limits else longest) + 1)


def tb_rr(grades, k, level):
    first = tb_first(grades, k, level)
    return 0.0 if first is None else 1.0 / first


def tb_auc(query, k, level, empty):
    shown = query.docs if k is None else query.docs[:k]
    place = {d: i for i, d in enumerate(shown)}
    relevant = [d for d, g in query.judged.items() if g >= level]
    nonrel = [d for d, g in query.judged.items() if g < level]
    score = pairs = 0.0
    for a in relevant:
        for b in nonrel:
            ra, rb = place.get(a, math.inf), place.get(b, math.inf)
            score += 1.0 if ra < rb else (0.5 if ra == rb else 0.0)
            pairs += 1
    if not pairs:
        return 0.0 if empty == "zero" else math.nan
    return score / pairs


def tb_judged(grades, k):
    shown = grades if k is None else grades[:k]
    count = sum(1 for g in shown if g >= 0)
    if k is None:
        return count / len(shown) if shown else 0.0
    return count / k


def tb_fallout(query, k, level, n=None):
    shown = query.top(k)
    num_rel = sum(1 for g in query.judged.values() if g >= level)
    if n is None:
        found = sum(1 for g in shown if 0 <= g < level)
        pool = sum(1 for g in query.judged.values() if g < level)
    else:
        found = sum(1 for g in shown if g < level)
        pool = n - num_rel
    return found / pool if pool > 0 else 0.0


def tb_f(query, k, level, beta):
    shown = query.top(k)
    found = sum(1 for g in shown if g >= level)
    num_rel = sum(1 for g in query.judged.values() if g >= level)
    if not found:
        return 0.0
    p = found / (k if k is not None else len(shown))
    r = found / num_rel
    return (1 + beta * beta) * p * r / (beta * beta * p + r)


def tb_recall(query, k, level):
    num_rel = sum(1 for g in query.judged.values() if g >= level)
    found = sum(1 for g in query.top(k) if g >= level)
    return found / num_rel if num_rel else 0.0


def tb_ap(query, k, level, denominator):
    found, total = 0, 0.0
    for i, g in enumerate(query.top(k), start=1):
        if g >= level:
            found += 1
            total += found / i
    num_rel = sum(1 for g in query.judged.values() if g >= level)
    norm = {"relevant": num_rel, "retrieved": found,
            "capped": num_rel if k is None else min(k, num_rel)}[denominator]
    return total / norm if norm else 0.0


def tb_success(query, k, level):
    return float(any(g >= level for g in query.top(k)))


def tb_rbp(query, p):
    """Moffat and Zobel's RBP, each grade divided by the query's largest judged grade when that exceeds 1."""
    scale = max(max(query.judged.values(), default=0), 1)
    total = 0.0
    for i, g in enumerate(query.codes, start=1):
        total += max(g, 0) / scale * p ** (i - 1)
    return (1 - p) * total


def tb_rbp_resid(query, p):
    """The RBP an unjudged document would add if it were fully relevant, plus the tail past the ranking."""
    unjudged = [i for i, g in enumerate(query.codes, start=1) if g < 0]
    if not unjudged:
        return 0.0
    return p ** len(query.codes) + sum((1 - p) * p ** (i - 1) for i in unjudged)


def tb_unjudged(query, k):
    shown = query.top(k)
    count = sum(1 for g in shown if g < 0)
    if k is None:
        return count / len(shown) if shown else 0.0
    return count / k


# measure string -> textbook value of one query; ctx holds level, depth, the longest ranking, the top grade
CASES = {
    "CG": lambda q, c: tb_cg(q.codes, None),
    "CG@5": lambda q, c: tb_cg(q.codes, 5),
    'CG(gain="exp")@10': lambda q, c: tb_cg(q.codes, 10, "exp"),
    "DCG@10": lambda q, c: tb_dcg(q.codes, 10),
    'DCG(gain="exp")': lambda q, c: tb_dcg(q.codes, None, "exp"),
    'DCG(discount="jk")@10': lambda q, c: tb_dcg(q.codes, 10, dkind="jk"),
    'DCG(discount="jk",base=3.5,gain="exp")@20': lambda q, c: tb_dcg(q.codes, 20, "exp", "jk", 3.5),
    "IDCG": lambda q, c: tb_idcg(q, None),
    "IDCG@5": lambda q, c: tb_idcg(q, 5),
    'IDCG(gain="exp",ideal="retrieved")@10': lambda q, c: tb_idcg(q, 10, "exp", ideal="retrieved"),
    'IDCG(discount="jk",base=3.0)': lambda q, c: tb_idcg(q, None, dkind="jk", base=3.0),
    "dcg_0=-1,1=0.5,2=1.75,3=1.5": lambda q, c: tb_mapped(q, None, {0: -1, 1: 0.5, 2: 1.75, 3: 1.5}, "dcg"),
    "ideal_dcg_1=0.5,2=1.75,3=1.5": lambda q, c: tb_mapped(q, None, {1: 0.5, 2: 1.75, 3: 1.5}, "ideal"),
    "ndcg_1=2.5,2=2,3=0.25": lambda q, c: tb_mapped(q, None, {1: 2.5, 2: 2, 3: 0.25}, "ndcg"),
    'DCG(gain_map=((1, 4.0),))@5': lambda q, c: tb_mapped(q, 5, {1: 4.0}, "dcg"),
    'IDCG(gain_map=((2, 0.5),))@3': lambda q, c: tb_mapped(q, 3, {2: 0.5}, "ideal"),
    "nDCG": lambda q, c: tb_ndcg(q, None),
    "nDCG@10": lambda q, c: tb_ndcg(q, 10),
    'nDCG(gain="exp")@5': lambda q, c: tb_ndcg(q, 5, "exp"),
    'nDCG(discount="jk")@10': lambda q, c: tb_ndcg(q, 10, dkind="jk"),
    'nDCG(base=10.0,discount="jk",gain="exp")': lambda q, c: tb_ndcg(q, None, "exp", "jk", 10.0),
    'nDCG(ideal="retrieved")@10': lambda q, c: tb_ndcg(q, 10, ideal="retrieved"),
    'nDCG(gain="exp",ideal="retrieved")': lambda q, c: tb_ndcg(q, None, "exp", ideal="retrieved"),
    "ERR": lambda q, c: tb_err(q.codes, None, c["top"]),
    "ERR@10": lambda q, c: tb_err(q.codes, 10, c["top"]),
    "ERR(max_grade=4)@20": lambda q, c: tb_err(q.codes, 20, 4),
    "ERR(max_grade=1)@5": lambda q, c: tb_err(q.codes, 5, 1),
    "MR": lambda q, c: tb_mr(q.codes, None, c["level"], "depth+1", c["depth"], c["longest"]),
    "MR@10": lambda q, c: tb_mr(q.codes, 10, c["level"], "depth+1", c["depth"], c["longest"]),
    'MR(missing="num_ret+1")': lambda q, c: tb_mr(q.codes, None, c["level"], "num_ret+1", None, None),
    'MR(missing="num_ret+1")@5': lambda q, c: tb_mr(q.codes, 5, c["level"], "num_ret+1", None, None),
    'MR(missing="exclude",rel=2)@20': lambda q, c: tb_mr(q.codes, 20, 2, "exclude", None, None),
    "MedianRR": lambda q, c: tb_rr(q.codes, None, c["level"]),
    "MedianRR@3": lambda q, c: tb_rr(q.codes, 3, c["level"]),
    "AUC": lambda q, c: tb_auc(q, None, c["level"], "zero"),
    "AUC@10": lambda q, c: tb_auc(q, 10, c["level"], "zero"),
    'AUC(empty="nan",rel=2)': lambda q, c: tb_auc(q, None, 2, "nan"),
    "Judged": lambda q, c: tb_judged(q.codes, None),
    "Judged@10": lambda q, c: tb_judged(q.codes, 10),
    "Fallout": lambda q, c: tb_fallout(q, None, c["level"]),
    "Fallout@10": lambda q, c: tb_fallout(q, 10, c["level"]),
    "Fallout(N=1000)@10": lambda q, c: tb_fallout(q, 10, c["level"], 1000),
    "Fallout(N=500)": lambda q, c: tb_fallout(q, None, c["level"], 500),
    "F1@10": lambda q, c: tb_f(q, 10, c["level"], 1.0),
    "F(beta=2.0)@5": lambda q, c: tb_f(q, 5, c["level"], 2.0),
    "F(beta=0.5)@20": lambda q, c: tb_f(q, 20, c["level"], 0.5),
    "F(beta=3.0)": lambda q, c: tb_f(q, None, c["level"], 3.0),
    "R@10": lambda q, c: tb_recall(q, 10, c["level"]),
    "R(rel=2)@5": lambda q, c: tb_recall(q, 5, 2),
    "Success@5": lambda q, c: tb_success(q, 5, c["level"]),
    "AP@10": lambda q, c: tb_ap(q, 10, c["level"], "relevant"),
    'AP(denominator="retrieved")@5': lambda q, c: tb_ap(q, 5, c["level"], "retrieved"),
    'AP(denominator="retrieved")': lambda q, c: tb_ap(q, None, c["level"], "retrieved"),
    'AP(denominator="capped",rel=2)@3': lambda q, c: tb_ap(q, 3, 2, "capped"),
    "Success@1": lambda q, c: tb_success(q, 1, c["level"]),
    "RBP": lambda q, c: tb_rbp(q, 0.9),
    "RBP(p=0.5)": lambda q, c: tb_rbp(q, 0.5),
    "RBP(p=0.98)": lambda q, c: tb_rbp(q, 0.98),
    "RBP_resid": lambda q, c: tb_rbp_resid(q, 0.9),
    "RBP_resid(p=0.8)": lambda q, c: tb_rbp_resid(q, 0.8),
    "Unjudged": lambda q, c: tb_unjudged(q, None),
    "Unjudged@5": lambda q, c: tb_unjudged(q, 5),
    "Unjudged@20": lambda q, c: tb_unjudged(q, 20),
    **UNJUDGED_CASES,
}
MEASURES = [label for label, _ in resolve_measures(list(CASES))]  # each case's label, as evaluate() writes it


def top_grade(col) -> int:
    grades = [g for docs in col.qrels.values() for g in docs.values() if g >= 0]
    return max(max(grades, default=0), 1)


@pytest.mark.parametrize("options", OPTIONS)
def test_kernels_equal_textbook_loops(options):
    assert len(set(MEASURES)) == len(CASES)
    checked = 0
    for seed in SEEDS:
        col = random_collection(seed)
        queries = textbook_queries(col, **options)
        frame = evaluate(col.qrels_text, {"sys": col.run_text}, list(CASES), **options)
        assert list(dict.fromkeys(frame["query"])) == list(queries), f"seed {seed}: evaluated queries differ"
        ctx = {"level": max(options.get("relevance_level", 1), 0), "depth": options.get("depth"),
               "longest": max((len(q.codes) for q in queries.values()), default=0), "top": top_grade(col)}
        got = {(q, m): v for q, m, v in zip(frame["query"], frame["measure"], frame["value"])}
        for spec, label in zip(CASES, MEASURES):
            want_all = []
            for qid, query in queries.items():
                want = CASES[spec](query, ctx)
                want_all.append(want)
                assert got[(qid, label)] == pytest.approx(want, rel=1e-12, abs=1e-12, nan_ok=True), \
                    f"seed {seed} query {qid} {spec}"
                checked += 1
            summary = parse_measure(label).aggregate(frame.loc[frame["measure"] == label, "value"].to_numpy())
            kept = [v for v in want_all if not math.isnan(v)]
            if label.startswith("MedianRR"):
                expected = statistics.median(kept) if kept else 0.0
            else:
                expected = (sum(kept) / len(kept)) if kept else (math.nan if want_all else 0.0)
            assert summary == pytest.approx(expected, rel=1e-12, abs=1e-12, nan_ok=True), f"seed {seed} {spec}"
    assert checked > 1000


# ---- declarations ---------------------------------------------------------------------------------------
def test_declarations_of_new_measures():
    lower_better = {"MR", "Fallout"}
    for name in ("CG", "DCG", "IDCG", "ERR", "MR", "MedianRR", "AUC", "Judged", "Fallout"):
        cls = type(parse_measure(name))
        assert cls.higher_is_better is (name not in lower_better), name
        assert bool(cls.trec) is (name in ("DCG", "IDCG")), f"{name}: trec_eval spellings"
    # trec_eval 10's dcg and ideal_dcg, nameable but outside the 10.0 release's all_trec
    assert parse_measure("dcg") == parse_measure("DCG") and parse_measure("ideal_dcg") == parse_measure("IDCG")
    assert parse_measure("dcg_1=3,2=9") == parse_measure("DCG(gain_map=((1, 3.0), (2, 9.0)))")
    from metrics.measures.trec_names import expand_trec

    assert not {"dcg", "ideal_dcg"} & {m.trec_label() for m in expand_trec("all_trec", version=10)}
    assert parse_measure("MedianRR").aggregation == "median"
    assert parse_measure("MR").bounds == (1.0, None)
    assert parse_measure("CG").bounds == (0.0, None) and parse_measure("DCG").bounds == (0.0, None)
    for name in ("ERR", "AUC", "Judged", "Fallout", "nDCG"):
        assert parse_measure(name).bounds == (0.0, 1.0)


def test_ndcg_defaults_keep_their_trec_eval_spellings():
    assert parse_measure("ndcg_cut_10") == nDCG(cutoff=10) == parse_measure("nDCG@10")
    assert parse_measure("ndcg") == nDCG()
    assert nDCG(cutoff=10).trec_label() == "ndcg_cut_10"
    for variant in ('nDCG(discount="jk")@10', 'nDCG(ideal="retrieved")@10', 'nDCG(base=3.0,discount="jk")'):
        measure = parse_measure(variant)
        assert measure.trec_label() is None
        assert parse_measure(str(measure)) == measure


def test_base_is_checked():
    with pytest.raises(ValidationError, match="applies to discount"):
        parse_measure("nDCG(base=3.0)@10")
    with pytest.raises(ValidationError, match=r"parameter 'base': expected a number > 1, found 1\.0$"):
        parse_measure('DCG(discount="jk",base=1.0)')
    with pytest.raises(ValidationError):
        parse_measure('nDCG(discount="jk",base=0.5)')
    with pytest.raises(ValidationError):
        parse_measure('nDCG(ideal="pool")')


def test_jk_discount_leaves_ranks_below_the_base_alone():
    pos = np.arange(1, 11)
    assert discount(pos, "jk", 2.0).tolist() == pytest.approx([1.0] + [math.log2(i) for i in range(2, 11)])
    assert discount(pos, "jk", 4.0)[:3].tolist() == [1.0, 1.0, 1.0]
    assert discount(pos, "jk", 4.0)[3] == pytest.approx(1.0)  # log_4(4)
    assert discount(pos, "log2").tolist() == pytest.approx([math.log2(i + 1) for i in range(1, 11)])


# ---- worked examples ------------------------------------------------------------------------------------
def single_query(grades, extra_judged=()):
    """Qrels and run text of one query ranking documents d0, d1, ... in order, with the given grades."""
    qrels = "".join(f"1 0 d{i} {g}\n" for i, g in enumerate(grades))
    qrels += "".join(f"1 0 x{i} {g}\n" for i, g in enumerate(extra_judged))
    run = "".join(f"1 Q0 d{i} {i + 1} {100 - i} s\n" for i in range(len(grades)))
    return qrels, run


def values(qrels, run, measures):
    """Values of one single-query evaluation, keyed by the measure names as written."""
    frame = evaluate(qrels, {"s": run}, measures)
    assert frame["query"].nunique() == 1 and len(frame) == len(measures)
    return dict(zip(measures, frame["value"]))


GRADED = [3, 2, 3, 0, 0, 1, 2, 2, 3, 0]
DCG_EXP = [7.00, 8.89, 12.39, 12.39, 12.39, 12.75, 13.75, 14.70, 16.80, 16.80]
IDCG_EXP = [7.00, 11.42, 14.92, 16.21, 17.37, 18.44, 18.77, 18.77, 18.77, 18.77]
NDCG_EXP = [1.00, 0.78, 0.83, 0.76, 0.71, 0.69, 0.73, 0.78, 0.90, 0.90]


def test_graded_example_dcg_and_ndcg_with_exponential_gain():
    qrels, run = single_query(GRADED)
    ks = range(1, 11)
    got = values(qrels, run, [f'DCG(gain="exp")@{k}' for k in ks] + [f'nDCG(gain="exp",ideal="retrieved")@{k}'
                                                                      for k in ks])
    assert [round(got[f'DCG(gain="exp")@{k}'], 2) for k in ks] == DCG_EXP
    assert [round(got[f'nDCG(gain="exp",ideal="retrieved")@{k}'], 2) for k in ks] == NDCG_EXP
    # IDCG@k is DCG@k of the ideal ordering 3, 3, 3, 2, 2, 2, 1, 0, 0, 0
    qrels_ideal, run_ideal = single_query(sorted(GRADED, reverse=True))
    ideal = values(qrels_ideal, run_ideal, [f'DCG(gain="exp")@{k}' for k in ks])
    assert [round(ideal[f'DCG(gain="exp")@{k}'], 2) for k in ks] == IDCG_EXP
    # with every judged document retrieved, the two ideals agree
    same = values(qrels, run, ['nDCG(gain="exp")@3', 'nDCG(gain="exp",ideal="retrieved")@3'])
    assert same['nDCG(gain="exp")@3'] == pytest.approx(same['nDCG(gain="exp",ideal="retrieved")@3'])


def test_retrieved_ideal_ignores_relevant_documents_the_run_missed():
    qrels, run = single_query(GRADED, extra_judged=[3, 3])
    got = values(qrels, run, ['nDCG(gain="exp")@10', 'nDCG(gain="exp",ideal="retrieved")@10'])
    assert round(got['nDCG(gain="exp",ideal="retrieved")@10'], 2) == 0.90
    judged_ideal = tb_dcg(sorted(GRADED + [3, 3], reverse=True), 10, "exp")
    assert got['nDCG(gain="exp")@10'] == pytest.approx(16.80 / judged_ideal, abs=5e-4)
    assert got['nDCG(gain="exp")@10'] < got['nDCG(gain="exp",ideal="retrieved")@10']


def test_linear_gain_and_original_jk_discount_by_hand():
    qrels, run = single_query(GRADED)
    got = values(qrels, run, ["CG@3", "CG", "DCG@3", 'DCG(discount="jk")@3', 'DCG(discount="jk",base=3.0)@4'])
    assert got["CG@3"] == 8.0 and got["CG"] == 16.0
    assert got["DCG@3"] == pytest.approx(3 + 2 / math.log2(3) + 3 / 2)
    assert got['DCG(discount="jk")@3'] == pytest.approx(3 + 2 / 1 + 3 / math.log2(3))
    assert got['DCG(discount="jk",base=3.0)@4'] == pytest.approx(3 + 2 + 3 / 1 + 0)


BINARY = [1, 0, 1, 1, 0, 1, 0, 0]  # 4 relevant documents, all retrieved


# The running table of /work/shared/seeds/003_*.txt (8 documents, relevant at ranks 1, 3, 4, 6), column by
# column as printed, exponential gains 2^rel - 1 (the same as linear for 0/1 grades). Its F1 column
# truncates three values (0.62 at rank 3 is 0.571, 0.66 at ranks 5 and 8 is 0.667): those are checked
# with the exact values in the test below. Its AP@k divides by the relevant documents found so far.
SEED_003 = {
    "P@{k}": [1.00, 0.50, 0.67, 0.75, 0.60, 0.67, 0.57, 0.50],
    "R@{k}": [0.25, 0.25, 0.50, 0.75, 0.75, 1.00, 1.00, 1.00],
    'DCG(gain="exp")@{k}': [1.00, 1.00, 1.50, 1.93, 1.93, 2.29, 2.29, 2.29],
    'IDCG(gain="exp")@{k}': [1.00, 1.63, 2.13, 2.56, 2.56, 2.56, 2.56, 2.56],
    'nDCG(gain="exp")@{k}': [1.00, 0.61, 0.70, 0.75, 0.75, 0.89, 0.89, 0.89],
    'AP(denominator="retrieved")@{k}': [1.00, 1.00, 0.83, 0.81, 0.81, 0.77, 0.77, 0.77],
}


def test_seed_003_running_table():
    qrels, run = single_query(BINARY)
    names = [column.format(k=k) for column in SEED_003 for k in range(1, 9)]
    got = values(qrels, run, names)
    for column, printed in SEED_003.items():
        assert [round(got[column.format(k=k)], 2) for k in range(1, 9)] == printed, column
    # trec_eval's map_cut divides by all 4 relevant documents; min(k, R) is the capped variant
    at5 = values(qrels, run, ["AP@5", 'AP(denominator="capped")@2', 'AP(denominator="capped")@5'])
    assert at5["AP@5"] == pytest.approx((1 + 2 / 3 + 3 / 4) / 4)
    assert at5['AP(denominator="capped")@2'] == pytest.approx(1 / 2)
    assert at5['AP(denominator="capped")@5'] == pytest.approx((1 + 2 / 3 + 3 / 4) / 4)


def test_binary_example_precision_recall_f1_and_dcg():
    qrels, run = single_query(BINARY)
    ks = range(1, 9)
    got = values(qrels, run, [f"F1@{k}" for k in ks] + [f"R@{k}" for k in ks] + ["DCG@5", "nDCG@5", "nDCG@8"])
    assert [round(got[f"R@{k}"], 2) for k in ks] == [0.25, 0.25, 0.50, 0.75, 0.75, 1.00, 1.00, 1.00]
    # 2PR/(P+R) from P@k = 1, 1/2, 2/3, 3/4, 3/5, 2/3, 4/7, 1/2 (the often-printed 0.62 at rank 3 is a slip:
    # 2 * 0.667 * 0.5 / 1.167 = 0.571)
    assert [round(got[f"F1@{k}"], 2) for k in ks] == [0.40, 0.33, 0.57, 0.75, 0.67, 0.80, 0.73, 0.67]
    assert round(got["DCG@5"], 2) == 1.93
    assert round(got["nDCG@5"], 2) == 0.75 and round(got["nDCG@8"], 2) == 0.89


def test_f_beta_weighs_recall_or_precision():
    qrels, run = single_query(BINARY, extra_judged=[1, 1, 1, 1])  # 8 relevant, 4 found in the top 8
    got = values(qrels, run, ["F1@4", "F(beta=2.0)@4", "F(beta=0.5)@4"])
    p, r = 3 / 4, 3 / 8
    assert got["F1@4"] == pytest.approx(2 * p * r / (p + r))
    assert got["F(beta=2.0)@4"] == pytest.approx(5 * p * r / (4 * p + r))
    assert got["F(beta=0.5)@4"] == pytest.approx(1.25 * p * r / (0.25 * p + r))
    assert got["F(beta=2.0)@4"] < got["F1@4"] < got["F(beta=0.5)@4"]  # recall is the weak side here


def three_topic_run(first_ranks):
    """Three topics whose single relevant document sits at the given ranks (of five retrieved)."""
    qrels = "".join(f"{t} 0 rel{t} 1\n" for t in range(1, 4))
    lines = []
    for t, rank in zip(range(1, 4), first_ranks):
        for i in range(1, 6):
            doc = f"rel{t}" if i == rank else f"n{t}_{i}"
            lines.append(f"{t} Q0 {doc} {i} {10 - i} s\n")
    return qrels, "".join(lines)


def test_mrr_and_mean_rank_can_disagree():
    """System 1 finds the relevant documents at ranks 1, 2, 4; system 2 at 2, 2, 2."""
    qrels, one = three_topic_run([1, 2, 4])
    _, two = three_topic_run([2, 2, 2])
    summary = aggregate(evaluate(qrels, {"one": one, "two": two}, ["RR", "MR", "MedianRR"]))
    value = {(s, m): v for s, m, v in zip(summary["system"], summary["measure"], summary["value"])}
    assert round(value[("one", "RR")], 2) == 0.58 and value[("two", "RR")] == 0.5
    assert round(value[("one", "MR")], 1) == 2.3 and value[("two", "MR")] == 2.0
    assert value[("one", "MedianRR")] == value[("two", "MedianRR")] == 0.5  # the median ties them
    assert not parse_measure("MR").higher_is_better


def test_mean_rank_missing_choices():
    qrels = "1 0 a 1\n2 0 b 1\n3 0 c 1\n"
    run = "1 Q0 a 1 9 s\n1 Q0 x 2 8 s\n2 Q0 y 1 9 s\n2 Q0 z 2 8 s\n2 Q0 w 3 7 s\n3 Q0 v 1 9 s\n"
    frame = evaluate(qrels, {"s": run}, ["MR", 'MR(missing="num_ret+1")', 'MR(missing="exclude")', "MR@10"])
    per = {(q, m): v for q, m, v in zip(frame["query"], frame["measure"], frame["value"])}
    assert [per[(q, "MR")] for q in "123"] == [1.0, 4.0, 4.0]  # longest ranking 3, so 3 + 1
    assert [per[(q, 'MR(missing="num_ret+1")')] for q in "123"] == [1.0, 4.0, 2.0]
    assert per[("1", 'MR(missing="exclude")')] == 1.0 and math.isnan(per[("2", 'MR(missing="exclude")')])
    assert [per[(q, "MR@10")] for q in "123"] == [1.0, 11.0, 11.0]
    summary = dict(zip(*[aggregate(frame)[c] for c in ("measure", "value")]))
    assert summary['MR(missing="exclude")'] == 1.0  # NaN queries are left out of the mean
    assert summary["MR"] == pytest.approx(3.0)
    assert math.isnan(parse_measure('MR(missing="exclude")').aggregate(np.array([np.nan, np.nan])))
    assert evaluate(qrels, {"s": run}, ["MR"], depth=2)["value"].tolist() == [1.0, 3.0, 3.0]


def test_err_by_hand():
    qrels, run = single_query([3, 2, 0, 1])
    got = values(qrels, run, ["ERR", "ERR@2", "ERR(max_grade=4)@1"])
    r = [7 / 8, 3 / 8, 0.0, 1 / 8]
    want = r[0] + (1 - r[0]) * r[1] / 2 + (1 - r[0]) * (1 - r[1]) * (1 - r[2]) * r[3] / 4
    assert got["ERR"] == pytest.approx(want)
    assert got["ERR@2"] == pytest.approx(r[0] + (1 - r[0]) * r[1] / 2)
    assert got["ERR(max_grade=4)@1"] == pytest.approx(7 / 16)  # R_1 = (2^3 - 1) / 2^4
    assert values(qrels, run, ["ERR(max_grade=2)@1"])["ERR(max_grade=2)@1"] == pytest.approx(3 / 4)  # 3 -> 2
    # the default top grade is the collection's: a grade-4 judgment on another query lowers every R_i
    other = evaluate(qrels + "2 0 q 4\n", {"s": run + "2 Q0 q 1 1 s\n"}, ["ERR@1"])
    assert other["value"].tolist() == pytest.approx([7 / 16, 15 / 16])


def test_auc_by_hand():
    # ranking: relevant, non-relevant, unjudged, relevant; judged but unretrieved: one relevant, two not
    qrels = "1 0 a 1\n1 0 b 0\n1 0 c 2\n1 0 e 1\n1 0 f 0\n1 0 g 0\n"
    run = "1 Q0 a 1 9 s\n1 Q0 b 2 8 s\n1 Q0 u 3 7 s\n1 Q0 c 4 6 s\n"
    got = values(qrels, run, ["AUC", "AUC@1", "AUC(rel=2)"])
    # relevant a, c, e against non-relevant b, f, g: a beats all 3; c beats f, g; e ties f, g
    assert got["AUC"] == pytest.approx((3 + 2 + 0.5 + 0.5) / 9)
    # top 1 only: a beats b, f, g; c and e now tie with all three (every one of them below the cutoff)
    assert got["AUC@1"] == pytest.approx((3 + 3 * 0.5 + 3 * 0.5) / 9)
    # rel=2: c alone is relevant; a, b, e, f, g non-relevant; c is above e, f, g, below a and b
    assert got["AUC(rel=2)"] == pytest.approx(3 / 5)
    qrels_one_class = "1 0 a 1\n"
    assert values(qrels_one_class, run, ["AUC"])["AUC"] == 0.0
    assert math.isnan(values(qrels_one_class, run, ['AUC(empty="nan")'])['AUC(empty="nan")'])


def test_judged_and_fallout_by_hand():
    qrels = "1 0 a 1\n1 0 b 0\n1 0 c 0\n1 0 d 0\n1 0 n -1\n"
    run = "1 Q0 a 1 9 s\n1 Q0 b 2 8 s\n1 Q0 u 3 7 s\n1 Q0 n 4 6 s\n"
    got = values(qrels, run, ["Judged@2", "Judged@4", "Judged@10", "Judged", "Fallout@2", "Fallout",
                              "Fallout(N=101)", "Fallout(N=101)@2"])
    assert got["Judged@2"] == 1.0 and got["Judged@4"] == 0.5 and got["Judged@10"] == 0.2
    assert got["Judged"] == 0.5
    assert got["Fallout@2"] == pytest.approx(1 / 3) and got["Fallout"] == pytest.approx(1 / 3)
    assert got["Fallout(N=101)"] == pytest.approx(3 / 100)  # b, u, n are all non-relevant in a collection
    assert got["Fallout(N=101)@2"] == pytest.approx(1 / 100)
    with pytest.raises(ValidationError, match="too small"):
        evaluate(qrels, {"s": run}, ["Fallout(N=3)"])


def test_fallout_with_n_matches_the_contingency_table():
    from metrics.teaching.contingency import contingency

    for seed in range(10):
        col = random_collection(seed)
        (rankings,) = rank_runs(col.qrels_text, {"s": col.run_text})
        frame = evaluate(col.qrels_text, {"s": col.run_text}, ["Fallout(N=400)@10", "P@10", "R@10"])
        per = {(q, m): v for q, m, v in zip(frame["query"], frame["measure"], frame["value"])}
        for query in rankings.queries:
            table = contingency(rankings, query, N=400, cutoff=10)
            assert table.a + table.b == min(10, len(col.run[query]))
            assert per[(query, "Fallout(N=400)@10")] == pytest.approx(table.fallout)
            if table.relevant:
                assert per[(query, "R@10")] == pytest.approx(table.recall)
            assert per[(query, "P@10")] == pytest.approx(table.a / 10)


# ---- joint judgments ------------------------------------------------------------------------------------
def test_joint_ideal_qrels_keeps_documents_some_run_retrieved():
    qrels = "1 0 a 3\n1 0 b 2\n1 0 c 1\n1 0 z 3\n2 0 y 1\n3 0 a 1\n"
    one = "1 Q0 c 1 9 s\n1 Q0 q 2 8 s\n3 Q0 a 1 5 s\n"
    two = "1 Q0 b 1 9 s\n1 Q0 a 2 8 s\n3 Q0 q 1 5 s\n"
    joint = joint_ideal_qrels(qrels, {"one": one, "two": two})
    assert sorted(zip(joint.frame["query"], joint.frame["docid"])) == [("1", "a"), ("1", "b"), ("1", "c"),
                                                                       ("3", "a")]
    assert joint.name.endswith("(joint)")
    frame = evaluate(joint, {"one": one, "two": two}, ["nDCG"])
    per = {(s, q): v for s, q, v in zip(frame["system"], frame["query"], frame["value"])}
    ideal = 3 + 2 / math.log2(3) + 1 / 2  # a, b, c: z was retrieved by no run
    assert per[("one", "1")] == pytest.approx(1 / ideal)
    assert per[("two", "1")] == pytest.approx((2 + 3 / math.log2(3)) / ideal)
    assert set(frame["query"]) == {"1", "3"}  # query 2 has no judgments left
    shallow = joint_ideal_qrels(qrels, {"one": one, "two": two}, depth=1)
    assert sorted(zip(shallow.frame["query"], shallow.frame["docid"])) == [("1", "b"), ("1", "c"), ("3", "a")]


def test_joint_ideal_sits_between_the_two_other_ideals():
    for seed in range(10):
        col = random_collection(seed)
        other = "".join(line.replace(" sys", " alt") for line in col.run_text.splitlines(True)[::3])
        runs = {"a": col.run_text, "b": other}
        joint = evaluate(joint_ideal_qrels(col.qrels_text, runs), runs, ["nDCG@10"])
        full = evaluate(col.qrels_text, runs, ["nDCG@10", 'nDCG(ideal="retrieved")@10'])
        by = {(s, q, m): v for s, q, m, v in zip(full["system"], full["query"], full["measure"], full["value"])}
        for s, q, v in zip(joint["system"], joint["query"], joint["value"]):
            assert by[(s, q, "nDCG@10")] - 1e-12 <= v <= by[(s, q, 'nDCG(ideal="retrieved")@10')] + 1e-12
