r"""The results table rendered: LaTeX (booktabs), Markdown, CSV, plain text and a display frame.

Every renderer reads a :class:`~metrics.review.compare.table.SummaryTable`; user text (system and measure names,
captions) is escaped for the target (:func:`latex_escape`, :func:`markdown_escape`). LaTeX and Markdown can
carry the evaluation manifest as a comment (:func:`metrics.review.manifest.comment_lines`).
"""

from __future__ import annotations

import os
from typing import Any

import pandas as pd

from metrics.checks import refuse
from metrics.errors import ValidationError
from metrics.io.files import write_atomic
from metrics.io.spreadsheet import csv_text
from metrics.review.compare.caption import LATEX_MARK, caption, latex_escape, markdown_escape
from metrics.review.compare.markers import BETTER, WORSE
from metrics.review.compare.table import SummaryTable

__all__ = ["caption", "latex_escape", "leaderboard_to_latex", "markdown_escape", "to_csv", "to_frame", "to_latex",
           "to_markdown", "to_text"]

def _check(table: Any) -> None:
    if not isinstance(table, SummaryTable):
        raise refuse("table", "a SummaryTable", table)


def _row_name(table: SummaryTable, system: str, esc) -> str:
    letter = dict(table.letters).get(system)
    name = (f"({letter}) " if letter else "") + esc(system)
    return name + (" (baseline)" if system == table.baseline else "")


def _plain_mark(mark: str) -> str:
    return mark if mark in (BETTER, WORSE) or not mark else "^" + mark


