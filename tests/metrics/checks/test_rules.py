"""The vocabulary of checks: each rule's words, the one wording of a refusal, and how a refused value is shown.

Every message here is written out whole: the wording is the contract every reader and every parameter
check of the package shares, so a change to it shows here first.
"""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest

from metrics.checks import (Boolean, Field, Integer, Kind, ListOf, MapOf, Number, Object, OneOf, Options, Pattern, Text,
                            Tree, check, load_json, read, refuse, shown, where)
from metrics.errors import Refused, ValidationError


@pytest.mark.parametrize("rule, value, message", [
    (Integer(1), 0, "n: expected a positive integer, found 0"),
    (Integer(0), -1, "n: expected a non-negative integer, found -1"),
    (Integer(2), 1, "n: expected an integer of at least 2, found 1"),
    (Integer(None, 9), 10, "n: expected an integer of at most 9, found 10"),
    (Integer(1, 5, none=True), 1.0, "n: expected an integer from 1 to 5 or None, found 1.0"),
    (Integer(), "3", "n: expected an integer, found '3'"),
    (Integer(), True, "n: expected an integer, found True"),
    (Number(0, 1, closed="neither"), 1, "n: expected a number above 0 and below 1, found 1"),
    (Number(0, 1), -0.5, "n: expected a number from 0 to 1, found -0.5"),
    (Number(0, 1, closed="left"), 1, "n: expected a number from 0 up to but not including 1, found 1"),
    (Number(0, 1, closed="right"), 0, "n: expected a number above 0 and at most 1, found 0"),
    (Number(0), float("nan"), "n: expected a non-negative number, found nan"),
    (Number(0, closed="neither"), 0, "n: expected a positive number, found 0"),
    (Number(1, closed="neither"), 1, "n: expected a number > 1, found 1"),
    (Number(None, 2), 3, "n: expected a number <= 2, found 3"),
    (Number(), float("inf"), "n: expected a finite number, found inf"),
    (Options("drop", "zero"), "both", "n: expected one of 'drop', 'zero', found 'both'"),
    (Options(1, 2), True, "n: expected one of 1, 2, found True"),
    (Options("rankscope-session"), "x", "n: expected 'rankscope-session', found 'x'"),
    (Text(5), "abcdef", "n: expected text of at most 5 characters, found 'abcdef'"),
    (Text(5, blank=False), "  ", "n: expected non-empty text of at most 5 characters, found '  '"),
    (Text(9, line=True), "a\nb", "n: expected one line of at most 9 characters, found 'a\\nb'"),
    (Text(9, blank=False, line=True), "", "n: expected one non-empty line of at most 9 characters, found ''"),
    (Text(what="a file's path"), 3, "n: expected a file's path, found 3"),
    (Pattern(r"[0-9a-f]{4}", "four hex digits"), "abcg", "n: expected four hex digits, found 'abcg'"),
    (Boolean(), 1, "n: expected True or False, found 1"),
    (Kind(tuple, "a tuple"), [1], "n: expected a tuple, found [1]"),
    (OneOf(Text(), Integer()), 0.5, "n: expected text or an integer, found 0.5"),
    (OneOf(Text(), Integer(), none=True), [], "n: expected text, an integer or None, found an empty list"),
    (OneOf(Text(3), Integer()), "long", "n: expected text of at most 3 characters, found 'long'"),
])
def test_each_rule_words_its_refusal(rule, value, message):
    with pytest.raises(Refused) as caught:
        check("n", value, rule)
    assert str(caught.value) == message
    assert caught.value.where == "n" and caught.value.detail == message[len("n: "):]
    assert isinstance(caught.value, ValidationError)


@pytest.mark.parametrize("rule, value, passed", [
    (Integer(1), np.int64(3), 3), (Number(0, 1), np.float32(0.5), 0.5), (Number(0, 2), 1, 1.0),
    (Integer(1, none=True), None, None), (Options(None, "zero"), None, None), (Text(3), "abc", "abc"),
    (Boolean(), False, False), (OneOf(Integer(), Number()), 3, 3), (OneOf(Integer(), Number()), 3.5, 3.5),
])
def test_what_a_rule_takes_it_passes_on_as_python_values(rule, value, passed):
    out = check("n", value, rule)
    assert out == passed and type(out) is type(passed)


