"""Claims on the dashboard, headless (AppTest): saved in one click from the overview, the significance page and
the queries page and by the form, listed with their status, flipped after a run is replaced (with the numbers before and after),
and counted per collection on the Collections page."""

from __future__ import annotations

import pytest

pytest.importorskip("streamlit", reason="the dashboard extra (streamlit) is not installed")
pytest.importorskip("sqlalchemy", reason="the workspace extra (sqlalchemy) is not installed")

from tests.dashboard.conftest import errors, open_page, unescaped  # noqa: E402
from tests.workspace.claim_runs import BM25, DENSE, QRELS, WEAK  # noqa: E402
from workspace.recheck import collection_claims  # noqa: E402


def _open(page: str, cid: str):
    return open_page(page, {"collection": cid}, session={"rankscope_author": "bea"})


def _button(at, starting: str):
    return next(b for b in at.button if unescaped(b.label).startswith(starting))


def _claims(at):
    return next(d.value for d in at.dataframe if "status" in d.value.columns and "flipped by" in d.value.columns)


def test_claims_saved_on_the_pages_flip_when_a_run_is_replaced(ws):
    v1 = ws.add_collection("meeting", ("qrels.txt", QRELS), [("bm25.run", BM25), ("dense.run", DENSE)],
                           author="ana").id
    at = _open("overview", v1)
    assert errors(at) == [] and any("No claims yet" in c.value for c in at.caption)
    at.selectbox(key="measure").set_value("AP").run()  # the chart's measure
    at.selectbox(key="overview_claim_system").set_value("dense").run()
    _button(at, "Save as a claim: dense scores AP = 0.8333 +/- 5e-05").click().run()
    assert errors(at) == []
    at.radio(key="claims_kind").set_value("rank").run()
    at.selectbox(key="claims_measure").set_value("AP")
    at.selectbox(key="claims_rank_system").set_value("dense")
    _button(at, "Add the claim").click().run()
    assert errors(at) == []
    table = _claims(at)
    assert list(table["claim"]) == ["dense scores AP = 0.8333 +/- 5e-05", "dense ranks first on AP"]
    assert list(table["status"]) == ["holds", "holds"] and set(table["added by"]) == {"bea"}

    at = _open("significance", v1)
    at.selectbox(key="measure").set_value("AP").run()
    at.selectbox(key="sig_claim_better").set_value("dense").run()
    _button(at, "Save as a claim: dense is better than bm25 on AP, significantly (t test").click().run()
    assert errors(at) == [] and len(at.success) == 1
    saved = collection_claims(ws.notes(v1))[-1].claim
    assert (saved.better, saved.than, saved.measure, saved.test, saved.alpha) == ("dense", "bm25", "AP", "t", 0.05)

    at = _open("queries", v1)  # A bm25, B dense: dense wins q1 and q2 on AP and loses q3, so it is the claim's better
    at.selectbox(key="measure").set_value("AP").run()
    _button(at, "Save as a claim: dense is better than bm25 on AP, significantly (sign test").click().run()
    assert errors(at) == [] and len(at.success) == 1
    saved = collection_claims(ws.notes(v1))[-1].claim
    assert (saved.better, saved.than, saved.test, saved.pairs) == ("dense", "bm25", "sign", "claimed")

    v2 = ws.new_version(v1, remove_systems=["dense"], add_runs=[("dense.run", WEAK)], author="bo").id
    at = _open("overview", v2)
    table = _claims(at)
    assert errors(at) == []
    flipped = table[table["status"] == "flipped"]
    assert list(flipped["claim"]) == ["dense scores AP = 0.8333 +/- 5e-05", "dense ranks first on AP"]
    made = {v.id: v.created_at[:16].replace("T", " ") for v in ws.lineage(v2)}
    assert list(flipped["flipped by"]) == [f"v2 by bo, {made[v2]}"] * 2
    # before 5/6 = 0.8333 + 1/30000, after 5/12 = 0.8333 - 0.4166333... (hand-worked in tests/metrics/review/test_trail.py)
    assert list(flipped["before"])[0] == "value 0.833333; off +3.33333e-05"
    assert list(flipped["after"])[0] == "value 0.416667; off -0.416633"
    assert any("claims flipped since they were saved" in unescaped(w.value) for w in at.warning)
    history = next(d.value for d in at.dataframe if list(d.value.columns) == ["claim", "version", "status", "numbers"])
    ranked = history[history["claim"] == "dense ranks first on AP"]
    assert list(ranked["version"]) == [f"v1 by ana, {made[v1]}", f"v2 by bo, {made[v2]}"]
    assert list(ranked["status"]) == ["holds", "fails"]

    at = open_page("collections", session={"rankscope_author": "bea"})
    rows = {r["id"]: r["flipped"] for r in at.dataframe[0].value.to_dict("records")}
    assert rows[v2] == 2 and all(v == 0 for k, v in rows.items() if k != v2)  # v1 is listed too: nothing flipped


def test_a_flipped_claim_heads_the_overview_in_cells_naming_its_sibling_version_apart(ws):
    """Before anything else on the overview, the flipped claim with its version and numbers in cells of their
    own; two sibling versions 2 (made from v1 by two people) are told apart by who made each."""
    from workspace.recheck import add_claims

    from metrics.review.claims import Threshold

    v1 = ws.add_collection("meeting", ("qrels.txt", QRELS), [("bm25.run", BM25), ("dense.run", DENSE)],
                           author="ana").id
    add_claims(ws, v1, [Threshold("dense", "AP", value=0.8333, tolerance=5e-05)], author="ana")
    ws.new_version(v1, remove_systems=["bm25"], author="cy")  # a sibling v2, which flips nothing
    v2 = ws.new_version(v1, remove_systems=["dense"], add_runs=[("dense.run", WEAK)], author="bo").id
    at = _open("overview", v2)
    assert errors(at) == []
    first = at.dataframe[0].value  # the first table of the page, above the leaderboard
    assert list(first.columns) == ["claim", "flipped by", "before", "after"]
    assert list(first["claim"]) == ["dense scores AP = 0.8333 +/- 5e-05"]
    assert first["flipped by"][0].startswith("v2 by bo, ")
    assert (first["before"][0], first["after"][0]) == ("value 0.833333; off +3.33333e-05",
                                                      "value 0.416667; off -0.416633")
    assert unescaped(at.warning[0].value).startswith("1 of 1 claims flipped since they were saved")
