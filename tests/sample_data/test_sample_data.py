"""The bundled data: the synthetic demo collection and the seeds' worked examples.

The demo must regenerate byte for byte, read cleanly, and keep each system's documented character. The
teaching examples must reproduce, with :mod:`metrics` (or a textbook computation where the seed uses a
convention metrics does not have), every number their source documents print.
"""

from __future__ import annotations

import gzip
import json
import math
import re
import zlib
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from metrics import aggregate, evaluate, read_qrels, read_run, resolve_measures
from sample_data import DEMO_DIR, TEACHING_DIR, demo_paths, teaching_examples
from sample_data import generate as gen

DEMO_MEASURES = ["map", "P_10", "ndcg_cut_10", "recip_rank", "recall_1000"]
SYSTEMS = ("bm25", "bm25_rm3", "bm25_rm3_copy", "dense_precise", "ties_missing", "weak_tfidf")
DOCID = re.compile(r"(FT9[1-4][1-4]-\d+|LA(0[1-9]|1[0-2])\d\d(89|90)-\d{4}|FBIS[34]-\d+|FR94\d{4}-[0-2]-\d{5})\Z")


# ---- the demo collection -----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def demo():
    qrels_path, run_paths = demo_paths()
    runs = {path.name.removesuffix(".run.gz"): path for path in run_paths}
    return qrels_path, runs


@pytest.fixture(scope="module")
def per_query(demo):
    qrels_path, runs = demo
    return evaluate(qrels_path, runs, DEMO_MEASURES)


@pytest.fixture(scope="module")
def means(per_query):
    return aggregate(per_query).pivot(index="system", columns="measure", values="value")


@pytest.fixture(scope="module")
def qrels_frame(demo):
    return read_qrels(demo[0]).frame


@pytest.fixture(scope="module")
def run_frames(demo):
    return {name: read_run(path).frame for name, path in demo[1].items()}


def _committed() -> dict[str, bytes]:
    files = [DEMO_DIR / "qrels.txt", *sorted((DEMO_DIR / "runs").iterdir())]
    return {path.relative_to(DEMO_DIR).as_posix(): path.read_bytes() for path in files}


def test_regenerating_reproduces_the_committed_files_byte_for_byte(tmp_path):
    written = gen.generate(tmp_path)
    fresh = {path.relative_to(tmp_path).as_posix(): path.read_bytes() for path in written}
    committed = _committed()
    assert sorted(fresh) == sorted(committed)
    for name, data in committed.items():
        if name.endswith(".gz"):  # the text first, for a readable failure
            assert gzip.decompress(fresh[name]) == gzip.decompress(data), name
        assert fresh[name] == data, f"{name} differs (zlib {zlib.ZLIB_RUNTIME_VERSION})"


