"""The anatomy of a ranking (metrics.teaching.anatomy): its rows against the measures at every cutoff, against a slow
textbook implementation, against the worked tables of the seed documents, and through ``rankscope anatomy``."""

from __future__ import annotations

import io
import json
import math

import numpy as np
import pandas as pd
import pytest

from metrics import ValidationError, parse_measure, rank_runs
from metrics.teaching.anatomy import COLUMNS, anatomy, anatomy_of_ranking
from rankscope.cli import main
from tests.random_collections import random_collection, trec_order

SEEDS = range(30)
CONVENTIONS = [{}, {"preset": "textbook"}, {"relevance_level": 2}, {"complete": True}, {"judged_only": True},
               {"depth": 6}]


def _ranked(seed: int, **options):
    collection = random_collection(seed)
    return collection, rank_runs(collection.qrels_text, {"s": collection.run_text}, **options)[0]


def _value(label: str, r, q: int) -> float:
    return float(parse_measure(label).compute(r)[q])


# ---- consistency with the measures ----------------------------------------------------------------------
@pytest.mark.parametrize("options", CONVENTIONS, ids=str)
def test_last_row_equals_the_measures(options):
    compared = 0
    for seed in SEEDS:
        collection, r = _ranked(seed, **options)
        top_grade = {}  # the highest grade each topic's qrels lines give, read off the text
        for line in collection.qrels_text.splitlines():
            topic, _, _, grade = line.split()
            top_grade[topic] = max(top_grade.get(topic, 0), int(grade))
        for q, query in enumerate(r.queries):
            table = anatomy(r, query)
            n = int(r.num_ret[q])
            assert len(table) == n
            if not n:
                continue
            last = table.iloc[-1]
            assert last["ap"] == _value("AP", r, q), f"seed {seed} query {query}"
            assert last["precision"] == _value(f"P@{n}", r, q)
            assert last["recall"] == _value(f"R@{n}", r, q)
            assert last["ndcg"] == _value(f"nDCG@{n}", r, q)
            assert last["dcg"] == _value(f"DCG@{n}", r, q)
            assert last["rr"] == _value("RR", r, q)
            top = max(top_grade.get(str(query), 0), 1)
            assert last["err"] == pytest.approx(_value(f"ERR(max_grade={top})", r, q), rel=1e-12, abs=1e-15)
            compared += 1
    assert compared > 80


@pytest.mark.parametrize("gain, discount, base", [("exp", "log2", 2.0), ("linear", "jk", 2.0), ("exp", "jk", 3.0)])
def test_last_row_equals_ndcg_with_other_gains_and_discounts(gain, discount, base):
    params = [f'gain="{gain}"'] if gain != "linear" else []
    params += [f'discount="{discount}"'] + ([f"base={base}"] if base != 2.0 else []) if discount != "log2" else []
    name = f"nDCG({','.join(params)})"
    for seed in SEEDS:
        _, r = _ranked(seed)
        for q, query in enumerate(r.queries):
            table = anatomy(r, query, gain=gain, discount=discount, base=base)
            if len(table):
                assert table["ndcg"].iloc[-1] == _value(f"{name}@{len(table)}", r, q), f"seed {seed} {query}"


def test_every_row_equals_the_measures_cut_at_its_rank():
    compared = 0
    for seed in range(12):
        _, r = _ranked(seed)
        for q, query in enumerate(r.queries):
            table = anatomy(r, query)
            for row in table.itertuples():
                i = row.rank
                assert row.precision == _value(f"P@{i}", r, q)
                assert row.recall == _value(f"R@{i}", r, q)
                assert row.ap == _value(f"AP@{i}", r, q)  # trec_eval's map_cut
                assert row.ndcg == _value(f"nDCG@{i}", r, q)
                assert row.rr == _value(f"RR@{i}", r, q)
                assert row.f1 == pytest.approx(_value(f"F@{i}", r, q), rel=1e-12, abs=1e-15)
                compared += 1
    assert compared > 500


