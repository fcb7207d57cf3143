"""Worked formulas laid out for a page: LaTeX broken into lines that fit a projector."""

from __future__ import annotations

__all__ = ["TERMS", "formula_lines"]

TERMS = 5  # terms of a sum on one line of a worked formula: a ranking of 20 documents stays on a projector


def _top_level(tex: str, sep: str) -> list[str]:
    """``tex`` split at each ``sep`` outside braces."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(tex):
        ch = tex[i]
        depth += (ch == "{") - (ch == "}")
        if depth == 0 and tex.startswith(sep, i):
            parts.append(tex[start:i])
            start = i = i + len(sep)
            continue
        i += 1
    return parts + [tex[start:]]


def formula_lines(tex: str, terms: int = TERMS) -> str:
    r"""A worked formula laid out on lines that fit: one line per ``=``, a long sum broken every ``terms``
    terms (an ``aligned`` block); a short formula unchanged.

    Examples
    --------
    >>> formula_lines("x = 1 + 2")
    'x = 1 + 2'
    >>> print(formula_lines("s = a + b + c = 3", terms=2))
    \begin{aligned}s &= a + b \\ &\quad + c \\ &= 3\end{aligned}
    """
    sides = _top_level(tex.replace(r"\left(", r"\Big(").replace(r"\right)", r"\Big)"), " = ")
    if len(sides) < 2 or all(len(_top_level(side, " + ")) <= terms for side in sides) and len(sides) <= 3:
        return tex
    lines = []
    for side in sides[1:]:
        summed = _top_level(side, " + ")
        for i in range(0, len(summed), terms):
            chunk = " + ".join(summed[i:i + terms])
            lines.append(("&= " if i == 0 else r"&\quad + ") + chunk)
    return r"\begin{aligned}" + sides[0].strip() + " " + r" \\ ".join(lines) + r"\end{aligned}"
