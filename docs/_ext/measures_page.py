"""The measures page, written from the measure registry: nothing on it is typed by hand.

For each registered measure (:func:`metrics.list_measures`, in the registry's order): its title and
description, its formula (the declaration's ``latex``, which the site writes as MathML), its
parameters with their defaults and ranges, its conventions (direction, how it aggregates over topics, its
range, the value of a perfect ranking), its trec_eval names and ir_measures' spellings, and its value on one
worked example ranking, evaluated by :func:`metrics.evaluate` and worked through by
:mod:`metrics.teaching` where the teaching module knows the measure. Then the table of names that differ
between rankscope, ir_measures and trec_eval (:func:`metrics.measures.per_query.names_table`).
"""

from __future__ import annotations

import math

from text import escape

# The worked example: the grade of the document at each rank (None: not judged), and the grades of the
# relevant documents the ranking misses (they count in recall, AP and the ideal ranking).
GRADES = (3, 0, 2, None, 1, 0, 0, 2, None, 1)
MISSED = (2, 1)
CUTOFF = len(GRADES)  # the cutoff of the example spelling of a measure that takes one: the whole ranking

TEXT = """# Measures

Every measure rankscope computes, written from the measure registry (`metrics.list_measures()`; on the
command line `rankscope measures`), so this page never disagrees with the code. A measure is named in
ir_measures' syntax (`P@10`, `nDCG(gain="exp")@10`, `AP(rel=2)`) or by its trec_eval name (`P_10`,
`ndcg_cut_10`, `map`): both name the same measure everywhere rankscope takes one (`-m`, `metrics.evaluate`,
claims, the dashboard's pickers). The conventions that change numbers (ties, relevance level, depth, the
interpolation rule) are on [Conventions](conventions.md).

## The worked example

Each measure below is evaluated on one ranking of ten documents for one topic, by `metrics.evaluate` on the
qrels and run that `metrics.teaching.worked.ranking_files` writes for it: documents `d1` to `d10` ranked in
that order with grades {grades} (`-`: not judged), and two relevant documents the ranking misses (`m1`, `m2`,
grades {missed}), so R = {num_rel} relevant documents at grade 1 or more. Its anatomy, rank by rank
(`metrics.teaching.anatomy.anatomy`, as the learn page shows it):

{anatomy}

Where the teaching module works a measure through (`metrics.teaching.worked.worked`), its formula is shown
again with this ranking's numbers.

"""


def measures_page() -> str:
    """The whole page, as Markdown with MathML."""
    import metrics
    from metrics.measures.per_query import names_table
    from metrics.teaching.anatomy import anatomy
    from metrics.teaching.worked import ranking_files, worked

    qrels, run = ranking_files(list(GRADES), list(MISSED))
    rankings = metrics.rank_runs(qrels, {"example": run})[0]
    table = anatomy(rankings, "1")
    num_rel = sum(1 for g in GRADES if g) + len(MISSED)
    worked_through = {w.measure: w for w in worked(table, num_rel)}
    shown = table[["rank", "docid", "grade", "precision", "recall", "ap", "dcg", "ndcg", "err"]].copy()
    shown["grade"] = ["-" if g != g else str(int(g)) for g in shown["grade"]]  # NaN: not judged
    out = [TEXT.format(grades=", ".join("-" if g is None else str(g) for g in GRADES),
                       missed=" and ".join(map(str, MISSED)), num_rel=num_rel, anatomy=_table(shown))]
    out.append("## Every measure\n\n" + " · ".join(f"[{cls.name}](#{anchor(cls)})" for cls in metrics.list_measures())
               + "\n")
    for cls in metrics.list_measures():
        out.append(_section(cls, qrels, run, worked_through))
    out.append("## ir_measures' names\n\nThe spellings that ir_measures and rankscope write differently, or whose "
               "values differ, generated from each measure's declared `ir_measures` spellings "
               "(`metrics.measures.per_query.names_table`; the oracle tests check every value against "
               "ir_measures' own, per query):\n\n" + names_table())
    return "\n".join(out)


def example_spelling(cls) -> str:
    """How the worked example names ``cls``: with the example cutoff where it takes one."""
    names = {p.name for p in cls.params}
    if "cutoff" in names:
        return f"{cls.name}@{CUTOFF}"
    if "k" in names:
        return f"{cls.name}(k={CUTOFF})"
    return cls.name


