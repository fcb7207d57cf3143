"""Measure declarations and the registry (names parse in :mod:`metrics.measures.parse`).

A measure is a class that declares what it is (name, aliases, parameters, pretty name, description, LaTeX
formula, ``higher_is_better``, how it aggregates over queries) beside its kernel ``compute(rankings)``,
which returns one value per query for all queries at once. ``@register`` checks the declaration and adds
it to the registry, which the CLI, :func:`metrics.evaluate`, the dashboard and the tests all read.

Measure *instances* are values: ``P(cutoff=5)``, written ``P@5``, is hashable, equal to any other ``P@5``,
and ``parse_measure(str(m)) == m``. Two syntaxes name them:

* ir_measures style: ``AP``, ``nDCG@10``, ``P(rel=2)@5``, ``nDCG(gain="exp")@10``;
* trec_eval style: ``map``, ``ndcg_cut_10``, ``P_5``, ``iprec_at_recall_0.10`` (and, on the command line,
  ``P.5,10`` or just ``P`` for trec_eval's default cutoffs).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from metrics.checks import Boolean, Integer, Kind, Number, Options, Rule, check
from metrics.errors import UnknownMeasureError

__all__ = ["Measure", "Param", "Trec", "register", "REGISTRY", "list_measures", "MEASURE_CLASSES"]

REGISTRY: dict[str, type["Measure"]] = {}
MEASURE_CLASSES: list[type["Measure"]] = []


@dataclass(frozen=True)
class Param:
    """A measure parameter: name, type, default, allowed range or choices, and a help text."""

    name: str
    type: type
    default: Any = None
    help: str = ""
    min: float | None = None
    max: float | None = None
    choices: tuple | None = None
    closed: str = "both"
    """Which of ``min`` and ``max`` a float parameter may equal (as :class:`metrics.checks.Number` says)."""

    @property
    def rule(self) -> Rule:
        """What the parameter takes, as a rule of :mod:`metrics.checks` (None only when the default is None)."""
        none = self.default is None
        if self.choices is not None:
            return Options(*self.choices, none=none)
        if self.type is int:
            return Integer(self.min, self.max, none=none)
        if self.type is float:
            return Number(self.min, self.max, closed=self.closed, none=none)
        if self.type is bool:
            return Boolean(none=none)
        return Kind(self.type, _TYPE_WORDS.get(self.type, f"a {self.type.__name__}"), none=none)

    def validate(self, value: Any, measure: str) -> Any:
        """``value`` as the measure keeps it, or :class:`~metrics.errors.Refused` naming the measure and the
        parameter: ``"nDCG parameter 'cutoff': expected a positive integer or None, found 0"``."""
        if self.type is int and isinstance(value, float) and value.is_integer():
            value = int(value)
        return check(f"{measure} parameter {self.name!r}", value, self.rule)


_TYPE_WORDS = {str: "text", tuple: "a tuple"}


@dataclass(frozen=True)
class Trec:
    """One trec_eval spelling of a measure.

    ``name`` is trec_eval's measure name; ``param`` the parameter its ``_suffix`` (and ``.list`` on the
    command line) sets, with trec_eval's default list ``defaults``; ``order`` its place in trec_eval's
    output; ``fmt`` how the suffix is printed; ``version`` the first trec_eval major version that has it;
    ``all_trec`` whether ``-m all_trec`` of that version prints it.
    """

    name: str
    param: str | None = None
    defaults: tuple = ()
    order: float = float("inf")
    fmt: str = "{}"
    version: int = 9
    per_query: bool = True
    all_trec: bool = True


class Measure:
    """Base class of every measure; subclasses declare themselves with class attributes.

    Attributes
    ----------
    name, aliases : str, tuple of str
        Canonical name (ir_measures style) and other accepted names.
    pretty_name, description, latex : str
        For people: a title, a one-line description, the formula in LaTeX.
    higher_is_better : bool
    params : tuple of Param
        ``cutoff`` is written after ``@``.
    aggregation : {"mean", "sum", "gmean", "median"}
        How per-query values combine into the system's value (trec_eval: ``num_*`` sum; ``gm_*`` geometric
        mean with values floored at 1e-5, computed as the exp of the mean of the per-query logs); "median"
        the median of the per-query values.
    bounds : tuple
        (low, high) of a per-query value; None where unbounded.
    perfect : float or None
        The value, on every topic with a relevant document, of a perfect ranking: every judged document
        retrieved, the relevant ones first by grade (best first). None where it depends on the collection
        (P@k with fewer than k relevant documents, DCG, counts). The contract tests read it.
    integer : bool
        Counts: printed as integers.
    trec : tuple of Trec
        trec_eval's names for this measure (empty: not a trec_eval measure).
    at : str
        The parameter ``@`` sets: ``cutoff`` (``P@5``), or another (ir_measures' ``IPrec@0.5`` is a recall).
    ir_measures : tuple of str
        How ir_measures spells this measure, one example per spelling (``("P@5", "SetP")``); empty where
        ir_measures has no such measure. The measures page's table of names and the oracle tests read them.
    ir_measures_differs : dict
        Spelling -> how ir_measures' values for it differ from this measure's, in one sentence; a spelling
        not in it gives equal values (the oracle tests check both).
    """

    name: ClassVar[str]
    aliases: ClassVar[tuple[str, ...]] = ()
    pretty_name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    latex: ClassVar[str] = ""
    higher_is_better: ClassVar[bool] = True
    params: ClassVar[tuple[Param, ...]] = ()
    aggregation: ClassVar[str] = "mean"
    bounds: ClassVar[tuple[float | None, float | None]] = (0.0, 1.0)
    perfect: ClassVar[float | None] = None
    integer: ClassVar[bool] = False
    trec: ClassVar[tuple[Trec, ...]] = ()
    at: ClassVar[str] = "cutoff"
    ir_measures: ClassVar[tuple[str, ...]] = ()
    ir_measures_differs: ClassVar[dict[str, str]] = {}

    def __init__(self, **values: Any) -> None:
        known = {p.name: p for p in self.params}
        unknown = set(values) - set(known)
        if unknown:
            raise UnknownMeasureError(f"{self.name}: unknown parameter(s) {sorted(unknown)}; "
                                      f"known: {sorted(known) or 'none'}")
        resolved = {n: p.validate(values.get(n, p.default), self.name) for n, p in known.items()}
        object.__setattr__(self, "_values", resolved)
        self._check()

    def _check(self) -> None:
        """Hook for cross-parameter validation."""

    # ---- values -------------------------------------------------------------------------------------
    def __getattr__(self, item: str) -> Any:
        values = self.__dict__.get("_values", {})
        if item in values:
            return values[item]
        raise AttributeError(f"{type(self).__name__} has no attribute {item!r}")

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError("measures are immutable; use m(param=value) for a variant")

    @property
    def values(self) -> dict[str, Any]:
        """All parameter values, defaults included."""
        return dict(self._values)

    def _key(self) -> tuple:
        defaults = {p.name: p.default for p in self.params}
        return (type(self).name, tuple(sorted((k, v) for k, v in self._values.items() if v != defaults[k])))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Measure) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __call__(self, **values: Any) -> "Measure":
        return type(self)(**{**self._values, **values})

    def __matmul__(self, cutoff: Any) -> "Measure":
        return self(cutoff=cutoff)

    def __str__(self) -> str:
        name, items = self._key()
        cutoff = dict(items).get("cutoff")
        args = ",".join(f"{k}={_literal(v)}" for k, v in items if k != "cutoff")
        text = f"{name}({args})" if args else name
        return f"{text}@{_literal(cutoff)}" if cutoff is not None else text

    __repr__ = __str__

    # ---- trec_eval naming -----------------------------------------------------------------------------
    def trec_label(self) -> str | None:
        """The name trec_eval prints for this measure (``P_5``), or None if trec_eval has no such measure."""
        spelling = self.trec_spelling()
        if spelling is None:
            return None
        if spelling.param is None:
            return spelling.name
        return f"{spelling.name}_{spelling.fmt.format(self._values[spelling.param])}"

    def trec_spelling(self) -> Trec | None:
        """The trec_eval spelling that names this measure exactly, if any."""
        changed = {k for k, _ in self._key()[1]}
        for spelling in self.trec:
            if spelling.param is None and not changed:
                return spelling
            if spelling.param is not None and changed == {spelling.param}:
                return spelling
        return None

    # ---- computation --------------------------------------------------------------------------------
    def compute(self, rankings) -> np.ndarray:  # pragma: no cover - abstract
        """One value per query of ``rankings`` (a float64 array)."""
        raise NotImplementedError

    def aggregate(self, values: np.ndarray) -> float:
        """Combine per-query values (all evaluated queries) into one number, by trec_eval's rule."""
        values = np.asarray(values, dtype=np.float64)
        if self.aggregation == "sum":
            return float(values.sum())
        if not len(values):
            return 0.0
        if self.aggregation == "median":
            return float(np.median(values))
        if self.aggregation == "gmean":
            return float(np.exp(np.mean(np.log(np.maximum(values, 1e-5)))))
        return float(values.mean())

    def summary(self, rankings, values: np.ndarray) -> float:
        """The summary of one ranked run as trec_eval prints it (its ``all`` line) from its per-query ``values``.

        :meth:`aggregate`'s rule, with the means summed as trec_eval sums them: one value after the other,
        in the order of the queries (numpy's pairwise sum rounds differently, enough to change a printed
        fourth decimal now and then). A measure whose trec_eval summary reads more than those values
        overrides this.
        """
        values = np.asarray(values, dtype=np.float64)
        if self.aggregation not in ("mean", "gmean") or not len(values) or type(self).aggregate is not Measure.aggregate:
            return self.aggregate(values)
        if self.aggregation == "gmean":
            return float(np.exp(_running_sum(np.log(np.maximum(values, 1e-5))) / len(values)))
        return float(_running_sum(values) / len(values))

    @classmethod
    def describe(cls) -> dict[str, Any]:
        """The declaration as plain data (for ``rankscope measures`` and the dashboard)."""
        return {
            "name": cls.name, "aliases": list(cls.aliases), "trec_eval": [t.name for t in cls.trec],
            "pretty_name": cls.pretty_name, "description": cls.description, "latex": cls.latex,
            "higher_is_better": cls.higher_is_better, "aggregation": cls.aggregation,
            "params": [{"name": p.name, "type": p.type.__name__, "default": p.default, "help": p.help,
                        "min": p.min, "max": p.max, "choices": list(p.choices) if p.choices else None}
                       for p in cls.params],
        }


def _running_sum(values: np.ndarray) -> float:
    """The sum of ``values`` added one after the other, in order."""
    return float(np.cumsum(values)[-1]) if len(values) else 0.0


def _literal(value: Any) -> str:
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, float):
        return repr(value)
    return str(value)


