"""The statistical tests, one file each (a declaration beside its kernel), registered on import.

:data:`TEST_REGISTRY` holds them in order; :func:`~metrics.stats.significance.compare_systems`,
:func:`~metrics.stats.significance.paired_test`, the command line's ``--test``, the claims, the captions and
reports, and the dashboard's picker all read it. A new test is one more file here (see
:class:`~metrics.stats.significance.tests.base.Test`) and a value test against its oracle in
``tests/metrics/stats/significance/test_oracles.py``.
"""

from __future__ import annotations

import importlib
import pkgutil

from metrics.stats.significance.tests.base import TEST_REGISTRY, Test, register

__all__ = ["TEST_REGISTRY", "Test", "register"]

for _module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    if _module != "base":
        importlib.import_module(f"{__name__}.{_module}")
