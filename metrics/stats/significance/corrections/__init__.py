"""The multiple-comparison corrections, one file each (a declaration beside its kernel), registered on import.

:data:`CORRECTION_REGISTRY` holds them in order; :func:`~metrics.stats.significance.adjust_pvalues`,
:func:`~metrics.stats.significance.compare_systems`, the command line's ``--correction``, the claims, the
captions and reports, and the dashboard's picker all read it. A new correction is one more file here (see
:class:`~metrics.stats.significance.corrections.base.Correction`) and a value test against its oracle in
``tests/metrics/stats/test_significance_oracles.py``.
"""

from __future__ import annotations

from metrics.registry import import_declarations
from metrics.stats.significance.corrections.base import CORRECTION_REGISTRY, Correction, register

__all__ = ["CORRECTION_REGISTRY", "Correction", "register"]

import_declarations(__name__, __path__)
