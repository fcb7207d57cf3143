"""Statistics on evaluated runs: significance tests, power, agreement, risk, reproducibility and ties.

Each module reads the tidy frames and rankings of the core (:func:`metrics.evaluate`,
:func:`metrics.rank_runs`) and returns numbers; none imports :mod:`metrics.review` or
:mod:`metrics.teaching` (ARCHITECTURE.md).
"""
