"""The ranges and choices of public parameters, declared once per function with :func:`checked`.

A function states what each checked parameter accepts beside its signature::

    @checked(alpha=Number(0, 1, closed="neither"), depth=Integer(1), missing=Options("drop", "zero"))
    def compare(..., alpha=0.05, depth=20, missing="drop"): ...

and every value outside is refused before the body runs, with :class:`~metrics.errors.Refused` (a
:class:`~metrics.errors.ValidationError`) worded as every refusal is: ``"<name>: expected <what it
accepts>, found <value>"``. A check that is not about one parameter (two that must agree, a value read from
a table) calls :func:`check` with the same rules, or :func:`refuse` for the same wording. Booleans are never
numbers here (``True`` is not an alpha), numpy scalars are, and an integer too long to read is shown by its
size.

Examples
--------
>>> @checked(n=Integer(2), alpha=Number(0, 1, closed="neither"))
... def topics_needed(n, alpha=0.05):
...     return n, alpha
>>> topics_needed(3)
(3, 0.05)
>>> topics_needed(1)
Traceback (most recent call last):
...
metrics.errors.Refused: n: expected an integer of at least 2, found 1
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

from metrics.checks.rules import Integer, Number, Rule
from metrics.checks.words import Miss, shown
from metrics.errors import Refused

__all__ = ["COUNT", "LEVEL", "SEED", "check", "checked", "refuse"]

F = TypeVar("F", bound=Callable[..., Any])

LEVEL = Number(0, 1, closed="neither")
"""A probability strictly between 0 and 1: a significance level, a confidence, a power."""
COUNT = Integer(1)
"""A positive whole number: a depth, a cutoff, a number of resamples."""
SEED = Integer(0)
"""A random seed: a non-negative whole number."""


def check(name: str, value: Any, rule: Rule) -> Any:
    """``value`` as ``rule`` passes it on (``int``, ``float`` or as given), or :class:`~metrics.errors.Refused`.

    Parameters
    ----------
    name : str
        The parameter as the caller spells it; the message names it, or the rule's ``label`` when it has one
        (``"RBO's persistence p"``).
    value : object
    rule : Rule

    Returns
    -------
    object
        ``None`` when the rule allows it and ``value`` is None, else the converted value.

    Raises
    ------
    Refused
        ``"<name>: expected <rule.describe()>, found <value>"``.

    Examples
    --------
    >>> check("alpha", 0.05, LEVEL)
    0.05
    >>> from metrics.checks import Options
    >>> check("missing", "both", Options("drop", "zero"))
    Traceback (most recent call last):
    ...
    metrics.errors.Refused: missing: expected one of 'drop', 'zero', found 'both'
    """
    try:
        return rule.read(value)
    except Miss as miss:
        raise miss.refusal(rule.label or name) from None


def refuse(where: str, expected: str, value: Any, *, json: bool = False) -> Refused:
    """The one wording of a refusal, for a check no rule states (two parameters that must agree...).

    Examples
    --------
    >>> str(refuse("systems", "two distinct names", ["a", "a"]))
    "systems: expected two distinct names, found ['a', 'a']"
    """
    return Refused(where, expected, shown(value, json))


def checked(**rules: Rule) -> Callable[[F], F]:
    """Declare the accepted values of some of a function's parameters; every call is checked first.

    Each keyword names a parameter of the decorated function and gives its rule. The arguments are bound
    to the signature, each declared one that was given or defaulted is checked with :func:`check`, and the
    function runs with the converted values. The rules stay readable on the function as
    ``__checked__`` (a ``{name: rule}`` mapping), for documentation and tests.
    """

    def decorate(function: F) -> F:
        signature = inspect.signature(function)
        unknown = sorted(set(rules) - set(signature.parameters))
        if unknown:
            raise TypeError(f"{function.__qualname__} has no parameter {', '.join(unknown)}")

        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            for name, rule in rules.items():
                bound.arguments[name] = check(name, bound.arguments[name], rule)
            return function(*bound.args, **bound.kwargs)

        wrapper.__checked__ = dict(rules)  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate
