"""The statistical tests, one file each (a declaration beside its kernel), registered on import.

:data:`TEST_REGISTRY` holds them in order; :func:`~metrics.stats.significance.compare_systems`,
:func:`~metrics.stats.significance.paired_test`, the command line's ``--test``, the claims, the captions and
reports, and the dashboard's picker all read it. A new test is one more file here (see
:class:`~metrics.stats.significance.tests.base.Test`) and a value test against its oracle in
``tests/metrics/stats/test_significance_oracles.py``.
"""

from __future__ import annotations

from metrics.registry import import_declarations
from metrics.stats.significance.tests.base import TEST_REGISTRY, Test, register

__all__ = ["TEST_REGISTRY", "Test", "register"]

import_declarations(__name__, __path__)
