"""The interpolation rules of interpolated precision, one file each, registered on import.

A rule says how many relevant documents a ranking must have retrieved to be at recall level x (see
:class:`~metrics.interpolation.base.Rule`). The conventions (``Conventions.interpolation``), the measures
``IPrec`` and ``IPrecAvg``, the curves, the command line's choices and the dashboard's picker read
:data:`RULE_REGISTRY`; a new rule is one more file here.
"""

from __future__ import annotations

import importlib
import pkgutil

from metrics.interpolation.base import RULE_REGISTRY, Rule, register

__all__ = ["RULE_REGISTRY", "Rule", "register"]

for _module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    if _module != "base":
        importlib.import_module(f"{__name__}.{_module}")
