"""The ranges and choices of public parameters, declared once per function, with one wording for every refusal.

A function states what each checked parameter accepts beside its signature, with :func:`checked`::

    @checked(alpha=Number(0, 1, closed="neither"), depth=Integer(1), missing=Options("drop", "zero"))
    def compare(..., alpha=0.05, depth=20, missing="drop"): ...

and every value outside is refused before the body runs, with a :class:`~metrics.errors.ValidationError`
worded one way: ``"<name> must be <what it accepts>, got <value>"``. A check that is not about one
parameter (two that must agree, a value read from a table) calls :func:`check` with the same declarations,
or :func:`refuse` for the same wording. Booleans are never numbers here (``True`` is not an alpha), numpy
scalars are, and an integer too long to read is shown by its size.

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
metrics.errors.ValidationError: n must be an integer of at least 2, got 1
>>> check("missing", "both", Options("drop", "zero"))
Traceback (most recent call last):
...
metrics.errors.ValidationError: missing must be one of ('drop', 'zero'), got 'both'
"""

from __future__ import annotations

import functools
import inspect
import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from metrics.errors import ValidationError

__all__ = ["COUNT", "Integer", "LEVEL", "Number", "Options", "SEED", "check", "checked", "refuse", "shown"]

F = TypeVar("F", bound=Callable[..., Any])
CLOSED = ("both", "left", "right", "neither")


def shown(value: Any) -> str:
    """A refused value as a message shows it: its ``repr``, or the size of an integer too long to read."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**30:
        return f"an integer of {value.bit_length()} bits"
    return repr(value)


def refuse(name: str, expected: str, value: Any) -> ValidationError:
    """The one wording of a refused parameter: ``"<name> must be <expected>, got <value>"``."""
    return ValidationError(f"{name} must be {expected}, got {shown(value)}")


def _number(x: float) -> str:
    return f"{x:g}" if isinstance(x, float) else str(x)


@dataclass(frozen=True)
class Integer:
    """A whole number (a Python or numpy integer, never a bool) from ``low`` to ``high``, both included.

    The value passed on is a Python ``int``.
    """

    low: int | None = None
    high: int | None = None
    none: bool = False
    label: str | None = None

    def accepts(self, value: Any) -> bool:
        return isinstance(value, numbers.Integral) and not isinstance(value, bool) \
            and (self.low is None or value >= self.low) and (self.high is None or value <= self.high)

    def convert(self, value: Any) -> int:
        return int(value)

    def describe(self) -> str:
        if self.high is not None:
            text = f"an integer from {self.low} to {self.high}" if self.low is not None \
                else f"an integer of at most {self.high}"
        elif self.low == 1:
            text = "a positive integer"
        elif self.low == 0:
            text = "a non-negative integer"
        elif self.low is not None:
            text = f"an integer of at least {self.low}"
        else:
            text = "an integer"
        return text + (" or None" if self.none else "")


@dataclass(frozen=True)
class Number:
    """A finite real number (int, float or numpy scalar, never a bool) between ``low`` and ``high``.

    ``closed`` says which bounds belong to the range: ``"both"`` (the default), ``"left"``, ``"right"`` or
    ``"neither"``. The value passed on is a Python ``float``.
    """

    low: float | None = None
    high: float | None = None
    closed: str = "both"
    none: bool = False
    label: str | None = None

    def __post_init__(self) -> None:
        if self.closed not in CLOSED:
            raise ValueError(f"closed must be one of {CLOSED}, got {self.closed!r}")

    def accepts(self, value: Any) -> bool:
        if not isinstance(value, numbers.Real) or isinstance(value, bool) or not math.isfinite(value):
            return False
        left, right = self.closed in ("both", "left"), self.closed in ("both", "right")
        if self.low is not None and not (value >= self.low if left else value > self.low):
            return False
        return self.high is None or (value <= self.high if right else value < self.high)

    def convert(self, value: Any) -> float:
        return float(value)

    def describe(self) -> str:
        low, high = self.low, self.high
        if low is not None and high is not None:
            text = {"neither": f"between {_number(low)} and {_number(high)}",
                    "both": f"a number from {_number(low)} to {_number(high)}",
                    "left": f"a number from {_number(low)} up to but not including {_number(high)}",
                    "right": f"a number above {_number(low)} and at most {_number(high)}"}[self.closed]
        elif low == 0:
            text = "a non-negative number" if self.closed in ("both", "left") else "a positive number"
        elif low is not None:
            text = f"a number {'>=' if self.closed in ('both', 'left') else '>'} {_number(low)}"
        elif high is not None:
            text = f"a number {'<=' if self.closed in ('both', 'right') else '<'} {_number(high)}"
        else:
            text = "a finite number"
        return text + (" or None" if self.none else "")


@dataclass(frozen=True, init=False)
class Options:
    """One of the given values (compared with ``==``, so a string is never mistaken for a number)."""

    values: tuple[Any, ...]
    none: bool = False
    label: str | None = None

    def __init__(self, *values: Any, none: bool = False, label: str | None = None) -> None:
        object.__setattr__(self, "values", tuple(values))
        object.__setattr__(self, "none", none)
        object.__setattr__(self, "label", label)

    def accepts(self, value: Any) -> bool:
        try:
            return any(type(value) is type(v) and value == v for v in self.values)
        except (TypeError, ValueError):
            return False

    def convert(self, value: Any) -> Any:
        return value

    def describe(self) -> str:
        return f"one of {self.values}" + (" or None" if self.none else "")


Rule = Integer | Number | Options

LEVEL = Number(0, 1, closed="neither")
"""A probability strictly between 0 and 1: a significance level, a confidence, a power."""
COUNT = Integer(1)
"""A positive whole number: a depth, a cutoff, a number of resamples."""
SEED = Integer(0)
"""A random seed: a non-negative whole number."""


def check(name: str, value: Any, rule: Rule) -> Any:
    """``value`` as ``rule`` passes it on (``int``, ``float`` or as given), or :func:`refuse` it.

    Parameters
    ----------
    name : str
        The parameter as the caller spells it; the message names it, or the rule's ``label`` when it has one
        (``"RBO's persistence p"``).
    value : object
    rule : Integer, Number or Options

    Returns
    -------
    object
        ``None`` when the rule allows it and ``value`` is None, else the converted value.

    Raises
    ------
    ValidationError
        ``"<name> must be <rule.describe()>, got <value>"``.
    """
    if value is None and rule.none:
        return None
    if not rule.accepts(value):
        raise refuse(rule.label or name, rule.describe(), value)
    return rule.convert(value)


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
