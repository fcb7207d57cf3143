"""Cautions on a comparison: plain sentences on what its numbers do not say, never blocking.

Named ``cautions`` rather than ``warnings`` so as not to shadow the standard library's module.
:func:`comparison_cautions` reads the settings and results of a comparison and returns one
:class:`Caution` per concern, each a stable ``code`` and a sentence:

``parametric-ordinal``
    A mean of RR (an ordinal scale: ranks 1, 2, 3 are not equally spaced as 1, 1/2, 1/3; Fuhr, SIGIR Forum
    2017; Ferrante, Ferro and Fuhr, 2021) or of AP (MAP) compared with a test that assumes an interval
    scale (the t-test, Tukey's HSD). Of the other tests only the sign test reads no more than the order of
    the values: Wilcoxon's signed-rank test ranks the sizes of the differences (an interval assumption, as
    Ferrante, Ferro and Fuhr note) and the permutation test tests the mean difference.
``ndcg-gain-unstated``
    nDCG shown where its gain is not (a results table without its provenance card): linear (trec_eval's)
    and 2^g − 1 gains give different values.
``relative-without-effect-size``
    A relative improvement (+x %) shown without an effect size.
``uncorrected``
    Several pairs or measures tested without a multiple-comparison correction (Tukey's HSD is adjusted for
    all pairs by construction).
``many-topics``
    More than :data:`MANY_TOPICS` topics: almost any difference is significant; the effect size and its
    interval should lead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["CAUTION_CODES", "Caution", "MANY_TOPICS", "PARAMETRIC_TESTS", "comparison_cautions"]

MANY_TOPICS = 1000
"""Above this many topics a p-value says little: tiny differences are significant."""

PARAMETRIC_TESTS = ("t", "tukey")
"""The tests that treat per-topic values as an interval scale (means and variances)."""

CAUTION_CODES = ("many-topics", "ndcg-gain-unstated", "parametric-ordinal", "relative-without-effect-size",
                 "uncorrected")
"""Every code :func:`comparison_cautions` can give."""

_ORDINAL = {"RR": "RR is an ordinal scale (the steps from rank 1 to 2 to 3 are 1/2, then 1/6)",
            "AP": "AP (MAP) is not an interval scale"}


@dataclass(frozen=True)
class Caution:
    """One caution: a stable code and a sentence for a person.

    Attributes
    ----------
    code : str
        One of :data:`CAUTION_CODES`.
    sentence : str
    """

    code: str
    sentence: str

    def as_dict(self) -> dict[str, str]:
        """``{"code": ..., "sentence": ...}``."""
        return {"code": self.code, "sentence": self.sentence}


def comparison_cautions(measures: Sequence[tuple[str, Any]], *, test: str | None = None,
                        correction: str | None = None, tests: int = 0, topics: int = 0,
                        relative_shown: bool = False, effect_size_shown: bool = True,
                        gain_stated: bool = False) -> list[Caution]:
    """The cautions a comparison deserves, in the order of :data:`CAUTION_CODES`.

    Parameters
    ----------
    measures : sequence of (str, Measure)
        The measures reported, as :func:`metrics.resolve_measures` returns them.
    test : str, optional
        The paired test's canonical name (None: nothing was tested).
    correction : str, optional
        The multiple-comparison correction (``"none"``: p-values as they are).
    tests : int, default=0
        How many p-values were computed (pairs times measures tested).
    topics : int, default=0
        The most topics any mean is over.
    relative_shown : bool, default=False
        Whether relative improvements (+x %) are shown.
    effect_size_shown : bool, default=True
        Whether an effect size (Cohen's d_z, rank-biserial) is shown beside them.
    gain_stated : bool, default=False
        Whether the output names the gain of nDCG beside its values (its provenance card, a caption).

    Returns
    -------
    list of Caution
        Empty for a comparison with nothing to caution about.

    Examples
    --------
    >>> from metrics import resolve_measures
    >>> [c.code for c in comparison_cautions(resolve_measures(["RR", "P@10"]), test="t", correction="holm",
    ...                                      tests=2, topics=50, gain_stated=True)]
    ['parametric-ordinal']
    """
    found: list[Caution] = []
    if topics > MANY_TOPICS:
        found.append(Caution("many-topics", f"With {topics} topics almost any difference is significant: read "
                                            "the effect size and its confidence interval before the p-value."))
    unstated = [] if gain_stated else [label for label, m in measures if getattr(m, "name", "") == "nDCG"]
    if unstated:
        gains = sorted({str(getattr(m, "gain", "linear")) for label, m in measures if label in unstated})
        found.append(Caution("ndcg-gain-unstated", f"{', '.join(unstated)} is reported without its gain "
                                                   f"({'/'.join(gains)} here): state it, as linear and 2^g - 1 "
                                                   "gains give different values."))
    if test in PARAMETRIC_TESTS:
        ordinal = [(label, _ORDINAL[m.name]) for label, m in measures if getattr(m, "name", "") in _ORDINAL]
        if ordinal:
            named = ", ".join(label for label, _ in ordinal)
            why = "; ".join(dict.fromkeys(reason for _, reason in ordinal))
            found.append(Caution("parametric-ordinal", f"The mean of {named} is compared with a parametric test "
                                                       f"({test}): {why}; of the other tests only the sign test "
                                                       "needs no more than the order of the values (Wilcoxon's "
                                                       "ranks the sizes of the differences, which assumes an "
                                                       "interval scale, and the permutation test tests the mean "
                                                       "difference)."))
    if relative_shown and not effect_size_shown:
        found.append(Caution("relative-without-effect-size", "A relative improvement is shown without an effect "
                                                             "size: a large percentage of a small mean can be "
                                                             "noise; show Cohen's d_z or an interval."))
    if test not in (None, "tukey") and correction == "none" and tests > 1:  # Tukey's HSD adjusts by construction
        found.append(Caution("uncorrected", f"{tests} tests are made without a multiple-comparison correction: "
                                            "some will be significant by chance; use holm or bh."))
    return found