def _section(cls, qrels: str, run: str, worked_through: dict) -> str:
    import metrics

    mine = [w for w in worked_through.values() if type(metrics.parse_measure(w.measure)) is cls]
    spelling = mine[0].measure if mine else example_spelling(cls)  # the teaching module's own, where it has one
    label = metrics.resolve_measures([spelling])[0][0]
    value = float(metrics.evaluate(qrels, {"example": run}, [spelling])["value"].iloc[0])
    rows = [("names", ", ".join(f"`{n}`" for n in (cls.name, *cls.aliases))),
            ("parameters", ", ".join(f"`{p.name}`" for p in cls.params) or "none"),
            ("direction", "higher is better" if cls.higher_is_better else "lower is better"),
            ("over topics", _AGGREGATION[cls.aggregation]),
            ("range", _bounds(cls.bounds)),
            ("perfect ranking", "depends on the collection" if cls.perfect is None else _number(cls.perfect)),
            ("trec_eval", ", ".join(_trec(t, cls) for t in cls.trec) or "none"),
            ("ir_measures", ", ".join(_ir_measures(s, cls) for s in cls.ir_measures) or "none")]
    parts = [f"({anchor(cls)})=\n### {escape(cls.pretty_name or cls.name)}: `{cls.name}`\n",
             f"{escape(cls.description)}\n", _math(cls.latex),
             "| declared | |\n|---|---|\n" + "".join(f"| {k} | {v} |\n" for k, v in rows),
             "".join(f"- {_param(p, cls)}\n" for p in cls.params),
             f"On the worked example, `{label}` = **{_number(value)}**."]
    for w in mine:
        parts.append(f"Worked through (`{w.measure}`):\n\n" + _math(w.substituted))
    return "\n".join(parts) + "\n"


def anchor(cls) -> str:
    """The id of a measure's section: ``measure-`` and its name as docutils writes an id (``measure-ndcg``,
    ``measure-ap-resid``)."""
    from docutils.nodes import make_id

    return make_id(f"measure-{cls.name}")


def _math(latex: str) -> str:
    return f"```{{math}}\n{latex.strip()}\n```\n"


_AGGREGATION = {"mean": "the mean of the topics' values", "sum": "the sum of the topics' values",
                "gmean": "the geometric mean (values floored at 1e-5, as trec_eval's `gm_` measures)",
                "median": "the median of the topics' values"}


def _param(p, cls) -> str:
    kind = p.type.__name__
    limits = []
    if p.choices:
        limits.append("one of " + ", ".join(f"`{c}`" for c in p.choices))
    if p.min is not None:
        limits.append(f"≥ {_number(p.min)}")
    if p.max is not None:
        limits.append(f"≤ {_number(p.max)}")
    default = "" if p.default in (None, ()) else f", default `{p.default!r}`"
    at = " (written after `@`)" if p.name == cls.at else ""
    help_ = f": {escape(p.help)}" if p.help else ""
    return f"`{p.name}` ({kind}{', ' + ', '.join(limits) if limits else ''}{default}){at}{help_}"


def _trec(t, cls) -> str:
    if t.param is None:
        text = f"`{t.name}`"
    else:
        sample = t.defaults[0] if t.defaults else next((p.default for p in cls.params if p.name == t.param), 1)
        text = f"`{t.name}_{t.fmt.format(sample)}`"
        if t.defaults:
            text += f" (`-m {t.name}` prints {', '.join(t.fmt.format(d) for d in t.defaults)})"
    if t.version > 9:
        text += f" (trec_eval {t.version} only)"
    return text


def _ir_measures(spelling: str, cls) -> str:
    differs = cls.ir_measures_differs.get(spelling)
    return f"`{spelling}`" + (f" (values differ: {escape(differs)})" if differs else "")


def _bounds(bounds) -> str:
    low, high = bounds
    if low is None and high is None:
        return "unbounded"
    if high is None:
        return f"{_number(low)} or more"
    if low is None:
        return f"at most {_number(high)}"
    return f"{_number(low)} to {_number(high)}"


def _number(value: float) -> str:
    if isinstance(value, float) and math.isnan(value):
        return "undefined"
    return f"{value:.4f}".rstrip("0").rstrip(".") if value != int(value) else str(int(value))




def _table(frame) -> str:
    head = "| " + " | ".join(frame.columns) + " |\n|" + "---:|" * len(frame.columns) + "\n"
    rows = []
    for row in frame.itertuples(index=False):
        cells = []
        for v in row:
            if isinstance(v, float):
                cells.append("-" if math.isnan(v) else f"{v:.4f}")
            else:
                cells.append(str(v))
        rows.append("| " + " | ".join(cells) + " |")
    return head + "\n".join(rows) + "\n"
