"""What a multiple-comparison correction declares: its names, its words, what it controls, and its kernel."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from metrics.registry import Declaration, Registry

__all__ = ["CORRECTION_REGISTRY", "Correction", "register", "stepwise"]


class Correction(Declaration):
    """A correction of the p-values of a family of tests for their number, declared once beside its kernel.

    Class attributes
    ----------------
    name, aliases, label, help, order
        As every :class:`~metrics.registry.Declaration` (the label is what a dashboard link carries).
    adjusted : str
        The words beside adjusted p-values in a sentence (``"Holm-corrected"``); for a correction that
        changes nothing, the words that say so.
    controls : str
        The error rate it keeps at alpha (``"family-wise error rate"``, ``"false discovery rate"``); empty
        for none.
    resampled : bool
        It adjusts from the test's resamples (the sign flips of a test with ``sign_flips``), not from the
        p-values: its kernel is :meth:`adjust_resampled`, and :meth:`adjust` does not apply.
    """

    adjusted: ClassVar[str]
    controls: ClassVar[str] = ""
    resampled: ClassVar[bool] = False

    @property
    def corrects(self) -> bool:
        """Whether it changes the p-values at all (an error rate it controls)."""
        return bool(self.controls)

    def adjust(self, p: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        """The adjusted p-values of one family (a checked 1-D array of at least one p-value), in its order."""
        raise NotImplementedError

    def adjust_resampled(self, rows: Any, tables: dict, ia: np.ndarray, ib: np.ndarray, family: str, alpha: float,
                         options: dict[str, Any]) -> Any:  # pragma: no cover - abstract
        """A comparison's frame with ``p_adjusted`` and ``significant`` from the test's resamples."""
        raise NotImplementedError


def stepwise(p: np.ndarray, step: Callable[[np.ndarray, np.ndarray, int], np.ndarray]) -> np.ndarray:
    """``step(ranked, rank, m)`` on the sorted p-values (ties kept in input order), capped at 1, in input order."""
    m = p.size
    order = np.argsort(p, kind="stable")
    out = np.empty(m)
    out[order] = np.minimum(step(p[order], np.arange(1, m + 1), m), 1.0)
    return out


CORRECTION_REGISTRY: Registry[Correction] = Registry("correction", ("adjusted",))
"""Every multiple-comparison correction, in order."""

register = CORRECTION_REGISTRY.register