def test_err_max_grade_matches_the_measure():
    for seed in range(10):
        _, r = _ranked(seed)
        for q, query in enumerate(r.queries):
            table = anatomy(r, query, err_max_grade=4)
            if len(table):
                assert table["err"].iloc[-1] == pytest.approx(_value("ERR(max_grade=4)", r, q), rel=1e-12, abs=1e-15)


# ---- a slow textbook implementation ---------------------------------------------------------------------
def slow_anatomy(ranking, judged, level, gain, discount):
    num_rel = sum(g >= level for g in judged.values())
    ideal = sorted((g for g in judged.values() if g > 0), reverse=True)
    top = max([g for g in judged.values() if g > 0] or [1])

    def g_of(grade):
        grade = max(grade, 0)
        return grade if gain == "linear" else 2.0 ** grade - 1

    def d_of(i):
        return math.log2(i + 1) if discount == "log2" else (1.0 if i < 2 else math.log2(i))

    rows, found, ap_sum, dcg, first, err, reach = [], 0, 0.0, 0.0, None, 0.0, 1.0
    for i, doc in enumerate(ranking, start=1):
        grade = judged.get(doc, -1)
        relevant = grade >= level
        found += relevant
        precision = found / i
        recall = found / num_rel if num_rel else 0.0
        ap_sum += precision if relevant else 0.0
        dcg += g_of(grade) / d_of(i)
        idcg = sum(g_of(g) / d_of(j) for j, g in enumerate(ideal[:i], start=1))
        if relevant and first is None:
            first = i
        stop = (2.0 ** min(grade, top) - 1) / 2.0 ** top if grade >= 1 else 0.0
        err += reach * stop / i
        reach *= 1 - stop
        rows.append({
            "precision": precision, "recall": recall,
            "f1": 2 * precision * recall / (precision + recall) if precision + recall else 0.0,
            "ap": ap_sum / num_rel if num_rel else 0.0, "ap_found": ap_sum / found if found else 0.0,
            "dcg": dcg, "idcg": idcg, "ndcg": dcg / idcg if idcg else 0.0,
            "rr": 1 / first if first else 0.0, "err": err, "stop_probability": stop,
            "grade": grade if grade >= 0 else None, "relevant": relevant})
    return rows


@pytest.mark.parametrize("level, gain, discount", [(1, "linear", "log2"), (2, "exp", "jk")])
def test_anatomy_matches_a_slow_implementation(level, gain, discount):
    compared = 0
    for seed in SEEDS:
        collection, r = _ranked(seed, relevance_level=level)
        for query in sorted(set(collection.run) & set(collection.qrels)):
            ranking = trec_order(collection.run[query])
            judged = collection.qrels[query]
            table = anatomy(r, query, gain=gain, discount=discount)
            assert table["docid"].tolist() == ranking
            assert table["rank"].tolist() == list(range(1, len(ranking) + 1))
            assert table["score"].tolist() == [collection.run[query][d] for d in ranking]
            for got, want in zip(table.to_dict("records"), slow_anatomy(ranking, judged, level, gain, discount)):
                assert got["relevant"] == want["relevant"]
                assert (None if math.isnan(got["grade"]) else got["grade"]) == want["grade"]
                for key in ("precision", "recall", "f1", "ap", "ap_found", "dcg", "idcg", "ndcg", "rr", "err",
                            "stop_probability"):
                    assert got[key] == pytest.approx(want[key], rel=1e-12, abs=1e-12), f"seed {seed} {query} {key}"
                compared += 1
    assert compared > 500


