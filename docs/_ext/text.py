"""Text written by the code (help texts, declarations) put into Markdown as text, never as markup."""

from __future__ import annotations

import html
import re

_CODE = re.compile(r"(`[^`]*`)")


def escape(text: str) -> str:
    """``text`` on one line, shown as written: no HTML, no table breaks, no emphasis by accident; spans in
    backticks stay code."""
    parts = _CODE.split(" ".join(str(text).split()))
    return "".join(part.replace("|", "\\|") if i % 2 else
                   html.escape(part, quote=False).replace("\\", "\\\\").replace("|", "\\|").replace("*", "\\*")
                   .replace("_", "\\_").replace("[", "\\[").replace("]", "\\]")
                   for i, part in enumerate(parts))
