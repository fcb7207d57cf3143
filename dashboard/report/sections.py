"""The report's sections from the results on: the results table, the curves, the significance matrices,
every per-topic value and the review notes, and the figures they draw (:func:`report_figures`).

The results table is :mod:`metrics.review.compare`'s (its cells, markers, best values and caption); the p-value
matrices are :meth:`metrics.stats.significance.Comparison.pvalue_matrix`. Nothing here computes a statistic.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from metrics.review.compare import BETTER, WORSE, to_latex, to_markdown
from metrics.review.report import ReportData
from metrics.stats.significance import CORRECTION_REGISTRY, TEST_REGISTRY

from dashboard import figures
from dashboard.report.markup import e, figure_html, num, pvalue, table

__all__ = ["cautions_html", "curves_html", "notes_html", "provenance_html", "report_figures", "results_html",
           "significance_html", "topics_html"]

_MARK_CLASS = {BETTER: ("mk-better", "significantly better than the baseline"),
               WORSE: ("mk-worse", "significantly worse than the baseline")}
# the narrowest width each figure is drawn at (markup.STYLE): the page's column on a 1024-pixel screen, and a
# cell of the grid of significance matrices (at least 520 pixels)
FULL_WIDTH, GRID_WIDTH = 968, 520


def report_figures(data: ReportData) -> dict[str, object]:
    """Every figure of the report, by file-safe name, built fresh on each call.

    Parameters
    ----------
    data : ReportData

    Returns
    -------
    dict
        ``{"eleven-point": fig, "gain": fig, "pvalues-<i>-<measure>": fig, ...}``: the 11-point
        interpolated precision-recall curves, the DCG / ideal DCG curves, and one matrix of adjusted
        p-values per tested measure (:meth:`~metrics.stats.significance.Comparison.pvalue_matrix`).
    """
    colors = figures.system_colors(data.systems)
    out = {"eleven-point": figures.eleven_point_chart(
        data.eleven_point, colors,
        f"Interpolated precision at 11 recall levels, mean over topics ({data.conventions.interpolation} rule)")}
    k = int(data.gain["k"].max()) if len(data.gain) else 0
    out["gain"] = figures.gain_chart(data.gain, colors, f"DCG@k against the ideal DCG@k, mean over topics (k ≤ {k})",
                                     cutoff=10 if k >= 10 else None)
    comparison = data.pairwise_comparison
    if comparison is not None:
        for i, measure in enumerate(comparison.measures):
            fig = figures.pvalue_heatmap(comparison.pvalue_matrix(measure),
                                         f"adjusted p-values, {figures.safe(measure)}", float(comparison.alpha))
            fig.update_layout(margin=dict(l=20, r=20, t=50, b=20), xaxis_title=None, yaxis_title=None,
                              height=200 + 40 * len(data.systems))
            out[f"pvalues-{i}-{re.sub(r'[^A-Za-z0-9._-]+', '_', measure)}"] = figures.fitted(fig, GRID_WIDTH)
    for name in ("eleven-point", "gain"):
        figures.fitted(out[name], FULL_WIDTH)
    return out


def results_html(data: ReportData) -> str:
    """The systems x measures table with intervals and markers, its caption, and its LaTeX and Markdown."""
    t = data.table
    n = data.summary.groupby("system", sort=False)["n_queries"].max().to_dict()
    rows = []
    for system in t.systems:
        row = [e(system) + (" <em>(baseline)</em>" if system == t.baseline else ""),
               f'<td class="num">{int(n.get(system, 0))}</td>']
        for measure in t.measures:
            text = f'<span class="v{" best" if t.best.loc[system, measure] else ""}">{e(t.text(system, measure))}</span>'
            mark = str(t.markers.loc[system, measure])
            if mark in _MARK_CLASS:
                css, title = _MARK_CLASS[mark]
                text += f' <span class="{css}" title="{title}">{mark}</span>'
            elif mark:
                text += f' <sup class="mk-letters">{e(mark)}</sup>'
            else:
                text += ' <span class="mk"></span>'
            if t.interval(system, measure):
                text += f'<br><span class="ci">{e(t.interval(system, measure))}</span>'
            row.append(f'<td class="num" data-system="{e(system)}" data-measure="{e(measure)}" '
                       f'data-value="{float(t.values.loc[system, measure])!r}">{text}</td>')
        rows.append(row)
    out = [table(["system", "topics", *t.measures], rows, numeric=[False, True, *[True] * len(t.measures)],
                 attrs=' id="results-table"')]
    explain = e(t.caption("text", ci=True))
    if data.baseline_comparison is not None:
        explain += e(_missing_words(data.settings)) + (" No marker: no significant difference (which is not "
                                                       "evidence that the systems are equal).")
    explain += "".join(f" {e(where)}: {e(reason)}." for where, reason in data.untestable.items())
    out.append(f'<p class="note" id="results-caption">{explain}</p>')
    out.append(provenance_html(data) + cautions_html(data))
    out.append('<details><summary>LaTeX</summary><pre id="results-latex"><code>'
               f"{e(to_latex(data.table, ci=True))}</code></pre></details>")
    out.append('<details><summary>Markdown</summary><pre id="results-markdown"><code>'
               f"{e(to_markdown(data.table, ci=True))}</code></pre></details>")
    return "".join(out)


def curves_html(data: ReportData, figs: dict | None = None) -> str:
    """The 11-point interpolated precision-recall curves and the DCG / ideal DCG curves."""
    figs = figs or report_figures(data)
    return "".join([
        "<h3>11-point interpolated precision–recall</h3>", figure_html(figs["eleven-point"], "fig-eleven-point"),
        '<p class="note">Interpolated precision at recall r is the best precision at any rank with recall at '
        f"least r, read under the {e(data.conventions.interpolation)} rule; each point is the mean over topics "
        "(trec_eval's <code>iprec_at_recall_*</code>).</p>",
        "<h3>DCG and ideal DCG</h3>", figure_html(figs["gain"], "fig-gain"),
        '<p class="note">Left: DCG@k (solid) and the DCG@k of the ideal ranking of every judged document '
        "(dotted), linear gains and the log2(i+1) discount as in trec_eval. Right: their ratio per topic, "
        "averaged (nDCG@k, trec_eval's <code>ndcg_cut_k</code>).</p>"])


def significance_html(data: ReportData, figs: dict | None = None) -> str:
    """Adjusted p-value matrices of every pair, then the tests against the baseline and between all pairs."""
    comparison = data.pairwise_comparison
    if comparison is None:
        if len(data.systems) < 2:
            return "<p>One system: nothing to compare.</p>"
        reasons = "".join(f" {e(where)}: {e(reason)}." for where, reason in data.untestable.items())
        return f"<p>No significance matrix.{reasons}</p>"
    figs = figs or report_figures(data)
    s = data.settings
    pairs = len(data.systems) * (len(data.systems) - 1) // 2
    if s.get("family", "per_measure") == "all":
        pairs *= len(comparison.measures)
    out = [f'<p class="note">Adjusted p-values of the {e(TEST_REGISTRY.get(s["test"]).phrase)} between every '
           f"pair of systems on the per-topic values, {e(_family_words(s, pairs))}{e(_missing_words(s))}; dark "
           f"cells are below α = {s['alpha']:g}. "
           + ("These are a different family from the comparisons with the baseline in the results table, so "
              "the same pair may have a different adjusted p-value there. " if len(data.systems) > 2 else "")
           + f"The random seed is {s['seed']}.{_identical_words(data)}</p>"]
    heatmaps = []
    for i, measure in enumerate(comparison.measures):
        name = next(k for k in figs if k.startswith(f"pvalues-{i}-"))
        size = int(figs[name].layout.height)
        heatmaps.append(f"<div><h3>{e(measure)}</h3>"
                        + figure_html(figs[name], f"fig-pvalues-{i}", "figure small", f"height:{size}px") + "</div>")
    out.append('<div class="grid">' + "".join(heatmaps) + "</div>")
    if data.baseline_comparison is not None:
        out.append(f"<h3>Against the baseline {e(data.baseline)}</h3>")
        out.append(_tests_table(data.baseline_comparison.frame, "baseline-tests"))
    if comparison is not data.baseline_comparison:
        out.append("<details><summary>Every pair</summary>" + _tests_table(comparison.frame, "pairwise-tests")
                   + "</details>")
    return "".join(out)


def topics_html(data: ReportData) -> str:
    """Every per-topic value, one table per measure, topics in trec_eval's order."""
    out = ['<p class="note">Every per-topic value, one table per measure (topics in trec_eval\'s order; '
           "– where a system has no value for the topic).</p>"]
    wide_all = data.per_query.pivot_table(index=["measure", "query"], columns="system", values="value",
                                          aggfunc="first", sort=False)
    decimals = dict(data.table.decimals)
    for i, measure in enumerate(data.labels):
        if measure not in wide_all.index.get_level_values(0):
            continue
        wide = wide_all.loc[measure]
        places = 0 if decimals.get(measure) == 0 else 4
        rows = []
        for topic in sorted(wide.index.astype(str)):
            row = [f'<th scope="row">{e(topic)}</th>']
            for system in data.systems:
                value = wide.at[topic, system] if system in wide.columns else np.nan
                if value is None or not np.isfinite(value):
                    row.append('<td class="num">–</td>')
                else:
                    row.append(f'<td class="num" data-system="{e(system)}" data-query="{e(topic)}" '
                               f'data-measure="{e(measure)}" data-value="{float(value)!r}">{num(value, places)}</td>')
            rows.append(row)
        body = table(["topic", *data.systems], rows, numeric=[False, *[True] * len(data.systems)],
                     attrs=f' id="topics-{i}"')
        out.append(f"<details{' open' if i == 0 else ''}><summary>{e(measure)}</summary>{body}</details>")
    return "".join(out)


def notes_html(data: ReportData) -> str:
    """The review notes: tags and comment per topic."""
    rows = []
    for topic, note in data.notes.items():
        tags = "".join(f'<span class="tag">{e(t)}</span>' for t in note["tags"])
        rows.append([e(topic), tags, e(note["comment"]).replace("\n", "<br>")])
    return table(["topic", "tags", "comment"], rows, attrs=' id="review-notes"')


def provenance_html(data: ReportData) -> str:
    """The provenance card as one line of text (empty without a card)."""
    if data.provenance is None:
        return ""
    return f'<p class="note" id="provenance">Provenance: {e(data.provenance.compact())}</p>'


def cautions_html(data: ReportData) -> str:
    """The cautions on the comparison as a list of sentences (empty without any)."""
    if not data.cautions:
        return ""
    items = "".join(f'<li data-code="{e(c.code)}">{e(c.sentence)}</li>' for c in data.cautions)
    return f'<div class="note" id="cautions"><p>Read with care:</p><ul>{items}</ul></div>'


# ---- words and tables --------------------------------------------------------------------------------------


def _family_words(settings: dict, comparisons: int) -> str:
    if TEST_REGISTRY.get(settings["test"]).adjusts_itself:
        return "family-wise over all pairs of systems by construction (no further correction)"
    correction = CORRECTION_REGISTRY.get(settings["correction"])
    if not correction.corrects:
        return "without correction for multiple comparisons"
    where = ("on all measures together" if settings.get("family", "per_measure") == "all"
             else "on each measure")
    return f"{correction.adjusted} over the {comparisons} comparisons between the systems {where}"