def test_anatomy_of_ranking_agrees_with_anatomy():
    for seed in range(10):
        collection, r = _ranked(seed)
        for q, query in enumerate(r.queries):
            table = anatomy(r, query, gain="exp")
            if not len(table):
                continue
            grades = [None if np.isnan(g) else int(g) for g in table["grade"]]
            judged = [g for g in collection.qrels[query].values() if g >= 0]
            plain = anatomy_of_ranking(grades, int(r.num_rel()[q]), ideal=judged, gain="exp",
                                       docids=table["docid"].tolist(), scores=table["score"].tolist(),
                                       err_max_grade=max(max(judged), 1))
            pd.testing.assert_frame_equal(plain, table, check_exact=False, rtol=1e-13, atol=1e-15)


# ---- worked tables of the seed documents --------------------------------------------------------------
def _printed(value: float, text: str) -> bool:
    """``value`` printed at the decimals of ``text`` is ``text`` (within half a unit of the last decimal)."""
    decimals = len(text.partition(".")[2])
    return abs(value - float(text)) <= 0.5 * 10.0 ** -decimals + 1e-12


def _truncated(value: float, text: str) -> bool:
    decimals = len(text.partition(".")[2])
    return math.floor(value * 10 ** decimals + 1e-9) / 10 ** decimals == float(text)


FLAGR8 = [1, 0, 1, 1, 0, 1, 0, 0]  # 003: relevant at ranks 1, 3, 4 and 6 of 8
FLAGR8_TABLE = {
    "precision": "1.00 0.50 0.67 0.75 0.60 0.67 0.57 0.50",
    "recall": "0.25 0.25 0.50 0.75 0.75 1.00 1.00 1.00",
    "f1": "0.40 0.33 0.62 0.75 0.66 0.80 0.73 0.66",
    "dcg": "1.00 1.00 1.50 1.93 1.93 2.29 2.29 2.29",
    "idcg": "1.00 1.63 2.13 2.56 2.56 2.56 2.56 2.56",
    "ndcg": "1.00 0.61 0.70 0.75 0.75 0.89 0.89 0.89",
    "ap_found": "1.00 1.00 0.83 0.81 0.81 0.77 0.77 0.77",
}


def _flagr8(**options) -> pd.DataFrame:
    qrels = "".join(f"1 0 D{i} {g}\n" for i, g in enumerate(FLAGR8, start=1))
    run = "".join(f"1 Q0 D{i} {i} {9 - i}.0 flagr8\n" for i in range(1, 9))
    return anatomy(rank_runs(qrels, {"flagr8": run}), "1", **options)


@pytest.mark.parametrize("gain", ["linear", "exp"])  # binary grades: the two gains agree
def test_seed_003_running_table(gain):
    table = _flagr8(gain=gain)
    errata = {("f1", 3): "0.57"}  # printed 0.62: 2 (2/3)(1/2) / (2/3 + 1/2) = 4/7 = 0.571
    truncated = {("f1", 5), ("f1", 8)}  # printed 0.66: 2/3 cut off, not rounded (the text itself prints 0.67)
    for column, printed in FLAGR8_TABLE.items():
        for rank, (value, text) in enumerate(zip(table[column], printed.split()), start=1):
            text = errata.get((column, rank), text)
            if (column, rank) in truncated:
                assert _truncated(value, text) and _printed(value, "0.67"), (column, rank, value)
            else:
                assert _printed(value, text), (column, rank, value, text)
    assert not _printed(table["f1"].iloc[2], "0.62")
    # its AP@k divides by the relevant documents found so far; trec_eval's map_cut_k divides by all four
    assert table["ap"].round(4).tolist() == [0.25, 0.25, 0.4167, 0.6042, 0.6042, 0.7708, 0.7708, 0.7708]
    assert table["ap"].iloc[-1] == table["ap_found"].iloc[-1]  # equal once all four are found
    # the worked calculation at rank 5: P@5 = 3/5, R@5 = 3/4 (labelled "Precision@5" there), F1@5 = 0.67
    row = table.iloc[4]
    assert (row["precision"], row["recall"]) == (0.6, 0.75) and _printed(row["f1"], "0.67")


