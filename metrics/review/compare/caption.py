r"""The caption of a results table, and escaping user text for LaTeX and Markdown.

:func:`caption` says what a :class:`~metrics.review.compare.table.SummaryTable` shows: what the values are, the
intervals, what the markers mean, and the test, correction and alpha behind them.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from metrics.checks import Options, check
from metrics.review.compare.markers import BETTER, WORSE

if TYPE_CHECKING:  # the table imports this module
    from metrics.review.compare.table import SummaryTable

__all__ = ["LATEX_MARK", "STYLES", "caption", "latex_escape", "markdown_escape"]

STYLES = ("text", "latex", "markdown")
_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                  "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}"}
_LATEX_RE = re.compile("|".join(re.escape(c) for c in _LATEX_SPECIAL))
_MARKDOWN_RE = re.compile(r"([\\`*_{}\[\]<>()#+!|~])")
LATEX_MARK = {BETTER: r"$^{\dagger}$", WORSE: r"$^{\ddagger}$"}
_TEST_WORDS = {"t": "paired t-test", "wilcoxon": "Wilcoxon signed-rank test", "sign": "sign test",
               "permutation": "paired randomisation test", "bootstrap": "paired bootstrap test",
               "tukey": "Tukey's HSD on the two-way ANOVA"}
_CORRECTION_WORDS = {"holm": "Holm-corrected", "bonferroni": "Bonferroni-corrected",
                     "bh": "Benjamini-Hochberg-adjusted", "by": "Benjamini-Yekutieli-adjusted"}
_AGGREGATION_WORDS = {"sum": "sum over topics", "gmean": "geometric mean", "median": "median over topics"}


def latex_escape(text: Any) -> str:
    r"""Text made literal in LaTeX; line breaks become spaces.

    Examples
    --------
    >>> print(latex_escape("bm25_rm3% & #1 \\ {x}"))
    bm25\_rm3\% \& \#1 \textbackslash{} \{x\}
    """
    return _LATEX_RE.sub(lambda m: _LATEX_SPECIAL[m.group(0)], re.sub(r"[\r\n\t]+", " ", str(text)))


def markdown_escape(text: Any) -> str:
    r"""Text made literal in a Markdown table cell; line breaks become spaces.

    Examples
    --------
    >>> print(markdown_escape("bm25_rm3|*x*"))
    bm25\_rm3\|\*x\*
    """
    return _MARKDOWN_RE.sub(r"\\\1", re.sub(r"[\r\n\t]+", " ", str(text)))


def caption(table: SummaryTable, style: str = "text", *, bold: bool = True, ci: bool = False) -> str:
    """The sentences that explain a table: values, intervals, markers, test, correction and alpha.

    Parameters
    ----------
    table : SummaryTable
    style : {"text", "latex", "markdown"}, default="text"
    bold : bool, default=True
    ci : bool, default=False

    Returns
    -------
    str

    See Also
    --------
    SummaryTable.caption
    """
    check("style", style, Options(*STYLES))
    esc = {"text": str, "latex": latex_escape, "markdown": markdown_escape}[style]
    n = table.n_queries
    what = (f"Mean over {n} topic{'s' if n != 1 else ''}" if n is not None
            else "Mean over the topics each system was evaluated on")
    others = [(m, a) for m, a in table.aggregations if a != "mean"]
    if others:
        what += " (" + "; ".join(f"{esc(m)}: {_AGGREGATION_WORDS.get(a, a)}" for m, a in others) + ")"
    if bold and table.best.to_numpy().any():
        what += "; the best value of each measure is in bold"
    parts = [what + "."]
    if ci and table.has_ci:
        percent = f"{table.confidence * 100:g}" + ("\\%" if style == "latex" else "%")
        parts.append(f"In brackets, the {percent} confidence interval of the mean (Student t over topics).")
    marked = bool((table.markers != "").to_numpy().any())
    if table.test is not None or marked:
        how = ""
        if table.test is not None:
            how = esc(", ".join(_how(table)))
        if table.alpha is not None:
            how += (", " if how else "") + (rf"$\alpha = {table.alpha:g}$" if style == "latex"
                                            else f"alpha = {table.alpha:g}")
        how = f" ({how})" if how else ""
        if table.baseline is not None:
            better, worse = (LATEX_MARK[BETTER], LATEX_MARK[WORSE]) if style == "latex" else (BETTER, WORSE)
            base = r"\texttt{" + esc(table.baseline) + "}" if style == "latex" else esc(table.baseline)
            parts.append(f"{better} / {worse}: significantly better / worse than the baseline {base}{how}.")
        elif table.letters:
            parts.append("Superscript letters: the systems (lettered before their names) that a system is "
                         f"significantly better than{how}.")
        if not marked:
            parts.append("No difference is significant.")
        if table.untested:
            parts.append("Not tested: " + ", ".join(esc(m) for m in table.untested) + ".")
    return " ".join(parts)


def _how(table: SummaryTable) -> list[str]:
    """The test, its resamples and seed, and the correction, in words."""
    words = [_TEST_WORDS.get(str(table.test), f"{table.test} test")]
    if table.n_resamples is not None:
        words.append(f"{table.n_resamples} resamples, seed {table.seed}")
    if table.test == "tukey" or table.correction is None:
        return words
    if table.correction == "none":
        words.append("not corrected for multiple comparisons")
        return words
    corrected = _CORRECTION_WORDS.get(str(table.correction), f"{table.correction}-corrected")
    k = table.comparisons
    if table.family == "all":
        words.append(f"{corrected} over all measures together" + (f", {k} comparisons" if k else ""))
    else:
        words.append(f"{corrected} per measure" + (f", {k} comparison{'s' if k != 1 else ''} each" if k else ""))
    return words
