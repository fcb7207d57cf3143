"""The three kinds of claim, each a frozen value that says itself in words and as a plain entry.

A claim names systems and a measure as text; it does not hold numbers computed from runs. Checking it
against a per-query table (:func:`metrics.review.claims.check_claims`) gives a :class:`ClaimResult`.

* :class:`Threshold`: a system's summary value of a measure (the mean, or the measure's own rule, as
  :func:`metrics.aggregate` gives it) equals an expected value within a tolerance (as the regression files
  of Anserini and Pyserini state expected scores), or is at least or at most a value.
* :class:`Better`: one system is better than another on a measure (higher, or lower for a measure where
  lower is better), and, when a test is named, significantly so under that paired test, correction and
  alpha (:func:`metrics.stats.significance.compare_systems`).
* :class:`Rank`: a system is among the first ``at_most`` systems of the table by a measure's value.

Every claim's :meth:`entry` is the plain mapping :func:`metrics.review.claims.claim_from_entry` reads back
to an equal claim: the form of an ``expect:`` entry of a ``rankscope check`` file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Union

from metrics.checks import COUNT, LEVEL, Integer, Number, Options, check, refuse, shown
from metrics.errors import Refused, ValidationError

__all__ = ["Better", "Claim", "ClaimResult", "FAILS", "HOLDS", "MAX_RESAMPLES", "PAIRS", "RULES", "Rank", "SETTINGS",
           "STATUSES", "TIES", "Threshold", "UNCHECKABLE"]

HOLDS, FAILS, UNCHECKABLE = "holds", "fails", "cannot be checked"
STATUSES = (HOLDS, FAILS, UNCHECKABLE)
"""A claim's status: it holds, it fails, or it cannot be checked (a system or measure is not in the table)."""
SIGNED = ("off", "difference")
"""The numbers of a result shown with their sign."""

PAIRS = ("all", "claimed")
"""The tests a :class:`Better` claim's correction counts: every pair of the table's systems on the claim's
measure (``all``, what ``rankscope compare`` and the significance page test), or the claimed pair alone
(``claimed``: one test, so no correction changes its p-value)."""

SETTINGS = ("seed", "n_resamples", "zero_method", "wilcoxon_method", "ci", "tie_tolerance")
"""The further keywords of :func:`~metrics.stats.significance.compare_systems` a :class:`Better` claim takes."""
MAX_RESAMPLES = 1_000_000
"""The most resamples a claim's permutation or bootstrap test draws."""

TIES = ("best", "worst")
"""Where a :class:`Rank` claim puts a system tied with others: at the best rank of the tie (``best``, the
"1224" competition ranking) or at the worst (``worst``)."""

RULES = {"value": Number(), "at_least": Number(), "at_most": Number(), "tolerance": Number(0), "alpha": LEVEL,
         "pairs": Options(*PAIRS), "rank_at_most": COUNT, "ties": Options(*TIES),
         "n_resamples": Integer(1, MAX_RESAMPLES)}
"""What the fields of a claim take that a rule says whole (:mod:`metrics.checks`): the claims' constructors and
an expectations file's declaration (:mod:`metrics.review.claims.schema`) both read it. Names and measures are
checked by the registry, tests and corrections by :mod:`metrics.stats.significance`."""


def _number(x: float) -> str:
    return f"{x:.6g}"


def _name(field_: str, value: Any) -> str:
    """A system's name: text (an integer is taken as its digits), not empty."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value.strip():
        raise refuse(field_, "a system's name", value)
    return value


def _measure(value: Any) -> str:
    """One measure's label, as :func:`metrics.evaluate` labels it (an unknown name raises)."""
    from metrics.evaluate import resolve_measures

    if not isinstance(value, str) or not value.strip():
        raise refuse("measure", "a measure's name", value)
    pairs = resolve_measures([value])
    if len(pairs) != 1:
        raise Refused("measure", "the name of one measure", f"{shown(value)} ({len(pairs)} measures)")
    return pairs[0][0]


def _set(obj: Any, **values: Any) -> None:
    for key, value in values.items():
        object.__setattr__(obj, key, value)


