"""metrics.checks: the declared ranges and choices of public parameters, and the one wording of a refusal.

Beside the rules themselves, every declaration in the package is exercised: for each function that states
its parameters with ``@checked``, a value just outside each rule is refused before the function runs, with
``"<name>: expected <what it accepts>, found <value>"``, and a value inside is passed on converted.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re

import numpy as np
import pytest

import metrics
from metrics import ValidationError
from metrics.checks import COUNT, LEVEL, SEED, Integer, Number, Options, check, checked, shown

WORDING = re.compile(r"^(?P<name>.+?): expected (?P<what>.+), found (?P<value>.+)$")


@pytest.mark.parametrize("rule, good, bad", [
    (Integer(1), [1, 7, np.int64(3), 10**40], [0, -1, 1.0, 1.5, True, "1", None, np.float64(2)]),
    (Integer(0), [0, 5], [-1, False]),
    (Integer(2, 5), [2, 5], [1, 6]),
    (Integer(1, none=True), [None, 1], [0, "x"]),
    (Number(0, 1, closed="neither"), [0.5, 1e-9, np.float32(0.25)], [0, 1, 1.0, -0.1, np.nan, True, "0.5", None]),
    (Number(0, 1), [0, 1, 0.5], [-0.0001, 1.0001]),
    (Number(0, 1, closed="left"), [0, 0.5], [1]),
    (Number(0, 1, closed="right"), [1, 0.5], [0]),
    (Number(0), [0, 3.5, 10**20], [-1, np.inf, np.nan]),
    (Number(), [-1e300, 0, 7], [np.inf, -np.inf, np.nan, "7", True]),
    (Options("drop", "zero"), ["drop", "zero"], ["both", None, 0, b"drop"]),
    (Options(None, "zero"), [None, "zero"], ["none", 0]),
    (Options(1, 2), [1, 2], [True, 1.0, "1"]),
])
def test_each_rule_takes_what_it_says_and_refuses_the_rest(rule, good, bad):
    for value in good:
        assert rule.accepts(value) or (value is None and rule.none), value
        check("x", value, rule)
    for value in bad:
        with pytest.raises(ValidationError) as caught:
            check("x", value, rule)
        assert WORDING.match(str(caught.value)).group("name") == "x"
        assert str(caught.value) == f"x: expected {rule.describe()}, found {shown(value)}"


def test_values_are_passed_on_as_python_numbers():
    assert type(check("n", np.int64(3), COUNT)) is int
    assert type(check("alpha", np.float32(0.5), LEVEL)) is float
    assert type(check("p", 1, Number(0, 2))) is float
    assert check("seed", 0, SEED) == 0


def test_the_descriptions_read_as_the_messages_say_them():
    assert COUNT.describe() == "a positive integer"
    assert SEED.describe() == "a non-negative integer"
    assert Integer(2).describe() == "an integer of at least 2"
    assert Integer(1, 100_000, none=True).describe() == "an integer from 1 to 100000 or None"
    assert LEVEL.describe() == "a number above 0 and below 1"
    assert Number(0).describe() == "a non-negative number"
    assert Number(0, closed="neither").describe() == "a positive number"
    assert Number(1, closed="neither").describe() == "a number > 1"
    assert Number().describe() == "a finite number"
    assert Options("linear", "exp").describe() == "one of 'linear', 'exp'"


def test_a_label_names_the_parameter_in_its_own_words():
    with pytest.raises(ValidationError, match=r"^RBO's persistence p: expected a number above 0 and below 1, found 1\.5$"):
        check("p", 1.5, Number(0, 1, closed="neither", label="RBO's persistence p"))


def test_a_huge_integer_is_shown_by_its_size():
    with pytest.raises(ValidationError, match=r"^depth: expected an integer from 1 to 10, found an integer of 100 bits$"):
        check("depth", 10**30, Integer(1, 10))


def test_checked_binds_defaults_positionals_and_keywords():
    calls = []

    @checked(n=Integer(2), alpha=LEVEL)
    def f(x, n, *, alpha=0.05):
        calls.append((x, n, alpha))
        return n

    assert f("a", np.int64(3)) == 3 and calls[-1] == ("a", 3, 0.05) and type(calls[-1][1]) is int
    assert f("a", n=2, alpha=0.5) == 2
    with pytest.raises(ValidationError, match="^n: expected an integer of at least 2, found 1$"):
        f("a", 1)
    with pytest.raises(ValidationError, match="^alpha: expected a number above 0 and below 1, found 0$"):
        f("a", 2, alpha=0)
    assert len(calls) == 2  # a refused call never runs the body
    assert f.__checked__ == {"n": Integer(2), "alpha": LEVEL}
    assert inspect.signature(f) == inspect.signature(f.__wrapped__)


def test_checked_refuses_to_declare_a_parameter_the_function_lacks():
    with pytest.raises(TypeError, match="has no parameter depth"):
        checked(depth=COUNT)(lambda cutoff: cutoff)


def test_a_generator_is_checked_when_called_not_when_first_iterated():
    @checked(k=COUNT)
    def upto(k):
        yield from range(k)

    with pytest.raises(ValidationError, match="^k: expected a positive integer, found 0$"):
        upto(0)
    assert list(upto(2)) == [0, 1]


# ---- every declaration in the package ---------------------------------------------------------------------------
def _declared() -> list[tuple[str, object]]:
    """Every function and method of ``metrics`` that declares its parameters with ``@checked``."""
    found = {}
    for info in pkgutil.walk_packages(metrics.__path__, "metrics."):
        module = importlib.import_module(info.name)
        for owner in [module, *(c for _, c in inspect.getmembers(module, inspect.isclass)
                                if c.__module__ == module.__name__)]:
            for name, fn in vars(owner).items():
                if callable(fn) and hasattr(fn, "__checked__") and getattr(fn, "__module__", "") == module.__name__:
                    where = f"{module.__name__}.{owner.__name__}" if inspect.isclass(owner) else module.__name__
                    found[f"{where}.{name}"] = fn
    return sorted(found.items())


def _outside(rule) -> object:
    """A value the rule refuses, as close to what it takes as can be."""
    if isinstance(rule, Options):
        return "not one of them"
    if isinstance(rule, Integer):
        return rule.low - 1 if rule.low is not None else 0.5
    if rule.low is not None:
        return rule.low - 1 if rule.closed in ("both", "left") else rule.low
    return float("nan")


def _inside(rule) -> object:
    if isinstance(rule, Options):
        return rule.values[0]
    if isinstance(rule, Integer):
        return rule.low if rule.low is not None else 0
    low = rule.low if rule.low is not None else 0.0
    high = rule.high if rule.high is not None else low + 2.0
    return (low + high) / 2


DECLARED = _declared()


def test_the_package_declares_its_checks():
    names = {name.rsplit(".", 1)[-1] for name, _ in DECLARED}
    assert {"compute_report", "compare_systems", "summarise", "reproduce", "rank_biased_overlap", "t_topics",
            "side_by_side", "worked", "contingency", "risk_table", "reorder_ties", "power_analysis"} <= names


@pytest.mark.parametrize("name, fn", DECLARED, ids=[name for name, _ in DECLARED])
def test_every_declaration_refuses_outside_its_range_before_the_body_runs(name, fn):
    signature = inspect.signature(fn)
    required = {p.name: None for p in signature.parameters.values()
                if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}
    rules = fn.__checked__
    for param, rule in rules.items():
        given = {**required, **{other: _inside(r) for other, r in rules.items() if other != param},
                 param: _outside(rule)}
        with pytest.raises(ValidationError) as caught:
            fn(**given)
        match = WORDING.match(str(caught.value))
        assert match is not None, str(caught.value)
        assert match.group("name") == (rule.label or param)
        assert match.group("what") == rule.describe()