def test_seed_003_table_from_grades_alone():
    table = anatomy_of_ranking(FLAGR8, gain="exp")
    for column in ("precision", "recall", "dcg", "idcg", "ndcg", "ap_found"):
        assert table[column].tolist() == _flagr8(gain="exp")[column].tolist()


GRADED10 = [3, 2, 3, 0, 0, 1, 2, 2, 3, 0]  # 001, exponential gain 2^g - 1, log2(1 + i)
GRADED10_TABLE = {
    "dcg": "7.00 8.89 12.39 12.39 12.39 12.75 13.75 14.70 16.80 16.80",
    "idcg": "7.00 11.42 14.92 16.21 17.37 18.44 18.77 18.77 18.77 18.77",
    "ndcg": "1.00 0.78 0.83 0.76 0.71 0.69 0.73 0.78 0.90 0.90",
}


def test_seed_001_dcg_table():
    table = anatomy_of_ranking(GRADED10, gain="exp")
    assert table["gain"].tolist() == [7.0, 3.0, 7.0, 0.0, 0.0, 1.0, 3.0, 3.0, 7.0, 0.0]
    for column, printed in GRADED10_TABLE.items():
        assert all(_printed(v, t) for v, t in zip(table[column], printed.split())), (column, table[column].round(2))
    # the same through a ranked run, where the qrels hold exactly the ten documents
    qrels = "".join(f"1 0 d{i} {g}\n" for i, g in enumerate(GRADED10))
    run = "".join(f"1 Q0 d{i} {i + 1} {10 - i} x\n" for i in range(10))
    ranked = anatomy(rank_runs(qrels, {"x": run}), "1", gain="exp")
    for column in GRADED10_TABLE:
        assert ranked[column].tolist() == table[column].tolist()


def test_seed_000_jk_discount():
    # 000: DCG_l = rel_1 + sum_{i >= 2} rel_i / log2(i), Järvelin and Kekäläinen's discount with base 2
    table = anatomy_of_ranking(GRADED10, discount="jk")
    expected = GRADED10[0] + sum(g / math.log2(i) for i, g in enumerate(GRADED10[1:], start=2))
    assert table["dcg"].iloc[-1] == pytest.approx(expected, rel=1e-14)
    assert table["discount"].tolist()[:3] == pytest.approx([1.0, 1.0, math.log2(3)], rel=1e-15)


# ---- anatomy_of_ranking ------------------------------------------------------------------------------
def test_missed_relevant_documents_lower_recall_ap_and_ndcg():
    base = anatomy_of_ranking([1, 0, 1])
    missed = anatomy_of_ranking([1, 0, 1], num_rel=4)
    assert base["recall"].iloc[-1] == 1.0 and missed["recall"].iloc[-1] == 0.5
    assert missed["ap"].iloc[-1] == (1 + 2 / 3) / 4
    assert missed["ap_found"].tolist() == base["ap_found"].tolist()  # blind to what was missed
    assert missed["idcg"].iloc[-1] > base["idcg"].iloc[-1]
    explicit = anatomy_of_ranking([1, 0, 1], num_rel=4, ideal=[3, 1, 1, 1, 0])
    assert explicit["idcg"].iloc[0] == 3.0


def test_unjudged_documents_and_relevance_levels():
    table = anatomy_of_ranking([2, None, -1, float("nan"), 1, 0], rel=2)
    assert table["judged"].tolist() == [True, False, False, False, True, True]
    assert table["grade"].isna().tolist() == [False, True, True, True, False, False]
    assert table["relevant"].tolist() == [True, False, False, False, False, False]
    assert table["gain"].tolist() == [2.0, 0.0, 0.0, 0.0, 1.0, 0.0]
    assert table["docid"].tolist() == ["d1", "d2", "d3", "d4", "d5", "d6"]
    assert list(table.columns) == list(COLUMNS)
    # ERR: g_max is the highest grade, 2; a grade-1 document stops 1/4 of the users, a grade-2 one 3/4
    assert table["stop_probability"].tolist() == [0.75, 0.0, 0.0, 0.0, 0.25, 0.0]
    assert table["err"].iloc[-1] == pytest.approx(0.75 + 0.25 * 0.25 / 5)


