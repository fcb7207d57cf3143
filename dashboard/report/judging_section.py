"""The report's judging section: each judging task of the collection, what it is, how far it went, how far its
assessors agree, and the conclusion under its judgments so far (:class:`dashboard.exports.judgments.TaskRecord`,
numbers computed elsewhere: the section only lays them out, every text escaped)."""

from __future__ import annotations

from collections.abc import Sequence

from dashboard.report.markup import e, num, table

__all__ = ["judging_html"]


def judging_html(records: Sequence) -> str:
    """One part per task, newest first: the task, its progress, its agreement and its conclusion."""
    return "".join(_task_html(i, r) for i, r in enumerate(records))


def _task_html(i: int, r) -> str:
    s, c, a, firm = r.settings, r.counts, r.agreement, r.conclusion
    needed = firm["needed"]
    fields = [("method", e(r.method)), ("assessors", e(", ".join(r.assessors) or "whoever may judge")),
              ("budget", e(s.get("budget") or "every document")), ("share judged twice", num(s.get("overlap", 0), 2)),
              ("topics", e(", ".join(s.get("topics") or []) or "every topic of the runs")),
              ("grades", e(r.scale.text())), ("started", e(f"{r.created_at} by {r.created_by}")),
              ("closed", "yes" if r.closed else "no")]
    progress = [("documents dealt", c["dealt"]), ("documents judged", c["documents"]), ("judgments", c["judgments"]),
                ("documents judged twice", a["twice"]), ("of them graded differently", a["apart"])]
    pairs = firm["pairs"]
    out = [f'<h3 id="judging-{i}">{e(r.name)}</h3>', table(["field", "value"], fields, attrs=f' id="judging-{i}-task"'),
           "<h4>Progress and agreement</h4>",
           table(["", "count"], [[e(k), f'<td class="num">{v:,}</td>'] for k, v in progress], numeric=[False, True]),
           f"<p>Krippendorff's α (ordinal) on the documents judged twice: {num(a['alpha'])}.</p>",
           "<h4>The conclusion so far</h4>",
           f"<p>{e(firm['measure'])}: {int(pairs['decided'].sum())} of {len(pairs)} pairs decided at "
           f"{firm['confidence']:.0%} ({e(firm['model'])}); judgments still needed (estimate): "
           f"{'more than there are' if needed != needed else f'{needed:,.0f}'}.</p>",
           table(["better", "worse", "probability", "decided"],
                 [[e(p.better), e(p.worse), f'<td class="num">{num(p.probability)}</td>', "yes" if p.decided else "no"]
                  for p in pairs.itertuples(index=False)], numeric=[False, False, True, False],
                 attrs=f' id="judging-{i}-pairs"'),
           table(["system", "Judged@10 before", "Judged@10 now"],
                 [[e(x.system), f'<td class="num">{num(x.judged_before)}</td>',
                   f'<td class="num">{num(x.judged_after)}</td>'] for x in firm["runs"].itertuples(index=False)],
                 numeric=[False, True, True], attrs=f' id="judging-{i}-runs"')]
    return "".join(out)
