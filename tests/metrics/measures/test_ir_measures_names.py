"""ir_measures' measure names, taken wherever rankscope names a measure, give ir_measures' own values.

The names are those the registry declares (each measure's ``ir_measures`` spellings); the oracle is
ir_measures itself (``iter_calc``, each measure through the provider ir_measures picks) on seeded random
collections with ties, graded and negative grades, unjudged documents and queries missing on either side;
every per-query value must equal ir_measures' to 1e-9. The places a measure is named -- the library call,
``rankscope eval -m``, ``rankscope compare -m`` and ``rankscope check``'s expectations, the dashboard's
pickers -- all read names through :func:`metrics.parse_measure`; the tests below go through each of them.
"""

from __future__ import annotations

import math

import pytest

ir_measures = pytest.importorskip("ir_measures", reason="ir-measures (the oracle) is not installed")

from metrics import evaluate, parse_measure, resolve_measures  # noqa: E402
from metrics.errors import UnknownMeasureError  # noqa: E402
from metrics.measures import list_measures  # noqa: E402
from tests.random_collections import random_collection, trec_order  # noqa: E402
from tests.paths import ROOT  # noqa: E402

# the names the task of accepting ir_measures' syntax was set with: each must be declared by a measure
NAMED = ("AP", "AP(rel=2)", "nDCG@10", "P@5", "P(rel=2)@5", "R@100", "RR", "RR(rel=2)", "Judged@10", "Rprec",
         "IPrec@0.5", "infAP")
SEEDS = range(40)


def declared(*, equal: bool | None = None) -> list[str]:
    """The ir_measures spellings the registry declares: all, or those whose values are equal (``equal=True``)
    or stated to differ (``equal=False``)."""
    return [name for cls in list_measures() for name in cls.ir_measures
            if equal is None or equal == (name not in cls.ir_measures_differs)]


def oracle(collection, names: list[str]) -> dict[tuple[str, str], float]:
    """ir_measures' per-query values: (query, name) -> value."""
    parsed = {ir_measures.parse_measure(name): name for name in names}
    return {(r.query_id, parsed[r.measure]): r.value
            for r in ir_measures.iter_calc(list(parsed), collection.qrels, collection.run)}


def test_every_name_asked_is_declared_and_parses():
    names = declared()
    assert set(NAMED) <= set(names)
    for name in names:
        assert parse_measure(str(parse_measure(name))) == parse_measure(name)
        [(label, measure)] = resolve_measures([name])
        assert resolve_measures([label]) == [(label, measure)]  # the label names the same one measure again
        assert ir_measures.parse_measure(name) is not None  # a name ir_measures itself reads


@pytest.mark.parametrize("seed", SEEDS)
def test_values_equal_ir_measures(seed):
    collection = random_collection(seed, max_queries=8, max_docs=40 if seed % 2 else 150)
    names = declared(equal=True)
    want = oracle(collection, names)
    # compared on the queries the run answers: ir_measures fills a judged query the run does not answer with
    # 0 for every measure, NumQ and NumRel included (rankscope's complete=True, trec_eval's -c, scores it)
    want = {key: value for key, value in want.items() if key[0] in collection.run}
    got = evaluate(collection.qrels_text, {"sys": collection.run_text}, names)
    labels = {name: resolve_measures([name])[0][0] for name in names}
    table = {(q, m): v for q, m, v in zip(got["query"], got["measure"], got["value"])}
    compared = 0
    for (query, name), value in want.items():
        mine = table[(query, labels[name])]
        assert abs(mine - value) <= 1e-9 or (math.isnan(mine) and math.isnan(value)), \
            f"seed {seed} query {query} {name}: rankscope {mine!r}, ir_measures {value!r}"
        compared += 1
    assert compared >= len(names)  # every name compared on at least one query
    assert len(table) == compared  # and no query or measure rankscope has that ir_measures has not


