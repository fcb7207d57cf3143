"""One table of flags: every command that evaluates takes its rows as they are, and parsed flags, conventions
and settings, and the command lines written from them, go round without loss."""

from __future__ import annotations

import argparse
import inspect
import itertools
import random
from dataclasses import fields

import pytest

from metrics import Conventions, ValidationError
from metrics.review.flags import (
    CONVENTION_FLAGS,
    Flag,
    convention_argv,
    conventions_from,
    expressed,
    settings_from,
    significance_argv,
    significance_flags,
)
from metrics.stats.significance import compare_systems
from rankscope.cli import build_parser
from rankscope.commands import (
    convention_args,
    conventions_of,
    significance_args,
    significance_settings_of,
)

# each command that evaluates, with the arguments it needs besides the flags of the table
COMMANDS = {
    "eval": ["q.txt", "a.run"],
    "compare": ["q.txt", "a.run", "b.run"],
    "curves": ["--kind", "pr", "q.txt", "a.run"],
    "anatomy": ["--query", "1", "q.txt", "a.run"],
    "report": ["-o", "r.html", "q.txt", "a.run"],
}
# the test settings each command takes (the others take none)
SETTINGS = {"compare": [row.field for row in significance_flags()],
            "report": ["test", "correction", "family", "alpha", "seed", "baseline"]}


