"""Property-based checks: the readers never fail with anything but ParseError and read every spelling the
same way; evaluate is finite, within each measure's bounds and independent of the order of input lines."""

from __future__ import annotations

import gzip
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from metrics import ParseError, evaluate, list_measures, parse_measure, read_qrels, read_run
import metrics.io.parsing
from metrics.io.parsing import parse, parse_lines
from tests.random_collections import random_collection

FAST = settings(max_examples=150, deadline=None)
SLOW = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# ---- readers -----------------------------------------------------------------------------------------
FIELD = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=0, max_size=8)
NUMBERISH = st.sampled_from(["1", "0", "-1", "2.5", ".5", "5.", "+2", "1e3", "1E-2", "nan", "inf", "-inf", "1e999",
                             "0x10", "1,5", "", "١", "99999999999999999999", "1_0", "-0"])
SEP = st.sampled_from([" ", "\t", "  ", " \t", "\u00a0"])
END = st.sampled_from(["\n", "\r\n", "\r"])


@FAST
@given(st.binary(max_size=300))
def test_any_bytes_parse_or_raise_parse_error(data):
    for reader in (read_run, read_qrels):
        for blob in (data, gzip.compress(data, mtime=0), gzip.compress(data, mtime=0)[: len(data) // 2 + 10]):
            try:
                reader(blob, name="fuzz")
            except ParseError as err:
                assert str(err).startswith("fuzz")


@FAST
@given(st.lists(st.lists(FIELD, min_size=0, max_size=8).map(" ".join), max_size=6).map("\n".join))
def test_any_text_lines_parse_or_raise_parse_error(text):
    for reader in (read_run, read_qrels):
        try:
            reader(text.encode("utf-8"), name="fuzz")
        except ParseError as err:
            assert str(err).startswith("fuzz")  # the message names the upload


def _line(fields: list[str], seps: list[str]) -> str:
    return "".join(f + s for f, s in zip(fields, seps + [""]))


@st.composite
def near_valid_files(draw, width: int):
    """Files of almost-right lines: numbers in odd spellings, mixed separators and line ends, comments."""
    lines = []
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["data", "data", "data", "comment", "blank"]))
        if kind == "comment":
            lines.append("# " + draw(FIELD))
        elif kind == "blank":
            lines.append(draw(st.sampled_from(["", " ", "\t"])))
        else:
            n = draw(st.sampled_from([width, width, width, width - 1, width + 1]))
            fields = [draw(st.sampled_from(["1", "10", "q"])), "Q0", draw(st.sampled_from(["a", "b", "c", "#d"]))]
            fields += [draw(NUMBERISH) for _ in range(max(n - 3, 0))]
            fields = fields[:n]
            lines.append(_line(fields, [draw(SEP) for _ in range(len(fields) - 1)]))
    end = draw(END)
    return (end.join(lines) + draw(st.sampled_from(["", end]))).encode("utf-8")


@FAST
@given(near_valid_files(6), near_valid_files(4), st.booleans(), st.booleans())
def test_every_reading_path_agrees_with_the_line_reader(run_bytes, qrels_bytes, split_small_files,
                                                        ahead_on_small_files):
    """Whatever the fast (pyarrow) or split path reads, the line reader reads to the same table and lines;
    where one raises, the other raises the same message. The fast path's parse may start before its checks
    end (as on large files)."""
    saved, saved_ahead = metrics.io.parsing.SPLIT_MIN_BYTES, metrics.io.parsing.AHEAD_BYTES
    metrics.io.parsing.SPLIT_MIN_BYTES = 0 if split_small_files else saved  # the split path, on small files
    metrics.io.parsing.AHEAD_BYTES = 0 if ahead_on_small_files else saved_ahead
    try:
        for data, kind in ((run_bytes, "run"), (qrels_bytes, "qrels")):
            try:
                table, lines, tag = parse(data, "f", kind=kind)
            except ParseError as err:
                with pytest.raises(ParseError) as again:
                    parse_lines(data, "f", kind=kind)
                assert str(again.value) == str(err)
                continue
            slow, slow_lines, slow_tag = parse_lines(data, "f", kind=kind)
            assert table.schema == slow.schema and tag == slow_tag
            assert table.to_pandas().equals(slow.to_pandas())  # NaN ranks compare equal here
            assert (lines if lines is not None else np.arange(1, len(slow) + 1)).tolist() == slow_lines.tolist()
    finally:
        metrics.io.parsing.SPLIT_MIN_BYTES, metrics.io.parsing.AHEAD_BYTES = saved, saved_ahead


