"""Claims (metrics.review.claims) against hand-worked cases; the tests against scipy and statsmodels."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from metrics import evaluate
from metrics.errors import ParseError, UnknownMeasureError, ValidationError
from metrics.review.claims import (FAILS, HOLDS, UNCHECKABLE, Better, Rank, Threshold, check_claims, claim_from_entry,
                                   read_expectations)

# Three topics; every run answers each of them.
QRELS = "q1 0 a 1\nq1 0 b 0\nq1 0 c 1\nq2 0 d 1\nq2 0 e 0\nq3 0 f 1\n"
RUNS = {
    # AP: q1 (1/1 + 2/3) / 2 = 5/6, q2 (1/2) / 1 = 1/2, q3 1: mean 7/9
    "bm25": "q1 Q0 a 1 3 r\nq1 Q0 b 2 2 r\nq1 Q0 c 3 1 r\nq2 Q0 e 1 2 r\nq2 Q0 d 2 1 r\nq3 Q0 f 1 1 r\n",
    # AP: q1 (1/1 + 2/2) / 2 = 1, q2 1, q3 (1/2) / 1 = 1/2: mean 5/6
    "dense": "q1 Q0 c 1 3 r\nq1 Q0 a 2 2 r\nq2 Q0 d 1 2 r\nq3 Q0 x 1 2 r\nq3 Q0 f 2 1 r\n",
    # AP: q1 (1/2) / 2 = 1/4, q2 0, q3 1: mean 5/12
    "weak": "q1 Q0 b 1 3 r\nq1 Q0 a 2 2 r\nq2 Q0 e 1 2 r\nq3 Q0 f 1 1 r\n",
}
MEANS = {"bm25": 7 / 9, "dense": 5 / 6, "weak": 5 / 12}


@pytest.fixture(scope="module")
def table():
    return evaluate(QRELS, RUNS, ["AP"])


def one(table, claim):
    (result,) = check_claims(table, [claim])
    return result


def frame(values: dict[str, list[float]], measure: str = "AP") -> pd.DataFrame:
    """A per-query table written by hand: one list of values per system, topics t0, t1, ..."""
    rows = [(s, f"t{i}", measure, v) for s, vs in values.items() for i, v in enumerate(vs)]
    return pd.DataFrame(rows, columns=["system", "query", "measure", "value"])


def test_the_table_holds_the_means_worked_by_hand(table):
    means = table.groupby("system")["value"].mean()
    assert means.to_dict() == pytest.approx(MEANS, abs=1e-15)


@pytest.mark.parametrize(("claim", "status"), [
    (Threshold("bm25", "AP", value=0.7778, tolerance=0.0001), HOLDS),  # |7/9 - 0.7778| = 2.2e-5
    (Threshold("bm25", "AP", value=0.7778, tolerance=0.00001), FAILS),
    (Threshold("bm25", "AP", value=0.7778), FAILS),  # tolerance 0: only 7/9 itself
    (Threshold("bm25", "AP", value=7 / 9), HOLDS),
    (Threshold("bm25", "map", value=7 / 9, tolerance=0), HOLDS),  # map is AP
    (Threshold("dense", "AP", at_least=0.83), HOLDS),
    (Threshold("dense", "AP", at_least=0.84), FAILS),
    (Threshold("dense", "AP", at_least=0.84, tolerance=0.01), HOLDS),
    (Threshold("weak", "AP", at_most=0.42), HOLDS),
    (Threshold("weak", "AP", at_most=0.41), FAILS),
    (Threshold("weak", "AP", at_most=5 / 12), HOLDS),
])
def test_threshold(table, claim, status):
    result = one(table, claim)
    assert result.status == status
    assert result.numbers["value"] == pytest.approx(MEANS[claim.system], abs=1e-15)


def test_threshold_reports_how_far_off(table):
    result = one(table, Threshold("bm25", "AP", value=0.7, tolerance=0.05))
    assert result.status == FAILS
    assert result.numbers["off"] == pytest.approx(7 / 9 - 0.7)
    assert "off +0.0777778" in result.line() and result.line().startswith("FAILS")


def test_tolerance_zero_is_not_defeated_by_the_order_of_a_sum():
    assert np.mean([0.1, 0.2, 0.3]) != 0.2  # (0.1 + 0.2 + 0.3) / 3 is not 0.2 in floating point
    assert one(frame({"x": [0.1, 0.2, 0.3]}), Threshold("x", "AP", value=0.2)).status == HOLDS
    assert one(frame({"x": [0.1, 0.2, 0.3]}), Threshold("x", "AP", value=0.2000001)).status == FAILS


@pytest.mark.parametrize(("system", "rank"), [("dense", 1), ("bm25", 2), ("weak", 3)])
def test_rank_by_the_means(table, system, rank):
    for k in (1, 2, 3):
        result = one(table, Rank(system, "AP", k))
        assert result.numbers["rank"] == rank and result.numbers["systems"] == 3
        assert result.status == (HOLDS if rank <= k else FAILS)


def test_ties_in_ranks_share_the_best_rank_unless_asked_for_the_worst():
    values = {"x": [0.1, 0.2, 0.3], "y": [0.3, 0.2, 0.1], "z": [0.0, 0.0, 0.1]}
    tied = frame(values)
    sums = tied.groupby("system", sort=False)["value"].mean()
    assert sums["x"] != sums["y"]  # the same mean, added up in two orders
    for system in ("x", "y"):
        best = one(tied, Rank(system, "AP", 1))
        assert (best.status, best.numbers["rank"], best.reason) == (HOLDS, 1, "tied with 1 other")
        worst = one(tied, Rank(system, "AP", 1, ties="worst"))
        assert (worst.status, worst.numbers["rank"]) == (FAILS, 2)
    assert one(tied, Rank("z", "AP", 2, ties="worst")).numbers["rank"] == 3


def test_better_without_a_test_compares_the_means(table):
    result = one(table, Better("dense", "bm25", "AP"))
    assert result.status == HOLDS and result.numbers["difference"] == pytest.approx(5 / 6 - 7 / 9)
    assert one(table, Better("bm25", "dense", "AP")).status == FAILS
    assert one(table, Better("weak", "dense", "AP")).status == FAILS


def test_equal_means_are_not_better():
    values = {"x": [0.1, 0.2, 0.3], "y": [0.3, 0.2, 0.1]}
    assert one(frame(values), Better("x", "y", "AP")).status == FAILS
    assert one(frame(values), Better("y", "x", "AP")).status == FAILS


def test_better_is_lower_for_a_measure_where_lower_is_better():
    values = frame({"low": [0.1, 0.2], "high": [0.3, 0.4]}, measure="Fallout@10")
    assert one(values, Better("low", "high", "Fallout@10")).status == HOLDS
    assert one(values, Better("high", "low", "Fallout@10")).status == FAILS
    rank = one(values, Rank("low", "Fallout@10", 1))
    assert rank.status == HOLDS and rank.numbers["rank"] == 1


def random_table(seed: int = 7, n: int = 15) -> tuple[pd.DataFrame, dict[str, np.ndarray]]:
    rng = np.random.default_rng(seed)
    base = rng.uniform(0.2, 0.6, n)
    values = {"a": base, "b": base + rng.normal(0.12, 0.05, n), "c": base + rng.normal(0.02, 0.1, n)}
    return frame({k: list(v) for k, v in values.items()}, measure="nDCG@10"), values


def test_significance_of_the_claimed_pair_is_scipys_paired_t_test():
    table, values = random_table()
    for better, than in (("b", "a"), ("c", "a"), ("b", "c")):
        result = one(table, Better(better, than, "nDCG@10", test="t", pairs="claimed"))
        p = stats.ttest_rel(values[better], values[than]).pvalue
        assert result.numbers["p_value"] == pytest.approx(p, rel=1e-12)
        assert result.numbers["p_adjusted"] == pytest.approx(p, rel=1e-12)  # one test: nothing to correct
        assert result.numbers["n"] == 15
        assert result.status == (HOLDS if p < 0.05 else FAILS)
    assert one(table, Better("b", "a", "nDCG@10", test="t", pairs="claimed")).status == HOLDS


@pytest.mark.parametrize("correction", ["holm", "bonferroni", "bh"])
def test_significance_over_all_pairs_is_corrected_as_statsmodels_corrects(correction):
    table, values = random_table(seed=11)
    pairs = [("a", "b"), ("a", "c"), ("b", "c")]
    raw = [stats.ttest_rel(values[y], values[x]).pvalue for x, y in pairs]
    method = {"holm": "holm", "bonferroni": "bonferroni", "bh": "fdr_bh"}[correction]
    adjusted = multipletests(raw, method=method)[1]
    claims = [Better(y, x, "nDCG@10", test="t", correction=correction, alpha=0.01) for x, y in pairs]
    for result, p, p_adj, (x, y) in zip(check_claims(table, claims), raw, adjusted, pairs):
        assert result.numbers["p_value"] == pytest.approx(p, rel=1e-12)
        assert result.numbers["p_adjusted"] == pytest.approx(p_adj, rel=1e-12)
        ahead = values[y].mean() > values[x].mean()
        assert result.status == (HOLDS if ahead and p_adj < 0.01 else FAILS)


def test_a_significant_difference_the_wrong_way_fails():
    table, values = random_table()
    result = one(table, Better("a", "b", "nDCG@10", test="t"))
    assert result.status == FAILS and result.numbers["p_adjusted"] < 0.05 and result.numbers["difference"] < 0


def test_a_difference_not_significant_fails_and_says_so():
    table = frame({"a": [0.2, 0.5, 0.3, 0.6], "b": [0.3, 0.4, 0.4, 0.6]})
    result = one(table, Better("b", "a", "AP", test="wilcoxon", alpha=0.05))
    assert result.numbers["difference"] > 0
    assert result.status == FAILS and result.reason == "not significant at alpha 0.05"
    assert result.numbers["p_value"] == pytest.approx(stats.wilcoxon([0.1, -0.1, 0.1], zero_method="wilcox").pvalue)


def test_the_permutation_test_is_seeded():
    table, _ = random_table()
    claim = Better("b", "a", "nDCG@10", test="permutation", settings=(("n_resamples", 999), ("seed", 3)))
    first, again = one(table, claim), one(table, claim)
    assert first.numbers["p_value"] == again.numbers["p_value"] and first.status == HOLDS


def test_constant_differences_leave_the_t_test_undefined():
    result = one(frame({"a": [0.1, 0.2, 0.3], "b": [0.2, 0.3, 0.4]}), Better("b", "a", "AP", test="t"))
    assert result.status == UNCHECKABLE and "undefined" in result.reason


def test_topics_that_differ_cannot_be_tested():
    table = pd.concat([frame({"a": [0.1, 0.2, 0.3]}), frame({"b": [0.5, 0.6]})], ignore_index=True)
    result = one(table, Better("b", "a", "AP", test="t"))
    assert result.status == UNCHECKABLE and result.reason.startswith("the test cannot run")


@pytest.mark.parametrize("claim", [
    Threshold("sparse", "AP", value=0.5), Rank("sparse", "AP", 1), Better("sparse", "bm25", "AP"),
    Better("bm25", "sparse", "AP", test="t"),
])
def test_a_missing_system_cannot_be_checked(table, claim):
    result = one(table, claim)
    assert result.status == UNCHECKABLE
    assert result.reason == "no system sparse in the table, whose systems are bm25, dense, weak"


@pytest.mark.parametrize("claim", [Threshold("bm25", "P@5", at_least=0.1), Rank("bm25", "nDCG@10", 1),
                                   Better("dense", "bm25", "RR", test="t")])
def test_a_measure_the_table_lacks_cannot_be_checked(table, claim):
    result = one(table, claim)
    assert result.status == UNCHECKABLE and result.reason.startswith(f"no measure {claim.measure} in the table")
    assert result.line().startswith("CANNOT BE CHECKED")


def test_results_come_in_the_order_of_the_claims(table):
    claims = [Rank("weak", "AP", 1), Threshold("sparse", "AP", value=1.0), Better("dense", "weak", "AP")]
    assert [r.status for r in check_claims(table, claims)] == [FAILS, UNCHECKABLE, HOLDS]
    assert [r.claim for r in check_claims(table, claims)] == claims


@pytest.mark.parametrize(("make", "message"), [
    (lambda: Threshold("a", "AP", value="high"), "value: expected a finite number, found 'high'"),
    (lambda: Threshold("a", "AP", value=True), "value: expected a finite number, found True"),
    (lambda: Threshold("a", "AP", value=float("nan")), "value: expected a finite number, found nan"),
    (lambda: Threshold("a", "AP", value=0.2, tolerance=-1), "tolerance: expected a non-negative number, found -1"),
    (lambda: Threshold("a", "AP"), "expected exactly one of value, at_least, at_most, found none"),
    (lambda: Threshold("a", "AP", value=0.2, at_least=0.1), "expected exactly one of value, at_least, at_most"),
    (lambda: Threshold("", "AP", value=0.2), "system: expected a system's name, found ''"),
    (lambda: Rank("a", "AP", 0), "rank_at_most: expected a positive integer, found 0"),
    (lambda: Rank("a", "AP", 1.5), "rank_at_most: expected a positive integer, found 1.5"),
    (lambda: Rank("a", "AP", 1, ties="random"), "ties: expected one of 'best', 'worst', found 'random'"),
    (lambda: Better("a", "a", "AP"), "than: expected another system than better, found 'a'"),
    (lambda: Better("a", "b", "AP", test="z"), "unknown test 'z'"),
    (lambda: Better("a", "b", "AP", test="t", alpha=1.5), "alpha: expected a number above 0 and below 1, found 1.5"),
    (lambda: Better("a", "b", "AP", test="t", correction="maxt"), "test: expected the permutation test (correction maxt needs it), found 't'"),
    (lambda: Better("a", "b", "AP", test="t", settings=(("n_resamples", 10**9),)),
     "n_resamples: expected an integer from 1 to 1000000, found 1000000000"),
    (lambda: Better("a", "b", "AP", test="t", settings=(("colour", 1),)), "colour: expected a test setting (seed, n_resamples"),
    (lambda: Better("a", "b", "AP", test="t", pairs="some"), "pairs: expected one of 'all', 'claimed', found 'some'"),
    (lambda: Threshold("a", "P", value=0.2), "measure: expected the name of one measure, found 'P' (9 measures)"),
])
def test_claims_refuse_bad_values(make, message):
    with pytest.raises(ValidationError, match=None) as caught:
        make()
    assert message in str(caught.value)


def test_an_unknown_measure_is_refused():
    with pytest.raises(UnknownMeasureError):
        Threshold("a", "FOO@3", value=0.2)


@pytest.mark.parametrize("claim", [
    Threshold("bm25", "AP", value=0.2572, tolerance=0.0005), Threshold("bm25", "P@10", at_least=0.3),
    Threshold("bm25", "map", at_most=0.5, tolerance=0.01),
    Better("dense", "bm25", "nDCG@10"),
    Better("dense", "bm25", "nDCG@10", test="permutation", correction="maxt", alpha=0.01, pairs="claimed",
           settings=(("n_resamples", 999), ("seed", 4))),
    Rank("dense", "AP", 2), Rank("dense", "AP", 1, ties="worst"),
])
def test_every_claim_reads_back_from_its_entry(claim):
    assert claim_from_entry(claim.entry()) == claim


def test_an_entry_names_its_problem():
    with pytest.raises(ValueError, match="^tolerence: expected one of the fields system, measure, value, at_least, "
                                         "at_most, tolerance, found an unknown field$"):
        claim_from_entry({"system": "a", "measure": "AP", "value": 0.2, "tolerence": 0.1})
    with pytest.raises(ValueError, match="^measure: expected a measure's name, found no such field$"):
        claim_from_entry({"better": "a", "than": "b"})
    with pytest.raises(ValueError, match="^alpha: expected a test beside it"):
        claim_from_entry({"better": "a", "than": "b", "measure": "AP", "alpha": 0.01})
    with pytest.raises(ValueError, match="^a claim: expected value, at_least or at_most .*, found the keys "
                                         r"\['system', 'measure'\]$"):
        claim_from_entry({"system": "a", "measure": "AP"})
    with pytest.raises(ValueError, match=r"^a claim: expected a mapping of keys to values, found \['system', 'a'\]$"):
        claim_from_entry(["system", "a"])
    assert claim_from_entry({"system": "a", "measure": "AP", "value": 0.2}, tolerance=0.01).tolerance == 0.01
    assert claim_from_entry({"system": 7, "measure": "AP", "value": 0.2}).system == "7"


GOOD = {"qrels": "q.txt", "runs": {"bm25": "bm25.run", "dense": "runs/dense.run"},
        "expect": [{"system": "bm25", "measure": "AP", "value": 0.25}]}


def test_an_expectations_file_as_data():
    spec = read_expectations({**GOOD, "conventions": {"relevance_level": 2, "complete": True}, "tolerance": 0.001},
                             source="ci/exp.yaml", base="ci", lines={"expect.0": 5})
    assert spec.qrels == "ci/q.txt" and spec.runs == (("bm25", "ci/bm25.run"), ("dense", "ci/runs/dense.run"))
    assert spec.conventions.relevance_level == 2 and spec.conventions.complete
    assert spec.claims == (Threshold("bm25", "AP", value=0.25, tolerance=0.001),)
    assert spec.lines == (5,) and spec.name == "exp.yaml" and spec.measures == ["AP"]
    listed = read_expectations({**GOOD, "runs": ["/abs/bm25.run.gz", "dense.txt"]}, source="e.yaml", base="d")
    assert listed.runs == (("bm25", "/abs/bm25.run.gz"), ("dense", "d/dense.txt"))


@pytest.mark.parametrize(("data", "lines", "message"), [
    ([GOOD], {}, "e.yaml:1: expected a mapping with the keys qrels, runs and expect, found a list of 1 item"),
    (None, {}, "e.yaml:1: expected a mapping with the keys qrels, runs and expect, found null"),
    ({**GOOD, "expected": []}, {"expected": 4}, "e.yaml:4: expected: expected one of the fields name, qrels, runs, "
                                                "conventions, tolerance, expect, found an unknown field"),
    ({k: v for k, v in GOOD.items() if k != "runs"}, {}, "e.yaml: runs: expected a mapping of system names to run "
                                                          "files, or a list of run files, found no such field"),
    ({**GOOD, "expect": []}, {"expect": 3},
     "e.yaml:3: expect: expected a list of one or more claims, found an empty list"),
    ({**GOOD, "qrels": 3}, {"qrels": 1}, "e.yaml:1: qrels: expected a file's path, found 3"),
    ({**GOOD, "runs": "a.run"}, {"runs": 2}, "e.yaml:2: runs: expected a mapping of system names to run files"),
    ({**GOOD, "runs": {"a": None}}, {"runs.a": 2}, "e.yaml:2: runs.a: expected a file's path, found null"),
    ({**GOOD, "runs": ["x/a.run", "y/a.run"]}, {"runs": 2}, "e.yaml:2: runs: expected one run per system "
                                                             "name, found two named 'a'"),
    ({**GOOD, "tolerance": "small"}, {"tolerance": 6}, "e.yaml:6: tolerance: expected a non-negative number"),
    ({**GOOD, "conventions": {"relevance": 2}}, {"conventions": 7}, "e.yaml:7: conventions.relevance: expected one "
                                                                     "of the fields preset, relevance_level, "),
    ({**GOOD, "conventions": {"depth": 0}}, {}, "e.yaml: conventions.depth: expected an integer from 1"),
    ({**GOOD, "conventions": {"complete": "yes"}}, {}, "e.yaml: conventions.complete: expected true or false, "
                                                       "found 'yes'"),
    ({**GOOD, "expect": [GOOD["expect"][0], {"system": "a", "measure": "AP", "value": "x"}]},
     {"expect.1": 9}, "e.yaml:9: expect[1].value: expected a finite number, found 'x'"),
    ({**GOOD, "expect": [{"system": "a", "measure": "NOPE", "value": 1}]}, {"expect.0": 4},
     "e.yaml:4: expect[0]: unknown measure 'NOPE'"),
])
def test_a_bad_expectations_file_is_one_line_naming_file_line_and_part(data, lines, message):
    with pytest.raises(ParseError) as caught:
        read_expectations(data, source="e.yaml", lines=lines)
    text = str(caught.value)
    assert text.startswith(message) and "\n" not in text


def test_an_expectations_file_written_as_data_reads_back():
    from metrics.conventions import Conventions
    from metrics.review.claims import expectations_data

    claims = [Threshold("bm25", "AP", value=0.25, tolerance=0.001), Better("dense", "bm25", "nDCG@10", test="sign"),
              Rank("dense", "P@10", 2, ties="worst")]
    conventions = Conventions(relevance_level=2, complete=True)
    data = expectations_data("q.txt", [("bm25", "b.run"), ("dense", "d.run")], claims, conventions=conventions,
                             name="nightly")
    assert list(data) == ["name", "qrels", "runs", "conventions", "expect"]
    assert data["conventions"] == {"relevance_level": 2, "complete": True}
    spec = read_expectations(data, source="e.yaml")
    assert (spec.name, spec.qrels, spec.runs) == ("nightly", "q.txt", (("bm25", "b.run"), ("dense", "d.run")))
    assert spec.claims == tuple(claims) and spec.conventions == conventions
    assert "conventions" not in expectations_data("q.txt", {"a": "a.run"}, claims, conventions=Conventions())
