"""Evaluation conventions: every choice that changes a number, named, documented and decided in one place.

trec_eval's command-line flags and the differences between its versions become fields of one frozen
:class:`Conventions` object. Three presets bundle the choices that travel together:

``trec_eval-9`` (default)
    What trec_eval 9.x, and so pytrec_eval, ir_measures and PyTerrier, compute: scores are stored as
    32-bit floats before ranking (near-equal scores collapse into ties), and the interpolated precision at
    recall level ``r`` is read at ``(long)(r * R + 0.9)`` relevant documents.
``trec_eval-10``
    trec_eval 10.0: scores kept as 64-bit floats, and the cut-off ``lround(r * R)``.
``textbook``
    64-bit scores; interpolated precision at recall ``r`` is the maximum precision at any rank whose recall
    is at least ``r`` (Manning, Raghavan & Schütze, ch. 8), computed without rounding the level.

Ties between equal scores are always broken by document id, descending, compared byte-wise (trec_eval's
rule); the rank column of a run file is ignored.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

from metrics.checks import Boolean, Field, Integer, Object, Options, Rule, check, refuse

__all__ = ["Conventions", "DEPTHS", "FIELDS", "INTERPOLATIONS", "PRESETS", "RELEVANCE_LEVELS", "RULES",
           "TREC_EVAL_VERSIONS"]

RELEVANCE_LEVELS = (-1000, 1000)
"""The smallest and largest ``relevance_level`` (trec_eval ``-l``): negative grades are legal in qrels, so
negative levels are too."""
DEPTHS = (1, 1_000_000_000)
"""The smallest and largest ``depth`` (trec_eval ``-M``); None, for every document, is always allowed."""

INTERPOLATIONS = ("trec_eval-9", "trec_eval-10", "textbook")
PRESETS: dict[str, dict[str, Any]] = {
    "trec_eval-9": {"score_dtype": "float32", "interpolation": "trec_eval-9"},
    "trec_eval-10": {"score_dtype": "float64", "interpolation": "trec_eval-10"},
    "textbook": {"score_dtype": "float64", "interpolation": "textbook"},
}
TREC_EVAL_VERSIONS: dict[str, int] = {"trec_eval-9": 9, "trec_eval-10": 10}
"""The presets that reproduce a trec_eval release, and its major version (``rankscope eval --compat``)."""

RULES: dict[str, Rule] = {
    "preset": Options(*PRESETS), "relevance_level": Integer(*RELEVANCE_LEVELS), "depth": Integer(*DEPTHS, none=True),
    "judged_only": Boolean(), "complete": Boolean(), "score_dtype": Options("float32", "float64", none=True),
    "interpolation": Options(*INTERPOLATIONS, none=True),
}
"""What each field of :class:`Conventions` takes (:mod:`metrics.checks`), declared once: the constructor, the
files that state conventions (:data:`FIELDS`) and the command line's flags all read it."""
FIELDS = Object({name: Field(rule, required=False) for name, rule in RULES.items()},
                what="a mapping of conventions (" + ", ".join(RULES) + ")")
"""Conventions as a document states them (a session file, an expectations file): any of the fields."""


@dataclass(frozen=True)
class Conventions:
    """The conventions of one evaluation.

    Parameters
    ----------
    preset : {"trec_eval-9", "trec_eval-10", "textbook"}, default="trec_eval-9"
        Sets ``score_dtype`` and ``interpolation`` unless they are given explicitly.
    relevance_level : int, default=1
        Minimum grade for a document to count as relevant in binary measures (trec_eval ``-l``). nDCG
        ignores it, as in trec_eval: it uses the grades as gains. From -1000 to 1000 (``RELEVANCE_LEVELS``).
    depth : int or None, default=None
        Evaluate only the top ``depth`` documents of each ranking (trec_eval ``-M``); None keeps all. From 1
        to 10**9 (``DEPTHS``).
    judged_only : bool, default=False
        Drop retrieved documents that have no judgment before evaluating (trec_eval ``-J``); the
        remaining documents keep their order.
    complete : bool, default=False
        Queries of the qrels that a run does not answer count, with an empty ranking, in the per-query
        table and the mean (trec_eval ``-c``). Without it they are left out.
    score_dtype : {"float32", "float64"}, optional
        Precision scores are stored in before ranking (default from the preset).
    interpolation : {"trec_eval-9", "trec_eval-10", "textbook"}, optional
        The recall-level rule of interpolated precision (default from the preset).
    """

    preset: str = "trec_eval-9"
    relevance_level: int = 1
    depth: int | None = None
    judged_only: bool = False
    complete: bool = False
    score_dtype: str | None = None
    interpolation: str | None = None

    def __post_init__(self) -> None:
        check("preset", self.preset, RULES["preset"])
        defaults = PRESETS[self.preset]
        if self.score_dtype is None:
            object.__setattr__(self, "score_dtype", defaults["score_dtype"])
        if self.interpolation is None:
            object.__setattr__(self, "interpolation", defaults["interpolation"])
        for name, rule in RULES.items():
            object.__setattr__(self, name, check(name, getattr(self, name), rule))

    @classmethod
    def coerce(cls, conventions: "Conventions | None" = None, **options: Any) -> "Conventions":
        """Build conventions from an object and/or keyword options (unknown options raise)."""
        unknown = sorted(set(options) - set(RULES))
        if unknown:
            raise refuse(unknown[0], f"a convention ({', '.join(RULES)})", options[unknown[0]])
        if conventions is None:
            return cls(**options)
        if not isinstance(conventions, cls):
            raise refuse("conventions", "a Conventions object", conventions)
        return replace(conventions, **options) if options else conventions

    def as_dict(self) -> dict[str, Any]:
        """The conventions as a plain dict (for manifests and JSON)."""
        return asdict(self)

    def describe(self) -> str:
        """A one-line human-readable summary, e.g. for a sidebar."""
        parts = [self.preset, f"relevant: grade >= {self.relevance_level}"]
        if self.depth:
            parts.append(f"depth {self.depth}")
        if self.judged_only:
            parts.append("judged only")
        if self.complete:
            parts.append("complete topics")
        return ", ".join(parts)

