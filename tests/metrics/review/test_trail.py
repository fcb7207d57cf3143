"""Claims checked again on versions of a collection (metrics.review.claims.recheck), against hand-worked means."""

from __future__ import annotations

import pytest

from metrics import evaluate
from metrics.errors import ValidationError
from metrics.review.claims import (FAILS, FLIPPED, HOLDS, UNCHECKABLE, Better, ClaimResult, Rank, Threshold, Trail,
                                   recheck)

QRELS = "q1 0 a 1\nq1 0 b 0\nq1 0 c 1\nq2 0 d 1\nq2 0 e 0\nq3 0 f 1\n"
BM25 = "q1 Q0 a 1 3 r\nq1 Q0 b 2 2 r\nq1 Q0 c 3 1 r\nq2 Q0 e 1 2 r\nq2 Q0 d 2 1 r\nq3 Q0 f 1 1 r\n"  # AP 7/9
DENSE = "q1 Q0 c 1 3 r\nq1 Q0 a 2 2 r\nq2 Q0 d 1 2 r\nq3 Q0 x 1 2 r\nq3 Q0 f 2 1 r\n"  # AP 5/6
WEAK = "q1 Q0 b 1 3 r\nq1 Q0 a 2 2 r\nq2 Q0 e 1 2 r\nq3 Q0 f 1 1 r\n"  # AP 5/12

# v1: bm25 and dense; v2: dense's run replaced by a weak one; v3: dense's run back; v4: dense removed
TABLES = {
    "v1": evaluate(QRELS, {"bm25": BM25, "dense": DENSE}, ["AP"]),
    "v2": evaluate(QRELS, {"bm25": BM25, "dense": WEAK}, ["AP"]),
    "v3": evaluate(QRELS, {"bm25": BM25, "dense": DENSE}, ["AP"]),
    "v4": evaluate(QRELS, {"bm25": BM25}, ["AP"]),
}
BETTER = Better("dense", "bm25", "AP")


def one(claim, versions):
    (trail,) = recheck([(claim, versions)], TABLES)
    return trail


def test_a_claim_on_one_version_has_not_flipped():
    trail = one(BETTER, ["v1"])
    assert trail.status == HOLDS and not trail.flipped
    assert trail.flipped_by is None and trail.before is None and trail.after is None
    assert trail.now.numbers["difference"] == pytest.approx(5 / 6 - 7 / 9, abs=1e-15)


def test_a_replaced_run_flips_a_comparison_with_its_numbers_before_and_after():
    trail = one(BETTER, ["v1", "v2"])
    assert trail.status == FLIPPED and trail.flipped_by == "v2"
    assert (trail.saved.status, trail.now.status) == (HOLDS, FAILS)
    assert trail.before.numbers["difference"] == pytest.approx(1 / 18, abs=1e-15)  # 5/6 - 7/9
    assert trail.after.numbers["difference"] == pytest.approx(5 / 12 - 7 / 9, abs=1e-15)  # -13/36


def test_a_claim_that_flips_back_holds_and_keeps_its_history():
    trail = one(BETTER, ["v1", "v2", "v3"])
    assert trail.status == HOLDS and not trail.flipped and trail.flipped_by is None
    assert [r.status for r in trail.results] == [HOLDS, FAILS, HOLDS]


def test_the_version_that_flipped_is_the_last_change_of_status():
    # AP >= 0.5: weak-as-dense (5/12) fails on v2, dense (5/6) holds on v3 and still on v1 of another path
    trail = one(Threshold("dense", "AP", at_least=0.5), ["v2", "v3", "v1"])
    assert [r.status for r in trail.results] == [FAILS, HOLDS, HOLDS]
    assert trail.status == FLIPPED and trail.flipped_by == "v3" and trail.changed_at == 1
    assert trail.before.numbers["value"] == pytest.approx(5 / 12, abs=1e-15)
    assert trail.after.numbers["value"] == pytest.approx(5 / 6, abs=1e-15)
    assert trail.now.numbers["value"] == pytest.approx(5 / 6, abs=1e-15)


def test_a_removed_system_makes_a_claim_uncheckable_which_is_a_flip():
    trail = one(Rank("dense", "AP", 1), ["v1", "v4"])
    assert (trail.saved.status, trail.now.status, trail.status) == (HOLDS, UNCHECKABLE, FLIPPED)
    assert "no system dense" in trail.now.reason and trail.after is trail.now


def test_a_claim_that_failed_when_saved_and_still_fails_is_not_flipped():
    trail = one(Better("bm25", "dense", "AP"), ["v1", "v3"])
    assert trail.status == FAILS and not trail.flipped


def test_claims_are_checked_together_per_version_in_order():
    trails = recheck([(BETTER, ["v1", "v2"]), (Threshold("bm25", "AP", value=7 / 9), ["v2"]),
                      (BETTER, ["v3"])], TABLES)
    assert [t.status for t in trails] == [FLIPPED, HOLDS, HOLDS]
    assert [t.versions for t in trails] == [("v1", "v2"), ("v2",), ("v3",)]


def test_a_version_without_a_table_or_a_claim_without_versions_is_refused():
    with pytest.raises(ValidationError, match="per-query table of version v9"):
        recheck([(BETTER, ["v1", "v9"])], TABLES)
    with pytest.raises(ValidationError, match="at least one version"):
        recheck([(BETTER, [])], TABLES)
    with pytest.raises(ValidationError, match="one result per version"):
        Trail(BETTER, ("v1", "v2"), (ClaimResult(BETTER, HOLDS),))
