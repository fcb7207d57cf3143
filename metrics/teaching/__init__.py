"""Teaching: one ranking taken apart, the questions of a live class, and the usual mistakes.

:mod:`metrics.teaching.questions` holds the questions a class answers (a value, which of two rankings is
higher, a change, an order), each answered by the measures themselves; :mod:`metrics.teaching.mistakes`
the known mistakes, each a function computing the wrong value it leads to; :mod:`metrics.teaching.reveal`
reads a class's answers (tolerance, distribution, each mistake's share).
"""