@pytest.mark.parametrize("data", [
    b"1 Q0 a 1 2 x\n1 Q0 b 2 1 \n",  # pyarrow reads an empty tag; the line has 5 fields
    b"1 Q0 a\tb 1 2 x\n1 Q0 c 2 1 x\n",  # a tab among spaces: pyarrow keeps it inside the id
    b"1\tQ0\ta\t1\t2\tx\n1 Q0 b 2 1 x\n",  # the first line shows tabs, a later one spaces
])
@pytest.mark.parametrize("ahead", [True, False])
def test_a_table_the_fast_path_checks_rule_out_is_dropped(monkeypatch, data, ahead):
    """Files pyarrow reads otherwise than the line reader: its table is dropped whether the parse started
    before the checks ended (as on large files) or after them."""
    monkeypatch.setattr(metrics.io.parsing, "AHEAD_BYTES", 0 if ahead else 1 << 40)
    try:
        expected = parse_lines(data, "f", kind="run")[0].to_pandas()
    except ParseError as err:
        with pytest.raises(ParseError) as again:
            parse(data, "f", kind="run")
        assert str(again.value) == str(err)
        return
    assert parse(data, "f", kind="run")[0].to_pandas().equals(expected)  # NaN ranks compare equal here


# ---- evaluation --------------------------------------------------------------------------------------
def _measures():
    names = []
    for cls in list_measures():
        if any(p.name == "cutoff" for p in cls.params):
            names.append(str(cls() @ 5))
        names.append(str(cls()))
    return names


MEASURES = _measures()
SCORES = st.one_of(st.sampled_from([0.0, 1.0, -1.0, 0.5, 1.0 + 1e-9, 3.4e38, 1e300, -0.0]),
                   st.floats(allow_nan=False, allow_infinity=False))
OPTIONS = st.fixed_dictionaries({
    "preset": st.sampled_from(["trec_eval-9", "trec_eval-10", "textbook"]),
    "complete": st.booleans(), "judged_only": st.booleans(),
    "relevance_level": st.integers(0, 3), "depth": st.sampled_from([None, 1, 3, 10]),
})


@st.composite
def collections(draw):
    """Any valid qrels and run: ties, huge and tiny scores, grades -2..4, topics on one side only."""
    queries = st.sampled_from(["1", "2", "10", "q\u00e9"])
    docs = st.text(alphabet="abAB09-#\u00e9", min_size=1, max_size=3)
    qrels = draw(st.dictionaries(st.tuples(queries, docs), st.integers(-2, 4), min_size=1, max_size=25))
    run = draw(st.dictionaries(st.tuples(queries, docs), SCORES, min_size=1, max_size=40))
    qrels_lines = [f"{q} 0 {d} {g}" for (q, d), g in qrels.items()]
    run_lines = [f"{q} Q0 {d} {i} {s!r} sys" for i, ((q, d), s) in enumerate(run.items())]
    return qrels_lines, run_lines


