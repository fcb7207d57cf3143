"""Every measure, one file each (or one small family per file), registered on import.

Importing this package imports every module in it, so a new measure file is registered — and picked up
by the CLI, :func:`metrics.evaluate`, the dashboard and the registry-wide tests — with no other edit.
"""

from __future__ import annotations

import importlib
import pkgutil

from metrics.measures.base import MEASURE_CLASSES, REGISTRY, Measure, Param, Trec, list_measures, register
from metrics.measures.parse import parse_measure
from metrics.measures.per_query import PerQuery, best_first, higher_is_better

__all__ = ["MEASURE_CLASSES", "REGISTRY", "RESIDUAL_OF", "Measure", "Param", "PerQuery", "Trec", "best_first",
           "higher_is_better", "list_measures", "parse_measure", "register"]

for _module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    if _module not in ("base", "parse", "per_query", "trec_names") and not _module.startswith("_"):
        importlib.import_module(f"{__name__}.{_module}")

from metrics.measures.residual import RESIDUAL_OF  # noqa: E402  (after the loop: registration stays in file order)
