"""Measures as functions of relevance not judged yet: expectations, the weight of each document, exact values.

The model (Carterette, Allan and Sitaraman, SIGIR 2006): each document not judged is relevant with a prior
probability ``p``, independently of every other; a judged document is as judged. A ranking's value on a
topic is then a polynomial in the unknown relevances ``x`` (0 or 1), of degree one for P@k and nDCG@k and
two for AP, divided by a normaliser that does not depend on the ranking (AP's number of relevant documents,
nDCG's ideal DCG). The normaliser is replaced by its expectation (as the paper does for AP), so that the
difference of two rankings is a polynomial whose expectation and variance are exact:

* AP (to a cutoff ``k``, or the depth): ``R * AP = sum_n x_n / n * (x_n + sum_{m<n} x_m)``; normaliser
  ``E[R]``, the judged relevant documents (retrieved or not) plus ``p`` times the candidates not judged.
* P@k: ``sum_{n<=k} x_n / k``; no normaliser.
* nDCG@k: ``sum_{n<=k} g_n / log2(n + 1)``, ``g`` the grade of a judged document (trec_eval's linear gain)
  and ``G x`` of one not judged (``G`` the grade an unjudged relevant document is given); normaliser
  ``E[IDCG@k]`` over the binomial number of unjudged relevant documents.

For a ranking, :meth:`Model.expected` gives the expectation and each position's *weight*: how much the
expectation moves when that document is relevant rather than not, every other document at its expected
relevance (for AP, ``(1 + sum_{m<n} E x_m) / n + sum_{m>n} E x_m / m``). With ``y = x - E x``, a difference
of rankings minus its expectation is ``sum_i w_i y_i + sum_{i<j} b_ij y_i y_j`` (``b`` AP's ``1 / max(rank)``
differences), whose terms are uncorrelated: its variance is ``sum_i w_i^2 v_i + sum_{i<j} b_ij^2 v_i v_j``,
``v = p (1 - p)``. :meth:`Model.values` evaluates rankings directly for every assignment of relevance, for the
exact distribution of small cases.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from metrics.errors import ValidationError
from metrics.measures import parse_measure

__all__ = ["MODELS", "Model", "model_of", "segmented_cumsum"]


def segmented_cumsum(values: np.ndarray, first: np.ndarray) -> np.ndarray:
    """Inclusive cumulative sums of ``values`` restarting wherever ``first`` is True.

    Examples
    --------
    >>> segmented_cumsum(np.array([1., 2., 3., 4.]), np.array([True, False, True, False])).tolist()
    [1.0, 3.0, 3.0, 7.0]
    """
    total = np.cumsum(values)
    if not len(total):
        return total
    starts = np.flatnonzero(first)
    before = np.concatenate(([0.0], total))[starts]
    return total - np.repeat(before, np.diff(np.append(starts, len(values))))


@dataclass(frozen=True)
class Model:
    """How a measure depends on relevance not judged yet.

    Attributes
    ----------
    measure : str
        The measure as given (``"AP"``, ``"P@10"``, ``"nDCG@10"``).
    cutoff : int or None
        The measure's own cutoff ``k`` (P@k divides by it, nDCG@k's ideal ranking stops there).
    reach : int or None
        The last rank that counts: the cutoff or the depth the runs were read to, whichever is smaller
        (None: every rank).
    level : int
        The lowest grade that counts as relevant.
    unjudged_grade : int
        The grade (gain) an unjudged relevant document is given by nDCG.
    """

    measure: str
    cutoff: int | None
    reach: int | None
    level: int
    unjudged_grade: int = 1

    quadratic = False
    normaliser = ""

    def judged_value(self, grades: np.ndarray) -> np.ndarray:
        """The value a judged document brings (binary relevance; nDCG's gain)."""
        return (grades >= max(self.level, 0)).astype(np.float64)

    def unjudged_value(self) -> float:
        """The value an unjudged document brings when relevant."""
        return 1.0

    def expected(self, x: np.ndarray, rank: np.ndarray, first: np.ndarray, seg: np.ndarray,
                 n_segments: int) -> tuple[np.ndarray, np.ndarray]:
        """Per segment (one ranking of one topic), the expected value; per position, its weight.

        ``x`` is each position's expected value (judged: :meth:`judged_value`; not: ``p`` times
        :meth:`unjudged_value`), ``rank`` its 1-based rank, ``first`` True at each ranking's first
        position and ``seg`` each position's segment.
        """
        raise NotImplementedError

    def expected_normaliser(self, relevant: int, grades: dict[int, int], unjudged: int, prior: float) -> float:
        """The expectation of the normaliser of a topic: ``relevant`` judged relevant documents, ``grades``
        the judged documents per grade, ``unjudged`` candidates not judged."""
        return 1.0

    def values(self, x: np.ndarray) -> np.ndarray:
        """The value (before the normaliser) of rankings given as rows of per-rank values ``x``."""
        raise NotImplementedError


class AveragePrecision(Model):
    quadratic = True
    normaliser = "the number of relevant documents R"

    def expected(self, x, rank, first, seg, n_segments):
        before = segmented_cumsum(x, first) - x
        e = np.bincount(seg, weights=(x + x * before) / rank, minlength=n_segments)
        share = x / rank
        total = np.bincount(seg, weights=share, minlength=n_segments)
        after = total[seg] - segmented_cumsum(share, first)  # sum over the ranks below of E x / rank
        return e, (1.0 + before) / rank + after

    def expected_normaliser(self, relevant, grades, unjudged, prior):
        return relevant + prior * unjudged

    def values(self, x):
        return (x * np.cumsum(x, axis=1) / np.arange(1, x.shape[1] + 1)).sum(axis=1)


class Precision(Model):
    normaliser = ""

    def expected(self, x, rank, first, seg, n_segments):
        return np.bincount(seg, weights=x / self.cutoff, minlength=n_segments), np.full(len(x), 1.0 / self.cutoff)

    def values(self, x):
        return x.sum(axis=1) / self.cutoff


class NDCG(Model):
    normaliser = "the ideal DCG"

    def judged_value(self, grades):
        return np.maximum(grades, 0).astype(np.float64)

    def unjudged_value(self):
        return float(self.unjudged_grade)

    def expected(self, x, rank, first, seg, n_segments):
        discount = 1.0 / np.log2(rank + 1.0)
        return np.bincount(seg, weights=x * discount, minlength=n_segments), self.unjudged_value() * discount

    def expected_normaliser(self, relevant, grades, unjudged, prior):
        from scipy.stats import binom

        k = self.cutoff
        gains = np.sort(np.repeat(np.array(list(grades), dtype=np.float64), list(grades.values())))[::-1]
        gains = np.maximum(gains[:k], 0.0)
        discount = 1.0 / np.log2(np.arange(2, k + 2))
        most = min(unjudged, k)
        ideal = np.empty(most + 1)
        for m in range(most + 1):  # m unjudged relevant documents join the judged ones
            merged = np.sort(np.concatenate((gains, np.full(m, self.unjudged_value()))))[::-1][:k]
            ideal[m] = float(merged @ discount[:len(merged)])
        chance = binom.pmf(np.arange(most + 1), unjudged, prior)
        chance[-1] += binom.sf(most, unjudged, prior)  # more than k: the same ideal as k
        return float(chance @ ideal)

    def values(self, x):
        return x @ (1.0 / np.log2(np.arange(2, x.shape[1] + 2)))


MODELS: dict[str, type[Model]] = {"AP": AveragePrecision, "P": Precision, "nDCG": NDCG}
"""The measures a decision can be for, by registry name."""


def model_of(measure: str, level: int, depth: int | None, unjudged_grade: int = 1) -> Model:
    """The model of a measure given by name (``"AP"``, ``"AP@100"``, ``"P@10"``, ``"nDCG@10"``).

    Raises
    ------
    ValidationError
        A measure the decision cannot model, a parameter other than the cutoff, P without a cutoff.
    """
    parsed = parse_measure(measure)
    name = type(parsed).name
    if name not in MODELS:
        raise ValidationError(f"a decision can be made for {', '.join(MODELS)} (with a cutoff @k), not {measure}")
    defaults = type(parsed)().values
    other = {k: v for k, v in parsed.values.items() if k != "cutoff" and v != defaults.get(k)}
    if other:
        raise ValidationError(f"a decision takes {name} with a cutoff only, found {measure}")
    cutoff = parsed.values.get("cutoff")
    if name != "AP" and cutoff is None:
        raise ValidationError(f"a decision for {name} needs a cutoff: {name}@k")
    reach = cutoff if depth is None else depth if cutoff is None else min(cutoff, depth)
    return MODELS[name](measure=str(parsed), cutoff=cutoff, reach=reach, level=level, unjudged_grade=unjudged_grade)
