"""Property-based checks: readers never fail with anything but ParseError; evaluate is bounded and
independent of the order of input lines."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from metrics import ParseError, evaluate, list_measures, read_qrels, read_run
from tests.random_collections import random_collection

FIELD = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=0, max_size=8)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_any_bytes_parse_or_raise_parse_error(data):
    for reader in (read_run, read_qrels):
        try:
            reader(data, name="fuzz")
        except ParseError as err:
            assert str(err).startswith("fuzz")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(FIELD, min_size=0, max_size=8).map(" ".join), max_size=6).map("\n".join))
def test_any_text_lines_parse_or_raise_parse_error(text):
    for reader in (read_run, read_qrels):
        try:
            reader(text.encode("utf-8"), name="fuzz")
        except ParseError:
            pass


def _measures():
    names = []
    for cls in list_measures():
        if any(p.name == "cutoff" for p in cls.params):
            names.append(str(cls() @ 5))
        names.append(str(cls()))
    return names


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000), st.sampled_from(["trec_eval-9", "trec_eval-10", "textbook"]), st.booleans())
def test_values_are_finite_and_within_bounds(seed, preset, complete):
    collection = random_collection(seed)
    frame = evaluate(collection.qrels_text, {"s": collection.run_text}, _measures(), preset=preset,
                     complete=complete)
    from metrics import parse_measure

    for label, group in frame.groupby("measure"):
        measure = parse_measure(label)
        values = group["value"].to_numpy()
        assert np.isfinite(values).all(), label
        low, high = measure.bounds
        if low is not None:
            assert (values >= low - 1e-12).all(), label
        if high is not None:
            assert (values <= high + 1e-12).all(), label


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.randoms(use_true_random=False))
def test_permuting_input_lines_changes_nothing(seed, rnd):
    collection = random_collection(seed)
    qrels_lines = collection.qrels_text.splitlines()
    run_lines = collection.run_text.splitlines()
    rnd.shuffle(qrels_lines)
    rnd.shuffle(run_lines)
    measures = _measures()
    a = evaluate(collection.qrels_text, {"s": collection.run_text}, measures)
    b = evaluate("\n".join(qrels_lines) + "\n", {"s": "\n".join(run_lines) + "\n"}, measures)
    pd_equal = a.reset_index(drop=True).equals(b.reset_index(drop=True))
    assert pd_equal


@pytest.mark.parametrize("name", [m for m in ["AP", "nDCG", "RR"]])
def test_perfect_ranking_scores_one(name):
    qrels = "1 0 a 3\n1 0 b 2\n1 0 c 1\n1 0 d 0\n"
    run = "1 Q0 a 1 4 s\n1 Q0 b 2 3 s\n1 Q0 c 3 2 s\n1 Q0 d 4 1 s\n"
    assert math.isclose(evaluate(qrels, run, [name])["value"].iloc[0], 1.0)
