"""The provenance card of a number: every choice that made it, in one line and as a record.

A mean of nDCG@10 is a different number under another relevance level, depth, gain, tie rule or set of
topics. :class:`Provenance` gathers those choices: the :class:`~metrics.conventions.Conventions`, the
gain, discount and ideal ranking of the gain-based measures (:mod:`metrics.gains`), the tie rule, the
interpolation rule, the paired test with its correction and family, and the number of topics in each
mean. Every output carries it: ``compact()`` is the line under a table or in a file's header,
``as_dict()`` the record in a JSON document.

Examples
--------
>>> from metrics import Conventions, resolve_measures
>>> card = build_provenance(Conventions(depth=1000), resolve_measures(["nDCG(gain=\\"exp\\")@10"]),
...                         topics={"nDCG(gain=\\"exp\\")@10": 50})
>>> for part in card.compact().split(" · "):
...     print(part)
trec_eval-9
rel ≥ 1
-M 1000
gain exp
discount log2
ideal judged
ties docid
interp trec_eval-9
topics 50
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from metrics.checks import Options, checked
from metrics.conventions import Conventions

if TYPE_CHECKING:  # pandas is not loaded for a card alone (``rankscope eval`` runs without it)
    import pandas as pd

__all__ = ["Provenance", "TIE_RULES", "build_provenance", "provenance_of", "topic_counts"]

TIE_RULES = {"docid": "equal scores ordered by document id, descending (trec_eval)",
             "range": "equal scores give the range of values over every order of the tie"}
"""How documents of equal score are ordered: trec_eval's document-id rule, or the tie-range mode."""


@dataclass(frozen=True)
class Provenance:
    """The choices behind a set of numbers (build it with :func:`build_provenance`).

    Attributes
    ----------
    conventions : Conventions
    gain, discount, ideal : tuple of str
        The choices of :mod:`metrics.gains` among the gain-based measures asked, each once, in order
        (empty when no such measure was asked).
    ties : str
        A name of :data:`TIE_RULES`.
    test, correction, family : str or None
        The paired test, its multiple-comparison correction and family (None when nothing was tested).
    topics : tuple of (str, int) pairs
        ``(measure, topics)``: how many topics each mean is over (the most over the systems).
    """

    conventions: Conventions
    gain: tuple[str, ...] = ()
    discount: tuple[str, ...] = ()
    ideal: tuple[str, ...] = ()
    ties: str = "docid"
    test: str | None = None
    correction: str | None = None
    family: str | None = None
    topics: tuple[tuple[str, int], ...] = field(default=())

    def compact(self) -> str:
        """One line of text, e.g. ``trec_eval-9 · rel ≥ 1 · gain linear · ... · topics 50``."""
        c = self.conventions
        parts = [c.preset, f"rel ≥ {c.relevance_level}"]
        if c.depth is not None:
            parts.append(f"-M {c.depth}")
        if c.judged_only:
            parts.append("judged only (-J)")
        if c.complete:
            parts.append("complete topics (-c)")
        for name in ("gain", "discount", "ideal"):
            if getattr(self, name):
                parts.append(f"{name} {'/'.join(getattr(self, name))}")
        parts += [f"ties {self.ties}", f"interp {c.interpolation}"]
        if self.test is not None:
            parts.append(self._tested())
        counts = sorted({n for _, n in self.topics})
        if counts:
            parts.append(f"topics {counts[0]}" if len(counts) == 1 else f"topics {counts[0]}–{counts[-1]}")
        return " · ".join(parts)

    def _tested(self) -> str:
        """``test t, holm per measure``: the test, and its correction as its declaration says."""
        from metrics.stats.significance import CORRECTION_REGISTRY, TEST_REGISTRY

        tested = f"test {self.test}"
        if TEST_REGISTRY.get(self.test).adjusts_itself:
            return tested + " (adjusted for all pairs)"
        if self.correction is None:
            return tested
        if not CORRECTION_REGISTRY.get(self.correction).corrects:
            return tested + ", uncorrected"
        return tested + f", {self.correction}" + {"per_measure": " per measure", "all": " over all measures"}.get(
            self.family or "", "")

    def as_dict(self) -> dict[str, Any]:
        """The card as plain JSON-ready data."""
        return {"conventions": self.conventions.as_dict(), "gain": list(self.gain), "discount": list(self.discount),
                "ideal": list(self.ideal), "ties": self.ties, "test": self.test, "correction": self.correction,
                "family": self.family, "topics": dict(self.topics), "compact": self.compact()}


