"""The one way user text reaches a page as Markdown: :func:`md` (re-exported by :mod:`dashboard.widgets`).

It imports nothing of the dashboard, so that every module, the lowest included (who writes, the store's
messages), shows user text the same way.
"""

from __future__ import annotations

import numbers
import re

from metrics.io.redaction import redact

__all__ = ["md", "md_marked", "md_paragraphs"]

_MARKDOWN = re.compile(r"([!-/:-@\[-`{-~])")  # every ASCII punctuation character: CommonMark escapes each
_BREAKS = re.compile(r"\r\n|[\r\n\u2028\u2029]")
# where Streamlit's Markdown would make a link of plain text (GFM's autolinks, found after escapes are read:
# "http://", "https://", "www." and e-mail addresses): a word joiner (U+2060, invisible) goes there
_LINKABLE = re.compile(r"(?i)(?<=https)(?=://)|(?<=http)(?=://)|(?<=www)(?=\.)|(?<=[-.\w+])(?=@[-\w]+(?:\.[-\w]+)+)")


def md(template: str, *values, **named) -> str:
    r"""The one way user text reaches a page as Markdown: our ``template``, with each value shown as text.

    Every text Streamlit reads as Markdown (``st.markdown``, captions, alerts, spinners, titles, expander and
    tab labels, widget labels, ``help``) is either a literal of ours or made here (a static test,
    ``tests/dashboard/session/test_one_text_path.py``, checks it). ``template`` is a literal in :meth:`str.format`
    syntax, our Markdown; each value is formatted with its field's format spec, then every location in it
    loses its credentials (:func:`metrics.io.redaction.redact`) and every ASCII punctuation character is
    escaped with a backslash and every line break made a space (a number is shown as formatted), so that
    no value can open a link, an image, HTML, emphasis, code, a heading, a list, a directive
    (``:material/...:``), an emoji short code or a formula. Streamlit also makes a link of any text that
    looks like a URL or an e-mail address (``http://``, ``www.``, ``a@b.c``), escapes or not: a word joiner
    (U+2060, invisible) is put inside each such pattern. Text shown with ``st.text``, ``st.code`` or in a
    table is never read as Markdown.

    Examples
    --------
    >>> md("Topics: **{}**, {:,} texts", "![x](h/x.png)", 1200)
    'Topics: **\\!\\[x\\]\\(h\\/x\\.png\\)**, 1,200 texts'
    """
    return template.format(*map(_Shown, values), **{key: _Shown(value) for key, value in named.items()})


def md_paragraphs(texts) -> str:
    """Each text shown as :func:`md` shows a value, one paragraph each."""
    return "\n\n".join(md("{}", text) for text in texts)


def md_marked(pieces) -> str:
    r"""Text given in pieces, ``[(text, marked)]``, each shown as :func:`md` shows a value, the marked ones
    highlighted (a query's words in a document): the highlight is ours, the text stays text.

    >>> md_marked([("a ", False), ("<b>", True)])
    'a :orange-background[\\<b\\>]'
    """
    return "".join(md(":orange-background[{}]" if mark else "{}", text) for text, mark in pieces)


class _Shown:
    """A value for :func:`md`: formatted as asked, then made text that Markdown cannot read as anything else."""

    __slots__ = ("value",)

    def __init__(self, value) -> None:
        self.value = value

    def __format__(self, spec: str) -> str:
        if isinstance(self.value, numbers.Number):  # digits, signs, a point, commas: nothing Markdown reads
            return format(self.value, spec)
        return _inert(format(self.value, spec))

    def __str__(self) -> str:  # "{!s}"
        return _inert(str(self.value))

    def __repr__(self) -> str:  # "{!r}"
        return _inert(repr(self.value))


def _inert(text: str) -> str:
    text = _LINKABLE.sub("\u2060", _BREAKS.sub(" ", redact(text)))
    return _MARKDOWN.sub(r"\\\1", text)
