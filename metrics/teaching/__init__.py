"""Teaching: one ranking rank by rank, each measure worked through, contingency tables.

Built on the core (rankings, measures, curves, :func:`metrics.evaluate`) only; never imports
:mod:`metrics.stats` or :mod:`metrics.review` (ARCHITECTURE.md).
"""