def _subparser(command: str) -> argparse.ArgumentParser:
    parser = build_parser(command)
    (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return action.choices[command]


def _parse(command: str, argv: list[str]) -> argparse.Namespace:
    return build_parser(command).parse_args([command, *argv, *COMMANDS[command]])


def _rows(command: str) -> list[Flag]:
    wanted = set(SETTINGS.get(command, ()))
    return [*CONVENTION_FLAGS, *(row for row in significance_flags() if row.field in wanted)]


@pytest.mark.parametrize("command", list(COMMANDS))
def test_every_command_that_evaluates_has_the_rows_of_the_table(command):
    actions = {a.dest: a for a in _subparser(command)._actions}
    defaults = _parse(command, [])
    for row in _rows(command):
        action = actions[row.dest]
        assert action.option_strings == [row.flag]
        assert action.default == row.default == getattr(defaults, row.dest)
        if row.type is bool:
            assert isinstance(action, argparse._StoreTrueAction)
        else:
            assert (action.type, action.metavar, action.choices) == (row.type, row.metavar, row.choices)
    flags = {s for a in actions.values() for s in a.option_strings}
    others = {row.flag for row in significance_flags()} - {row.flag for row in _rows(command)}
    assert not flags & others  # a test flag a command does not pass on is not offered


def test_the_defaults_are_those_of_conventions_and_compare_systems():
    assert {row.field: row.default for row in CONVENTION_FLAGS} == \
        {f.name: f.default for f in fields(Conventions) if f.name in {row.field for row in CONVENTION_FLAGS}}
    parameters = inspect.signature(compare_systems).parameters
    assert all(row.default == parameters[row.field].default for row in significance_flags())


def test_the_spellings_are_trec_evals_and_the_compare_commands():
    assert [row.flag for row in CONVENTION_FLAGS] == ["--compat", "-l", "-M", "-J", "-c"]
    assert [row.flag for row in significance_flags()] == [
        "--test", "--correction", "--alpha", "--seed", "--resamples", "--family", "--baseline", "--zero-method",
        "--ci", "--tie-tolerance"]
    choices = {row.field: row.choices for row in (*CONVENTION_FLAGS, *significance_flags())}
    assert choices["preset"] == ("trec_eval-9", "trec_eval-10")
    assert {"randomization", "randomisation", "permutation", "t", "tukey"} <= set(choices["test"])
    assert {"measure", "per_measure", "all"} <= set(choices["family"])


def _values(row: Flag) -> list:
    """Values of one row to try, aliases included."""
    if row.choices is not None:
        return list(row.choices)
    return {"relevance_level": [1, 0, 2, -1], "depth": [None, 1, 100], "judged_only": [False, True],
            "complete": [False, True], "alpha": [0.05, 0.01, 0.1, 1e-3], "seed": [0, 7, 123456789],
            "n_resamples": [10000, 999, 1], "baseline": [None, "a", "it's b", "-dash"],
            "tie_tolerance": [0.0, 0.005, 1e-12]}[row.field]


def _argv(values: dict) -> list[str]:
    """The flags that set ``values``, spelled by hand from the rows (not by the functions under test)."""
    argv = []
    for row in (*CONVENTION_FLAGS, *significance_flags()):
        if row.field not in values or values[row.field] is None:
            continue
        value = values[row.field]
        if row.type is bool:
            argv += [row.flag] if value else []
        else:
            argv.append(f"{row.flag}={value}")  # `=`: a value may start with a dash
    return argv


def _grid(command: str) -> list[dict]:
    """Each value of each row with the rest at their defaults, then random combinations (seeded)."""
    rows = _rows(command)
    grid = [{row.field: value} for row in rows for value in _values(row)]
    rnd = random.Random(command)
    grid += [{row.field: rnd.choice(_values(row)) for row in rows} for _ in range(60)]
    return grid


@pytest.mark.parametrize("command", list(COMMANDS))
def test_args_to_conventions_to_argv_to_args_round_trips(command):
    for values in _grid(command):
        args = _parse(command, _argv(values))
        conventions, settings = conventions_of(args), significance_settings_of(args)
        for row in _rows(command):  # the parsed values are those given, aliases resolved
            expected = row.canonical(values.get(row.field, row.default))
            assert (getattr(conventions, row.field) if row in CONVENTION_FLAGS else settings[row.field]) == expected
        argv = convention_args(args) + significance_args(args)
        again = _parse(command, argv)
        assert conventions_of(again) == conventions, (values, argv)
        assert significance_settings_of(again) == settings, (values, argv)
        assert convention_args(again) + significance_args(again) == argv


@pytest.mark.parametrize("preset, level, depth, judged_only, complete", list(itertools.product(
    ["trec_eval-9", "trec_eval-10"], [1, 3], [None, 5], [False, True], [False, True])))
def test_conventions_to_argv_to_conventions(preset, level, depth, judged_only, complete):
    conventions = Conventions(preset=preset, relevance_level=level, depth=depth, judged_only=judged_only,
                              complete=complete)
    argv = convention_argv(conventions)
    assert argv[:4] == ["--compat", preset, "-l", str(level)]  # stated even at their defaults
    assert conventions_of(_parse("eval", argv)) == conventions


def test_what_the_flags_cannot_say_falls_back():
    textbook = Conventions(preset="textbook", depth=3)
    assert expressed(textbook) == Conventions(depth=3)
    assert convention_argv(textbook) == ["--compat", "trec_eval-9", "-l", "1", "-M", "3"]
    odd = Conventions(interpolation="textbook")
    assert expressed(odd) == Conventions()


def test_settings_argv_writes_values_as_given_and_leaves_defaults_out():
    assert significance_argv({"test": "randomization", "family": "measure", "n_resamples": 10000,
                              "baseline": None, "tie_tolerance": 0.0}) == ["--test", "randomization"]
    assert significance_argv({"family": "all", "alpha": 0.1, "zero_method": "pratt"}) == \
        ["--alpha", "0.1", "--family", "all", "--zero-method", "pratt"]
    assert significance_argv({"baseline": "-x", "tie_tolerance": 0.5}) == ["--baseline=-x", "--tie-tolerance", "0.5"]
    assert convention_argv(Conventions(relevance_level=-1)) == ["--compat", "trec_eval-9", "-l-1"]
    assert settings_from({"test": "randomisation", "family": "measure"}) == \
        {"test": "permutation", "family": "per_measure"}


@pytest.mark.parametrize("call, message", [
    (lambda: significance_argv({"colour": "red"}), "no flag for test setting"),
    (lambda: significance_argv({"test": "z"}), r"^test \(--test\): expected one of 't', .*, found 'z'$"),
    (lambda: significance_argv({"alpha": "0.05"}), r"^alpha \(--alpha\): expected a finite number, found '0.05'$"),
    (lambda: significance_argv({"seed": 1.5}), r"^seed \(--seed\): expected an integer, found 1.5$"),
    (lambda: significance_argv({"seed": True}), r"^seed \(--seed\): expected an integer, found True$"),
    (lambda: conventions_from({"compat": "textbook"}), r"^preset \(--compat\): expected one of 'trec_eval-9', "),
    (lambda: conventions_from({"depth": 0}), r"^depth \(-M\): expected a positive integer, found 0$"),
])
def test_values_a_flag_cannot_take_raise(call, message):
    with pytest.raises(ValidationError, match=message):
        call()


def test_minus_m_zero_on_the_command_line_is_one_line_and_status_2(tmp_path, capsys):
    from rankscope.cli import main

    (tmp_path / "q.txt").write_text("1 0 a 1\n")
    (tmp_path / "a.run").write_text("1 Q0 a 1 1.0 x\n")
    assert main(["eval", "-M", "0", str(tmp_path / "q.txt"), str(tmp_path / "a.run")]) == 2
    assert capsys.readouterr().err == "rankscope eval: depth (-M): expected a positive integer, found 0\n"
