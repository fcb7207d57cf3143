"""Set utility (trec_eval utility): a weighted sum of the retrieved/relevant contingency table."""

from __future__ import annotations

import numpy as np

from metrics.measures.base import Measure, Param, Trec, register

COEFFICIENTS = ("a", "b", "c", "d")


@register
class Utility(Measure):
    """Set utility: a linear score of the contingency table of retrieved and relevant documents.

    Notes
    -----
    trec_eval: ``utility`` with its default coefficients 1, -1, 0, 0 (one point per relevant document
    retrieved, minus one per non-relevant document retrieved); other coefficients are printed
    ``utility_2,-1,0,0`` (trec_eval ``-m utility.2,-1,0,0``). The table counts, per query,

    ============  ========  ============
    \\             relevant  non-relevant
    ============  ========  ============
    retrieved     A         B
    not retrieved C         D
    ============  ========  ============

    with D = N - A - B - C for a collection of N documents (``num_docs``, trec_eval ``-N``, default 0: set
    it whenever ``d`` is not 0). Documents without a judgment count as non-relevant. The value is not
    normalised (it grows with the ranking's length) and is averaged over queries, as in trec_eval.

    .. math:: U = aA + bB + cC + dD
    """

    name = "Utility"
    pretty_name = "Set utility"
    description = "a * relevant retrieved + b * non-relevant retrieved + c * relevant missed + d * the rest."
    latex = r"U = a\,|\mathrm{Rel}\cap\mathrm{Ret}| + b\,|\overline{\mathrm{Rel}}\cap\mathrm{Ret}| + " \
            r"c\,|\mathrm{Rel}\cap\overline{\mathrm{Ret}}| + d\,|\overline{\mathrm{Rel}}\cap\overline{\mathrm{Ret}}|"
    bounds = (None, None)
    params = (Param("a", float, default=1.0, help="worth of each relevant document retrieved"),
              Param("b", float, default=-1.0, help="worth of each non-relevant document retrieved"),
              Param("c", float, default=0.0, help="worth of each relevant document not retrieved"),
              Param("d", float, default=0.0, help="worth of each non-relevant document not retrieved"),
              Param("num_docs", int, default=0, min=0, help="documents in the collection (trec_eval -N)"),
              Param("rel", int, default=None, help="minimum grade counted as relevant"))
    trec = (Trec("utility", order=16),)

    @classmethod
    def from_trec_params(cls, text: str) -> "Utility":
        """``-m utility.2,-1,0,0``: the four coefficients a, b, c, d."""
        parts = text.split(",")
        try:
            values = [float(v) for v in parts]
        except ValueError:
            values = []
        if len(values) != 4:
            from metrics.errors import UnknownMeasureError
            raise UnknownMeasureError(f"utility: expected four coefficients like 2,-1,0,0, found {text!r}")
        return cls(**dict(zip(COEFFICIENTS, values)))

    def trec_spelling(self) -> Trec | None:
        return self.trec[0] if {k for k, _ in self._key()[1]} <= set(COEFFICIENTS) else None

    def trec_label(self) -> str | None:
        if self.trec_spelling() is None:
            return None
        if not self._key()[1]:
            return "utility"
        return "utility_" + ",".join(_number(self.values[k]) for k in COEFFICIENTS)

    def compute(self, r) -> np.ndarray:
        found = r.hits(self.rel).count(r.n_queries)
        ret = r.num_ret.astype(np.float64)
        num_rel = r.num_rel(self.rel).astype(np.float64)
        # trec_eval's expression, in its order of operations
        return (self.a * found + self.b * (ret - found) + self.c * (num_rel - found)
                + self.d * (self.num_docs + found - ret - num_rel))


def _number(value: float) -> str:
    return str(int(value)) if value.is_integer() else repr(value)