def _text(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"


def _check_bounds(frame, allow_nan: bool) -> None:
    for label, group in frame.groupby("measure"):
        measure = parse_measure(label)
        values = group["value"].to_numpy()
        nan = np.isnan(values)
        # trec_eval's -J can leave a ranking empty: interpolated precision at recall 0 is then 0/0
        assert not nan.any() or (allow_nan and label.startswith(("IPrec", "AP11pt", "IPrecAvg"))), label
        values = values[~nan]
        assert np.isfinite(values).all(), label
        low, high = measure.bounds
        if low is not None:
            assert (values >= low - 1e-12).all(), label
        if high is not None:
            assert (values <= high + 1e-12).all(), label


@SLOW
@given(collections(), OPTIONS)
def test_any_valid_collection_gives_finite_values_within_bounds(collection, options):
    qrels_lines, run_lines = collection
    frame = evaluate(_text(qrels_lines), {"s": _text(run_lines)}, MEASURES, **options)
    _check_bounds(frame, allow_nan=options["judged_only"])


@SLOW
@given(st.integers(0, 10_000), st.sampled_from(["trec_eval-9", "trec_eval-10", "textbook"]), st.booleans())
def test_random_collections_give_finite_values_within_bounds(seed, preset, complete):
    collection = random_collection(seed)
    frame = evaluate(collection.qrels_text, {"s": collection.run_text}, MEASURES, preset=preset, complete=complete)
    _check_bounds(frame, allow_nan=False)


@SLOW
@given(collections(), OPTIONS, st.randoms(use_true_random=False))
def test_permuting_input_lines_changes_nothing(collection, options, rnd):
    qrels_lines, run_lines = collection
    a = evaluate(_text(qrels_lines), {"s": _text(run_lines)}, MEASURES, **options)
    rnd.shuffle(qrels_lines)
    rnd.shuffle(run_lines)
    b = evaluate(_text(qrels_lines), {"s": _text(run_lines)}, MEASURES, **options)
    assert a.equals(b)


def _perfect(name: str) -> float | None:
    return type(parse_measure(name)).perfect


PERFECT = [cls.name for cls in list_measures() if cls.perfect is not None]


def test_the_declarations_say_which_measures_a_perfect_ranking_maxes():
    assert {"AP", "nDCG", "RR"} <= set(PERFECT)
    for name in PERFECT:
        cls = type(parse_measure(name))
        assert cls.perfect == (cls.bounds[1] if cls.higher_is_better else cls.bounds[0]), name


@pytest.mark.parametrize("name", PERFECT)
def test_perfect_ranking_scores_one(name):
    """Each measure that declares the value of a perfect ranking gives it (1 for most, 0 for Unjudged)."""
    qrels = "1 0 a 3\n1 0 b 2\n1 0 c 1\n1 0 d 0\n"
    run = "1 Q0 a 1 4 s\n1 Q0 b 2 3 s\n1 Q0 c 3 2 s\n1 Q0 d 4 1 s\n"
    assert math.isclose(evaluate(qrels, run, [name])["value"].iloc[0], _perfect(name))


@pytest.mark.parametrize("seed", range(8))
def test_a_perfect_ranking_of_random_judgments_scores_the_declared_value(seed):
    """On random graded judgments (unjudged pool entries left out), every judged document ranked by grade,
    best first: each declaring measure gives its value on every topic with a relevant document."""
    qrels_text = random_collection(seed).qrels_text
    judged: dict[str, list[tuple[str, int]]] = {}
    for line in qrels_text.splitlines():
        query, _, doc, grade = line.split()
        if int(grade) >= 0:
            judged.setdefault(query, []).append((doc, int(grade)))
    run = "".join(f"{query} Q0 {doc} {i + 1} {1000 - i} s\n" for query, docs in judged.items()
                  for i, (doc, _) in enumerate(sorted(docs, key=lambda d: (-d[1], d[0]))))
    relevant = {query for query, docs in judged.items() if any(g >= 1 for _, g in docs)}
    frame = evaluate(qrels_text, {"s": run}, PERFECT)
    frame = frame[frame["query"].isin(relevant)]
    assert len(frame) == len(relevant) * len(PERFECT)
    for name, rows in frame.groupby("measure"):
        assert np.allclose(rows["value"], _perfect(name), rtol=1e-12, atol=0), (seed, name)
