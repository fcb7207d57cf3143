"""What an interpolation rule declares: its names, its words, where its steps lie, and its kernel."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from metrics.registry import Declaration, Registry

__all__ = ["RULE_REGISTRY", "Rule", "register"]


class Rule(Declaration):
    """An interpolation rule: how many relevant documents a ranking must have reached to be at recall x.

    Interpolated precision at recall x is the best precision at any rank from the one where the ranking has
    retrieved ``required(x, R)`` relevant documents on (R relevant documents in all); the rules differ only
    in that count. Beside :class:`~metrics.registry.Declaration`'s name, label, help and order:

    Class attributes
    ----------------
    shift : float
        Where the rule's steps lie: it asks for k relevant documents when x is between ``(k - shift) / R``
        and ``(k + 1 - shift) / R`` (the curves draw the steps from it).
    emptied_undefined : bool
        A ranking the judged-only cut (``-J``) leaves empty is NaN where the rule asks for 0 relevant
        documents, as trec_eval computes 0 / 0 there.
    """

    shift: ClassVar[float]
    emptied_undefined: ClassVar[bool] = False

    def required(self, level: float, num_rel: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        """How many relevant documents reach recall ``level``, per query (``num_rel`` relevant documents)."""
        raise NotImplementedError


RULE_REGISTRY: Registry[Rule] = Registry("interpolation rule", ("shift",))
"""Every interpolation rule, in order (trec_eval 9's first: the default)."""

register = RULE_REGISTRY.register
