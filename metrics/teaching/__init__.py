"""Teaching: one ranking rank by rank, each measure worked through, contingency tables, and the live class.

:mod:`~metrics.teaching.questions` holds the questions a class answers (a value, which of two rankings is
higher, a change, an order), each answered by the measures themselves; :mod:`~metrics.teaching.mistakes`
the known mistakes, each a function computing the wrong value it leads to; :mod:`~metrics.teaching.reveal`
reads a class's answers (tolerance, distribution, each mistake's share); :mod:`~metrics.teaching.lesson`
writes and reads a list of questions as JSON.

Built on the core (rankings, measures, curves, :func:`metrics.evaluate`) only; never imports
:mod:`metrics.stats` or :mod:`metrics.review` (ARCHITECTURE.md).
"""
