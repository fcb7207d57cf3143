"""Judgments: transformations of qrels and how they cover the compared runs.

Built on the core (readers, rankings, measures, :func:`metrics.evaluate`); never imports
:mod:`metrics.stats`, :mod:`metrics.teaching` or :mod:`metrics.review` (ARCHITECTURE.md).
"""
