"""The report's page: the numbers of :func:`metrics.review.report.compute_report` drawn as one HTML document.

:func:`render_report` assembles the sections in order: the manifest and the collection (here), the
results, curves, significance, per-topic values and review notes (:mod:`dashboard.report.sections`).
:func:`build_report` and :func:`write_report` compute and render in one call.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping, Sequence
from typing import Any

from metrics.conventions import Conventions
from metrics.evaluate import DEFAULT_MEASURES
from metrics.io.files import write_atomic
from metrics.io.redaction import redact_all
from metrics.io.metadata import metadata_rows
from metrics.review.manifest import Manifest
from metrics.review.report import GAIN_DEPTH, ReportData, Source, compute_report

from dashboard.report.judging_section import judging_html
from dashboard.report.markup import CSP, STYLE, e, table
from dashboard.report.sections import (curves_html, notes_html, report_figures, results_html, significance_html,
                                       topics_html)

__all__ = ["build_report", "render_report", "write_report"]


def build_report(qrels: Source, runs: Mapping[str, Source] | Sequence[Source], measures: Any = DEFAULT_MEASURES,
                 conventions: Conventions | None = None, baseline: str | None = None, test: str = "t",
                 correction: str = "holm", alpha: float = 0.05, seed: int = 0,
                 notes: Mapping[str, Any] | None = None, *,
                 title: str = "rankscope report", command: Sequence[str] | None = None,
                 qrels_name: str | None = None, file_names: Mapping[str, str] | None = None,
                 n_resamples: int = 10_000, gain_depth: int = GAIN_DEPTH) -> str:
    """Evaluate runs and return one self-contained HTML report.

    Parameters
    ----------
    qrels, runs, measures, conventions, baseline, test, correction, alpha, seed, notes
        As for :func:`metrics.review.report.compute_report`.
    title : str, default="rankscope report"
        The report's title (escaped).
    command, qrels_name, file_names, n_resamples, gain_depth
        As for :func:`metrics.review.report.compute_report`.

    Returns
    -------
    str
        The HTML document (UTF-8 text; write it with ``encoding="utf-8"``).

    Raises
    ------
    RankscopeError
        Unreadable input (ParseError), a baseline that is not a system, a bad option (ValidationError),
        an unknown measure.
    """
    data = compute_report(qrels, runs, measures, conventions, baseline, test, correction, alpha, seed, notes,
                          command=command, qrels_name=qrels_name, file_names=file_names,
                          n_resamples=n_resamples, gain_depth=gain_depth)
    return render_report(data, title=title)


def write_report(path: str | os.PathLike, *args: Any, **kwargs: Any) -> int:
    """Write :func:`build_report`'s HTML to ``path`` (UTF-8); returns the size in bytes."""
    text = build_report(*args, **kwargs).encode("utf-8")
    write_atomic(path, text)
    return len(text)


def render_report(data: ReportData, title: str = "rankscope report", judging: Sequence = (),
                  figures: Mapping[str, Any] | None = None) -> str:
    """The HTML of a report from :func:`metrics.review.report.compute_report`'s numbers.

    Parameters
    ----------
    data : ReportData
    title : str, default="rankscope report"
        Escaped.
    judging : sequence of TaskRecord, optional
        The collection's judging tasks (:class:`dashboard.exports.judgments.TaskRecord`): a section of their own.
    figures : mapping, optional
        :func:`dashboard.report.sections.report_figures` of ``data``, when the caller has built them already
        (read, never changed); built here otherwise.

    Returns
    -------
    str
        One HTML document: plotly.js inlined once, every figure drawn by an inline script from data on the
        page, a Content-Security-Policy that forbids fetching anything, no CDN, font or MathJax.
    """
    from plotly.offline import get_plotlyjs

    m = data.manifest
    figs = report_figures(data) if figures is None else figures
    sections = [
        ("manifest", "Manifest", _manifest_html(m)),
        ("collection", "Collection", _collection_html(data)),
        ("results", "Results", results_html(data)),
        ("curves", "Curves", curves_html(data, figs)),
        ("significance", "Significance", significance_html(data, figs)),
        ("topics", "Per-topic values", topics_html(data)),
    ]
    if judging:
        sections.append(("judging", "Judging", judging_html(judging)))
    if data.notes:
        sections.append(("notes", "Review notes", notes_html(data)))
    toc = "".join(f'<li><a href="#{sid}">{e(name)}</a></li>' for sid, name, _ in sections)
    body = "".join(f'<section id="{sid}"><h2>{e(name)}</h2>{content}</section>' for sid, name, content in sections)
    subtitle = (f"{len(data.systems)} system{'s' if len(data.systems) != 1 else ''} · "
                f"{data.collection.n_topics} judged topics · {len(data.labels)} measure"
                f"{'s' if len(data.labels) != 1 else ''} · {e(data.conventions.describe())} · "
                f"rankscope {e(m.rankscope_version)} · {e(m.created_utc)}")
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        '<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="generator" content="rankscope">\n'
        f"<title>{e(title)}</title>\n<style>{STYLE}</style>\n"
        "<script>window.PlotlyConfig = {MathJaxConfig: 'local'};</script>\n"
        f'<script type="text/javascript">{get_plotlyjs()}</script>\n'
        "</head>\n<body>\n<main>\n"
        f"<h1>{e(title)}</h1>\n<p class=\"sub\">{subtitle}</p>\n"
        f"<nav><ol>{toc}</ol></nav>\n{body}\n"
        "</main>\n</body>\n</html>\n"
    )