def test_the_cases_have_ties_and_unjudged_documents():
    ties = unjudged = 0
    for seed in SEEDS:
        c = random_collection(seed, max_queries=8, max_docs=40 if seed % 2 else 150)
        for q, docs in c.run.items():
            ties += len(docs) != len(set(docs.values()))
            unjudged += any(d not in c.qrels.get(q, {}) for d in docs)
    assert ties >= 10 and unjudged >= 10


def test_only_judged_and_rr_at_10_are_stated_to_differ():
    assert declared(equal=False) == ["Judged@10", "RR@10"]


def test_rr_at_10_differs_by_its_tie_rule_only():
    """On rankings without ties ir_measures' RR@10 is rankscope's; with ties ir_measures ranks docid ascending."""
    got = evaluate("1 0 a 1\n", "1 Q0 a 1 1.0 s\n1 Q0 b 2 1.0 s\n", ["RR@10"])
    theirs = ir_measures.iter_calc([ir_measures.parse_measure("RR@10")], {"1": {"a": 1}}, {"1": {"a": 1.0, "b": 1.0}})
    assert got["value"].tolist() == [0.5] and [m.value for m in theirs] == [1.0]
    for seed in SEEDS:
        collection = random_collection(seed, max_queries=8)
        untied = {q: {d: -float(i) for i, d in enumerate(trec_order(docs))} for q, docs in collection.run.items()}
        mine = evaluate(collection.qrels_text, {"sys": collection.run_text}, ["RR@10"])
        mine = dict(zip(mine["query"], mine["value"]))
        for m in ir_measures.iter_calc([ir_measures.parse_measure("RR@10")], collection.qrels, untied):
            if m.query_id in mine:
                assert abs(mine[m.query_id] - m.value) <= 1e-9, (seed, m.query_id)


@pytest.mark.parametrize("qrels, run, k, rankscope, theirs", [
    ("1 0 a 1\n", "1 Q0 a 1 1.0 s\n1 Q0 b 2 1.0 s\n", 1, 0.0, 1.0),  # a tie: trec_eval ranks b (unjudged) first
    ("1 0 a 1\n", "1 Q0 a 1 2.0 s\n", 10, 0.1, 1.0),  # one retrieved of k = 10
    ("1 0 a 1\n1 0 b -1\n", "1 Q0 a 1 2.0 s\n1 Q0 b 2 1.0 s\n", 2, 0.5, 1.0),  # b judged -1
])
def test_judged_differs_as_the_registry_says(qrels, run, k, rankscope, theirs):
    got = evaluate(qrels, run, [f"Judged@{k}"])
    assert got["value"].tolist() == pytest.approx([rankscope])
    q = {"1": {line.split()[2]: int(line.split()[3]) for line in qrels.splitlines()}}
    r = {"1": {line.split()[2]: float(line.split()[4]) for line in run.splitlines()}}
    assert [m.value for m in ir_measures.iter_calc([ir_measures.parse_measure(f"Judged@{k}")], q, r)] == \
        pytest.approx([theirs])


@pytest.mark.parametrize("name", ["StRecall", "alpha_nDCG@20", "Compat(p=0.8)", "SDCG@10", "nDCG(dcg='exp-log2')@10"])
def test_unsupported_ir_measures_names_get_one_line_naming_the_nearest(name):
    with pytest.raises(UnknownMeasureError) as err:
        parse_measure(name)
    message = str(err.value)
    assert "\n" not in message
    assert "did you mean" in message or "known:" in message


def test_the_measures_page_prints_the_registrys_table_of_names():
    """The documentation's measures page is written from the registry when the site is built: its table of
    names is names_table()'s."""
    import sys
    from pathlib import Path

    from metrics.measures.per_query import names_table

    sys.path.insert(0, str(ROOT / "docs" / "_ext"))
    try:
        import measures_page
    finally:
        sys.path.pop(0)
    assert names_table() in measures_page.measures_page()
