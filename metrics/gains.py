"""The choices of the gain-based measures: gain of a grade, discount at a rank, and the ideal ranking.

Each table maps a choice's name (what a measure parameter, a command-line flag or a picker takes) to the
short label a person reads (what the dashboard shows, and what a link to a dashboard view carries).
:data:`TREC_EVAL` names trec_eval's choice in each, the default everywhere. The measures
(:mod:`metrics.measures.ndcg`), the curves, the anatomy of a ranking, the command line and the dashboard
all read these tables; :func:`check_gain` is the one check of a choice given by a user.

* gain of grade g: ``linear`` g (trec_eval), ``exp`` 2^g - 1 (Burges et al.);
* divisor at rank i: ``log2`` log2(i + 1) (trec_eval), ``jk`` Järvelin and Kekäläinen's max(1, log_b(i)),
  ranks i < b undiscounted (base b, default 2);
* ideal ranking: ``judged`` every judged document sorted by grade (trec_eval), ``retrieved`` the retrieved
  documents only, re-sorted (each run its own yardstick).
"""

from __future__ import annotations

from typing import Mapping

from metrics.checks import Number, Options, check
from metrics.errors import ValidationError

__all__ = ["BASE", "DISCOUNTS", "GAINS", "IDEALS", "TREC_EVAL", "check_gain", "describe"]

GAINS = {"linear": "grade", "exp": "2^grade - 1"}
"""Gain of a grade g: the grade itself, or 2^g - 1."""

DISCOUNTS = {"log2": "log2(i+1)", "jk": "Järvelin-Kekäläinen"}
"""Divisor of the gain at rank i: log2(i + 1), or Järvelin and Kekäläinen's max(1, log_b(i))."""

IDEALS = {"judged": "all judged", "retrieved": "retrieved only"}
"""Documents the ideal ranking is made of: every judged one, or only those the run retrieved."""

TREC_EVAL = {"gain": "linear", "discount": "log2", "ideal": "judged"}
"""trec_eval's choice of each (the default), by parameter name."""

BASE = 2.0
"""Default logarithm base b of the ``jk`` discount (the only discount with a base)."""


def check_gain(gain: str, discount: str, base: float = BASE, ideal: str | None = None) -> None:
    """Check a gain, a discount, its logarithm base and (when given) an ideal ranking.

    Parameters
    ----------
    gain : str
        A name of :data:`GAINS`.
    discount : str
        A name of :data:`DISCOUNTS`.
    base : float, default=2.0
        Logarithm base of the ``jk`` discount: a finite number > 1, left at 2 with any other discount.
    ideal : str, optional
        A name of :data:`IDEALS`; not checked when None.

    Raises
    ------
    ValidationError
        Naming the first wrong choice and the names allowed.

    Examples
    --------
    >>> check_gain("exp", "jk", 3.0)
    >>> check_gain("square", "log2")
    Traceback (most recent call last):
    ...
    metrics.errors.Refused: gain: expected one of 'linear', 'exp', found 'square'
    """
    check("gain", gain, Options(*GAINS))
    check("discount", discount, Options(*DISCOUNTS))
    check("base", base, Number(1, closed="neither"))
    if discount != "jk" and base != BASE:
        raise ValidationError('base applies to discount="jk" only')
    if ideal is not None:  # a caller that has no ideal to check passes None; the choices are the same
        check("ideal", ideal, Options(*IDEALS))


def describe(choices: Mapping[str, str]) -> str:
    """The names of a table with their labels, trec_eval's choice marked, for a help text.

    Examples
    --------
    >>> describe(GAINS)
    'linear = grade (trec_eval), exp = 2^grade - 1'
    """
    marked = set(TREC_EVAL.values())
    return ", ".join(f"{name} = {label}" + (" (trec_eval)" if name in marked else "")
                     for name, label in choices.items())
