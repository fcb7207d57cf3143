"""LaTeX formulas as MathML, converted when the site is built: the browser draws them, nothing is loaded.

Chromium, Firefox and Safari render MathML Core natively, so the site ships no math library and asks no
server for one. :func:`formula` converts with latex2mathml; :func:`docstring_math` turns the Sphinx math of a
docstring (``.. math::`` blocks and ``:math:`...``` roles) into the same.
"""

from __future__ import annotations

import re
import textwrap

from latex2mathml.converter import convert

_ROLE = re.compile(r":math:`([^`]+)`")
_BLOCK = re.compile(r"^(?P<indent>[ \t]*)\.\. math::[ \t]*(?P<first>.*)\n(?P<body>(?:(?P=indent)[ \t]+.*\n|[ \t]*\n)*)",
                    re.M)


def formula(latex: str, display: bool = False) -> str:
    """``latex`` as one line of MathML (a block when ``display``)."""
    mathml = convert(latex.strip(), display="block" if display else "inline")
    return mathml.replace("\n", " ")


def docstring_math(text: str) -> str:
    """A docstring's ``.. math::`` blocks and ``:math:`` roles as MathML."""
    def block(match: re.Match) -> str:
        body = textwrap.dedent(match.group("first") + "\n" + textwrap.dedent(match.group("body")))
        return match.group("indent") + formula(" ".join(body.split()), display=True) + "\n\n"

    text = _BLOCK.sub(block, text)
    return _ROLE.sub(lambda m: formula(m.group(1)), text)
