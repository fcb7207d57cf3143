"""The gain, discount and ideal-ranking choices (metrics.gains): one table, read by the measures, the curves,
the anatomy, the command line and the dashboard."""

from __future__ import annotations

import argparse
import itertools

import pytest

from metrics import ValidationError, evaluate, parse_measure, rank_runs
from metrics.curves import at_x, gain_curves
from metrics.gains import BASE, DISCOUNTS, GAINS, IDEALS, TREC_EVAL, check_gain, describe
from metrics.measures.ndcg import discount
from metrics.teaching.anatomy import anatomy
from rankscope.cli import build_parser

TABLES = {"gain": GAINS, "discount": DISCOUNTS, "ideal": IDEALS}
QRELS = "1 0 a 3\n1 0 b 0\n1 0 c 1\n1 0 d 2\n1 0 e 1\n2 0 a 1\n2 0 f 2\n"
RUN = "".join(f"{q} Q0 {d} {i + 1} {10 - i} x\n"
              for q, docs in (("1", "bxcaz"), ("2", "fya")) for i, d in enumerate(docs))


def _options(command: str) -> dict[str, argparse.Action]:
    parser = build_parser(command)
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[command]
    return {a.dest: a for a in sub._actions}


def test_the_tables_name_trec_eval_s_choice_and_nothing_twice():
    assert set(TREC_EVAL) == set(TABLES)
    for param, table in TABLES.items():
        assert TREC_EVAL[param] in table
        assert all(name and label for name, label in table.items())
        assert len(set(table.values())) == len(table)
    assert parse_measure("nDCG@10") == parse_measure("nDCG@10")(**TREC_EVAL)


@pytest.mark.parametrize("command, params", [("curves", ("gain", "discount", "ideal")),
                                             ("anatomy", ("gain", "discount"))])
def test_the_command_line_offers_the_tables(command, params):
    actions = _options(command)
    for param in params:
        assert list(actions[param].choices) == list(TABLES[param]), (command, param)
        assert actions[param].default == TREC_EVAL[param]
        assert all(name in actions[param].help for name in TABLES[param])
    assert actions["base"].default == BASE


@pytest.mark.parametrize("measure", ["nDCG", "DCG", "IDCG"])
def test_the_measures_take_the_tables(measure):
    params = {p.name: p for p in parse_measure(measure).params}
    for param, table in TABLES.items():
        if param in params:
            assert params[param].choices == tuple(table), (measure, param)
            assert params[param].default == TREC_EVAL[param]


@pytest.mark.parametrize("page, params", [("gain", ("gain", "discount", "ideal")), ("learn", ("gain", "discount"))])
def test_the_dashboard_offers_the_tables(page, params):
    pytest.importorskip("streamlit", reason="the dashboard extra (streamlit) is not installed")
    from tests.dashboard.conftest import open_page

    at = open_page(page)
    assert [e.value for e in at.exception] == []
    for param in params:
        picker = at.radio(key=param)
        assert list(picker.options) == list(TABLES[param].values()), (page, param)
        assert picker.value == TREC_EVAL[param]


@pytest.mark.parametrize("gain, discount_name, ideal", list(itertools.product(GAINS, DISCOUNTS, IDEALS)))
def test_every_choice_is_accepted_and_the_curve_is_the_measure(gain, discount_name, ideal):
    check_gain(gain, discount_name, BASE, ideal)
    spec = f'nDCG(gain="{gain}",discount="{discount_name}",ideal="{ideal}")@3'
    values = evaluate(QRELS, {"x": RUN}, [spec])
    ranked = rank_runs(QRELS, {"x": RUN})
    curve = at_x(gain_curves(ranked, gain=gain, discount=discount_name, ideal=ideal, depth=5, average=False), 3)
    assert curve["ndcg"].tolist() == pytest.approx(values["value"].tolist(), rel=1e-12)
    table = anatomy(ranked, "1", gain=gain, discount=discount_name)
    assert len(table) == 5 and discount([1, 2, 3], discount_name).shape == (3,)


@pytest.mark.parametrize("param", list(TABLES))
def test_an_unknown_choice_names_the_choices(param):
    allowed = ", ".join(map(repr, TABLES[param]))
    ranked = rank_runs(QRELS, {"x": RUN})
    with pytest.raises(ValidationError, match="square") as caught:
        parse_measure(f'nDCG({param}="square")')
    assert all(name in str(caught.value) for name in TABLES[param])
    with pytest.raises(ValidationError) as caught:
        gain_curves(ranked, **{param: "square"})
    assert str(caught.value) == f"{param}: expected one of {allowed}, found 'square'"
    with pytest.raises(ValidationError) as caught:
        check_gain(**{**TREC_EVAL, param: "square"})
    assert str(caught.value) == f"{param}: expected one of {allowed}, found 'square'"
    if param != "ideal":
        with pytest.raises(ValidationError, match=f"^{param}: expected one of "):
            anatomy(ranked, "1", **{param: "square"})


def test_base_goes_with_the_jk_discount_only():
    check_gain("linear", "jk", 3.0)
    for gain, discount_name, base in (("linear", "log2", 3.0), ("exp", "jk", 1.0), ("exp", "jk", float("inf")),
                                      ("exp", "jk", True)):
        with pytest.raises(ValidationError, match="base"):
            check_gain(gain, discount_name, base)


def test_describe_lists_every_name_with_its_label():
    for table in TABLES.values():
        text = describe(table)
        assert all(f"{name} = {label}" in text for name, label in table.items())
        assert text.count("(trec_eval)") == 1