def test_empty_and_unanswered_queries():
    r = rank_runs("1 0 a 1\n2 0 b 1\n", {"s": "1 Q0 a 1 1 s\n"}, complete=True)[0]
    empty = anatomy(r, "2")
    assert empty.empty and list(empty.columns) == list(COLUMNS)
    assert anatomy_of_ranking([]).empty
    with pytest.raises(ValidationError, match="not evaluated"):
        anatomy(rank_runs("1 0 a 1\n2 0 b 1\n", {"s": "1 Q0 a 1 1 s\n"})[0], "2")


def test_bad_inputs_raise_validation_errors():
    _, r = _ranked(2)
    query = r.queries[0]
    for kwargs in ({"gain": "square"}, {"discount": "ln"}, {"discount": "jk", "base": 0.5}, {"base": 3.0},
                   {"err_max_grade": 0}, {"err_max_grade": 1.5}):
        with pytest.raises(ValidationError):
            anatomy(r, query, **kwargs)
    with pytest.raises(ValidationError, match="one system"):
        anatomy([r, r], query)
    anatomy([r], query)  # a one-element sequence is fine
    for grades, kwargs in (([1, "a"], {}), ([1.5], {}), ("101", {}), ([1, 1], {"num_rel": 1}),
                           ([1], {"rel": "1"}), ([1], {"docids": ["a", "b"]}), ([True], {})):
        with pytest.raises(ValidationError):
            anatomy_of_ranking(grades, **kwargs)


# ---- command line ---------------------------------------------------------------------------------------
@pytest.fixture()
def files(tmp_path):
    collection = random_collection(4)
    qrels, run = tmp_path / "qrels.txt", tmp_path / "sys.run"
    qrels.write_text(collection.qrels_text)
    run.write_text(collection.run_text)
    return str(qrels), str(run)


def test_cli_formats(files, capsys):
    qrels, run = files
    r = rank_runs(qrels, [run])[0]
    query = str(r.queries[int(np.argmax(r.num_ret))])
    expected = anatomy(r, query, gain="exp", discount="jk")
    assert main(["anatomy", qrels, run, "--query", query, "--gain", "exp", "--discount", "jk",
                 "--format", "csv"]) == 0
    got = pd.read_csv(io.StringIO(capsys.readouterr().out), dtype={"docid": str})
    assert list(got.columns) == list(COLUMNS) and len(got) == len(expected)
    assert got["ndcg"].tolist() == expected["ndcg"].tolist()
    assert got["docid"].tolist() == expected["docid"].tolist()
    assert main(["anatomy", qrels, run, "--query", query, "--format", "json"]) == 0
    records = json.loads(capsys.readouterr().out)
    plain = anatomy(r, query)
    assert [row["ap"] for row in records] == plain["ap"].tolist()
    assert [row["grade"] for row in records] == [None if np.isnan(g) else g for g in plain["grade"]]
    assert main(["anatomy", qrels, run, "--query", query]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == list(COLUMNS) and len(lines) == len(plain) + 1


def test_cli_conventions_and_errors(files, capsys):
    qrels, run = files
    r = rank_runs(qrels, [run], relevance_level=2, depth=3, judged_only=True, preset="trec_eval-10")[0]
    query = str(r.queries[0])
    assert main(["anatomy", qrels, run, "--query", query, "-l", "2", "-M", "3", "-J", "--compat", "trec_eval-10",
                 "--max-grade", "5", "--format", "json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert [row["recall"] for row in records] == anatomy(r, query)["recall"].tolist()
    assert [row["err"] for row in records] == anatomy(r, query, err_max_grade=5)["err"].tolist()
    assert len(records) <= 3
    assert main(["anatomy", qrels, run, "--query", "no-such-query"]) == 2
    assert "no-such-query" in capsys.readouterr().err
