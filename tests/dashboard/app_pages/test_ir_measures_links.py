"""ir_measures' names in the dashboard's measure pickers and share links: a link naming them opens the overview
with their columns, whose means are ir_measures' own (``calc_aggregate``) on the demo collection."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from metrics import resolve_measures
from metrics.io import read_qrels, read_run
from tests.dashboard.conftest import errors, open_page
from tests.paths import ROOT

ir_measures = pytest.importorskip("ir_measures", reason="ir-measures (the oracle) is not installed")

DEMO = ROOT / "sample_data" / "demo"
NAMES = ["SetP", "IPrec@0.5", "RR(rel=2)", "P(rel=2)@5", "infAP", "Rprec", "SetF"]


def oracle() -> dict[tuple[str, str], float]:
    """ir_measures' means on the demo runs that answer every judged topic: (system, name) -> value."""
    qrels = read_qrels(DEMO / "qrels.txt").frame
    judged = {q: dict(zip(g["docid"], g["relevance"].astype(int))) for q, g in qrels.groupby("query")}
    out = {}
    for path in sorted((DEMO / "runs").glob("*.run.gz")):
        run = read_run(path)
        ranked = {q: dict(zip(g["docid"], g["score"])) for q, g in run.frame.groupby("query")}
        if set(judged) <= set(ranked):  # ir_measures scores an unanswered topic 0; the overview leaves it out
            parsed = {ir_measures.parse_measure(n): n for n in NAMES}
            for measure, value in ir_measures.calc_aggregate(list(parsed), judged, ranked).items():
                out[(run.name, parsed[measure])] = value
    return out


def test_a_link_with_ir_measures_names_shows_their_values():
    at = open_page("overview", {"measures": NAMES, "measure": "IPrec@0.5"})
    assert errors(at) == []
    assert list(at.session_state["measures"]) == NAMES and at.session_state["measure"] == "IPrec@0.5"
    shown = at.dataframe[0].value
    labels = {name: resolve_measures([name])[0][0] for name in NAMES}
    assert list(shown.columns[1:1 + len(NAMES)]) == list(labels.values())
    want = oracle()
    assert len({system for system, _ in want}) >= 3
    rows = {re.sub(r" \(baseline\)$", "", str(r["system"])): r for r in shown.to_dict("records")}
    for (system, name), value in want.items():
        cell = rows[system][labels[name]]  # "0.1720†  [0.1116, 0.2324]": the mean to 4 decimals, then its CI
        assert float(re.match(r"[0-9.]+", cell).group()) == pytest.approx(value, abs=5e-5 + 1e-12), (system, name)


def test_a_link_with_an_unknown_ir_measures_name_says_so_in_one_line():
    at = open_page("overview", {"measures": ["AP", "alpha_nDCG@20"]})
    shown = [e for e in errors(at) if "alpha_nDCG" in e]
    assert len(shown) == 1 and "did you mean" in shown[0] and "\n" not in shown[0]
    assert "AP" in at.dataframe[0].value.columns


@pytest.mark.parametrize("name", ["IPrec@0.5", "MAP", "SetP"])
def test_a_page_linked_with_an_ir_measures_name_finds_its_rows(name):
    """The label a table gives the measure (``IPrec(recall=0.5)``, ``AP``, ``set_P``) is the one the page asks
    for, so its numbers are not silently empty."""
    at = open_page("queries", {"measure": name, "a": "bm25", "b": "bm25_rm3"})
    assert errors(at) == []
    assert at.session_state["measure"] == name  # the link keeps its spelling
    [sentence] = [m.value for m in at.markdown if "is better than" in m.value]
    counts = [int(n) for n in re.findall(r"\*\*(\d+)\*\*", sentence)]
    assert sum(counts) >= 40  # wins, losses and ties over the demo's 50 topics
    [shown] = [d.value for d in at.dataframe if "B − A" in d.value.columns]
    assert shown["B − A"].notna().sum() >= 40