def register(cls: type[Measure]) -> type[Measure]:
    """Class decorator: check a measure's declaration and add it to the registry."""
    for attr in ("name", "pretty_name", "description", "latex"):
        if not getattr(cls, attr, ""):
            raise TypeError(f"{cls.__name__} must declare {attr!r}")
    if not cls.__doc__:
        raise TypeError(f"{cls.__name__} must have a docstring")
    if cls.aggregation not in ("mean", "sum", "gmean", "median"):
        raise TypeError(f"{cls.__name__}: aggregation must be mean, sum, gmean or median")
    names = [p.name for p in cls.params]
    if len(set(names)) != len(names):
        raise TypeError(f"{cls.__name__}: duplicate parameter names")
    for spelling in cls.trec:
        if spelling.param is not None and spelling.param not in names:
            raise TypeError(f"{cls.__name__}: trec parameter {spelling.param!r} is not a parameter")
    if set(cls.ir_measures_differs) - set(cls.ir_measures):
        raise TypeError(f"{cls.__name__}: ir_measures_differs names a spelling ir_measures does not list")
    if cls.at not in names and cls.at != "cutoff":
        raise TypeError(f"{cls.__name__}: at={cls.at!r} is not a parameter")
    for key in (cls.name, *cls.aliases):
        if key in REGISTRY and REGISTRY[key] is not cls:
            raise TypeError(f"measure name {key!r} of {cls.__name__} is already taken by {REGISTRY[key].__name__}")
        REGISTRY[key] = cls
    MEASURE_CLASSES.append(cls)
    return cls


def list_measures() -> list[type[Measure]]:
    """Every registered measure class, in registration order."""
    _load_all()
    return list(MEASURE_CLASSES)


def _load_all() -> None:
    import metrics.measures  # noqa: F401  (importing the package registers every measure)