def _missing_words(settings: dict) -> str:
    if settings["complete"]:
        return (" (the systems were not all evaluated on the same topics, and a paired test needs both systems "
                "on each topic: the tests evaluate with complete topics, -c, where a topic a run does not answer "
                "scores 0, while the means in the table leave such topics out)")
    return ""


def _identical_words(data: ReportData) -> str:
    frames = [c.frame for c in (data.baseline_comparison, data.pairwise_comparison) if c is not None]
    if not frames:
        return ""
    rows = pd.concat(frames, ignore_index=True)
    rows = rows[rows["statistic"].isna() & (rows["p_value"] == 1.0)].drop_duplicates(["measure", "system_a", "system_b"])
    if rows.empty:
        return ""
    listed = "; ".join(f"{r.system_a} and {r.system_b} on {r.measure}" for r in rows.head(10).itertuples(index=False))
    more = f" and {len(rows) - 10} more" if len(rows) > 10 else ""
    return f" Identical on every topic (no difference to test; p = 1, counted in the correction): {e(listed)}{more}."


def _tests_table(tests: pd.DataFrame, table_id: str) -> str:
    cols = [c for c in ("measure", "system_a", "system_b", "n", "mean_diff", "ci_low", "ci_high", "statistic",
                        "p_value", "p_adjusted", "significant") if c in tests.columns]
    rows = []
    for row in tests[cols].itertuples(index=False):
        cells = []
        for name, value in zip(cols, row):
            if name in ("mean_diff", "statistic", "ci_low", "ci_high"):
                cells.append(f'<td class="num">{num(value)}</td>')
            elif name in ("p_value", "p_adjusted"):
                cells.append(f'<td class="num" data-{name.replace("_", "-")}="{float(value)!r}">{pvalue(value)}</td>')
            elif name == "n":
                cells.append(f'<td class="num">{int(value)}</td>')
            elif name == "significant":
                cells.append("yes" if bool(value) else "no")
            else:
                cells.append(f'<td data-{name.replace("_", "-")}="{e(value)}">{e(value)}</td>')
        rows.append(cells)
    head = {"mean_diff": "mean difference (b − a)", "p_adjusted": "adjusted p", "p_value": "p",
            "system_a": "system a", "system_b": "system b", "n": "topics", "ci_low": "95% CI low",
            "ci_high": "95% CI high"}
    numeric = [c in ("n", "mean_diff", "ci_low", "ci_high", "statistic", "p_value", "p_adjusted") for c in cols]
    return table([head.get(c, c) for c in cols], rows, numeric=numeric, attrs=f' id="{table_id}"')
