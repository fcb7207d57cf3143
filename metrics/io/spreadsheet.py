"""CSV that a spreadsheet opens as data: no cell of text is read as a formula.

A spreadsheet (Excel, LibreOffice, Google Sheets) runs a cell whose text begins with ``=``, ``+``, ``-`` or
``@`` as a formula, and some read a leading tab or carriage return the same way: a system named
``=HYPERLINK("http://...", "x")`` or a note tagged ``=1+1`` would run on the reader's machine. Every CSV
rankscope writes (the exports of the dashboard and the report, and ``--format csv`` of the commands) goes
through :func:`csv_text` or :func:`neutralise`:

- a **text** cell (or column name) that begins with one of :data:`FORMULA_STARTS` is written with a
  single quote ``'`` before it, as spreadsheets themselves mark text; reading the file back gives that
  text, quote included (``pandas.read_csv`` reads ``'=1+1``);
- a text that is a number as written (``-1``, ``+0.5``, ``-2e-3``: a topic id, say) is left as it is: a
  spreadsheet reads it as that number, not as a formula;
- numbers (numeric columns) are never touched: a negative number is not text.

Examples
--------
>>> neutralise("=HYPERLINK(\\"http://x\\")"), neutralise("-1"), neutralise(-0.5), neutralise("bm25")
('\\'=HYPERLINK("http://x")', '-1', -0.5, 'bm25')
"""

from __future__ import annotations

import csv
import io
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["FORMULA_STARTS", "PREFIX", "csv_text", "neutralise", "neutralised"]

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""The first characters that make a spreadsheet read a cell as a formula."""
PREFIX = "'"
"""What is written before such a text."""
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def neutralise(value: Any) -> Any:
    """``value`` as a CSV cell a spreadsheet reads as data: a text beginning like a formula gets :data:`PREFIX`.

    Parameters
    ----------
    value : Any
        A cell. Only ``str`` values change; a text that is a number as written stays as it is.

    Returns
    -------
    The cell to write.
    """
    if isinstance(value, str) and value.startswith(FORMULA_STARTS) and not _NUMBER.fullmatch(value):
        return PREFIX + value
    return value


def neutralised(frame: "pd.DataFrame") -> "pd.DataFrame":
    """A copy of ``frame`` whose text cells and column names are :func:`neutralise`\\ d (numeric columns as
    they are)."""
    out = frame.copy()
    for column in out.columns:
        values = out[column]
        if values.dtype.kind in "biufcmM":  # numbers, booleans, times: never text
            continue
        try:  # vectorised: only the cells that begin like a formula are looked at one by one
            risky = values.str.startswith(FORMULA_STARTS, na=False).to_numpy(dtype=bool)
        except (AttributeError, TypeError):  # a column of other objects
            risky = values.map(lambda v: isinstance(v, str) and v.startswith(FORMULA_STARTS)).to_numpy(dtype=bool)
        if risky.any():
            values = values.astype(object)
            values[risky] = [neutralise(v) for v in values[risky]]
            out[column] = values
    out.columns = [neutralise(c) for c in out.columns]
    return out


def csv_text(frame: "pd.DataFrame") -> str:
    """``frame`` as CSV text (no index, ``\\n`` line ends, floats at full precision), every text cell and
    column name :func:`neutralise`\\ d.

    When a text holds a carriage return, which Python's CSV writer leaves unquoted under ``\\n`` line ends
    (a reader would break the row there), every text field is quoted.
    """
    out = neutralised(frame)
    texts = [out[c] for c in out.columns if out[c].dtype.kind not in "biufcmM"]
    carriage = any(values.map(lambda v: isinstance(v, str) and "\r" in v).any() for values in texts) or any(
        "\r" in str(c) for c in out.columns)
    buffer = io.StringIO()
    out.to_csv(buffer, index=False, lineterminator="\n", quoting=csv.QUOTE_NONNUMERIC if carriage else csv.QUOTE_MINIMAL)
    return buffer.getvalue()
