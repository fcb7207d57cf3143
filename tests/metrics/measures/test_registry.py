"""Contract tests over the whole measure registry: every measure, declared and behaving as declared."""

from __future__ import annotations

import numpy as np
import pytest

from metrics import evaluate, list_measures, parse_measure
from metrics.measures.trec_names import expand_trec, parse_trec_name
from tests.random_collections import random_collection

CLASSES = list_measures()


def instances(cls):
    out = [cls()]
    if any(p.name == "cutoff" for p in cls.params):
        out += [cls(cutoff=1), cls(cutoff=5)]
    return out


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.name)
def test_declaration(cls):
    assert cls.__doc__ and cls.pretty_name and cls.description and cls.latex
    assert isinstance(cls.higher_is_better, bool)
    assert cls.aggregation in ("mean", "sum", "gmean", "median")
    for param in cls.params:
        assert param.help, f"{cls.name}.{param.name} has no help text"


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.name)
def test_parse_str_round_trip(cls):
    for measure in instances(cls):
        assert parse_measure(str(measure)) == measure
        assert hash(parse_measure(str(measure))) == hash(measure)
        label = measure.trec_label()
        if label is not None:
            assert parse_trec_name(label) == measure


@pytest.mark.parametrize("cls", [c for c in CLASSES if any(p.name == "cutoff" for p in c.params)],
                         ids=lambda c: c.name)
def test_documents_past_the_cutoff_do_not_matter(cls):
    measure = cls(cutoff=5)
    for seed in range(15):
        col = random_collection(seed)
        full = evaluate(col.qrels_text, {"s": col.run_text}, [measure])
        cut = evaluate(col.qrels_text, {"s": col.run_text}, [measure], depth=5)
        assert np.allclose(full["value"], cut["value"], atol=1e-12), f"seed {seed}"


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.name)
def test_bounds_and_row_order(cls):
    measures = instances(cls)
    for seed in range(15):
        col = random_collection(seed)
        lines = col.run_text.splitlines()
        shuffled = "\n".join(lines[::-1]) + "\n"
        a = evaluate(col.qrels_text, {"s": col.run_text}, measures)
        b = evaluate(col.qrels_text, {"s": shuffled}, measures)
        assert a.equals(b), f"seed {seed}: row order changed a value"
        for measure in measures:
            values = a.loc[a["measure"] == str(measure), "value"].to_numpy()
            low, high = measure.bounds
            assert np.isfinite(values).all()
            if low is not None:
                assert (values >= low - 1e-12).all(), f"{measure} below {low}"
            if high is not None:
                assert (values <= high + 1e-12).all(), f"{measure} above {high}"


def test_all_trec_expands_in_trec_eval_order():
    labels = [m.trec_label() for m in expand_trec("all_trec")]
    assert labels[:6] == ["num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map"]
    assert "P_1000" in labels and "ndcg_cut_10" in labels
    assert len(labels) == len(set(labels))


def test_unknown_measure_suggests_close_names():
    from metrics import UnknownMeasureError

    with pytest.raises(UnknownMeasureError, match="did you mean nDCG"):
        parse_measure("nDGC@10")
    with pytest.raises(UnknownMeasureError, match="cannot parse measure"):
        parse_measure("nDCG@10 + 1")
    with pytest.raises(UnknownMeasureError, match="unknown parameter"):
        parse_measure("P(foo=1)@5")


@pytest.mark.parametrize("spec, label", [
    ("ndcg.1=3,2=9,4=4.5", "ndcg_1=3,2=9,4=4.5"), ("dcg.1=0.5", "dcg_1=0.5"), ("ideal_dcg.2=4", "ideal_dcg_2=4"),
    ("rbp.p=0.8", "rbp_p=0.8"), ("11pt_avg..25,.5,.75", "11pt_avg_.25,.5,.75"), ("utility.2,-1,0,0", "utility_2,-1,0,0"),
])
def test_trec_parameter_lists_print_and_parse_back(spec, label):
    (measure,) = expand_trec(spec, version=10)
    assert measure.trec_label() == label
    assert parse_trec_name(label) == measure
    assert parse_measure(str(measure)) == measure


def test_malformed_trec_parameter_lists_are_unknown_measures():
    from metrics import UnknownMeasureError

    for spec in ("rbp.q=0.8", "rbp.p=x", "ndcg.1=", "dcg.a=3"):
        with pytest.raises(UnknownMeasureError):
            expand_trec(spec, version=10)
