"""Review and provenance: what a team or a reader needs to trust a comparison.

The provenance of a number, the cautions on a comparison, lint of a collection, review notes, a paper's
results table, the manifest and flags that recompute a result, the numbers of a report, and two systems
compared topic by topic. The top floor of :mod:`metrics`: it may import every other part
(ARCHITECTURE.md).
"""