def _manifest_html(m: Manifest) -> str:
    d = m.to_dict()
    general = [
        ("rankscope version", e(m.rankscope_version)),
        ("created (UTC)", e(m.created_utc)),
        ("conventions", "<br>".join(f"{e(k)} = {e(v)}" for k, v in d["conventions"].items())),
        ("random seeds", ", ".join(f"{e(k)} = {e(v)}" for k, v in d["seeds"].items()) or "none used"),
        ("significance tests", ", ".join(f"{e(k)} = {e(v)}" for k, v in d["tests"].items()
                                         if k not in ("measures",)) or "none run"),
    ]
    if m.invocation:  # credentials masked (a manifest of an older rankscope may hold them)
        general.append(("made by", f"<code>{e(shlex.join(redact_all(m.invocation)))}</code>"))
    out = [table(["field", "value"], general, attrs=' id="manifest-table"')]
    out.append("<h3>Files</h3>")
    files = [m.qrels, *m.runs]
    out.append(table(["role", "system", "file", "bytes", "SHA-256"],
                      [[e(f.role), e(f.system or ""), e(f.name), f'<td class="num">{f.size}</td>',
                        f'<td class="hash">{e(f.sha256)}</td>'] for f in files],
                      numeric=[False, False, False, True, False], attrs=' id="manifest-files"'))
    described = [f for f in m.runs if f.ir_metadata is not None]
    if described:
        out.append("<h3>How the runs were made</h3><p class=\"note\">Each run's ir_metadata block (PRIMAD: "
                   "platform, research goal, implementation, method, actor, data), as its file gives it.</p>")
    for f in described:
        out.append(f"<h4>{e(f.system or f.name)}</h4>")
        out.append(table(["key", "value"], [[e(key), e(value)] for key, value in metadata_rows(f.ir_metadata)],
                         attrs=' class="ir-metadata"'))
    out.append("<h3>Measures</h3>")
    out.append(table(["label", "measure", "trec_eval name", "parameters"],
                      [[e(r.label), f"<code>{e(r.name)}</code>", e(r.trec_label or "–"),
                        ", ".join(f"{e(k)}={e(v)}" for k, v in r.params) or "–"] for r in m.measures],
                      attrs=' id="manifest-measures"'))
    out.append("<h3>Reproduce</h3><p class=\"note\">Run from the directory the report was made in; each "
               "command prints numbers this report shows (the per-topic values and the means, and the "
               "paired tests). Check the files first with <code>sha256sum</code> against the digests above.</p>")
    out.append(f'<pre id="reproduce-eval"><code>{e(m.eval_command)}</code></pre>')
    for i, command in enumerate(m.compare_commands):
        out.append(f'<pre id="reproduce-compare-{i}"><code>{e(command)}</code></pre>')
    if dict(m.tests).get("complete"):
        out.append('<p class="note">The compare commands evaluate with complete topics (<code>-c</code>): the runs '
                   "were not evaluated on the same topics, and the paired tests score a topic a run did not "
                   "answer 0 (see Significance).</p>")
    if m.caveats:
        out.append("<p class=\"note\">Caveats:</p><ul>" + "".join(f"<li>{e(c)}</li>" for c in m.caveats) + "</ul>")
    out.append('<details><summary>The manifest as JSON</summary>'
               f'<pre id="manifest-json"><code>{e(m.to_json())}</code></pre></details>')
    return "".join(out)


def _collection_html(data: ReportData) -> str:
    c = data.collection
    out = [f"<p>{c.n_topics} judged topics, {c.n_judged} judgments.</p>", "<h3>Judgments per grade</h3>",
           table(["grade", "documents", "topics"],
                  [[f'<td class="num">{e(r.grade)}</td>', f'<td class="num">{r.documents}</td>',
                    f'<td class="num">{r.topics}</td>'] for r in c.grades.itertuples(index=False)],
                  numeric=[True, True, True]),
           "<h3>Runs</h3>",
           table(["system", "topics", "judged topics answered", "documents", "min depth", "max depth",
                   "judged share"],
                  [[e(r.system), f'<td class="num">{r.topics}</td>',
                    f'<td class="num">{r.judged_topics_answered} / {c.n_topics}</td>',
                    f'<td class="num">{r.documents}</td>', f'<td class="num">{r.min_depth}</td>',
                    f'<td class="num">{r.max_depth}</td>', f'<td class="num">{r.judged_share:.1%}</td>']
                   for r in c.systems.itertuples(index=False)],
                  numeric=[False, True, True, True, True, True, True]),
           "<h3>Lint</h3>"]
    if len(data.lint):
        warnings = int((data.lint["severity"] == "warning").sum())
        out.append(f"<p>{warnings} warning(s), {len(data.lint) - warnings} note(s): legal but suspicious things "
                   "in the input, and what each does to the numbers.</p>")
        out.append(table(["severity", "source", "finding", "count", "examples"],
                          [[f'<td class="{e(r.severity)}">{e(r.severity)}</td>', e(r.source), e(r.message),
                            f'<td class="num">{r.count}</td>', e(r.examples)]
                           for r in data.lint.itertuples(index=False)],
                          numeric=[False, False, False, True, False], attrs=' id="lint"'))
    else:
        out.append("<p>No findings.</p>")
    return "".join(out)
