"""Command-line flags of the evaluation conventions and of the significance-test settings, in one table.

Each :class:`Flag` row says how one field of :class:`~metrics.conventions.Conventions`, or one setting of
:func:`~metrics.stats.significance.compare_systems`, is spelled on a ``rankscope`` command line: its flag,
metavar, type, default, accepted values and help text. Everything that speaks in flags reads the rows:
the commands build their arguments from them and read the parsed values back
(:func:`conventions_from`, :func:`settings_from`), and a manifest writes the command lines that reproduce
a result with them (:func:`convention_argv`, :func:`significance_argv`).

The defaults are not restated here: a convention's is the default of its :class:`Conventions` field, a
test setting's that of :func:`~metrics.stats.significance.compare_systems`; the accepted values of a test
setting are its constants (``TESTS``, ``CORRECTIONS``, ...) with their aliases. :data:`CONVENTION_FLAGS`
is a constant; :func:`significance_flags` builds its rows on first use, so that a command that only
evaluates does not load the significance tests (and pandas).

Examples
--------
>>> convention_argv(Conventions(relevance_level=2, depth=100, complete=True))
['--compat', 'trec_eval-9', '-l', '2', '-M', '100', '-c']
>>> conventions_from({"compat": "trec_eval-10", "relevance_level": 2, "depth": None,
...                   "judged_only": True, "complete": False}).describe()
'trec_eval-10, relevant: grade >= 2, judged only'
>>> significance_argv({"test": "permutation", "correction": "holm", "alpha": 0.01, "seed": 3,
...                    "family": "per_measure"})
['--test', 'permutation', '--correction', 'holm', '--alpha', '0.01', '--seed', '3']
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from metrics.checks import Boolean, Integer, Number, Options, Rule, Text, check
from metrics.conventions import TREC_EVAL_VERSIONS, Conventions
from metrics.errors import ValidationError

__all__ = ["CONVENTION_FLAGS", "Flag", "convention_argv", "conventions_from", "expressed", "settings_from",
           "significance_argv", "significance_flags"]


@dataclass(frozen=True)
class Flag:
    """One command-line option: the field it sets and how it is spelled.

    Parameters
    ----------
    field : str
        The :class:`~metrics.conventions.Conventions` field, or the keyword of
        :func:`~metrics.stats.significance.compare_systems`, that the option sets.
    flag : str
        The option string, e.g. ``"-l"`` or ``"--alpha"``.
    type : {bool, int, float, str}
        The value's type; ``bool`` is a switch (given: True).
    default : object
        The value when the option is not given (None: unset).
    help : str
        What the option does, without its default (a command adds that).
    metavar : str, optional
        The value's name in the usage line (none for a switch).
    choices : tuple of str, optional
        The spellings accepted, aliases included (None: any value of ``type``).
    aliases : tuple of (str, str) pairs, default=()
        Spellings that stand for another value, e.g. ``("randomization", "permutation")``.
    always : bool, default=False
        A reproducing command states the option even at its default (the choices a reader looks for).
    minimum : int, optional
        The smallest value accepted.
    dest : str, optional
        The attribute of the parsed arguments (default: ``field``).
    """

    field: str
    flag: str
    type: type
    default: Any
    help: str
    metavar: str | None = None
    choices: tuple[str, ...] | None = None
    aliases: tuple[tuple[str, str], ...] = ()
    always: bool = False
    minimum: int | None = None
    dest: str = ""

    def __post_init__(self) -> None:
        if not self.dest:
            object.__setattr__(self, "dest", self.field)

    def canonical(self, value: Any) -> Any:
        """The value an alias stands for (other values unchanged)."""
        return dict(self.aliases).get(value, value) if isinstance(value, str) else value

    @property
    def rule(self) -> Rule:
        """What the option takes, as a rule of :mod:`metrics.checks`."""
        if self.choices is not None:
            return Options(*self.choices)
        return {bool: Boolean(), int: Integer(self.minimum), float: Number(self.minimum), str: Text()}[self.type]

    def check(self, value: Any) -> Any:
        """``value`` if the option can take it, else :class:`~metrics.errors.Refused` naming the field and
        its flag: ``"depth (-M): expected a positive integer, found 0"``."""
        if value is None and self.default is None:
            return value
        check(f"{self.field} ({self.flag})", value, self.rule)
        return value

    def argv(self, value: Any) -> list[str]:
        """The arguments that give ``value``: none for an unset value, a switch off, or a default left unsaid."""
        self.check(value)
        if value is None or value is False:
            return []
        if self.type is bool:
            return [self.flag]
        if not self.always and self.canonical(value) == self.canonical(self.default):
            return []
        text = repr(float(value)) if self.type is float else str(value)
        if text.startswith("-"):  # one argument, or a parser would take the value for an option
            return [f"{self.flag}={text}" if self.flag.startswith("--") else self.flag + text]
        return [self.flag, text]


def _field_default(name: str) -> Any:
    return {f.name: f.default for f in fields(Conventions)}[name]


CONVENTION_FLAGS: tuple[Flag, ...] = (
    Flag("preset", "--compat", str, _field_default("preset"), "trec_eval version to reproduce: trec_eval-9 (as "
         "pytrec_eval) or trec_eval-10", metavar="VERSION", choices=tuple(TREC_EVAL_VERSIONS), always=True,
         dest="compat"),
    Flag("relevance_level", "-l", int, _field_default("relevance_level"),
         "minimum grade that counts as relevant", metavar="N", always=True),
    Flag("depth", "-M", int, _field_default("depth"), "evaluate only the top N documents of each ranking",
         metavar="N", minimum=1),
    Flag("judged_only", "-J", bool, _field_default("judged_only"), "drop unjudged documents first"),
    Flag("complete", "-c", bool, _field_default("complete"),
         "evaluate every query of the qrels: a query a run leaves out has an empty ranking (and scores 0)"),
)
"""The convention flags (trec_eval's ``--compat``, ``-l``, ``-M``, ``-J``, ``-c``), in the order a command
states them."""


@functools.cache
def significance_flags() -> tuple[Flag, ...]:
    """The significance-test flags of ``rankscope compare``, in the order a command states them.

    Returns
    -------
    tuple of Flag
        One row per setting of :func:`~metrics.stats.significance.compare_systems`, its default and accepted
        values read from there.

    Examples
    --------
    >>> [row.flag for row in significance_flags()][:4]
    ['--test', '--correction', '--alpha', '--seed']
    """
    from metrics.stats.significance import (CI_METHODS, CORRECTION_ALIASES, CORRECTIONS, FAMILIES, FAMILY_ALIASES, MAXT,
                                            TEST_ALIASES, TESTS, ZERO_METHODS, compare_systems)

    defaults = {name: p.default for name, p in inspect.signature(compare_systems).parameters.items()}

    def row(field: str, flag: str, type_: type, metavar: str, help_: str, values: tuple[str, ...] | None = None,
            aliases: Mapping[str, str] | None = None, **options: Any) -> Flag:
        aliases = dict(aliases or {})
        choices = None if values is None else tuple(values) + tuple(a for a in aliases if a not in values)
        return Flag(field, flag, type_, defaults[field], help_, metavar=metavar, choices=choices,
                    aliases=tuple(aliases.items()), **options)

    return (
        row("test", "--test", str, "TEST", "paired test: t, wilcoxon, sign, permutation (or randomization), "
            "bootstrap, or tukey (Tukey's HSD on the two-way system x topic ANOVA, already adjusted for all pairs)",
            TESTS, TEST_ALIASES, always=True),
        row("correction", "--correction", str, "METHOD", "multiple-comparison correction: holm, bonferroni, "
            "bh (Benjamini-Hochberg), by (Benjamini-Yekutieli), maxt (Westfall-Young step-down max-T, with "
            "--test permutation) or none", CORRECTIONS + (MAXT,), CORRECTION_ALIASES,
            always=True),
        row("alpha", "--alpha", float, "A", "significance level", always=True),
        row("seed", "--seed", int, "N", "seed of the permutation and bootstrap tests", always=True),
        row("n_resamples", "--resamples", int, "N", "resamples of the permutation and bootstrap tests"),
        row("family", "--family", str, "FAMILY", "correct over the tests of each measure (per_measure, or "
            "measure) or over all measures together (all)", FAMILIES, FAMILY_ALIASES),
        row("baseline", "--baseline", str, "NAME", "test each run against this one (default: all pairs)"),
        row("zero_method", "--zero-method", str, "RULE", "Wilcoxon's zero differences: wilcox (dropped), pratt "
            "(ranked, then dropped), zsplit (rank split between the signs)", ZERO_METHODS),
        row("ci", "--ci", str, "METHOD", "the bootstrap test's interval: bca or percentile", CI_METHODS),
        row("tie_tolerance", "--tie-tolerance", float, "X",
            "differences within +-X are ties in the win/tie/loss counts and the sign test"),
    )


def conventions_from(values: Mapping[str, Any]) -> Conventions:
    """The conventions that parsed flags give.

    Parameters
    ----------
    values : mapping
        Parsed arguments by destination (``vars(args)``); a convention whose flag is absent keeps its
        default.

    Returns
    -------
    Conventions

    Raises
    ------
    ValidationError
        A value the flag does not accept (e.g. ``-M 0``).
    """
    return Conventions(**{row.field: row.canonical(row.check(values[row.dest]))
                          for row in CONVENTION_FLAGS if row.dest in values})


def settings_from(values: Mapping[str, Any]) -> dict[str, Any]:
    """The significance-test settings that parsed flags give, aliases resolved.

    Parameters
    ----------
    values : mapping
        Parsed arguments by destination (``vars(args)``); only the settings whose flag is there are read.

    Returns
    -------
    dict
        ``{setting: value}``, keywords of :func:`~metrics.stats.significance.compare_systems`.

    Raises
    ------
    ValidationError
        A value the flag does not accept.

    Examples
    --------
    >>> settings_from({"test": "randomization", "family": "measure", "alpha": 0.1, "format": "csv"})
    {'test': 'permutation', 'alpha': 0.1, 'family': 'per_measure'}
    """
    return {row.field: row.canonical(row.check(values[row.dest]))
            for row in significance_flags() if row.dest in values}


def expressed(conventions: Conventions) -> Conventions:
    """What the convention flags can say of ``conventions``.

    A field that has no flag (``score_dtype``, ``interpolation``), or a value its flag does not offer
    (``preset="textbook"``), falls back to what the flags give without it; the other fields are kept.

    Parameters
    ----------
    conventions : Conventions

    Returns
    -------
    Conventions
        Equal to ``conventions`` when the flags say all of it.

    Examples
    --------
    >>> expressed(Conventions(preset="textbook", depth=10)) == Conventions(depth=10)
    True
    """
    options = {}
    for row in CONVENTION_FLAGS:
        value = getattr(conventions, row.field)
        options[row.field] = value if row.choices is None or value in row.choices else row.default
    return Conventions(**options)


def convention_argv(conventions: Conventions) -> list[str]:
    """The flags that give ``conventions`` (of what :func:`expressed` keeps), in table order.

    Parameters
    ----------
    conventions : Conventions

    Returns
    -------
    list of str
        ``--compat`` and ``-l`` always; ``-M``, ``-J`` and ``-c`` when set.
    """
    said = expressed(Conventions.coerce(conventions))
    return [arg for row in CONVENTION_FLAGS for arg in row.argv(getattr(said, row.field))]


def significance_argv(settings: Mapping[str, Any]) -> list[str]:
    """The flags that give significance-test settings, in table order.

    Parameters
    ----------
    settings : mapping
        ``{setting: value}`` (keywords of :func:`~metrics.stats.significance.compare_systems`); values are
        written as given (an alias stays an alias). A setting that is absent, None, or at its default is
        left out, except those a reader looks for (test, correction, alpha and seed).

    Returns
    -------
    list of str

    Raises
    ------
    ValidationError
        An unknown setting, or a value its flag does not accept.
    """
    rows = significance_flags()
    unknown = sorted(set(settings) - {row.field for row in rows})
    if unknown:
        raise ValidationError(f"no flag for test setting(s) {unknown}; known: {[row.field for row in rows]}")
    return [arg for row in rows if row.field in settings for arg in row.argv(settings[row.field])]