@dataclass(frozen=True)
class Threshold:
    """A system's summary value of a measure: equal to ``value`` within ``tolerance``, or at least
    ``at_least``, or at most ``at_most`` (exactly one of the three).

    Parameters
    ----------
    system : str
    measure : str
        A measure's name, as :func:`metrics.evaluate` takes it (``AP``, ``nDCG@10``, ``map``).
    value, at_least, at_most : float, optional
        Exactly one is given.
    tolerance : float, default=0.0
        How far the value may be from ``value`` (or below ``at_least``, above ``at_most``) and the claim
        still hold. Differences of floating-point rounding (12 significant digits) always count as equal.
    """

    system: str
    measure: str
    value: float | None = None
    at_least: float | None = None
    at_most: float | None = None
    tolerance: float = 0.0

    kind = "threshold"

    def __post_init__(self) -> None:
        given = [k for k in ("value", "at_least", "at_most") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValidationError(f"expected exactly one of value, at_least, at_most, found {given or 'none'}")
        _set(self, system=_name("system", self.system), measure=_measure(self.measure),
             tolerance=check("tolerance", self.tolerance, RULES["tolerance"]),
             **{given[0]: check(given[0], getattr(self, given[0]), RULES[given[0]])})

    def describe(self) -> str:
        """The claim in words."""
        if self.value is not None:
            return f"{self.system} scores {self.measure} = {_number(self.value)} +/- {_number(self.tolerance)}"
        op, bound = (">=", self.at_least) if self.at_least is not None else ("<=", self.at_most)
        slack = f" (tolerance {_number(self.tolerance)})" if self.tolerance else ""
        return f"{self.system} scores {self.measure} {op} {_number(bound)}{slack}"

    def entry(self) -> dict[str, Any]:
        """The claim as a plain mapping (an ``expect:`` entry)."""
        out: dict[str, Any] = {"system": self.system, "measure": self.measure}
        for key in ("value", "at_least", "at_most"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        if self.tolerance or self.value is not None:
            out["tolerance"] = self.tolerance
        return out


@dataclass(frozen=True)
class Better:
    """System ``better`` is better than system ``than`` on a measure; with ``test``, significantly.

    Parameters
    ----------
    better, than : str
        The two systems; ``better`` must have the higher value (lower, for a measure where lower is better).
    measure : str
    test : str, optional
        A paired test of :func:`~metrics.stats.significance.compare_systems` (``t``, ``wilcoxon``, ``sign``,
        ``permutation``, ``bootstrap``, ``tukey``); None: the values alone decide.
    correction : str, default="holm"
        The multiple-comparison correction, over the tests ``pairs`` names.
    alpha : float, default=0.05
        The claim holds when the adjusted p-value is below ``alpha``.
    pairs : {"all", "claimed"}, default="all"
        See :data:`PAIRS`.
    settings : tuple of (str, object) pairs, default=()
        Further keywords of ``compare_systems`` (``seed``, ``n_resamples``, ``zero_method``, ``ci``,
        ``tie_tolerance``), sorted by name.
    """

    better: str
    than: str
    measure: str
    test: str | None = None
    correction: str = "holm"
    alpha: float = 0.05
    pairs: str = "all"
    settings: tuple[tuple[str, Any], ...] = field(default=())

    kind = "better"

    def __post_init__(self) -> None:
        from metrics.stats.significance import (CORRECTION_ALIASES, CORRECTIONS, MAXT, TEST_ALIASES, TESTS,
                                                canonical, check_options)

        better, than = _name("better", self.better), _name("than", self.than)
        if better == than:
            raise refuse("than", "another system than better", than)
        _set(self, better=better, than=than, measure=_measure(self.measure),
             pairs=check("pairs", self.pairs, RULES["pairs"]))
        settings = dict(self.settings)
        if self.test is None:
            if settings or (self.correction, self.alpha) != ("holm", 0.05) or self.pairs != "all":
                raise ValidationError("correction, alpha, pairs and the test settings need a test")
            return
        unknown = sorted(set(settings) - set(SETTINGS))
        if unknown:
            raise Refused(unknown[0], f"a test setting ({', '.join(SETTINGS)})", "an unknown setting")
        test = canonical(self.test, TESTS, TEST_ALIASES, "test")
        correction = canonical(self.correction, CORRECTIONS + (MAXT,), CORRECTION_ALIASES, "correction")
        if correction == MAXT and test != "permutation":
            raise refuse("test", "the permutation test (correction maxt needs it)", test)
        if "n_resamples" in settings:
            check("n_resamples", settings["n_resamples"], RULES["n_resamples"])
        normal = check_options(**settings)
        _set(self, test=test, correction=correction, alpha=check("alpha", self.alpha, RULES["alpha"]),
             settings=tuple(sorted((k, normal[k]) for k in settings)))

    def describe(self) -> str:
        """The claim in words."""
        text = f"{self.better} is better than {self.than} on {self.measure}"
        if self.test is None:
            return text
        over = "all pairs of systems" if self.pairs == "all" else "this pair alone"
        how = f"{self.test} test, alpha {_number(self.alpha)}"
        if self.test != "tukey":
            how += f", {self.correction} correction over {over}"
        extra = "".join(f", {k} {v}" for k, v in self.settings)
        return f"{text}, significantly ({how}{extra})"

    def entry(self) -> dict[str, Any]:
        """The claim as a plain mapping (an ``expect:`` entry)."""
        out: dict[str, Any] = {"better": self.better, "than": self.than, "measure": self.measure}
        if self.test is not None:
            out.update(test=self.test, correction=self.correction, alpha=self.alpha, pairs=self.pairs)
            out.update(self.settings)
        return out


@dataclass(frozen=True)
class Rank:
    """A system is among the first ``at_most`` systems of the table by a measure's value.

    Parameters
    ----------
    system : str
    measure : str
    at_most : int
        The worst rank that holds (1: the best system).
    ties : {"best", "worst"}, default="best"
        See :data:`TIES`. Values equal to 12 significant digits tie.
    """

    system: str
    measure: str
    at_most: int
    ties: str = "best"

    kind = "rank"

    def __post_init__(self) -> None:
        _set(self, system=_name("system", self.system), measure=_measure(self.measure),
             at_most=check("rank_at_most", self.at_most, RULES["rank_at_most"]),
             ties=check("ties", self.ties, RULES["ties"]))

    def describe(self) -> str:
        """The claim in words."""
        where = "first" if self.at_most == 1 else f"in the top {self.at_most}"
        tie = "" if self.ties == "best" else " (a tie counts at its worst rank)"
        return f"{self.system} ranks {where} on {self.measure}{tie}"

    def entry(self) -> dict[str, Any]:
        """The claim as a plain mapping (an ``expect:`` entry)."""
        out: dict[str, Any] = {"system": self.system, "measure": self.measure, "rank_at_most": self.at_most}
        if self.ties != "best":
            out["ties"] = self.ties
        return out


Claim = Union[Threshold, Better, Rank]


@dataclass(frozen=True)
class ClaimResult:
    """What checking one claim found.

    Parameters
    ----------
    claim : Threshold, Better or Rank
    status : {"holds", "fails", "cannot be checked"}
    observed : tuple of (str, float) pairs
        The numbers behind the status, in the order they are shown: ``value`` (the system's), ``off``
        (its distance from the expected value), ``difference`` (better minus than), ``p_value`` and
        ``p_adjusted``, ``rank`` and ``systems``, ...
    reason : str
        Why the claim cannot be checked, or what the numbers mean; may be empty.
    """

    claim: Claim
    status: str
    observed: tuple[tuple[str, float], ...] = ()
    reason: str = ""

    @property
    def numbers(self) -> dict[str, float]:
        """``observed`` as a dict."""
        return dict(self.observed)

    def details(self) -> str:
        """The numbers (and the reason) as one line of text."""
        parts = [f"{k} {v:{'+' if k in SIGNED else ''}.6g}" if isinstance(v, float) else f"{k} {v}"
                 for k, v in self.observed]
        if self.reason:
            parts.append(self.reason)
        return "; ".join(parts)

    def line(self) -> str:
        """The result as one line: status, the claim in words, the numbers."""
        details = self.details()
        status = self.status.upper().ljust(max(map(len, STATUSES)))
        return f"{status}  {self.claim.describe()}" + (f" ({details})" if details else "")