def test_main_writes_into_the_folder_given(tmp_path, capsys):
    assert gen.main(["--out", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "qrels.txt").read_bytes() == (DEMO_DIR / "qrels.txt").read_bytes()
    assert "qrels.txt" in capsys.readouterr().out


def test_gzip_headers_carry_no_time_and_no_name():
    for path in sorted((DEMO_DIR / "runs").glob("*.run.gz")):
        header = path.read_bytes()[:10]
        assert header[:3] == b"\x1f\x8b\x08", path.name
        assert header[3] == 0, f"{path.name}: FNAME or other flags set"
        assert header[4:8] == b"\x00\x00\x00\x00", f"{path.name}: mtime is not 0"


def test_the_package_lists_the_demo_and_keeps_it_small(demo):
    qrels_path, runs = demo
    assert qrels_path == DEMO_DIR / "qrels.txt" and qrels_path.is_file()
    assert sorted(runs) == sorted(SYSTEMS)
    assert demo_paths()[1] == sorted(demo_paths()[1])
    total = sum(p.stat().st_size for p in Path(DEMO_DIR).parent.rglob("*") if p.is_file())
    assert total < 5_000_000


def test_demo_reads_as_a_trec_collection(demo, qrels_frame, run_frames):
    assert sorted(qrels_frame["query"].unique()) == [str(q) for q in range(401, 451)]
    assert set(qrels_frame["relevance"]) == {0, 1, 2, 3}
    assert qrels_frame["docid"].map(lambda d: bool(DOCID.match(d))).all()
    for name, frame in run_frames.items():
        assert read_run(demo[1][name]).tag == name
        depth = frame.groupby("query").size()
        assert (depth == gen.RUN_DEPTH).all(), name
        assert frame["docid"].map(lambda d: bool(DOCID.match(d))).all(), name
        assert frame["docid"].nunique() > 20_000, name  # drawn from a corpus of 50,000 ids
    bm25 = run_frames["bm25"]["score"]
    dense = run_frames["dense_precise"]["score"]
    assert 5.0 < bm25.min() and bm25.max() < 31.0
    assert 0.0 < dense.min() and dense.max() < 1.0


def test_evaluate_and_aggregate_give_tidy_tables(per_query, means):
    assert list(per_query.columns) == ["system", "query", "measure", "value"]
    assert set(per_query["system"]) == set(SYSTEMS)
    assert set(per_query["measure"]) == set(DEMO_MEASURES)
    summary = aggregate(per_query)
    assert list(summary.columns) == ["system", "measure", "value", "n_queries"]
    n = summary.set_index(["system", "measure"])["n_queries"]
    assert n[("bm25", "map")] == 50 and n[("ties_missing", "map")] == 48
    assert means.notna().all().all()


def test_bm25_rm3_beats_bm25_and_weak_tfidf_on_map(means):
    assert means.loc["bm25_rm3", "map"] > means.loc["bm25", "map"] > means.loc["weak_tfidf", "map"]
    assert means.loc["bm25", "map"] > means.loc["ties_missing", "map"] > means.loc["weak_tfidf", "map"]


def test_dense_precise_is_precise_at_the_top_but_misses_relevant_documents(means):
    assert means["P_10"].idxmax() == "dense_precise"
    assert means.loc["dense_precise", "P_10"] > means.loc["bm25_rm3", "P_10"] + 0.03
    assert means.loc["dense_precise", "recall_1000"] < means.loc["bm25_rm3", "recall_1000"] - 0.2
    assert means["recall_1000"].idxmin() == "dense_precise"


def test_ties_missing_misses_two_topics_and_ties_across_cutoffs(qrels_frame, run_frames):
    frame = run_frames["ties_missing"]
    missing = set(qrels_frame["query"]) - set(frame["query"])
    assert len(missing) == 2
    for name, other in run_frames.items():
        if name != "ties_missing":
            assert set(other["query"]) == set(qrels_frame["query"]), name
            assert not other.duplicated(["query", "score"]).any(), f"{name} has tied scores"
    assert frame.duplicated(["query", "score"]).mean() > 0.5
    ordered = frame.sort_values(["query", "rank"])
    scores = ordered.groupby("query")["score"].apply(lambda s: s.to_numpy())
    for k in (10, 20):
        straddling = sum(s[k - 1] == s[k] for s in scores)
        assert straddling >= 10, f"only {straddling} topics tie across rank {k}"


def _ap_by_query(per_query: pd.DataFrame) -> pd.DataFrame:
    return per_query[per_query["measure"] == "map"].pivot(index="query", columns="system", values="value")


def test_paired_t_tests_tell_the_copy_from_the_weak_system(per_query):
    ap = _ap_by_query(per_query)
    copy = stats.ttest_rel(ap["bm25_rm3"], ap["bm25_rm3_copy"])
    weak = stats.ttest_rel(ap["bm25_rm3"], ap["weak_tfidf"])
    assert copy.pvalue > 0.05
    assert weak.pvalue < 0.01
    differs = (ap["bm25_rm3"] != ap["bm25_rm3_copy"]).sum()
    assert 0 < differs < 25  # a near-copy: a few topics perturbed


def test_pooling_judges_the_top_30_and_leaves_deeper_documents_unjudged(qrels_frame, run_frames):
    judged = set(zip(qrels_frame["query"], qrels_frame["docid"]))
    for name, frame in run_frames.items():
        is_judged = np.fromiter((pair in judged for pair in zip(frame["query"], frame["docid"])), dtype=bool,
                                count=len(frame))
        top = frame["rank"].to_numpy() <= gen.POOL_DEPTH
        below = (frame["rank"].to_numpy() > gen.POOL_DEPTH) & (frame["rank"].to_numpy() <= 100)
        assert is_judged[top].all(), name
        assert (~is_judged[below]).mean() > 0.5, name


def test_qrels_are_realistic(qrels_frame, run_frames, per_query):
    best = qrels_frame.groupby("query")["relevance"].max()
    assert (best == 0).sum() == 1  # one topic without any relevant document
    relevant = qrels_frame[qrels_frame["relevance"] > 0]
    retrieved = set().union(*(zip(f["query"], f["docid"]) for f in run_frames.values()))
    never = [pair for pair in zip(relevant["query"], relevant["docid"]) if pair not in retrieved]
    assert len(never) > 20  # judged relevant, retrieved by no system (found by the manual runs)
    recall = per_query[per_query["measure"] == "recall_1000"].groupby("system")["value"].mean()
    assert (recall < 1.0).all()


# ---- the teaching examples ---------------------------------------------------------------------------------
EXPECTED = json.loads((TEACHING_DIR / "expected.json").read_text(encoding="utf-8"))
EXAMPLES = EXPECTED["examples"]


def _decimals(printed: str) -> int:
    return len(printed.partition(".")[2])


def _rounds_to(value: float, printed: str) -> bool:
    """Round to nearest at the printed decimals; either choice is accepted at an exact half."""
    return abs(value - float(printed)) <= 0.5 * 10.0 ** -_decimals(printed) + 1e-9


def _truncates_to(value: float, printed: str) -> bool:
    scale = 10 ** _decimals(printed)
    return math.floor(value * scale + 1e-9) == round(float(printed) * scale)


@lru_cache(maxsize=None)
def _metric(example: str, measure: str) -> dict[tuple[str, str], float]:
    """{(system, query): value} of one metrics measure on one example."""
    spec = EXAMPLES[example]
    runs = {name: TEACHING_DIR / path for name, path in spec["runs"].items()}
    frame = evaluate(TEACHING_DIR / spec["qrels"], runs, [measure])
    assert set(frame["measure"]) == {resolve_measures(measure)[0][0]}
    return {(s, q): v for s, q, v in zip(frame["system"], frame["query"], frame["value"])}


@lru_cache(maxsize=None)
def _grades(example: str, system: str, query: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The ranked grades of one ranking (trec_eval's order, unjudged = 0) and all judged grades, sorted."""
    spec = EXAMPLES[example]
    qrels = read_qrels(TEACHING_DIR / spec["qrels"]).frame
    qrels = qrels[qrels["query"] == query]
    run = read_run(TEACHING_DIR / spec["runs"][system]).frame
    run = run[run["query"] == query].sort_values(["score", "docid"], ascending=False)
    grade = dict(zip(qrels["docid"], qrels["relevance"]))
    ranked = tuple(max(int(grade.get(d, 0)), 0) for d in run["docid"])
    return ranked, tuple(sorted((int(g) for g in qrels["relevance"]), reverse=True))


def _dcg(grades, k: int) -> float:
    """Textbook DCG@k: gain 2^g - 1, discount log2(i + 1)."""
    return sum((2.0 ** g - 1.0) / math.log2(i + 1) for i, g in enumerate(grades[:k], start=1))


def _ap_found(grades, k: int) -> float:
    """AP@k as the seed 003 table has it: mean precision at the relevant ranks found up to k."""
    found, total = 0, 0.0
    for i, g in enumerate(grades[:k], start=1):
        if g > 0:
            found += 1
            total += found / i
    return total / found if found else 0.0


def _first_relevant(grades) -> int:
    return next(i for i, g in enumerate(grades, start=1) if g > 0)


def _value(example: str, system: str, query: str | None, key: str) -> float:
    name, _, cut = key.partition("@")
    k = int(cut) if cut else None
    if query is None:  # a summary over the system's topics
        queries = sorted({q for s, q in _metric(example, "AP") if s == system})
        if key == "MAP":
            return float(aggregate(_frame(example, system, "map"))["value"].iloc[0])
        if key == "MRR":
            return float(aggregate(_frame(example, system, "recip_rank"))["value"].iloc[0])
        if key == "mean_first_relevant_rank":
            return float(np.mean([_first_relevant(_grades(example, system, q)[0]) for q in queries]))
        raise KeyError(key)
    ranked, judged = _grades(example, system, query)
    if name == "DCG":
        return _dcg(ranked, k)
    if name == "IDCG":
        return _dcg(judged, k)
    if name == "AP_found":
        return _ap_found(ranked, k)
    if name == "first_relevant_rank":
        value = _first_relevant(ranked)
        assert value == pytest.approx(1.0 / _metric(example, "RR")[(system, query)])
        return float(value)
    if name.startswith("iprec_at_recall_"):
        return _metric(example, name)[(system, query)]
    measure = {"F1": f"F1@{k}"}.get(name, key)
    value = _metric(example, measure)[(system, query)]
    if name == "AP":  # the trec_eval name gives the same number
        assert _metric(example, "map")[(system, query)] == value
    if name == 'nDCG(gain="exp")' and max(judged) <= 1:  # binary grades: linear and exponential gains agree
        assert _metric(example, f"nDCG@{k}")[(system, query)] == pytest.approx(value)
    return value


def _frame(example: str, system: str, measure: str) -> pd.DataFrame:
    values = {q: v for (s, q), v in _metric(example, measure).items() if s == system}
    return pd.DataFrame({"system": system, "query": list(values), "measure": measure, "value": list(values.values())})


def _cases():
    for example, spec in EXAMPLES.items():
        for system, queries in spec["per_rank"].items():
            for query, lists in queries.items():
                for name, values in lists.items():
                    for k, printed in enumerate(values, start=1):
                        key = (f"iprec_at_recall_{(k - 1) / 10:.2f}" if name == "iprec_at_recall"
                               else f"{name}@{k}")
                        yield example, system, query, key, printed
        for system, queries in spec["per_query"].items():
            for query, values in queries.items():
                for key, printed in values.items():
                    yield example, system, query, key, printed
        for system, values in spec["per_system"].items():
            for key, printed in values.items():
                yield example, system, None, key, printed


CASES = list(_cases())


def _listed(example: str, field: str, system: str, query: str | None, key: str, printed: str | None = None,
            kind: str | None = None):
    """The entry of ``field`` (errata, truncated, half_up) about this value, if any."""
    for item in EXAMPLES[example].get(field, []):
        if (item["system"], item["query"], item["measure"]) == (system, query, key) \
                and (printed is None or item["printed"] == printed) and (kind is None or item.get("kind") == kind):
            return item
    return None


@pytest.mark.parametrize("example, system, query, key, printed", CASES,
                         ids=[f"{c[0]}-{c[1]}-{c[2]}-{c[3]}" for c in CASES])
def test_teaching_numbers_match_the_printed_ones(example, system, query, key, printed):
    value = _value(example, system, query, key)
    wrong = _listed(example, "errata", system, query, key, printed, kind="arithmetic")
    truncated = _listed(example, "truncated", system, query, key, printed)
    if wrong is not None:
        assert _rounds_to(value, wrong["correct"]) and not _rounds_to(value, printed)
    elif truncated is not None:
        assert _truncates_to(value, printed) and not _rounds_to(value, printed)
    else:
        assert _rounds_to(value, printed), f"{key}: computed {value:.6f}, printed {printed}"


def test_teaching_cases_cover_every_example_and_the_metrics_measures():
    assert len(CASES) > 150
    keys = {c[3].partition("@")[0] for c in CASES}
    assert {"P", "R", "F1", "AP", "11pt_avg", 'nDCG(gain="exp")', "DCG", "IDCG", "AP_found", "MAP", "MRR"} <= keys
    assert {c[0] for c in CASES} == set(EXAMPLES)


def test_every_listed_exception_names_a_checked_value():
    checked = set(CASES)
    for example, spec in EXAMPLES.items():
        for field in ("truncated", "half_up", "errata"):
            for item in spec.get(field, []):
                if item.get("kind") == "expression":  # a term inside a printed calculation
                    assert (example, item["system"], item["query"], item["measure"]) in {c[:4] for c in CASES}
                    continue
                assert (example, item["system"], item["query"], item["measure"], item["printed"]) in checked, item


def test_half_up_values_are_exact_halves():
    for example, spec in EXAMPLES.items():
        for item in spec.get("half_up", []):
            value = _value(example, item["system"], item["query"], item["measure"])
            scaled = value * 10 ** _decimals(item["printed"])
            assert abs(scaled - math.floor(scaled) - 0.5) < 1e-9
            assert round(float(item["printed"]) * 10 ** _decimals(item["printed"])) == math.floor(scaled) + 1


def test_the_non_arithmetic_errata_hold():
    # flagr8: the line labelled Precision@5 divides by all relevant documents: it is recall
    assert _value("flagr8", "flagr8", "1", "R@5") == pytest.approx(0.75)
    assert _value("flagr8", "flagr8", "1", "P@5") == pytest.approx(0.60)
    # flagr8: the stated AP formula, cut at 3, divides by all four relevant documents
    item = _listed("flagr8", "errata", "flagr8", "1", "AP_found@3", "0.83", kind="convention")
    assert _rounds_to(_metric("flagr8", "AP@3")[("flagr8", "1")], item["correct"])
    assert _rounds_to(_value("flagr8", "flagr8", "1", "AP_found@3"), item["printed"])
    # lecture: MAP of system 1 is written with ranking C's AP as 0.44; it is 0.54, and 0.66 is right
    ap_c = _value("lecture", "lecture_system1", "2", "AP")
    assert _rounds_to(ap_c, "0.54") and not _rounds_to(ap_c, "0.44")
    assert not _rounds_to((0.78 + 0.44) / 2, "0.66")
    assert _rounds_to(_value("lecture", "lecture_system1", None, "MAP"), "0.66")


def test_graded10_ideal_ranking_is_its_own_documents_sorted():
    spec = EXAMPLES["graded10"]
    ranked, judged = _grades("graded10", "graded10", "1")
    assert list(ranked) == spec["grades"]
    assert list(judged[:10]) == spec["ideal_grades"] == sorted(spec["grades"], reverse=True)


def test_reciprocal_rank_table():
    for rank, printed in enumerate(EXAMPLES["mrr3"]["reciprocal_rank_table"], start=1):
        assert _rounds_to(1.0 / rank, printed)


def test_teaching_examples_api():
    examples = teaching_examples()
    assert set(examples) == set(EXAMPLES) == {"flagr8", "graded10", "lecture", "mrr3"}
    for name, example in examples.items():
        assert set(example) == {"qrels", "runs", "description"}
        assert example["qrels"].is_file() and example["qrels"].parent == TEACHING_DIR
        assert example["runs"] and all(p.is_file() for p in example["runs"])
        assert example["description"]
        for path, read in ((example["qrels"], read_qrels), *((run, read_run) for run in example["runs"])):
            lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
            assert len(read(path)) == len(lines), path.name  # every line read, none dropped
    assert [p.name for p in examples["lecture"]["runs"]] == ["lecture_system1.run", "lecture_system2.run"]


def test_teaching_runs_order_documents_as_their_rank_column():
    for example in teaching_examples().values():
        for path in example["runs"]:
            frame = read_run(path).frame
            for _, group in frame.groupby("query"):
                by_score = group.sort_values(["score", "docid"], ascending=False)["rank"].tolist()
                assert by_score == sorted(by_score), path.name