def test_json_spells_null_true_and_false_as_json_does():
    with pytest.raises(Refused, match=r"^flag: expected true or false or null, found 1$"):
        read({"flag": 1}, Object({"flag": Boolean(none=True)}))
    with pytest.raises(Refused, match=r"^flag: expected true or false or null, found \[null, true\]$"):
        read({"flag": [None, True]}, Object({"flag": Boolean(none=True)}))
    with pytest.raises(Refused, match=r"^flag: expected True or False or None, found \[None, True\]$"):
        read({"flag": [None, True]}, Object({"flag": Boolean(none=True)}), json=False)


SHOWN = [
    (None, "None"), (True, "True"), (7, "7"), (-2.5, "-2.5"), (np.int64(9), "9"), (np.float64(0.25), "0.25"),
    (10**29, str(10**29)), (10**30, "an integer of 100 bits"), (-(10**5000), "an integer of 16610 bits"),
    ("short", "'short'"), ("x" * 42, "'" + "x" * 32 + "...' (42 characters)"),
    ("x" * 10**6, "'" + "x" * 32 + "...' (1000000 characters)"),
    ("\x00" * 100, "'" + "\\x00" * 8 + "...' (100 characters)"),
    ("\u2028line" * 20, "'\\u2028line\\u2028line\\u2028line...' (100 characters)"),
    ("a'b\"c" * 20, "'a\\'b\"ca\\'b\"ca\\'b\"ca\\'b\"ca\\'b\"ca...' (100 characters)"),
    (b"\x00\x01", "2 bytes"), ([], "an empty list"), ((), "an empty tuple"), ([1, "a", None], "[1, 'a', None]"),
    ((1,), "(1,)"), ((1, 2), "(1, 2)"), (list(range(6)), "a list of 6 items"), ([[1]], "[[1]]"),
    (["x" * 100], "['" + "x" * 32 + "...' (100 characters)]"), ([["x" * 100] * 2], "a list of 1 item"), ({}, "an empty mapping"), ({"a": 1}, "a mapping of 1 key"),
    ({i: i for i in range(10**5)}, "a mapping of 100000 keys"), (object(), "an object"),
    (pd.DataFrame({"a": range(10**5)}), "a DataFrame"), (ValueError("x"), "a ValueError"), (1 + 2j, "a complex"),
    (((1, float("inf")),), "((1, inf),)"), ([[1, 2], [3]], "[[1, 2], [3]]"), ([[[1]]], "a list of 1 item"),
    ([1, 10**40], "a list of 2 items"),
]


@pytest.mark.parametrize("value, text", SHOWN, ids=[f"{i}: {text}"[:40] for i, (_, text) in enumerate(SHOWN)])
def test_a_refused_value_is_shown_short_on_one_line(value, text):
    assert shown(value) == text
    assert len(shown(value)) <= 80 and "\n" not in shown(value)


def test_a_location_is_never_cut_inside_its_credentials():
    whole = "postgresql://rs:PASSWORD@db:5432/rankscope?sslmode=require"
    assert shown(whole) == f"'postgresql://...' ({len(whole)} characters)"
    assert "PASSWORD" not in shown("the store at " + whole)
    assert shown("postgresql://rs:pw@db/x") == "'postgresql://rs:pw@db/x'"  # whole: redaction still sees it


def test_json_spelling_of_shown_values():
    assert [shown(v, json=True) for v in (None, True, False, [None, False])] == ["null", "true", "false",
                                                                                   "[null, false]"]
    assert shown((1, 2), json=True) == "[1, 2]"


def test_a_path_is_written_as_a_reader_names_fields():
    assert where("", ["loaded", "runs", 2, "system"]) == "loaded.runs[2].system"
    assert where("manifest", ["runs", 0, "sha256"]) == "manifest.runs[0].sha256"
    assert where("view", ["a.b"]) == "view['a.b']"
    assert where("ir_metadata", ["research goal", "venue"]) == "ir_metadata['research goal'].venue"
    assert where("", ["x" * 100]) == "['" + "x" * 32 + "...' (100 characters)]"
    assert where("", [3, "k"]) == "[3].k" and where("notes", ["401", "tags"]) == "notes.401.tags"


def test_refuse_words_a_check_no_rule_states():
    err = refuse("systems", "two distinct names", ["a", "a"])
    assert str(err) == "systems: expected two distinct names, found ['a', 'a']"
    assert str(Refused("", "a session file", "a list")) == "expected a session file, found a list"


def test_a_refusal_crosses_a_process_whole():
    err = Refused("loaded.runs[2]", "a run", "3", ("loaded", "runs", 2))
    back = pickle.loads(pickle.dumps(err))
    assert (str(back), back.where, back.expected, back.found, back.path) == \
        (str(err), "loaded.runs[2]", "a run", "3", ("loaded", "runs", 2))