def to_latex(table: SummaryTable, *, ci: bool = False, label: str | None = "tab:results", caption: str | None = None,
             manifest: Any = None, provenance: Any = None) -> str:
    r"""The table as a LaTeX ``table`` environment with booktabs rules.

    Parameters
    ----------
    table : SummaryTable
    ci : bool, default=False
        Put each value's confidence interval under it (small type).
    label : str or None, default="tab:results"
    caption : str, optional
        Text put before the generated explanation (escaped).
    manifest : Manifest or mapping, optional
        Written as comment lines at the top (:func:`metrics.review.manifest.comment_lines`).
    provenance : Provenance, optional
        Its one line (:meth:`metrics.review.provenance.Provenance.compact`) written at the top as a ``%%`` comment
        (the manifest's comment lines start with ``%`` and a space).

    Returns
    -------
    str
        Needs ``\usepackage{booktabs}``. System names, measure names and the caption are escaped; the best
        value of each measure is in ``\textbf``; markers are superscripts explained in the caption.

    Examples
    --------
    >>> from metrics.review.compare import summary_table
    >>> from metrics.stats.significance import compare_systems
    >>> per_query = pd.DataFrame({"system": ["bm25"] * 4 + ["bm25_rm3%"] * 4, "query": list("1234") * 2,
    ...                           "measure": "AP", "value": [0.1, 0.2, 0.3, 0.2, 0.3, 0.5, 0.4, 0.6]})
    >>> text = to_latex(summary_table(compare_systems(per_query), per_query))
    >>> print(text.splitlines()[-4])
    (b) bm25\_rm3\% & \textbf{0.4500}$^{\mathrm{a}}$ \\
    """
    _check(table)
    explain = table.caption("latex", ci=ci)
    if caption:
        explain = latex_escape(caption).rstrip(".") + ". " + explain
    lines = [r"% needs \usepackage{booktabs}"]
    if manifest is not None:
        from metrics.review.manifest import comment_lines

        lines.append(comment_lines(manifest, "% ").rstrip("\n"))
    if provenance is not None:
        lines.append("%% provenance: " + " ".join(provenance.compact().split()))  # apart from the manifest's
    lines += [r"\begin{table}[t]", r"\centering", r"\caption{" + explain + "}"]
    if label:
        lines.append(r"\label{" + latex_escape(label) + "}")
    lines += [r"\begin{tabular}{l" + "r" * len(table.measures) + "}", r"\toprule",
              " & ".join(["System", *(latex_escape(m) for m in table.measures)]) + r" \\", r"\midrule"]
    for system in table.systems:
        row = [_row_name(table, system, latex_escape)]
        for measure in table.measures:
            text = table.text(system, measure).replace("–", "--")
            if table.best.loc[system, measure]:
                text = r"\textbf{" + text + "}"
            mark = table.markers.loc[system, measure]
            if mark:
                text += LATEX_MARK.get(mark, r"$^{\mathrm{" + mark + "}}$")
            interval = table.interval(system, measure)
            if ci and interval:
                text = r"\begin{tabular}[t]{@{}r@{}}" + text + r" \\ {\scriptsize " + interval + r"}\end{tabular}"
            row.append(text)
        lines.append(" & ".join(row) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"


def to_markdown(table: SummaryTable, *, ci: bool = False, manifest: Any = None, provenance: Any = None) -> str:
    """The table as a (GitHub-flavoured) Markdown table followed by its caption.

    Parameters
    ----------
    table : SummaryTable
    ci : bool, default=False
        Add each value's confidence interval in brackets.
    manifest : Manifest or mapping, optional
        Written first as an HTML comment (invisible when rendered), its JSON with ``--`` escaped.
    provenance : Provenance, optional
        Its one line (:meth:`metrics.review.provenance.Provenance.compact`) in an HTML comment at the top.

    Returns
    -------
    str
        Best values in ``**bold**``; baseline markers as † / ‡, letters as ``<sup>`` superscripts.
    """
    _check(table)
    head = ""
    if manifest is not None:
        from metrics.review.manifest import comment_lines

        head = "<!--\n" + comment_lines(manifest, "").replace("--", "-\\u002d") + "-->\n\n"
    if provenance is not None:
        head += "<!-- provenance: " + " ".join(provenance.compact().split()).replace("--", "-\\u002d") + " -->\n\n"
    lines = ["| " + " | ".join(["System", *(markdown_escape(m) for m in table.measures)]) + " |",
             "|" + "|".join([":---", *("---:" for _ in table.measures)]) + "|"]
    for system in table.systems:
        row = [_row_name(table, system, markdown_escape)]
        for measure in table.measures:
            text = table.text(system, measure)
            text = f"**{text}**" if table.best.loc[system, measure] else text
            mark = table.markers.loc[system, measure]
            if mark:
                text += " " + mark if mark in (BETTER, WORSE) else f"<sup>{mark}</sup>"
            if ci and table.interval(system, measure):
                text += " " + table.interval(system, measure)
            row.append(text)
        lines.append("| " + " | ".join(row) + " |")
    return head + "\n".join(lines) + "\n\n" + table.caption("markdown", ci=ci) + "\n"


def to_csv(table: SummaryTable, path: str | os.PathLike | None = None) -> str:
    """The table as CSV: ``system``, then per measure its value, interval bounds (if any) and marker.

    Columns: ``system``, ``letter`` (all-pairs markers only), then for each measure ``<measure>``,
    ``<measure> ci_low`` and ``<measure> ci_high`` (when the table has intervals) and ``<measure> marker``.
    Values are written at full precision; a system name beginning like a spreadsheet formula is written after a
    ``'`` (:func:`metrics.io.spreadsheet.csv_text`).

    Parameters
    ----------
    table : SummaryTable
    path : path, optional
        Also write the text there (UTF-8).

    Returns
    -------
    str
    """
    _check(table)
    out = pd.DataFrame({"system": table.systems})
    if table.letters:
        out["letter"] = [dict(table.letters)[s] for s in table.systems]
    for measure in table.measures:
        out[measure] = table.values[measure].to_numpy()
        if table.has_ci:
            out[f"{measure} ci_low"] = table.ci_low[measure].to_numpy()
            out[f"{measure} ci_high"] = table.ci_high[measure].to_numpy()
        out[f"{measure} marker"] = table.markers[measure].to_numpy()
    text = csv_text(out)
    if path is not None:
        write_atomic(path, text.encode("utf-8"))
    return text


def to_frame(table: SummaryTable, *, ci: bool = True) -> pd.DataFrame:
    """The table as display text: a ``system`` column, then one text column per measure.

    Parameters
    ----------
    table : SummaryTable
    ci : bool, default=True
        Add each value's confidence interval.

    Returns
    -------
    pandas.DataFrame
        A cell reads ``0.4820†  [0.4100, 0.5500]``: the value as shown, its marker (letters as ``^acd``)
        and, with ``ci``, its interval. The system column carries the letter and ``(baseline)``. Bold
        cannot be shown in plain text; :attr:`SummaryTable.best` says which cells are best.
    """
    _check(table)
    out: dict[str, list[str]] = {"system": [_row_name(table, s, str) for s in table.systems]}
    for measure in table.measures:
        column = []
        for system in table.systems:
            text = table.text(system, measure) + _plain_mark(str(table.markers.loc[system, measure]))
            if ci and table.interval(system, measure):
                text += "  " + table.interval(system, measure)
            column.append(text)
        out[measure] = column
    return pd.DataFrame(out)


def to_text(table: SummaryTable, *, ci: bool = False) -> str:
    """The table as aligned plain text followed by its caption.

    Parameters
    ----------
    table : SummaryTable
    ci : bool, default=False
        Add each value's confidence interval.

    Returns
    -------
    str
        Columns aligned on the numbers; markers as in :func:`to_frame`; best values are not marked.
    """
    _check(table)
    columns = [["System", *(_row_name(table, s, str) for s in table.systems)]]
    for measure in table.measures:
        numbers = [table.text(s, measure) for s in table.systems]
        marks = [_plain_mark(str(table.markers.loc[s, measure])) for s in table.systems]
        intervals = [("  " + table.interval(s, measure)) if ci and table.interval(s, measure) else ""
                     for s in table.systems]
        wn, wm, wi = (max(len(x) for x in part) for part in (numbers, marks, intervals))
        cells = [n.rjust(wn) + k.ljust(wm) + i.ljust(wi) for n, k, i in zip(numbers, marks, intervals)]
        width = max(len(measure), wn + wm + wi)
        columns.append([measure.rjust(width), *(c.rjust(width) for c in cells)])
    names = max(len(x) for x in columns[0])
    lines = ["   ".join([row[0].ljust(names), *row[1:]]).rstrip() for row in zip(*columns)]
    return "\n".join(lines) + "\n\n" + table.caption("text", bold=False, ci=ci) + "\n"


def leaderboard_to_latex(board: pd.DataFrame, measure: str, *, label: str | None = None) -> str:
    r"""A grouped leaderboard (system, mean, group letters) as a booktabs ``table``.

    Parameters
    ----------
    board : pandas.DataFrame
        Columns ``system``, ``mean``, ``group``, as :func:`metrics.stats.significance.grouped_leaderboard` returns.
    measure : str
        The measure's name, for the header and the caption (escaped).
    label : str, optional

    Returns
    -------
    str
        Systems that share a letter are not significantly different (compact letter display).
    """
    if not isinstance(board, pd.DataFrame) or not {"system", "mean", "group"} <= set(board.columns):
        raise ValidationError("expected a grouped leaderboard with columns system, mean, group")
    lines = [r"\begin{table}[t]", r"\centering",
             r"\caption{" + latex_escape(measure) + ": systems that share a letter are not significantly "
             r"different (compact letter display).}"]
    if label:
        lines.append(r"\label{" + latex_escape(label) + "}")
    lines += [r"\begin{tabular}{lrl}", r"\toprule", "System & " + latex_escape(measure) + r" & Group \\", r"\midrule"]
    lines += [f"{latex_escape(str(r.system))} & {r.mean:.4f} & {latex_escape(str(r.group))} " + r"\\"
              for r in board.itertuples(index=False)]
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"