def topic_counts(per_query: pd.DataFrame) -> dict[str, int]:
    """How many topics each measure's mean is over: per measure, the most topics of any system.

    Parameters
    ----------
    per_query : pandas.DataFrame
        Tidy per-query values (system, query, measure, value); rows of query ``"all"`` are ignored.

    Returns
    -------
    dict
        ``{measure: topics}``, in order of appearance.
    """
    rows = per_query[per_query["query"].astype(str) != "all"]
    counts = rows.groupby(["measure", "system"], sort=False)["query"].nunique().groupby(level=0, sort=False).max()
    return {str(m): int(n) for m, n in counts.items()}


def _choices(measures: Sequence[tuple[str, Any]], name: str) -> tuple[str, ...]:
    found = [getattr(m, name) for _, m in measures if any(p.name == "gain" for p in getattr(m, "params", ()))]
    return tuple(dict.fromkeys(str(v) for v in found))


@checked(ties=Options(*TIE_RULES))
def build_provenance(conventions: Conventions | None, measures: Sequence[tuple[str, Any]] = (), *,
                     topics: Mapping[str, int] | None = None, ties: str = "docid", test: str | None = None,
                     correction: str | None = None, family: str | None = None) -> Provenance:
    """The provenance card of numbers evaluated under ``conventions`` with ``measures``.

    Parameters
    ----------
    conventions : Conventions or None
        None for ``Conventions()``.
    measures : sequence of (str, Measure)
        The resolved measures (:func:`metrics.resolve_measures`); the gain-based ones give the gain,
        discount and ideal choices.
    topics : mapping of str to int, optional
        ``{measure: topics in its mean}`` (:func:`topic_counts`).
    ties : str, default="docid"
        A name of :data:`TIE_RULES`.
    test, correction, family : str, optional
        The paired test's settings, when numbers were tested.

    Returns
    -------
    Provenance

    Raises
    ------
    ValidationError
        An unknown tie rule.
    """
    return Provenance(conventions=Conventions.coerce(conventions), gain=_choices(measures, "gain"),
                      discount=_choices(measures, "discount"), ideal=_choices(measures, "ideal"), ties=ties,
                      test=test, correction=correction if test is not None else None,
                      family=family if test is not None else None,
                      topics=tuple((str(k), int(v)) for k, v in (topics or {}).items()))


def provenance_of(per_query: pd.DataFrame, conventions: Conventions | None, measures: Any,
                  settings: Mapping[str, Any] | None = None, *, ties: str = "docid") -> Provenance:
    """The card of a per-query table in one call (what a dashboard page shows under its numbers).

    Parameters
    ----------
    per_query : pandas.DataFrame
        Tidy per-query values (system, query, measure, value) evaluated under ``conventions``.
    conventions : Conventions or None
    measures : str, Measure or a sequence of them
        As for :func:`metrics.evaluate`.
    settings : mapping, optional
        The paired tests' ``test``, ``correction`` and ``family`` (omit when nothing was tested).
    ties : str, default="docid"
        A name of :data:`TIE_RULES`.

    Returns
    -------
    Provenance
    """
    from metrics.evaluate import resolve_measures

    settings = dict(settings or {})
    return build_provenance(conventions, resolve_measures(measures), topics=topic_counts(per_query), ties=ties,
                            test=settings.get("test"), correction=settings.get("correction"),
                            family=settings.get("family"))
