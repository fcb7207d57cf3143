"""The teaching pages' charts: one ranking rank by rank, one topic under each convention's choices, a
class's answers to a question, and the grades a class gave each document it judged."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dashboard.figures._style import BETTER, OKABE_ITO, UNIT, base_figure, safe

__all__ = ["ANSWERS_TOP", "ANSWER_ROW", "anatomy_chart", "answers_chart", "class_grades_chart", "convention_chart"]

ANSWERS_TOP = 190  # pixels of the answers chart beside its bars (title, axis, margins)
ANSWER_ROW = 44  # pixels of the answers chart per answer


def anatomy_chart(table: pd.DataFrame, columns: Sequence[str], title: str) -> go.Figure:
    """Running values of a ranking against rank (columns rank and each name in ``columns``)."""
    fig = base_figure(title, "rank i", f"value of the top i {UNIT}")
    for i, name in enumerate(columns):
        fig.add_trace(go.Scatter(x=table["rank"], y=table[name], mode="lines+markers", name=name,
                                 line=dict(color=OKABE_ITO[i % len(OKABE_ITO)], width=2.5),
                                 hovertemplate=f"rank %{{x}}<br>{name} %{{y:.4f}}<extra></extra>"))
    fig.update_xaxes(dtick=1 if len(table) <= 25 else None)
    fig.update_yaxes(range=[-0.02, 1.04])
    return fig


def convention_chart(effects: pd.DataFrame, title: str) -> go.Figure:
    """One topic's numbers under each convention's choices (columns convention, choice, measure, value,
    default): trec_eval's choice in blue, the others in orange."""
    labels = [f"{safe(m)} · {safe(c)}: {safe(ch)}" for c, ch, m in
              zip(effects["convention"], effects["choice"], effects["measure"])]
    colors = np.where(effects["default"].to_numpy(dtype=bool), OKABE_ITO[0], OKABE_ITO[1])
    fig = base_figure(title, f"value {UNIT}", "", height=140 + 34 * max(len(effects), 1), showlegend=False)
    fig.add_trace(go.Bar(x=effects["value"], y=labels, orientation="h", marker_color=colors,
                         customdata=np.stack([[safe(m) for m in effects["measure"]]], axis=1),
                         text=[f"{v:.4f}" for v in effects["value"]], textposition="auto",  # inside a long bar
                         hovertemplate="%{y}<br>%{customdata[0]} = %{x:.6f}<extra></extra>"))
    fig.update_yaxes(autorange="reversed")
    fig.update_xaxes(range=[0, max(1.0, float(effects["value"].max()) * 1.15) if len(effects) else 1.0])
    return fig


def answers_chart(bars, right_answer: str, title: str) -> go.Figure:
    """A class's answers to one question (:class:`metrics.teaching.reveal.Bar` rows: label, count, verdict):
    one bar per answer, in their order from the top, with its count written beside it (nothing needs
    hovering), the right answer in green, answers matching a known mistake in orange, others in grey.

    The bars lie along the answers, each answer's label (and its verdict) written level at its left, and the
    figure grows with the number of answers: labels turned upright under standing bars took most of a
    projector's figure, leaving the bars a strip."""
    labels = [safe(b.label) for b in bars]
    colors = [BETTER if b.verdict == "right" else "#999999" if b.verdict == "other" else OKABE_ITO[1] for b in bars]
    names = ["right" if b.verdict == "right" else "other" if b.verdict == "other" else "a known mistake"
             for b in bars]
    most = max([b.count for b in bars], default=0)
    fig = base_figure(title, "students", "", showlegend=False, height=ANSWERS_TOP + ANSWER_ROW * max(len(bars), 2))
    fig.add_trace(go.Bar(y=[f"{label} ({name})" if name != "other" else label for label, name in zip(labels, names)],
                         x=[b.count for b in bars], orientation="h", marker_color=colors,
                         text=[str(b.count) for b in bars], textposition="outside", cliponaxis=False,
                         hovertemplate="%{y}: %{x} students<extra></extra>"))
    fig.update_xaxes(rangemode="tozero", range=[0, max(most, 1) * 1.12], dtick=1 if most <= 10 else None)
    fig.update_yaxes(type="category", autorange="reversed", automargin=True)
    fig.add_annotation(text=f"right answer: {safe(right_answer)}", xref="paper", yref="paper", x=1, y=1.02,
                       showarrow=False, xanchor="right", yanchor="bottom", font=dict(size=16, color=BETTER))
    return fig


def class_grades_chart(counts: pd.DataFrame, reference: dict, title: str) -> go.Figure:
    """The grades a class gave each document (``docid``, ``grade``, ``label``, ``count`` rows, as
    :func:`metrics.judgments.assessors.grade_counts` gives them): one bar per document, its students split by
    grade from the lowest, one colour per grade, each count written in its part; the reference's grade
    (``reference``: docid -> grade) beside the document's name."""
    docs = list(dict.fromkeys(counts["docid"]))
    names = [f"{i}. {safe(d)}" + (f" (ref. {reference[d]})" if d in reference else "") for i, d in enumerate(docs, 1)]
    where = dict(zip(docs, names))
    grades = list(dict.fromkeys(counts["grade"]))
    fig = base_figure(title, "students", "", height=ANSWERS_TOP + ANSWER_ROW * max(len(docs), 2))
    for i, grade in enumerate(grades):
        part = counts[counts["grade"] == grade]
        label = safe(str(part["label"].iloc[0]))
        fig.add_trace(go.Bar(y=[where[d] for d in part["docid"]], x=part["count"], orientation="h",
                             name=f"{grade} {label}", marker_color=OKABE_ITO[i % len(OKABE_ITO)],
                             text=[str(c) if c else "" for c in part["count"]], textposition="inside",
                             hovertemplate=f"%{{y}}<br>grade {grade} ({label}): %{{x}} students<extra></extra>"))
    fig.update_layout(barmode="stack", legend=dict(orientation="h", yanchor="bottom", y=1.0, x=0))
    fig.update_yaxes(type="category", autorange="reversed", automargin=True)
    return fig