# ---- documents ----------------------------------------------------------------------------------------------
RUN = Object({"system": Text(9, blank=False), "file": Text(9)})
DOC = Object({"runs": ListOf(RUN, 3), "view": Field(MapOf(Pattern(r"[a-z]+", "a lower-case name"), Integer(), 2),
                                                     required=False)}, first=("runs",))


@pytest.mark.parametrize("document, message", [
    ([1], "expected a mapping with the fields runs, view, found [1]"),
    ({}, "runs: expected a list of at most 3 items, found no such field"),
    ({"runs": [], "x": 1}, "x: expected one of the fields runs, view, found an unknown field"),
    ({"runs": [{"system": "a", "file": "b"}] * 4}, "runs: expected a list of at most 3 items, found a list of 4 items"),
    ({"runs": [{"system": "a", "file": "b"}, {"system": 3, "file": "b"}]},
     "runs[1].system: expected non-empty text of at most 9 characters, found 3"),
    ({"runs": [{"system": "a"}]}, "runs[0].file: expected text of at most 9 characters, found no such field"),
    ({"runs": [], "view": {"ok": 1, "Bad": 2}}, "view.Bad: expected a lower-case name, found 'Bad'"),
    ({"runs": [], "view": {"ok": "1"}}, "view.ok: expected an integer, found '1'"),
    ({"runs": [], "view": {"a": 1, "b": 2, "c": 3}}, "view: expected a mapping of at most 2 entries, found a mapping "
                                                     "of 3 keys"),
    ({"view": {"Bad": 1}, "runs": 0}, "runs: expected a list of at most 3 items, found 0"),  # `first` first
])
def test_a_document_is_refused_at_the_path_of_its_first_wrong_field(document, message):
    with pytest.raises(Refused) as caught:
        read(document, DOC)
    assert str(caught.value) == message


def test_a_document_read_keeps_its_order_and_leaves_out_what_is_absent():
    assert list(read({"view": {"b": 1}, "runs": []}, DOC)) == ["view", "runs"]
    assert read({"runs": []}, DOC) == {"runs": []}
    kept = read({"tag": "x", "other": {"y": [1]}}, Object({"tag": Text()}, extra=True))
    assert kept == {"tag": "x", "other": {"y": [1]}}
    assert read({"t": None}, Object({"t": Field(Text(), null=True)})) == {"t": None}


def test_a_list_longer_than_declared_is_refused_before_any_item_is_read():
    class Loud(Text):
        def read(self, value):
            raise AssertionError("an item was read")

    with pytest.raises(Refused, match="found a list of 1000000 items"):
        read(["x"] * 10**6, ListOf(Loud(), 10))


def test_a_tree_is_bounded_in_values_and_depth_and_walked_without_recursion():
    tree = Tree(100, 4, Text(5))
    assert read({"a": [1, {"b": None}], "c": "short"}, tree) == {"a": [1, {"b": None}], "c": "short"}
    with pytest.raises(Refused, match=r"^a\[1\]\.b: expected text of at most 5 characters, found 'too long'$"):
        read({"a": [1, {"b": "too long"}]}, tree)
    with pytest.raises(Refused, match="found more than 100 values"):
        read({"a": list(range(200))}, tree)
    deep: dict = {}
    for _ in range(100_000):  # far past Python's recursion limit
        deep = {"d": deep}
    with pytest.raises(Refused, match="found more than 4 levels"):
        read(deep, tree)
    with pytest.raises(Refused, match=r"^a: expected text, a number, .*, found an object$"):
        read({"a": object()}, tree)


@pytest.mark.parametrize("text, message", [
    ('{"a": 1, "a": 2}', "expected each key once in an object, found 'a' twice"),
    ('{"a": NaN}', "line 1, column 7: expected a finite number, found NaN"),
    ('{"a":\n -Infinity}', "line 2, column 2: expected a finite number, found -Infinity"),
    ('[1e400]', "line 1, column 2: expected a finite number, found 1e400"),
    ("[" + "7" * 65 + "]", "line 1, column 2: expected a number of at most 64 characters, found one of 65"),
    ("[" * 100_000, "expected JSON, found it nested too deeply to read"),
    ("[1,", "line 1, column 4: expected JSON, found an error: Expecting value"),
])
def test_strict_json_refuses_in_one_line(text, message):
    with pytest.raises(ValidationError) as caught:
        load_json(text)
    assert str(caught.value) == message
