"""The interpolation rules of interpolated precision, one file each, registered on import.

A rule says how many relevant documents a ranking must have retrieved to be at recall level x (see
:class:`~metrics.interpolation.base.Rule`). The conventions (``Conventions.interpolation``), the measures
``IPrec`` and ``IPrecAvg``, the curves, the command line's choices and the dashboard's picker read
:data:`RULE_REGISTRY`; a new rule is one more file here.
"""

from __future__ import annotations

from metrics.registry import import_declarations
from metrics.interpolation.base import RULE_REGISTRY, Rule, register

__all__ = ["RULE_REGISTRY", "Rule", "register"]

import_declarations(__name__, __path__)
